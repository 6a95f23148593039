package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// lastPayload decodes the payload of the last event of type typ.
func lastPayload[T any](t *testing.T, s host.Session, typ string) T {
	t.Helper()
	var v T
	for _, e := range s.Events().Backward(s.Len()) {
		if e.Type == typ {
			if err := json.Unmarshal(e.Data, &v); err != nil {
				t.Fatalf("%s payload %s: %v", typ, e.Data, err)
			}
			return v
		}
	}
	t.Fatalf("no %s event in the log", typ)
	return v
}

// TestExitOutcomesAreLogged checks that every way an exit_plan_mode call
// ends logs its outcome in the call's "tool/result", whatever the words of
// the result: an extension's keep-planning error in words of its own is
// still keep planning.
func TestExitOutcomesAreLogged(t *testing.T) {
	failing := errors.New("ui: connection reset")
	ownWords := errors.New("Approved? Not quite: these words are the extension's own")
	keepWithOwnWords := planmode.ExitExtension{Name: "words",
		Decide: func(*planmode.ExitCall, []host.Answer) (planmode.ExitVerdict, bool) {
			return planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning, Err: ownWords}, true
		}}
	tests := []struct {
		name    string
		answer  func(context.Context, host.AskRequest) ([]host.Answer, error)
		ext     *planmode.ExitExtension
		leave   bool // leave plan mode first
		wantErr error
		want    planmode.ExitOutcome
	}{
		{name: "approved", answer: answers(approve()), want: planmode.ExitApproved},
		{name: "abandoned", answer: answers(host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{abandonLabel}}), ext: ptr(abandonExtension()), want: planmode.ExitAbandoned},
		{name: "keep planning", answer: answers(keepPlanning("")), wantErr: planmode.ErrKeepPlanning, want: planmode.ExitKeepPlanning},
		{name: "keep planning with feedback", answer: answers(keepPlanning("drop step 2")), wantErr: planmode.ErrKeepPlanning, want: planmode.ExitKeepPlanning},
		{name: "keep planning in an extension's words", answer: answers(approve()), ext: &keepWithOwnWords, wantErr: ownWords, want: planmode.ExitKeepPlanning},
		{name: "dismissed", answer: failWith(host.ErrDismissed), wantErr: planmode.ErrReviewDismissed, want: planmode.ExitDismissed},
		{name: "the channel fails", answer: failWith(failing), wantErr: planmode.ErrReviewFailed, want: planmode.ExitReviewFailed},
		{name: "no user attached", answer: failWith(host.ErrNoProvider), wantErr: planmode.ErrExitNoChannel, want: planmode.ExitRefused},
		{name: "not in plan mode", answer: answers(approve()), leave: true, wantErr: planmode.ErrExitNotPlanMode, want: planmode.ExitRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exts []planmode.ExitExtension
			if tt.ext != nil {
				exts = append(exts, *tt.ext)
			}
			f := newExitFixture(t, questionsFunc(tt.answer), exts...)
			if tt.leave {
				set(t, f.c, f.a, false)
			}
			_, err := f.call(t, goodPlan)
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Execute error = %v, want %v", err, tt.wantErr)
			}
			res := lastPayload[host.ToolResult](t, f.a.Session(), host.TypeToolResult)
			if got := planmode.ExitOutcome(res.Outcome); got != tt.want {
				t.Fatalf("logged outcome of %q = %q, want %q", res.Output, got, tt.want)
			}
		})
	}
}

// TestExitErrorsCarryTheirCode checks the *Error a host gets from the exit
// tool: the code its doc comment lists, the outcome the tool logs, the
// cause behind it, and errors.Is matching by code.
func TestExitErrorsCarryTheirCode(t *testing.T) {
	failing := errors.New("ui: connection reset")
	tests := []struct {
		name      string
		answer    func(context.Context, host.AskRequest) ([]host.Answer, error)
		leave     bool // leave plan mode first
		wantCode  string
		wantOut   planmode.ExitOutcome
		wantCause error
	}{
		{name: "keep planning", answer: answers(keepPlanning("")), wantCode: "keep-planning", wantOut: planmode.ExitKeepPlanning},
		{name: "keep planning with feedback", answer: answers(keepPlanning("drop step 2")), wantCode: "keep-planning", wantOut: planmode.ExitKeepPlanning},
		{name: "dismissed", answer: failWith(host.ErrDismissed), wantCode: "dismissed", wantOut: planmode.ExitDismissed},
		{name: "the channel fails", answer: failWith(failing), wantCode: "review-failed", wantOut: planmode.ExitReviewFailed, wantCause: failing},
		{name: "no user attached", answer: failWith(host.ErrNoProvider), wantCode: "no-channel", wantOut: planmode.ExitRefused, wantCause: host.ErrNoProvider},
		{name: "not in plan mode", answer: answers(approve()), leave: true, wantCode: "not-plan-mode", wantOut: planmode.ExitRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExitFixture(t, questionsFunc(tt.answer))
			if tt.leave {
				set(t, f.c, f.a, false)
			}
			_, err := f.call(t, goodPlan)
			var e *planmode.Error
			if !errors.As(err, &e) || e.Code != tt.wantCode || e.Outcome != tt.wantOut {
				t.Fatalf("Execute error = %#v, want code %q and outcome %q", err, tt.wantCode, tt.wantOut)
			}
			if !errors.Is(err, &planmode.Error{Code: tt.wantCode}) || errors.Is(err, &planmode.Error{Code: "other"}) {
				t.Fatalf("errors.Is does not match %v by its code alone", err)
			}
			if tt.wantCause != nil && !errors.Is(err, tt.wantCause) {
				t.Fatalf("Execute error = %v, want it caused by %v", err, tt.wantCause)
			}
			if got, want := errors.Is(err, planmode.ErrKeepPlanning), tt.wantCode == "keep-planning"; got != want {
				t.Fatalf("errors.Is(%v, ErrKeepPlanning) = %v, want %v", err, got, want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func answers(a ...host.Answer) func(context.Context, host.AskRequest) ([]host.Answer, error) {
	return func(context.Context, host.AskRequest) ([]host.Answer, error) { return a, nil }
}

func failWith(err error) func(context.Context, host.AskRequest) ([]host.Answer, error) {
	return func(context.Context, host.AskRequest) ([]host.Answer, error) { return nil, err }
}
