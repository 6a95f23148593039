package openaimodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is one canned HTTP answer of the fake provider.
type reply struct {
	status int
	header map[string]string
	body   string
}

// provider is a local chat-completions endpoint that records the requests
// it receives and answers with the queued replies in order.
type provider struct {
	t       *testing.T
	srv     *httptest.Server
	client  *http.Client
	mu      sync.Mutex
	replies []reply
	got     []recorded
}

type recorded struct {
	path   string
	auth   string
	body   map[string]any
	rawReq string
}

func newProvider(t *testing.T, replies ...reply) *provider {
	p := &provider{t: t, replies: replies}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	tr := &http.Transport{}
	p.client = &http.Client{Transport: tr}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		p.srv.Close()
	})
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		p.t.Errorf("request body is not JSON: %v", err)
	}
	p.mu.Lock()
	p.got = append(p.got, recorded{path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body, rawReq: string(raw)})
	if len(p.replies) == 0 {
		p.mu.Unlock()
		http.Error(w, `{"error":{"message":"no reply queued"}}`, http.StatusTeapot)
		return
	}
	rep := p.replies[0]
	p.replies = p.replies[1:]
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func (p *provider) model(t *testing.T, mutate func(*openaimodel.Config)) *openaimodel.Model {
	t.Helper()
	return newModel(t, openaimodel.Config{BaseURL: p.srv.URL + "/v1", Model: "test-model", APIKey: "test-key", HTTPClient: p.client}, mutate)
}

