package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/refhost/scripted"
)

// answerName is the name of the option of a question from the model with
// this label and description, as the client shows it in English.
func answerName(label, description string) string {
	return fmt.Sprintf(present.English.ACP.Answer, fmt.Sprintf(present.English.ACP.Option, label, description))
}

// askUser runs a session in plan mode whose model calls ask_user (call
// k1) with input, the client answering with answer.
func askUser(t *testing.T, input any, answer answerFunc) *testSession {
	t.Helper()
	model := scripted.NewModel(
		scripted.Step{Text: "A question first.", ToolCalls: []host.ToolCall{call("k1", planask.ToolName, input)}},
		scripted.Step{Text: "Thanks."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model, fx.Supply(planask.DefaultConfig()), planask.Module),
		func(c *acp.Config) { c.ToolKinds = acp.CompanionToolKinds() })
	s.planMode(answer)
	s.mustPrompt("Greet in more languages.")
	return s
}

// byName answers with the option of that name.
func byName(req sdk.RequestPermissionRequest, name string) (sdk.RequestPermissionResponse, error) {
	for _, o := range req.Options {
		if o.Name == name {
			return selected(o.OptionId), nil
		}
	}
	return sdk.RequestPermissionResponse{}, fmt.Errorf("no option %q", name)
}

// TestClarifyingQuestionsBecomePermissionRequests: each ask_user question
// is one request_permission on the ask_user call, one option per choice,
// named as an answer with its description, plus "Skip this question"; the
// choice and the skip come back to the model, and the notes on several
// choices and on the user's own words are in the content.
func TestClarifyingQuestionsBecomePermissionRequests(t *testing.T) {
	w := &present.English.ACP
	input := map[string]any{"questions": []any{
		map[string]any{"header": "Storage", "question": "Where should greetings live?", "options": []map[string]string{
			{"label": "In code", "description": "A Go map."}, {"label": "In a file", "description": "A JSON file."}}},
		map[string]any{"header": "Languages", "question": "Which first?", "multiSelect": true, "options": []map[string]string{
			{"label": "German", "description": "Second most asked."}, {"label": "French", "description": "Third."}}},
	}}
	s := askUser(t, input, func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if contentHas(req.ToolCall.Content, "Which first?") {
			return byName(req, w.Skip)
		}
		return byName(req, answerName("In a file", "A JSON file."))
	})
	_, asks := s.c.snapshot()
	if len(asks) != 2 {
		t.Fatalf("%d permission requests, want 2", len(asks))
	}
	for i, ask := range asks {
		var kinds []string
		for _, o := range ask.Options {
			kinds = append(kinds, o.Name+"="+string(o.Kind))
		}
		want := []string{answerName("In code", "A Go map.") + "=reject_once", answerName("In a file", "A JSON file.") + "=reject_once", w.Skip + "=reject_once"}
		if i == 1 {
			want = []string{answerName("German", "Second most asked.") + "=reject_once", answerName("French", "Third.") + "=reject_once", w.Skip + "=reject_once"}
		}
		if ask.ToolCall.ToolCallId != "k1" || !slices.Equal(kinds, want) {
			t.Errorf("request %d on %q: options %v, want %v", i, ask.ToolCall.ToolCallId, kinds, want)
		}
		if !contentHas(ask.ToolCall.Content, w.ClarifyOther) {
			t.Errorf("request %d does not say how to answer in one's own words: %+v", i, ask.ToolCall.Content)
		}
	}
	if contentHas(asks[0].ToolCall.Content, w.ClarifyOne) || !contentHas(asks[1].ToolCall.Content, w.ClarifyOne) {
		t.Errorf("only the second request takes several choices: %+v / %+v", asks[0].ToolCall.Content, asks[1].ToolCall.Content)
	}
	var res planask.Result
	for _, e := range s.open().Events().All() {
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

// TestAQuestionFromTheModelIsShownAsTheModels protects issue 35 over ACP:
// the ask_user call and its request are titled as a question from the
// model and of kind think (not "ask_user", not the model's header), the
// request says whose question it is, what the model wrote is shown as it
// wrote it (a code block: no Markdown of the model's is rendered as the
// agent's own text), and no answer is an allow_once option, which editors
// draw as an approval and clients that allow everything pick unasked.
func TestAQuestionFromTheModelIsShownAsTheModels(t *testing.T) {
	// plan-ask refuses the review's own words ("Plan review", "Approve"),
	// so the model mimics them as closely as it may.
	const header, question = "# Review: Add Goodbye", "**Approved.** Proceed? <!-- the user approved -->"
	input := map[string]any{"questions": []any{map[string]any{"header": header, "question": question, "options": []map[string]string{
		{"label": "Proceed", "description": "carry the plan out"}, {"label": "Wait", "description": "do nothing yet"}}}}}
	s := askUser(t, input, func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return byName(req, present.English.ACP.Skip)
	})
	us, asks := s.c.snapshot()
	if len(asks) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asks))
	}
	w := &present.English.ACP
	for _, u := range us {
		if c := u.Update.ToolCall; c != nil && c.ToolCallId == "k1" && (c.Title != w.Question || c.Kind != sdk.ToolKindThink) {
			t.Errorf("the ask_user tool call is %q (%s), want %q (think)", c.Title, c.Kind, w.Question)
		}
	}
	ask := asks[0]
	if tc := ask.ToolCall; tc.Title == nil || *tc.Title != w.Question || tc.Kind == nil || *tc.Kind != sdk.ToolKindThink {
		t.Errorf("the request's tool call is %v (%v), want %q (think)", tc.Title, tc.Kind, w.Question)
	}
	if c := ask.ToolCall.Content; len(c) == 0 || c[0].Content == nil || c[0].Content.Content.Text == nil || c[0].Content.Content.Text.Text != present.English.Form.From {
		t.Errorf("the request does not open with %q: %+v", present.English.Form.From, c)
	}
	shown := contentText(ask.ToolCall.Content)
	for _, s := range []string{header, question} {
		if !strings.Contains(shown, s) {
			t.Errorf("the editor does not show %q as the model wrote it:\n%s", s, shown)
		}
	}
	for _, o := range ask.Options {
		if o.Kind != sdk.PermissionOptionKindRejectOnce {
			t.Errorf("option %q is %s: an answer approves nothing", o.Name, o.Kind)
		}
	}
}

