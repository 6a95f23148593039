package openaimodel_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
)

// roundTrip answers every request with a fixed status and body, without a
// network.
type roundTrip struct {
	status int
	body   string
}

func (rt roundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: rt.status,
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(strings.NewReader(rt.body)),
		Request:    r,
	}, nil
}

// FuzzGenerateResponse feeds arbitrary provider answers to Generate: it
// never panics, and every tool call it returns carries a JSON object as its
// arguments (so the host can log it).
func FuzzGenerateResponse(f *testing.F) {
	seeds := []string{
		`{"choices":[{"message":{"content":"hi"}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{\"a\":1}"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"null"}}]}}]}`,
		`{"choices":[]}`, `{}`, `null`, `[`, ``, `{"error":{"message":"x"}}`,
	}
	for _, s := range seeds {
		f.Add(200, s)
	}
	f.Add(429, `{"error":{"message":"slow down"}}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 200 || status > 599 {
			status = 200
		}
		m, err := openaimodel.New(openaimodel.Config{
			BaseURL:    "http://provider.invalid/v1",
			Model:      "m",
			HTTPClient: &http.Client{Transport: roundTrip{status: status, body: body}},
		})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.Generate(context.Background(), simpleRequest())
		if err != nil {
			return
		}
		for _, c := range resp.ToolCalls {
			var obj map[string]json.RawMessage
			if json.Unmarshal(c.Input, &obj) != nil || obj == nil {
				t.Fatalf("tool call %s has arguments %q, not a JSON object", c.ID, c.Input)
			}
		}
		if _, err := json.Marshal(resp.ToolCalls); err != nil {
			t.Fatalf("tool calls do not marshal: %v", err)
		}
	})
}
