package planmode_test

import (
	"context"
	"errors"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

func TestPlanRepliesReadBack(t *testing.T) {
	for r := planmode.PlanEntered; r <= planmode.PlanAlreadyOn; r++ {
		got, ok := planmode.ParsePlanReply(r.String())
		if !ok || got != r || r.String() == "" {
			t.Errorf("ParsePlanReply(%q) = %v, %v; want %v", r.String(), got, ok, r)
		}
	}
	for _, text := range []string{"", "Plan mode is on", planmode.TextKeepPlanning} {
		if got, ok := planmode.ParsePlanReply(text); ok {
			t.Errorf("ParsePlanReply(%q) = %v, want no reply", text, got)
		}
	}
}

func TestPlanCommandRepliesParse(t *testing.T) {
	h := newFakeHost()
	h.start(t, nil)
	a := h.newAgent(t)
	for _, step := range []struct {
		args string
		want planmode.PlanReply
	}{
		{"", planmode.PlanEntered},
		{"", planmode.PlanAlreadyOn},
		{"off", planmode.PlanLeft},
		{"off", planmode.PlanAlreadyOff},
	} {
		reply, err := runPlan(t, h, a, step.args)
		if got, ok := planmode.ParsePlanReply(reply); err != nil || !ok || got != step.want {
			t.Fatalf("/plan %s = %q, %v; parses as %v, want %v", step.args, reply, err, got, step.want)
		}
	}
	if _, err := runPlan(t, h, a, "off", host.Block{Type: host.BlockImage, MediaType: "image/png", Data: []byte("hi")}); !errors.Is(err, planmode.ErrOffWithImages) {
		t.Fatalf("/plan off with an image = %v, want ErrOffWithImages", err)
	}
}

func TestExitOutcomesAreSentinelsAndReadBackFromResults(t *testing.T) {
	failing := errors.New("ui: connection reset")
	tests := []struct {
		name    string
		answer  func(context.Context, host.AskRequest) ([]host.Answer, error)
		leave   bool // leave plan mode first
		wantErr error
		want    planmode.ExitOutcome
	}{
		{name: "approved", answer: answers(approve()), want: planmode.ExitApproved},
		{name: "keep planning", answer: answers(keepPlanning("")), wantErr: planmode.ErrKeepPlanning, want: planmode.ExitKeepPlanning},
		{name: "keep planning with feedback", answer: answers(keepPlanning("drop step 2")), wantErr: planmode.ErrKeepPlanning, want: planmode.ExitKeepPlanning},
		{name: "dismissed", answer: failWith(host.ErrDismissed), wantErr: planmode.ErrReviewDismissed, want: planmode.ExitDismissed},
		{name: "the channel fails", answer: failWith(failing), wantErr: planmode.ErrReviewFailed, want: planmode.ExitReviewFailed},
		{name: "no user attached", answer: failWith(host.ErrNoProvider), wantErr: planmode.ErrExitNoChannel, want: planmode.ExitRefused},
		{name: "not in plan mode", answer: answers(approve()), leave: true, wantErr: planmode.ErrExitNotPlanMode, want: planmode.ExitRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExitFixture(t, questionsFunc(tt.answer))
			if tt.leave {
				set(t, f.c, f.a, false)
			}
			out, err := f.call(t, goodPlan)
			isError := err != nil
			if isError {
				out = host.ToolErrorPrefix + err.Error()
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Execute error = %v, want %v", err, tt.wantErr)
			}
			if got := planmode.ExitOutcomeOf(out, isError); got != tt.want {
				t.Fatalf("ExitOutcomeOf(%q) = %v, want %v", out, got, tt.want)
			}
		})
	}
	if got := planmode.ExitOutcomeOf(`{"approved":false,"abandoned":true}`, false); got != planmode.ExitAbandoned {
		t.Fatalf("an abandoned result reads %v", got)
	}
}

func answers(a ...host.Answer) func(context.Context, host.AskRequest) ([]host.Answer, error) {
	return func(context.Context, host.AskRequest) ([]host.Answer, error) { return a, nil }
}

func failWith(err error) func(context.Context, host.AskRequest) ([]host.Answer, error) {
	return func(context.Context, host.AskRequest) ([]host.Answer, error) { return nil, err }
}
