package openaimodel_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
)

const liveKey = "sk-live-SECRET1234567890"

func TestRedactURL(t *testing.T) {
	tests := []struct{ give, want string }{
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"https://user:hunter22@api.example.com/v1", "https://[redacted]@api.example.com/v1"},
		{"http://token@localhost:8080", "http://[redacted]@localhost:8080"},
		{`Post "https://u:p%40ss@h/v1/chat": dial tcp`, `Post "https://[redacted]@h/v1/chat": dial tcp`},
		{"not a url: user@example.com", "not a url: user@example.com"},
		{"::bad://x:y@z", "::bad://[redacted]@z"},
	}
	for _, tt := range tests {
		if got := openaimodel.RedactURL(tt.give); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// TestErrorsNeverShowTheAPIKey protects the key from error texts: a
// provider error that echoes it, and a connection error naming a base URL
// with a password, are returned with both removed and still unwrap as
// before.
func TestErrorsNeverShowTheAPIKey(t *testing.T) {
	p := newProvider(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + liveKey + `. Check user:hunter22"}}`})
	m := p.model(t, func(c *openaimodel.Config) {
		c.APIKey = liveKey
		c.BaseURL = strings.Replace(p.srv.URL, "http://", "http://user:hunter22@", 1) + "/v1"
	})
	_, err := m.Generate(context.Background(), simpleRequest())
	if err == nil || strings.Contains(err.Error(), liveKey) || strings.Contains(err.Error(), "hunter22") || !errors.Is(err, openaimodel.ErrAPI) {
		t.Fatalf("error = %v; want ErrAPI without the key or the password", err)
	}
	if !strings.Contains(err.Error(), "401 Unauthorized: Incorrect API key provided: "+openaimodel.Redacted) {
		t.Errorf("error = %q, want the provider's message with the key redacted", err)
	}

	// A connection error names the URL (the standard library hides only the
	// password).
	srv := httptest.NewServer(http.NotFoundHandler())
	url := strings.Replace(srv.URL, "http://", "http://alice-the-user:hunter22@", 1)
	srv.Close()
	m2, err := openaimodel.New(openaimodel.Config{BaseURL: url, Model: "m", APIKey: liveKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m2.Generate(context.Background(), simpleRequest())
	if err == nil || strings.Contains(err.Error(), "alice-the-user") || strings.Contains(err.Error(), "hunter22") {
		t.Fatalf("connection error = %v; want no user information", err)
	}

	// A bad base URL in the configuration is named without its password.
	_, err = openaimodel.New(openaimodel.Config{Model: "m", BaseURL: "ftp://bob:hunter22@x"})
	if err == nil || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("config error = %v; want no password", err)
	}
}

// TestResponseBodyIsBounded protects the process from an endpoint that
// sends a huge reply: past MaxResponseBytes the request fails with
// ErrResponseTooLarge, whether the length was declared or streamed.
func TestResponseBodyIsBounded(t *testing.T) {
	big := `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("x", 4096) + `"}}]}`
	for _, chunked := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			if chunked {
				w.(http.Flusher).Flush()
			}
			io.WriteString(w, big)
		}))
		m := newModel(t, openaimodel.Config{BaseURL: srv.URL, Model: "m", MaxResponseBytes: 1024, HTTPClient: srv.Client()}, nil)
		_, err := m.Generate(context.Background(), simpleRequest())
		if !errors.Is(err, openaimodel.ErrResponseTooLarge) {
			t.Errorf("chunked=%t: error = %v, want ErrResponseTooLarge", chunked, err)
		}
		// Under the limit it works.
		m, _ = openaimodel.New(openaimodel.Config{BaseURL: srv.URL, Model: "m", MaxResponseBytes: int64(len(big)), HTTPClient: srv.Client()})
		if resp, err := m.Generate(context.Background(), simpleRequest()); err != nil || len(resp.Text) != 4096 {
			t.Errorf("chunked=%t: a body at the limit: %v", chunked, err)
		}
		srv.CloseClientConnections()
		srv.Close()
	}
}

// TestSilentEndpointTimesOut protects a piped run from an endpoint that
// never answers: the request timeout ends the call.
func TestSilentEndpointTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	m := newModel(t, openaimodel.Config{BaseURL: srv.URL, Model: "m", Timeout: 100 * time.Millisecond, HTTPClient: srv.Client()}, nil)
	start := time.Now()
	if _, err := m.Generate(context.Background(), simpleRequest()); err == nil {
		t.Fatal("a silent endpoint answered")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %s", d)
	}
}
