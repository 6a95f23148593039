package tui_test

import (
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plansteps"
)

// TestCompanionQuestionsInTheUsersLanguage shows plan-entry's consent and
// plan-steps' step change in Chinese: the catalog's question and option
// words replace the plugin's English ones, and the answer still carries
// the option's label, the protocol identifier. In English the plugin's
// words show as they are.
func TestCompanionQuestionsInTheUsersLanguage(t *testing.T) {
	tests := []struct {
		name        string
		kind, id    string
		question    string
		options     []host.Option
		zh, english []string
	}{
		{"plan-entry", planentry.Purpose, planentry.QuestionID,
			"The assistant asks to plan before making changes. Switch to plan mode?",
			[]host.Option{{Label: planentry.OptionEnter, Description: "Explore read-only first.", Role: host.RoleApprove}, {Label: planentry.OptionDecline, Description: "Carry on.", Role: host.RoleDecline}},
			[]string{"切换到计划模式吗？", "[1] 进入计划模式", "[2] 拒绝"}, []string{"Switch", "Enter plan mode", "Decline", "Explore", "Carry"}},
		{"plan-modify", plansteps.ModifyPurpose, plansteps.ModifyQuestionID,
			"Change step 2 of the approved plan?",
			[]host.Option{{Label: plansteps.ModifyApprove, Description: "The step changes.", Role: host.RoleApprove}, {Label: plansteps.ModifyKeep, Description: "The step stays.", Role: host.RoleDecline}},
			[]string{"修改已批准计划中的这一步吗？", "[1] 批准修改", "[2] 保留原步骤"}, []string{"Change", "Approve change", "Keep the step", "changes", "stays"}},
	}
	for _, tt := range tests {
		for _, cat := range []*present.Catalog{present.Chinese, present.English} {
			t.Run(tt.name+"/"+cat.Lang, func(t *testing.T) {
				h := newHarness(t, tui.Config{Catalog: cat})
				reply := make(chan tui.AskResult, 1)
				h.send(tui.AskMsg{ID: 1, Reply: reply, Request: host.AskRequest{
					Questions: []host.Question{{ID: tt.id, Header: "Header", Question: tt.question, Options: tt.options}},
					Kind:      host.AskConsent, Purpose: tt.kind,
				}})
				view := h.view()
				if cat == present.Chinese {
					checkView(t, view, tt.zh, tt.english)
				} else if !strings.Contains(view, tt.question) || !strings.Contains(view, tt.options[1].Label+" — "+tt.options[1].Description) {
					t.Errorf("the English view lacks the plugin's words:\n%s", view)
				}
				h.answer("1")
				if r := h.replied(reply); r.Err != nil || len(r.Answers) != 1 || len(r.Answers[0].Selected) != 1 || r.Answers[0].Selected[0] != tt.options[0].Label {
					t.Fatalf("reply = %+v, want the label %q", r, tt.options[0].Label)
				}
			})
		}
	}
}

// TestPlanEntryConsentFieldsInTheUsersLanguage puts plan-entry's consent
// question, as the real plugin asks it, to the Chinese UI: the goal and
// scope show under the catalog's labels, with the model's text escaped,
// and none of the plugin's English Markdown labels reach the screen.
func TestPlanEntryConsentFieldsInTheUsersLanguage(t *testing.T) {
	h := e2etest.New(t, fx.Supply(planentry.Config{}), planentry.Module)
	a := h.Agent()
	h.User.QueueAnswers(host.Answer{QuestionID: planentry.QuestionID, Selected: []string{planentry.OptionDecline}})
	h.Model.Add(e2etest.Call("e", planentry.ToolName, map[string]string{"goal": "给上传器加重试\x1b[2J", "scope": "internal/upload"}), e2etest.Say("好"))
	h.Prompt(a, "加重试")
	reqs := h.User.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	tests := []struct {
		cat       *present.Catalog
		want, bad []string
	}{
		{present.Chinese, []string{"目标：给上传器加重试\\x1b[2J", "范围：internal/upload"}, []string{"Goal", "Scope", "**", "\x1b[2J"}},
		{present.English, []string{"Goal: 给上传器加重试\\x1b[2J", "Scope: internal/upload"}, []string{"**", "\x1b[2J"}},
	}
	for _, tt := range tests {
		t.Run(tt.cat.Lang, func(t *testing.T) {
			m := newHarness(t, tui.Config{Catalog: tt.cat, Sanitize: safetext.Escape})
			m.send(tui.AskMsg{ID: 1, Reply: make(chan tui.AskResult, 1), Request: reqs[0]})
			checkView(t, m.view(), tt.want, tt.bad)
		})
	}
}

// checkView checks that view shows each of want and none of bad.
func checkView(t *testing.T, view string, want, bad []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Errorf("lacks %q:\n%s", w, view)
		}
	}
	for _, b := range bad {
		if strings.Contains(view, b) {
			t.Errorf("shows %q:\n%s", b, view)
		}
	}
}
