package openaimodel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// BenchmarkGenerate measures the adapter's own cost (mapping the request,
// the SDK's encoding and decoding) for a 20-message transcript with 5
// tools, with an in-process transport instead of a network.
func BenchmarkGenerate(b *testing.B) {
	body := `{"choices":[{"message":{"content":"ok","tool_calls":[{"id":"a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}}]}`
	m, err := openaimodel.New(openaimodel.Config{
		BaseURL:    "http://provider.invalid/v1",
		Model:      "m",
		HTTPClient: &http.Client{Transport: roundTrip{status: 200, body: body}},
	})
	if err != nil {
		b.Fatal(err)
	}
	req := refhost.Request{System: "system prompt"}
	for i := range 5 {
		req.Tools = append(req.Tools, host.ToolDefinition{
			Name:        fmt.Sprintf("tool%d", i),
			Description: "A tool.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		})
	}
	for i := range 10 {
		req.Messages = append(req.Messages,
			refhost.Message{Role: refhost.RoleUser, Content: []host.Block{host.TextBlock(fmt.Sprintf("message %d", i))}},
			refhost.Message{Role: refhost.RoleAssistant, Text: "answer"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
