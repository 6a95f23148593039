package fakeopenai_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
)

func TestStrictRefusesUnpairedToolCalls(t *testing.T) {
	call := `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	answer := `{"role":"tool","tool_call_id":"c1","content":"ok"}`
	user := `{"role":"user","content":"hi"}`
	tests := []struct {
		name     string
		strict   bool
		messages []string
		want     string // "" for an answer, else a part of the 400's message
	}{
		{"paired", true, []string{user, call, answer, user}, ""},
		{"a call without a tool message at the end", true, []string{user, call}, fakeopenai.TextUnansweredCalls + "c1"},
		{"a user message before the tool message", true, []string{user, call, user, answer}, fakeopenai.TextUnansweredCalls + "c1"},
		{"a tool message that answers no call", true, []string{user, answer}, fakeopenai.TextOrphanToolMessage},
		{"a tool message answering twice", true, []string{user, call, answer, answer}, fakeopenai.TextOrphanToolMessage},
		{"not strict", false, []string{user, call, user}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(fakeopenai.Options{Strict: tt.strict}, fakeopenai.Reply{Text: "fine"})
			defer srv.Close()
			body := `{"model":"m","messages":[` + strings.Join(tt.messages, ",") + `]}`
			resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var got struct {
				Error struct{ Message string }
			}
			_ = json.Unmarshal(raw, &got)
			switch {
			case tt.want == "" && resp.StatusCode != http.StatusOK:
				t.Fatalf("status %d (%s), want 200", resp.StatusCode, raw)
			case tt.want != "" && (resp.StatusCode != http.StatusBadRequest || !strings.Contains(got.Error.Message, tt.want)):
				t.Fatalf("status %d (%s), want 400 saying %q", resp.StatusCode, raw, tt.want)
			}
		})
	}
}
