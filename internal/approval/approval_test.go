package approval_test

import (
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
)

func TestReadApprovesOnlyOneCleanAnswerSelectingTheApprovingOption(t *testing.T) {
	const q, yes = "review", "Approve"
	question := host.Question{ID: q, Options: []host.Option{
		{Label: yes, Role: host.RoleApprove},
		{Label: "no", Role: host.RoleKeepPlanning},
		{Label: "also yes", Role: host.RoleApproveWithComments},
	}}
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
		{"an approving option of another role", []host.Answer{{QuestionID: q, Selected: []string{"also yes"}}}, false, ""},
		{"a label that is no option", []host.Answer{{QuestionID: q, Selected: []string{"Approve!"}}}, false, ""},
		{"two options", []host.Answer{{QuestionID: q, Selected: []string{yes, "no"}}}, false, ""},
		{"another question", []host.Answer{{QuestionID: "other", Selected: []string{yes}, Custom: "x"}}, false, ""},
		{"two answers", []host.Answer{
			{QuestionID: q, Selected: []string{yes}, Custom: "one"},
			{QuestionID: q, Custom: "two"},
		}, false, "one\n\ntwo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approved, words := approval.Read(question, tt.give)
			if approved != tt.wantApproved || words != tt.wantWords {
				t.Errorf("Read = %v, %q; want %v, %q", approved, words, tt.wantApproved, tt.wantWords)
			}
		})
	}
}
