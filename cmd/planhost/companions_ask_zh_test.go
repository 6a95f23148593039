package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/planask"
)

// TestAskLinesInChinese: the transcript's lines of clarifying questions
// take the user's words: every outcome, and a skipped question, in
// Chinese (the model's questions are Chinese here, so no English word
// is left); in English they read as before.
func TestAskLinesInChinese(t *testing.T) {
	qs := planask.AskPayload{CallID: "c", Questions: []planask.Question{
		{ID: "q1", Header: "语言", Question: "先支持哪种语言？"},
		{ID: "q2", Header: "测试", Question: "需要测试吗？"},
	}}
	answers := []planask.Answer{{ID: "q1", Selected: []string{"法语"}}, {ID: "q2", Skipped: true}}
	tests := []struct {
		name    string
		answer  *planask.AnswerPayload
		zh, en  string
		skipped bool
	}{
		{"answered", &planask.AnswerPayload{CallID: "c", Outcome: planask.OutcomeAnswered, Answers: answers}, "#3 提问（已回答）：", "#3 questions (answered):", true},
		{"declined", &planask.AnswerPayload{CallID: "c", Outcome: planask.OutcomeDeclined}, "#3 提问（已拒绝）：", "#3 questions (declined):", false},
		{"policy", &planask.AnswerPayload{CallID: "c", Outcome: planask.OutcomePolicy, Policy: "first", Answers: answers}, "由无人值守策略 first 回答", "the headless policy first answered", true},
		{"failed", &planask.AnswerPayload{CallID: "c", Outcome: planask.OutcomeFailed, Error: "超时"}, "失败：超时", "failed: 超时", false},
		{"open", nil, "#3 提问（未回答）：", "#3 questions (not answered):", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := planask.Ask{Seq: 3, Questions: qs, Answer: tt.answer}
			zh := strings.Join(askLines(a, render.Chinese), "\n")
			if !strings.Contains(zh, tt.zh) || tt.skipped && !strings.Contains(zh, "→ 已跳过") {
				t.Errorf("Chinese lines lack %q:\n%s", tt.zh, zh)
			}
			if w := regexp.MustCompile(`[A-Za-z]{2,}`).FindAllString(strings.ReplaceAll(zh, "first", ""), -1); len(w) > 0 {
				t.Errorf("English %q in the Chinese lines:\n%s", w, zh)
			}
			en := strings.Join(askLines(a, render.English), "\n")
			if !strings.Contains(en, tt.en) || tt.skipped && !strings.Contains(en, "→ skipped") {
				t.Errorf("English lines lack %q:\n%s", tt.en, en)
			}
		})
	}
}
