package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
)

// TestRunWithOpenAIModel runs "planhost run -model openai" against a local
// chat-completions server configured through the environment: the model
// lists the workspace in plan mode, then answers.
func TestRunWithOpenAIModel(t *testing.T) {
	replies := []string{
		`{"role":"assistant","content":"Looking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_files","arguments":"{}"}}]}`,
		`{"role":"assistant","content":"One file; nothing to plan."}`,
	}
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		if n >= len(replies) {
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":`+replies[n]+`}]}`)
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()

	dir := newRunDir(t)
	if err := os.WriteFile(filepath.Join(dir, "ws", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_MODEL": "local-model", "OPENAI_API_KEY": "k"}
	out, _ := mustMainEnv(t, env, exitOK, "/plan What is here?\n", openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"))...)
	checkHas(t, "output", out, "assistant: Looking.", "→ list_files()", "← a.txt", "assistant: One file; nothing to plan.")
	if len(bodies) != 2 {
		t.Fatalf("requests = %d, want 2", len(bodies))
	}
	first, _ := json.Marshal(bodies[0])
	for _, want := range []string{`"model":"local-model"`, "You are in plan mode.", `"name":"exit_plan_mode"`, "What is here?"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("first request lacks %q: %s", want, first)
		}
	}
	second, _ := json.Marshal(bodies[1])
	if !strings.Contains(string(second), `"tool_call_id":"call_1"`) {
		t.Errorf("second request lacks the tool result: %s", second)
	}
}

// TestRunWithDeepSeekThinking protects sessions with a thinking model that
// requires its reasoning back with tool calls: the second request carries
// it (the endpoint refuses it otherwise), the log keeps it, and the
// transcript shows it on one line.
func TestRunWithDeepSeekThinking(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			srv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, APIKey: "k"},
				fakeopenai.Reply{Reasoning: "List the files first.", Text: "Looking.", Calls: []fakeopenai.Call{{ID: "call_1", Name: "list_files", Arguments: "{}"}}},
				fakeopenai.Reply{Reasoning: "One file.", Text: "One file; nothing to plan."},
			)
			defer srv.Close()
			dir := newRunDir(t)
			env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "deepseek-thinking", "OPENAI_API_KEY": "k"}
			out, _ := mustMainEnv(t, env, exitOK, "/plan What is here?\n", openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"), fmt.Sprintf("-stream=%t", stream))...)
			checkHas(t, "output", out, "· thinking: List the files first.", "assistant: One file; nothing to plan.")
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Stream != stream {
				t.Fatalf("requests = %d (stream %v)", len(reqs), reqs)
			}
			if !strings.Contains(reqs[1].Raw, `"reasoning_content":"List the files first."`) {
				t.Errorf("second request lacks the reasoning:\n%s", reqs[1].Raw)
			}
			if strings.Contains(out, "ended: error") {
				t.Errorf("the turn failed:\n%s", out)
			}
		})
	}
}
