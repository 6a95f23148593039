package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
)

// fakeOpenAI is a local endpoint that speaks the OpenAI chat-completions
// API with scripted replies, so the example runs without a key or a
// network. It decides from the request alone: the number of assistant
// messages so far picks the reply, and the last reply says whether plan
// mode's section was still in the prompt.
func fakeOpenAI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		steps, system := 0, ""
		for _, m := range req.Messages {
			switch m.Role {
			case "assistant":
				steps++
			case "system":
				system = m.Content
			}
		}
		msg := map[string]any{"role": "assistant"}
		finish := "tool_calls"
		switch steps {
		case 0:
			msg["tool_calls"] = []any{toolCall("call_1", "list_files", map[string]string{})}
		case 1:
			msg["tool_calls"] = []any{toolCall("call_2", "exit_plan_mode", map[string]string{"plan": examplePlan})}
		default:
			finish = "stop"
			msg["content"] = replyDone
			if strings.Contains(system, policy) {
				msg["content"] = replyStillPlanning
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", steps), "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	}))
}

func toolCall(id, name string, args any) map[string]any {
	js, _ := json.Marshal(args)
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(js)}}
}