// newModel returns a model of cfg, changed first by mutate unless it is nil.
func newModel(t *testing.T, cfg openaimodel.Config, mutate func(*openaimodel.Config)) *openaimodel.Model {
	t.Helper()
	if mutate != nil {
		mutate(&cfg)
	}
	m, err := openaimodel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// completion builds a provider answer with one choice holding message.
func completion(message string) reply {
	return reply{status: 200, body: `{"id":"c1","object":"chat.completion","created":1,"model":"test-model",` +
		`"choices":[{"index":0,"finish_reason":"stop","message":` + message + `}]}`}
}

func simpleRequest() refhost.Request {
	return refhost.Request{
		System: "You are terse.",
		Messages: []refhost.Message{
			{Role: refhost.RoleUser, Content: []host.Block{host.TextBlock("hi")}},
		},
	}
}

func TestGenerateText(t *testing.T) {
	p := newProvider(t, completion(`{"role":"assistant","content":"Hello there."}`))
	resp, err := p.model(t, nil).Generate(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello there." || len(resp.ToolCalls) != 0 {
		t.Errorf("response = %+v", resp)
	}
	got := p.got[0]
	if got.path != "/v1/chat/completions" {
		t.Errorf("path = %q", got.path)
	}
	if got.auth != "Bearer test-key" {
		t.Errorf("Authorization = %q", got.auth)
	}
	wantBody := `{"messages":[{"content":"You are terse.","role":"system"},{"content":"hi","role":"user"}],"model":"test-model"}`
	if canon(t, got.rawReq) != canon(t, wantBody) {
		t.Errorf("request body:\n%s\nwant:\n%s", canon(t, got.rawReq), canon(t, wantBody))
	}
}

func TestGenerateMapsTranscriptAndTools(t *testing.T) {
	p := newProvider(t, completion(`{"role":"assistant","content":""}`))
	req := refhost.Request{
		System: "sys",
		Tools: []host.ToolDefinition{{
			Name:        "read_file",
			Description: "Read a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","maxLength":4096}},"required":["path"]}`),
		}, {
			Name: "noargs",
		}},
		Messages: []refhost.Message{
			{Role: refhost.RoleUser, Content: []host.Block{
				{Type: host.BlockImage, MediaType: "image/png", Data: []byte{1, 2, 3}},
				host.TextBlock("look"),
			}},
			{Role: refhost.RoleAssistant, Text: "Reading.", ToolCalls: []host.ToolCall{
				{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
				{ID: "call_2", Name: "noargs"},
			}},
			{Role: refhost.RoleTool, ToolCallID: "call_1", Text: "package a"},
			{Role: refhost.RoleTool, ToolCallID: "call_2", Text: "Error: boom", IsError: true},
			{Role: refhost.RoleUser, Text: "Summary of earlier work."},
		},
	}
	if _, err := p.model(t, func(c *openaimodel.Config) { c.MaxTokens = 99 }).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	want := `{
	  "max_completion_tokens": 99,
	  "messages": [
	    {"content": "sys", "role": "system"},
	    {"content": [
	      {"image_url": {"url": "data:image/png;base64,AQID"}, "type": "image_url"},
	      {"text": "look", "type": "text"}], "role": "user"},
	    {"content": "Reading.", "role": "assistant", "tool_calls": [
	      {"function": {"arguments": "{\"path\":\"a.go\"}", "name": "read_file"}, "id": "call_1", "type": "function"},
	      {"function": {"arguments": "{}", "name": "noargs"}, "id": "call_2", "type": "function"}]},
	    {"content": "package a", "role": "tool", "tool_call_id": "call_1"},
	    {"content": "Error: boom", "role": "tool", "tool_call_id": "call_2"},
	    {"content": "Summary of earlier work.", "role": "user"}
	  ],
	  "model": "test-model",
	  "tools": [
	    {"function": {"description": "Read a file.", "name": "read_file", "parameters":
	      {"properties": {"path": {"maxLength": 4096, "type": "string"}}, "required": ["path"], "type": "object"}}, "type": "function"},
	    {"function": {"name": "noargs", "parameters": {"properties": {}, "type": "object"}}, "type": "function"}
	  ]
	}`
	if got := canon(t, p.got[0].rawReq); got != canon(t, want) {
		t.Errorf("request body:\n%s\nwant:\n%s", got, canon(t, want))
	}
}

func TestGenerateToolCalls(t *testing.T) {
	tests := []struct {
		name      string
		give      string
		wantText  string
		wantCalls []host.ToolCall
		wantErr   string
	}{
		{
			name: "two calls keep their raw arguments",
			give: `{"role":"assistant","content":"Let me look.","tool_calls":[` +
				`{"id":"call_a","type":"function","function":{"name":"list_files","arguments":"{\"path\": \".\",  \"recursive\":true}"}},` +
				`{"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"README.md\"}"}}]}`,
			wantText: "Let me look.",
			wantCalls: []host.ToolCall{
				{ID: "call_a", Name: "list_files", Input: json.RawMessage(`{"path": ".",  "recursive":true}`)},
				{ID: "call_b", Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)},
			},
		},
		{
			name:      "empty arguments become an empty object",
			give:      `{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":""}}]}`,
			wantCalls: []host.ToolCall{{ID: "c", Name: "x", Input: json.RawMessage(`{}`)}},
		},
		{
			name:      "a call without an ID gets one",
			give:      `{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"x","arguments":"{}"}},{"type":"function","function":{"name":"y","arguments":"{}"}}]}`,
			wantCalls: []host.ToolCall{{ID: "call_1", Name: "x", Input: json.RawMessage(`{}`)}, {ID: "call_2", Name: "y", Input: json.RawMessage(`{}`)}},
		},
		{
			name:    "malformed argument JSON is refused",
			give:    `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"a"}}]}`,
			wantErr: `tool call 0 (read_file c): arguments are not a JSON object: {"path": "a`,
		},
		{
			name:    "arguments that are not an object are refused",
			give:    `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"read_file","arguments":"[1]"}}]}`,
			wantErr: "arguments are not a JSON object: [1]",
		},
		{
			name:    "null arguments are refused",
			give:    `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"read_file","arguments":"null"}}]}`,
			wantErr: "arguments are not a JSON object: null",
		},
		{
			name:    "a custom tool call is refused",
			give:    `{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"x","input":"y"}}]}`,
			wantErr: `type "custom"; want function`,
		},
		{
			name:     "a refusal is returned as text",
			give:     `{"role":"assistant","content":null,"refusal":"I cannot help with that."}`,
			wantText: "I cannot help with that.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, completion(tt.give))
			resp, err := p.model(t, nil).Generate(context.Background(), simpleRequest())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, openaimodel.ErrBadResponse) {
					t.Fatalf("error = %v, want ErrBadResponse containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.wantText {
				t.Errorf("text = %q, want %q", resp.Text, tt.wantText)
			}
			gotCalls, _ := json.Marshal(resp.ToolCalls)
			wantCalls, _ := json.Marshal(tt.wantCalls)
			if string(gotCalls) != string(wantCalls) {
				t.Errorf("tool calls = %s, want %s", gotCalls, wantCalls)
			}
			for i, c := range resp.ToolCalls {
				if string(c.Input) != string(tt.wantCalls[i].Input) {
					t.Errorf("call %d input = %s, want the raw %s", i, c.Input, tt.wantCalls[i].Input)
				}
			}
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name     string
		replies  []reply
		retries  int
		wantErr  string
		wantIs   error
		wantCode int
		wantReqs int
	}{
		{
			name:     "a rate limit names the status and the provider's message",
			replies:  []reply{{status: 429, body: `{"error":{"message":"Rate limit reached for test-model","type":"requests","code":"rate_limit_exceeded"}}`}},
			wantErr:  "429 Too Many Requests: Rate limit reached for test-model",
			wantIs:   openaimodel.ErrAPI,
			wantCode: 429,
			wantReqs: 1,
		},
		{
			name:     "a server error without a body names the status",
			replies:  []reply{{status: 500, body: `{}`}},
			wantErr:  "500 Internal Server Error",
			wantIs:   openaimodel.ErrAPI,
			wantCode: 500,
			wantReqs: 1,
		},
		{
			name:     "an unauthorized key",
			replies:  []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided"}}`}},
			wantErr:  "401 Unauthorized: Incorrect API key provided",
			wantIs:   openaimodel.ErrAPI,
			wantCode: 401,
			wantReqs: 1,
		},
		{
			name: "retries stop at the configured count",
			replies: []reply{
				{status: 503, header: map[string]string{"retry-after-ms": "1"}, body: `{}`},
				{status: 503, header: map[string]string{"retry-after-ms": "1"}, body: `{}`},
			},
			retries:  1,
			wantErr:  "503 Service Unavailable",
			wantIs:   openaimodel.ErrAPI,
			wantCode: 503,
			wantReqs: 2,
		},
		{
			name:     "no choices",
			replies:  []reply{{status: 200, body: `{"id":"c","object":"chat.completion","choices":[]}`}},
			wantErr:  "no choices",
			wantIs:   openaimodel.ErrBadResponse,
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, tt.replies...)
			_, err := p.model(t, func(c *openaimodel.Config) { c.Retries = tt.retries }).Generate(context.Background(), simpleRequest())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, tt.wantIs) {
				t.Fatalf("error = %v, want %v containing %q", err, tt.wantIs, tt.wantErr)
			}
			if tt.wantCode != 0 {
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantCode {
					t.Errorf("errors.As *openai.Error = %v, want status %d", apiErr, tt.wantCode)
				}
			}
			if len(p.got) != tt.wantReqs {
				t.Errorf("requests = %d, want %d", len(p.got), tt.wantReqs)
			}
		})
	}
}

