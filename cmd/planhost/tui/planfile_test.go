package tui_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planreview"
)

// fakePlanFile is a plan file in memory; refuse makes Replace fail.
type fakePlanFile struct {
	mu      sync.Mutex
	content string
	refuse  error
	writes  int
}

func (f *fakePlanFile) Path() string { return "/state/plans/s1/plan.md" }

func (f *fakePlanFile) Read() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.content, nil
}

func (f *fakePlanFile) Replace(content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuse != nil {
		return f.refuse
	}
	f.content = content
	f.writes++
	return nil
}

func (f *fakePlanFile) get() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.content, f.writes
}

func noEditedAnswer(t *testing.T) func(string, string) host.Answer {
	return func(string, string) host.Answer {
		t.Error("EditedAnswer called with a plan file: the plan-file companion reports the edit")
		return host.Answer{}
	}
}

func TestWithAPlanFileEditWritesTheFileAndApproveIsPlain(t *testing.T) {
	const plan, edited = "# Plan\n\n1. One.\n", "# Plan\n\n1. One.\n2. Two.\n"
	pf := &fakePlanFile{content: plan}
	h := newHarness(t, tui.Config{PlanFile: pf, EditedAnswer: noEditedAnswer(t)})
	ask, reply := planAsk(1, plan)
	h.send(ask)
	if v := h.view(); !strings.Contains(v, "Plan file: /state/plans/s1/plan.md") {
		t.Fatalf("the review does not show the plan file's path:\n%s", v)
	}
	h.send(tui.EditedForTest(edited))
	if got, n := pf.get(); got != edited || n != 1 {
		t.Fatalf("plan file = %q after %d writes; want the edit", got, n)
	}
	if v := h.view(); !strings.Contains(v, "+2. Two.") || !strings.Contains(v, "You edited this plan") {
		t.Errorf("the edit is not shown:\n%s", v)
	}
	h.clock.advance(time.Second)
	h.keys("a")
	r := <-reply
	if len(r.Answers) != 1 || !slices.Equal(r.Answers[0].Selected, []string{planmode.ReviewApprove}) || r.Answers[0].Custom != "" {
		t.Fatalf("reply = %+v; want a plain Approve (the file holds the edit)", r)
	}
	if v := h.view(); !strings.Contains(v, "Plan approved as you edited it.") {
		t.Errorf("the transcript does not say the plan was approved as edited:\n%s", v)
	}
}

func TestWithAPlanFileARefusedEditLeavesThePlanAsPresented(t *testing.T) {
	const plan = "# Plan\n\n1. One.\n"
	pf := &fakePlanFile{content: plan, refuse: errors.New("plan-file: content holds a NUL byte")}
	h := newHarness(t, tui.Config{PlanFile: pf, EditedAnswer: noEditedAnswer(t)})
	ask, reply := planAsk(1, plan)
	h.send(ask)
	h.send(tui.EditedForTest("# Plan\n\n1. One.\n2. Two.\n"))
	if v := h.view(); strings.Contains(v, "You edited this plan") || !strings.Contains(v, "not saved to the plan file") {
		t.Fatalf("a refused edit is shown as made, or its error is not:\n%s", v)
	}
	h.clock.advance(time.Second)
	h.keys("a")
	if r := <-reply; len(r.Answers) != 1 || r.Answers[0].Selected[0] != planmode.ReviewApprove {
		t.Fatalf("reply = %+v", r)
	}
	if v := h.view(); !strings.Contains(v, "Plan approved.") {
		t.Errorf("transcript:\n%s", v)
	}
}

// reviewAsk is plan mode's review with plan-review's extra answers, in the
// order the controller offers them.
func reviewAsk(id int) (tui.AskMsg, chan tui.AskResult) {
	ask, reply := planAsk(id, "# Plan\n\n1. One.\n")
	ask.Request.Questions[0].Options = []host.Option{
		{Label: planmode.ReviewApprove},
		{Label: planreview.LabelApproveWithComments},
		{Label: planreview.LabelApproveAndClear},
		{Label: planreview.LabelAbandon},
		{Label: planmode.ReviewKeepPlanning},
	}
	return ask, reply
}

func TestThePlanReviewOffersTheExtraAnswersWithTheirOwnKeys(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, _ := reviewAsk(1)
	h.send(ask)
	v := h.view()
	for _, want := range []string{"[a] Approve", "[w] Approve with comments", "[c] Approve and clear", "[x] Abandon", "[k] Keep planning", "[e] Edit", "[d] Dismiss"} {
		if !strings.Contains(v, want) {
			t.Errorf("the menu lacks %q:\n%s", want, v)
		}
	}
}

func TestThePlanReviewsExtraAnswers(t *testing.T) {
	tests := []struct {
		name, keys, text string
		want             host.Answer
		outcome          string
	}{
		{"approve with comments", "w", "Use a flag.", host.Answer{Selected: []string{planreview.LabelApproveWithComments}, Custom: "Use a flag."}, "Plan approved with your comments."},
		{"approve and clear", "c", "", host.Answer{Selected: []string{planreview.LabelApproveAndClear}}, "Plan approved on a fresh context."},
		{"abandon", "x", "", host.Answer{Selected: []string{planreview.LabelAbandon}}, "Plan abandoned."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tui.Config{})
			ask, reply := reviewAsk(1)
			h.send(ask)
			h.clock.advance(time.Second)
			h.keys(tt.keys)
			if tt.text != "" {
				h.key(tea.KeyEnter, 0) // empty comments are not sent
				select {
				case r := <-reply:
					t.Fatalf("empty comments were sent: %+v", r)
				default:
				}
				if v := h.view(); !strings.Contains(v, "Comments for the model") || !strings.Contains(v, "Write a comment") {
					t.Fatalf("the comments editor is not shown or does not ask for text:\n%s", v)
				}
				h.send(tea.PasteMsg{Content: tt.text})
				h.key(tea.KeyEnter, 0)
			}
			var r tui.AskResult
			select {
			case r = <-reply:
			default:
				t.Fatalf("no reply; view:\n%s", h.view())
			}
			if len(r.Answers) != 1 || !slices.Equal(r.Answers[0].Selected, tt.want.Selected) || r.Answers[0].Custom != tt.want.Custom {
				t.Fatalf("reply = %+v; want %+v", r, tt.want)
			}
			if v := h.view(); !strings.Contains(v, tt.outcome) {
				t.Errorf("transcript lacks %q:\n%s", tt.outcome, v)
			}
		})
	}
}

func TestWithoutAPlanFileOnlyApproveTakesAnEdit(t *testing.T) {
	h := newHarness(t, tui.Config{EditedAnswer: func(qid, plan string) host.Answer {
		return host.Answer{QuestionID: qid, Selected: []string{"Approve edited"}, Custom: plan}
	}})
	ask, reply := reviewAsk(1)
	h.send(ask)
	h.send(tui.EditedForTest("# Plan\n\n1. One.\n2. Two.\n"))
	h.clock.advance(time.Second)
	h.keys("c")
	select {
	case r := <-reply:
		t.Fatalf("Approve and clear dropped the edit: %+v", r)
	default:
	}
	if v := h.view(); !strings.Contains(v, "Only Approve keeps your edit") {
		t.Fatalf("no note:\n%s", v)
	}
	h.keys("a")
	if r := <-reply; len(r.Answers) != 1 || r.Answers[0].Selected[0] != "Approve edited" {
		t.Fatalf("reply = %+v", r)
	}
}
