package present_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
)

// secondReview presents first, answers it with answer, runs between
// (a command line, or none), then presents second; it returns the second
// review's request and the log as it was while the user reviewed it.
func secondReview(t *testing.T, first, second string, answer host.Answer, between string) (host.AskRequest, host.Log) {
	t.Helper()
	h := e2etest.New(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(answer)
	h.Model.Add(e2etest.Call("x1", planmode.ExitToolName, map[string]string{"plan": first}), e2etest.Say("ok"))
	h.Prompt(a, "plan")
	if between != "" {
		if _, _, err := h.Runtime.Execute(context.Background(), a, between, nil); err != nil {
			t.Fatal(err)
		}
	}
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(e2etest.Call("x2", planmode.ExitToolName, map[string]string{"plan": second}), e2etest.Say("done"))
	h.Prompt(a, "again")
	reqs := h.User.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	return reqs[1], logUntilCall(a, "x2")
}

// logUntilCall is a's log up to the tool call id: what the log held while
// the call's review was open.
func logUntilCall(a *refhost.Agent, id string) host.Log {
	var events []host.Event
	for _, e := range a.Session().Events().All() {
		events = append(events, e)
		if e.Type == host.TypeToolCall && strings.Contains(string(e.Data), `"`+id+`"`) {
			break
		}
	}
	return host.LogOf(events)
}

// TestTheReviewNamesWhatItComparesWith: a plan presented again is compared
// with the plan the user sent back, or with the plan reopened (named by
// its number); the heading says which, folded and unfolded, and a plan
// presented unchanged says so instead of showing nothing.
func TestTheReviewNamesWhatItComparesWith(t *testing.T) {
	const planA, planB = "# A\n\n1. One.\n", "# A\n\n1. One.\n2. Two.\n"
	keep := host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewKeepPlanning}}
	tests := []struct {
		name      string
		second    string
		answer    host.Answer
		between   string
		title     func(*present.Catalog) string // "" for none
		unchanged func(*present.Catalog) string // what Text starts with, "" for nothing
	}{
		{name: "revised after keep planning", second: planB, answer: keep,
			title: func(c *present.Catalog) string { return c.Review.DiffRevised }},
		{name: "unchanged after keep planning", second: planA, answer: keep,
			unchanged: func(c *present.Catalog) string { return c.Review.UnchangedRevised }},
		{name: "revised after a reopen", second: planB, answer: e2etest.Approve(), between: "/plan reopen 1",
			title: func(c *present.Catalog) string { return fmt.Sprintf(c.Review.DiffReopened, 1) }},
		{name: "unchanged after a reopen", second: planA, answer: e2etest.Approve(), between: "/plan reopen 1",
			unchanged: func(c *present.Catalog) string { return fmt.Sprintf(c.Review.UnchangedReopened, 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, log := secondReview(t, planA, tt.second, tt.answer, tt.between)
			for _, cat := range []*present.Catalog{present.English, present.Chinese} {
				q := cat.Question(req, 0, log, true)
				switch {
				case tt.title != nil:
					want := tt.title(cat)
					if q.DiffTitle != want || q.Diff == "" || q.Text != cat.Review.Question {
						t.Errorf("%s: diff %q %q, text %q; want the diff under %q", cat.Lang, q.DiffTitle, q.Diff, q.Text, want)
					}
					if tt.between != "" && !strings.Contains(want, "1") {
						t.Errorf("%s: %q does not name plan 1", cat.Lang, want)
					}
					for _, head := range []string{fmt.Sprintf(cat.Review.DiffSummary, q.DiffTitle, 1, 0), fmt.Sprintf(cat.Review.DiffShown, q.DiffTitle)} {
						if !strings.HasPrefix(head, want) {
							t.Errorf("%s: the heading %q does not say what it compares with", cat.Lang, head)
						}
					}
				default:
					want := tt.unchanged(cat)
					if q.Diff != "" || q.DiffTitle != "" || !strings.HasPrefix(q.Text, want) || !strings.HasSuffix(q.Text, cat.Review.Question) {
						t.Errorf("%s: diff %q %q, text %q; want no diff and a text saying %q", cat.Lang, q.DiffTitle, q.Diff, q.Text, want)
					}
				}
			}
		})
	}
}
