package tui_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planreview"
)

func TestWithAPlanFileTheEditTravelsInTheAnswer(t *testing.T) {
	const plan, edited = "# Plan\n\n1. One.\n", "# Plan\n\n1. One.\n2. Two.\n"
	h := newHarness(t, tui.Config{PlanFile: "/state/plans/s1/plan.md"})
	ask, reply := planAsk(1, plan)
	h.send(ask)
	if v := h.view(); !strings.Contains(v, "Plan file: /state/plans/s1/plan.md") {
		t.Fatalf("the review does not show the plan file's path:\n%s", v)
	}
	h.send(tui.EditedForTest(edited))
	if v := h.view(); !strings.Contains(v, "+2. Two.") || !strings.Contains(v, "You edited this plan") {
		t.Errorf("the edit is not shown:\n%s", v)
	}
	h.answer("a")
	r := h.replied(reply)
	if len(r.Answers) != 1 || !slices.Equal(r.Answers[0].Selected, []string{e2etest.ReviewApprove}) || r.Answers[0].Edited != edited {
		t.Fatalf("reply = %+v; want Approve carrying the edit", r)
	}
}

// TestAReviewAskedAgainShowsWhatChangedAndSaysSo: when the host asks again
// because the plan changed during the review, the review says so and shows
// the change from the text shown before.
func TestAReviewAskedAgainShowsWhatChangedAndSaysSo(t *testing.T) {
	const before, after = "# Plan\n\n1. Add TestHello.\n", "# Plan\n\n1. Run the installer script.\n"
	for _, lang := range []struct{ name, want string }{{"en", "The plan changed while you were reviewing it"}, {"zh", "你审阅期间计划被改动了"}} {
		t.Run(lang.name, func(t *testing.T) {
			h := newHarness(t, tui.Config{Catalog: present.For(lang.name)})
			first, firstReply := planAsk(1, before)
			h.send(first)
			h.answer("a")
			<-firstReply
			ask, reply := planAsk(2, after)
			ask.Request.Questions[0].Previous = before
			h.send(ask)
			v := h.view()
			for _, want := range []string{lang.want, "-1. Add TestHello.", "+1. Run the installer script."} {
				if !strings.Contains(v, want) {
					t.Errorf("the review lacks %q:\n%s", want, v)
				}
			}
			h.answer("k")
			h.key(tea.KeyEnter, 0)
			<-reply
		})
	}
}

// reviewAsk is plan mode's review with plan-review's extra answers, in the
// order the controller offers them.
func reviewAsk(id int) (tui.AskMsg, chan tui.AskResult) {
	ask, reply := planAsk(id, "# Plan\n\n1. One.\n")
	ask.Request.Questions[0].Options = []host.Option{
		{Label: e2etest.ReviewApprove, Role: host.RoleApprove},
		{Label: planreview.LabelApproveWithComments, Role: host.RoleApproveWithComments},
		{Label: planreview.LabelApproveAndClear, Role: host.RoleApproveAndClear},
		{Label: planreview.LabelAbandon, Role: host.RoleAbandon},
		{Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning},
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
	}{
		{"approve with comments", "w", "Use a flag.", host.Answer{Selected: []string{planreview.LabelApproveWithComments}, Custom: "Use a flag."}},
		{"approve and clear", "c", "", host.Answer{Selected: []string{planreview.LabelApproveAndClear}}},
		{"abandon", "x", "", host.Answer{Selected: []string{planreview.LabelAbandon}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tui.Config{})
			ask, reply := reviewAsk(1)
			h.send(ask)
			h.answer(tt.keys)
			if tt.text != "" {
				h.key(tea.KeyEnter, 0) // empty comments are not sent
				h.noReply(reply, "empty comments were sent")
				if v := h.view(); !strings.Contains(v, "Comments for the model") || !strings.Contains(v, "Write a comment") {
					t.Fatalf("the comments editor is not shown or does not ask for text:\n%s", v)
				}
				h.send(tea.PasteMsg{Content: tt.text})
				h.key(tea.KeyEnter, 0)
			}
			r := h.replied(reply)
			if len(r.Answers) != 1 || !slices.Equal(r.Answers[0].Selected, tt.want.Selected) || r.Answers[0].Custom != tt.want.Custom {
				t.Fatalf("reply = %+v; want %+v", r, tt.want)
			}
		})
	}
}

func TestEveryApprovingAnswerCarriesTheEditAndKeepPlanningDoesNot(t *testing.T) {
	const edited = "# Plan\n\n1. One.\n2. Two.\n"
	tests := []struct {
		key, label, edit string
	}{
		{"c", planreview.LabelApproveAndClear, edited},
		{"a", e2etest.ReviewApprove, edited},
		{"x", planreview.LabelAbandon, ""},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			h := newHarness(t, tui.Config{})
			ask, reply := reviewAsk(1)
			h.send(ask)
			h.send(tui.EditedForTest(edited))
			h.answer(tt.key)
			r := h.replied(reply)
			if len(r.Answers) != 1 || r.Answers[0].Selected[0] != tt.label || r.Answers[0].Edited != tt.edit {
				t.Fatalf("reply = %+v; want %s with edit %q", r, tt.label, tt.edit)
			}
		})
	}
}
