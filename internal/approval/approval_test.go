package approval_test

import (
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
)

func TestReadApprovesOnlyOneCleanAnswerSelectingTheOption(t *testing.T) {
	const q, yes = "review", "approve"
	tests := []struct {
		name         string
		give         []host.Answer
		wantApproved bool
		wantWords    string
	}{
		{"no answer", nil, false, ""},
		{"the option alone", []host.Answer{{QuestionID: q, Selected: []string{yes}}}, true, ""},
		{"the option with white space", []host.Answer{{QuestionID: q, Selected: []string{yes}, Custom: " \n"}}, true, ""},
		{"the option with words", []host.Answer{{QuestionID: q, Selected: []string{yes}, Custom: "but fix x"}}, false, "but fix x"},
		{"another option", []host.Answer{{QuestionID: q, Selected: []string{"no"}}}, false, ""},
		{"two options", []host.Answer{{QuestionID: q, Selected: []string{yes, "no"}}}, false, ""},
		{"another question", []host.Answer{{QuestionID: "other", Selected: []string{yes}, Custom: "x"}}, false, ""},
		{"two answers", []host.Answer{
			{QuestionID: q, Selected: []string{yes}, Custom: "one"},
			{QuestionID: q, Custom: "two"},
		}, false, "one\n\ntwo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approved, words := approval.Read(tt.give, q, yes)
			if approved != tt.wantApproved || words != tt.wantWords {
				t.Errorf("Read = %v, %q; want %v, %q", approved, words, tt.wantApproved, tt.wantWords)
			}
		})
	}
}