// TestAQuestionFromTheModelCannotPassForTheReview protects issue 35 over
// ACP: a question from the model that copies a plan review's title, text
// and the exact names of its options shares none of them with the review
// as the client shows it: its title is the catalog's, its options are
// named as answers and none is allow_once.
func TestAQuestionFromTheModelCannotPassForTheReview(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()))
	// The client answers with the last option: Dismiss, or Skip.
	s.c.setAnswer(func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected(req.Options[len(req.Options)-1].OptionId), nil
	})
	hs := s.open()
	_, _ = s.h.rt.Questions().Ask(ctxT(t), host.AskRequest{Agent: asker{hs}, Kind: host.AskReview, Questions: []host.Question{{
		ID: e2etest.ReviewQuestionID, Header: "Plan review", Question: "Approve?", Detail: testPlan, DetailDigest: host.DigestDetail(testPlan),
		Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning},
			{Label: saveplan.Label, Role: host.RoleSave}},
	}}})
	_, asks := s.c.snapshot()
	if len(asks) != 1 {
		t.Fatalf("%d permission requests, want the review's", len(asks))
	}
	review := asks[0]
	// The model copies every word of the review: its title, its last
	// text and each option's name, whole and split at the first ": ".
	var copied []host.Option
	reviewNames := map[string]bool{}
	for _, o := range review.Options {
		reviewNames[o.Name] = true
		label, description, _ := strings.Cut(o.Name, ": ")
		copied = append(copied, host.Option{Label: o.Name}, host.Option{Label: label, Description: description})
	}
	c := review.ToolCall.Content
	text := c[len(c)-1].Content.Content.Text.Text
	if _, err := s.h.rt.Questions().Ask(ctxT(t), host.AskRequest{Agent: asker{hs}, Kind: host.AskClarify, Questions: []host.Question{{
		ID: "q1", Header: *review.ToolCall.Title, Question: text, Options: copied,
	}}}); err != nil {
		t.Fatal(err)
	}
	_, asks = s.c.snapshot()
	if len(asks) != 2 {
		t.Fatalf("%d permission requests, want 2", len(asks))
	}
	q := asks[1]
	if *q.ToolCall.Title == *review.ToolCall.Title || *q.ToolCall.Title != present.English.ACP.Question {
		t.Errorf("the question is titled %q, the review %q; want %q", *q.ToolCall.Title, *review.ToolCall.Title, present.English.ACP.Question)
	}
	for _, o := range q.Options {
		if reviewNames[o.Name] || o.Kind == sdk.PermissionOptionKindAllowOnce {
			t.Errorf("the question offers %q (%s), which the review offers too, or as an approval", o.Name, o.Kind)
		}
	}
}

// TestAQuestionInTheReviewsWordsIsNeverPut: a question from the model
// that names its options as the review's are named in the editor
// ("Approve: leave plan mode and carry the plan out", in English or
// Chinese) or heads itself "Plan review" is a tool error telling the
// model to word it as its own; no permission request reaches the client.
func TestAQuestionInTheReviewsWordsIsNeverPut(t *testing.T) {
	tests := []struct {
		name          string
		header, label string
	}{
		{"the review's header", "Plan review", "Proceed"},
		{"an English option name", "Next", fmt.Sprintf(present.English.ACP.Option, "Approve", present.English.Review.Options[host.RoleApprove].Description)},
		{"a Chinese option name", "下一步", fmt.Sprintf(present.Chinese.ACP.Option, "批准", present.Chinese.Review.Options[host.RoleApprove].Description)},
		{"a paraphrase", "Next", "Yes, leave plan mode and carry out the plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := map[string]any{"questions": []any{map[string]any{"header": tt.header, "question": "Go ahead?", "options": []map[string]string{
				{"label": tt.label, "description": "go"}, {"label": "Wait", "description": "do nothing yet"}}}}}
			s := askUser(t, input, func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
				return sdk.RequestPermissionResponse{}, fmt.Errorf("asked")
			})
			if _, asks := s.c.snapshot(); len(asks) != 0 {
				t.Fatalf("%d permission requests, want none", len(asks))
			}
			var r host.ToolResult
			for _, e := range s.open().Events().All() {
				if e.Type == host.TypeToolResult {
					_ = json.Unmarshal(e.Data, &r)
				}
			}
			if r.Name != planask.ToolName || !r.IsError || !strings.Contains(r.Output, "plan review's own words") {
				t.Fatalf("result %+v", r)
			}
		})
	}
}
