package refhost_test

import (
	"context"
	"errors"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func review(approve host.Role) host.AskRequest {
	return host.AskRequest{
		Kind: host.AskReview,
		Questions: []host.Question{{ID: "review", Question: "Approve?", Options: []host.Option{
			{Label: "Approve", Role: approve}, {Label: "Keep planning", Role: host.RoleKeepPlanning}}}},
	}
}

func TestAskValidation(t *testing.T) {
	tests := []struct {
		name string
		give host.AskRequest
		want error
	}{
		{name: "no questions", give: host.AskRequest{}, want: host.ErrNoQuestions},
		{name: "a review without an approving option", give: review(host.RoleAnswer), want: host.ErrBadRoles},
		{name: "a clarifying question with an approving option", give: host.AskRequest{Kind: host.AskClarify,
			Questions: []host.Question{{ID: "q", Options: []host.Option{{Label: "Approve", Role: host.RoleApprove}}}}}, want: host.ErrBadRoles},
		{name: "empty question id", give: host.AskRequest{Questions: []host.Question{{Question: "?"}}}, want: refhost.ErrBadQuestion},
		{name: "repeated question id", give: host.AskRequest{Questions: []host.Question{{ID: "q"}, {ID: "q"}}}, want: refhost.ErrBadQuestion},
		{name: "a valid request with no provider", give: review(host.RoleApprove), want: host.ErrNoProvider},
		{name: "a clarifying question with no provider", give: host.AskRequest{Kind: host.AskClarify,
			Questions: []host.Question{{ID: "q", Options: []host.Option{{Label: "A"}, {Label: "B", Role: host.RoleAnswer}}}}}, want: host.ErrNoProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q refhost.Questions
			if _, err := q.Ask(context.Background(), tt.give); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestAskProvider(t *testing.T) {
	var q refhost.Questions
	p := scripted.NewProvider()
	p.QueueAnswers(host.Answer{QuestionID: "review", Selected: []string{"Approve"}})
	unset, err := q.SetProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.SetProvider(scripted.NewProvider()); !errors.Is(err, host.ErrDuplicate) {
		t.Errorf("second provider: err = %v, want ErrDuplicate", err)
	}
	got, err := q.Ask(context.Background(), review(host.RoleApprove))
	if err != nil || len(got) != 1 || got[0].Selected[0] != "Approve" {
		t.Fatalf("got %+v, %v", got, err)
	}
	dismissed := errors.Join(host.ErrDismissed, errors.New("user typed instead"))
	p.QueueReply(scripted.Reply{Err: dismissed})
	if _, err := q.Ask(context.Background(), review(host.RoleApprove)); err != dismissed {
		t.Errorf("err = %v, want the provider's error unchanged", err)
	}
	unset()
	unset()
	if _, err := q.Ask(context.Background(), review(host.RoleApprove)); !errors.Is(err, host.ErrNoProvider) {
		t.Errorf("after unset: err = %v, want ErrNoProvider", err)
	}
	if _, err := q.SetProvider(p); err != nil {
		t.Errorf("set after unset: %v", err)
	}
}
