package planmode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/internal/e2etest"
)

// TestE2EReopenGivesTheModelTheDraftAndTheReviewTheDiff drives "/plan
// reopen" on the reference host without plan-file: plan mode is on again,
// the model's next request carries the approved plan as the draft, and the
// next review carries it as Reopened.
func TestE2EReopenGivesTheModelTheDraftAndTheReviewTheDiff(t *testing.T) {
	h := e2etest.New(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	plan := "# Add retries\n\n1. Wrap the upload."
	revised := plan + "\n2. Test it."
	h.User.QueueAnswers(e2etest.Approve(), e2etest.Approve())
	h.Model.Add(e2etest.Call("x1", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("done"))
	h.Prompt(a, "plan it")
	if e2etest.Active(a) {
		t.Fatal("still in plan mode after the approval")
	}
	handled, reply, err := h.Runtime.Execute(context.Background(), a, "/plan reopen", nil)
	if !handled || err != nil || reply != fmt.Sprintf(planmode.ReplyReopened, 1) {
		t.Fatalf("/plan reopen = %v, %q, %v", handled, reply, err)
	}
	if !e2etest.Active(a) {
		t.Fatal("not in plan mode after the reopen")
	}
	before := len(h.Model.Requests())
	h.Model.Add(e2etest.Call("x2", planmode.ExitToolName, map[string]string{"plan": revised}), e2etest.Say("ok"))
	h.Prompt(a, "add a test")
	req := h.Model.Requests()[before]
	transcript, _ := json.Marshal(req.Messages)
	draft, _ := json.Marshal(fmt.Sprintf(planmode.NoticeReopened, 1) + plan)
	if !strings.Contains(string(transcript), strings.Trim(string(draft), `"`)) {
		t.Fatalf("the model's request lacks the draft:\n%s", transcript)
	}
	reqs := h.User.Requests()
	if q := reqs[1].Questions[0]; q.Detail != revised || q.Reopened != plan || q.Previous != "" {
		t.Fatalf("second review %+v; want the revision with the reopened plan", q)
	}
	if q := reqs[0].Questions[0]; q.Reopened != "" {
		t.Fatalf("first review reopened %q", q.Reopened)
	}
	// The draft belongs to the next review only.
	h.Model.Add(e2etest.Call("x3", planmode.ExitToolName, map[string]string{"plan": revised}), e2etest.Say("ok"))
	h.EnterPlanMode(a)
	h.User.QueueAnswers(e2etest.Approve())
	h.Prompt(a, "again")
	if q := h.User.Requests()[2].Questions[0]; q.Reopened != "" {
		t.Fatalf("third review reopened %q, want none", q.Reopened)
	}
}
