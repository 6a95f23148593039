package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/refhost/scripted"
)

// TestClarifyingQuestionsBecomePermissionRequests: each ask_user question
// is one request_permission on the ask_user call, one option per choice
// plus "Skip this question"; the choice and the skip come back to the
// model, and the descriptions and the note on the user's own words are in
// the content.
func TestClarifyingQuestionsBecomePermissionRequests(t *testing.T) {
	st := newStore(t)
	input := map[string]any{"questions": []any{
		map[string]any{"header": "Storage", "question": "Where should greetings live?", "options": []map[string]string{
			{"label": "In code", "description": "A Go map."}, {"label": "In a file", "description": "A JSON file."}}},
		map[string]any{"header": "Languages", "question": "Which first?", "multiSelect": true, "options": []map[string]string{
			{"label": "German", "description": "Second most asked."}, {"label": "French", "description": "Third."}}},
	}}
	model := scripted.NewModel(
		scripted.Step{Text: "A question first.", ToolCalls: []host.ToolCall{call("k1", planask.ToolName, input)}},
		scripted.Step{Text: "Thanks."},
	)
	h := newHostParts(t, st, model, fx.Supply(planask.DefaultConfig()), planask.Module)
	k := connect(t, h, st)
	k.c.setAnswer(func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		want := "In a file"
		if contentHas(req.ToolCall.Content, "Which first?") {
			want = textSkip
		}
		for _, o := range req.Options {
			if o.Name == want {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
			}
		}
		return sdk.RequestPermissionResponse{}, fmt.Errorf("no option %q", want)
	})
	k.initialize()
	sess := k.newSession(workspaceDir(t))
	k.setMode(sess.SessionId, "plan")
	if _, err := k.prompt(sess.SessionId, "Greet in more languages."); err != nil {
		t.Fatal(err)
	}
	_, asks := k.c.snapshot()
	if len(asks) != 2 {
		t.Fatalf("%d permission requests, want 2", len(asks))
	}
	for i, ask := range asks {
		var kinds []string
		for _, o := range ask.Options {
			kinds = append(kinds, o.Name+"="+string(o.Kind))
		}
		want := []string{"In code=allow_once", "In a file=allow_once", textSkip + "=reject_once"}
		if i == 1 {
			want = []string{"German=allow_once", "French=allow_once", textSkip + "=reject_once"}
		}
		if ask.ToolCall.ToolCallId != "k1" || !slices.Equal(kinds, want) {
			t.Errorf("request %d on %q: options %v, want %v", i, ask.ToolCall.ToolCallId, kinds, want)
		}
		if !contentHas(ask.ToolCall.Content, "your own words") {
			t.Errorf("request %d does not say how to answer in one's own words: %+v", i, ask.ToolCall.Content)
		}
	}
	if !contentHas(asks[0].ToolCall.Content, "**In a file**: A JSON file.") || !contentHas(asks[1].ToolCall.Content, "Several may apply") {
		t.Errorf("contents %+v / %+v", asks[0].ToolCall.Content, asks[1].ToolCall.Content)
	}
	s, err := st.Open(string(sess.SessionId))
	if err != nil {
		t.Fatal(err)
	}
	var res planask.Result
	for _, e := range s.Events().All() {
		var r host.ToolResult
		if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil && r.Name == planask.ToolName {
			if r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
				t.Fatalf("result %+v", r)
			}
		}
	}
	if res.Outcome != planask.OutcomeAnswered || !slices.Equal(res.Answers[0].Selected, []string{"In a file"}) || !res.Answers[1].Skipped {
		t.Fatalf("result %+v", res)
	}
}

// textSkip is the skip option's name as the client shows it.
const textSkip = "Skip this question"