func TestGenerateRetriesThenSucceeds(t *testing.T) {
	p := newProvider(t,
		reply{status: 500, header: map[string]string{"retry-after-ms": "1"}, body: `{}`},
		completion(`{"role":"assistant","content":"ok"}`))
	resp, err := p.model(t, func(c *openaimodel.Config) { c.Retries = 2 }).Generate(context.Background(), simpleRequest())
	if err != nil || resp.Text != "ok" {
		t.Fatalf("Generate = %+v, %v; want ok", resp, err)
	}
}

func TestGenerateWithoutKeySendsNoAuthorization(t *testing.T) {
	p := newProvider(t, completion(`{"role":"assistant","content":"ok"}`))
	if _, err := p.model(t, func(c *openaimodel.Config) { c.APIKey = "" }).Generate(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	if p.got[0].auth != "" {
		t.Errorf("Authorization = %q, want none", p.got[0].auth)
	}
}

func TestGenerateHonoursCancellation(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	tr := &http.Transport{}
	t.Cleanup(func() {
		close(release)
		tr.CloseIdleConnections()
		srv.Close()
	})
	m := newModel(t, openaimodel.Config{BaseURL: srv.URL, Model: "m", HTTPClient: &http.Client{Transport: tr}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.Generate(ctx, simpleRequest()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want context.DeadlineExceeded", err)
	}
}

func TestGenerateRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name    string
		give    refhost.Request
		wantErr string
	}{
		{
			name:    "an unknown role",
			give:    refhost.Request{Messages: []refhost.Message{{Role: "system", Text: "x"}}},
			wantErr: `message 0: role "system": want user, assistant or tool`,
		},
		{
			name:    "an image without a media type",
			give:    refhost.Request{Messages: []refhost.Message{{Role: refhost.RoleUser, Content: []host.Block{{Type: host.BlockImage, Data: []byte{1}}}}}},
			wantErr: "image block: media type is empty",
		},
		{
			name:    "a tool schema that is not JSON",
			give:    refhost.Request{Tools: []host.ToolDefinition{{Name: "t", InputSchema: json.RawMessage(`{`)}}},
			wantErr: "tool t: input schema:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t)
			_, err := p.model(t, nil).Generate(context.Background(), tt.give)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if len(p.got) != 0 {
				t.Errorf("a bad request reached the provider")
			}
		})
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		give    openaimodel.Config
		wantErr string
	}{
		{name: "a complete config", give: openaimodel.Config{Model: "m", BaseURL: "http://localhost:1/v1"}},
		{name: "the default base URL", give: openaimodel.Config{Model: "m"}},
		{name: "no model", give: openaimodel.Config{}, wantErr: "model: empty; want a model name (OPENAI_MODEL)"},
		{name: "a relative base URL", give: openaimodel.Config{Model: "m", BaseURL: "localhost/v1"}, wantErr: `base URL: "localhost/v1"; want an absolute http or https URL`},
		{name: "a non-http base URL", give: openaimodel.Config{Model: "m", BaseURL: "ftp://x"}, wantErr: "want an absolute http or https URL"},
		{name: "negative retries", give: openaimodel.Config{Model: "m", Retries: -1}, wantErr: "retries: -1; want 0 or more"},
		{name: "a negative timeout", give: openaimodel.Config{Model: "m", Timeout: -time.Second}, wantErr: "timeout: -1s"},
		{name: "negative max tokens", give: openaimodel.Config{Model: "m", MaxTokens: -1}, wantErr: "max tokens: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openaimodel.New(tt.give)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, openaimodel.ErrConfig) {
				t.Fatalf("error = %v, want ErrConfig containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		openaimodel.EnvBaseURL: "http://localhost:11434/v1",
		openaimodel.EnvModel:   "llama",
		openaimodel.EnvAPIKey:  "k",
	}
	got := openaimodel.FromEnv(func(k string) string { return env[k] })
	want := openaimodel.Config{BaseURL: "http://localhost:11434/v1", Model: "llama", APIKey: "k"}
	if got.BaseURL != want.BaseURL || got.Model != want.Model || got.APIKey != want.APIKey {
		t.Errorf("FromEnv = %+v, want %+v", got, want)
	}
}

// canon re-encodes JSON with sorted keys and indentation for comparison.
func canon(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
