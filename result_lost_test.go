package planmode_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// TestApprovalCountsOnlyOnceItsResultIsLogged runs an approved exit whose
// result the host never logs (its append failed): the next step must not
// leave plan mode, whether or not the host tells the tool that the result
// was lost, and nothing in the log may read as an approval afterwards.
func TestApprovalCountsOnlyOnceItsResultIsLogged(t *testing.T) {
	tests := []struct {
		name string
		tell bool // the host calls ResultLost
	}{
		{name: "a host that says nothing", tell: false},
		{name: "a host that reports the loss", tell: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newReviewFixture(t)
			withHeader(f.h, f.a)
			must(f.a.StartTurn())
			f.h.runStep(f.a, accepted)
			input := planInput(t, goodPlan)
			must(appendJSON(f.a.Session(), host.TypeToolCall, nil, host.ToolCall{ID: "x1", Name: planmode.ExitToolName, Input: input}))
			f.p.QueueAnswers(approve())
			cc := host.CallContext{Agent: f.a, CallID: "x1"}
			out, err := f.tool(t).Execute(context.Background(), cc, input)
			if err != nil || out != planmode.ExitResult {
				t.Fatalf("Execute = %q, %v; want approved", out, err)
			}
			// The host's append of the result fails here.
			from := f.a.Session().Len()
			if tt.tell {
				h, ok := f.tool(t).(host.ResultLossHandler)
				if !ok {
					t.Fatal("the exit tool does not implement host.ResultLossHandler")
				}
				cause := errors.New("no space left on device")
				text := h.ResultLost(t.Context(), cc, cause)
				if !strings.HasPrefix(text, host.ToolErrorPrefix) || !strings.Contains(text, cause.Error()) || !strings.Contains(text, "not approved") {
					t.Fatalf("ResultLost = %q; want an error naming the cause and saying the plan is not approved", text)
				}
				wantState(t, f.c, f.a, planmode.State{Active: true})
				if got := cancels(t, f.a.Session(), from); len(got) != 1 || got[0].Cancelled != planmode.SelectionInactive.String() {
					t.Fatalf("plan/cancel markers = %+v; want one withdrawing the exit", got)
				}
				// The host writes the lost result later.
				must(appendJSON(f.a.Session(), host.TypeToolResult, nil, host.ToolResult{CallID: "x1", Name: planmode.ExitToolName, Output: text, IsError: true}))
			}
			d := f.h.runStep(f.a, accepted)
			if !d.Accepted {
				t.Fatal("the step was refused")
			}
			if got := modes(t, f.a.Session(), from); len(got) != 0 {
				t.Fatalf("plan/mode after the lost approval = %v, want none", got)
			}
			wantState(t, f.c, f.a, planmode.State{Active: true})
			if p := planmode.Project(f.a.Session().Events()); p != (planmode.State{Active: true}) {
				t.Fatalf("Project = %+v, want plan mode and nothing pending", p)
			}
			// A restarted controller does not find an approval either.
			c2 := f.h.restart(t, f.c)
			wantState(t, c2, f.a, planmode.State{Active: true})
			f.h.runStep(f.a, accepted)
			if got := modes(t, f.a.Session(), from); len(got) != 0 {
				t.Fatalf("plan/mode after a restart = %v, want none", got)
			}
		})
	}
}

// TestLostResultWithdrawsAnApprovalThatLandedAfterAll covers a store that
// reported a failed append that committed after all: the marker that
// ResultLost appends withdraws the approval in the log too.
func TestLostResultWithdrawsAnApprovalThatLandedAfterAll(t *testing.T) {
	f := newReviewFixture(t)
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	f.p.QueueAnswers(approve())
	cc := host.CallContext{Agent: f.a, CallID: "x1"}
	out, err := f.hostCall(t, planInput(t, goodPlan))
	if err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want approved", out, err)
	}
	from := f.a.Session().Len()
	f.tool(t).(host.ResultLossHandler).ResultLost(t.Context(), cc, errors.New("commit outcome unknown"))
	f.h.runStep(f.a, accepted)
	if got := modes(t, f.a.Session(), from); !slices.Equal(got, nil) {
		t.Fatalf("plan/mode = %v, want none", got)
	}
	if p := planmode.Project(f.a.Session().Events()); p != (planmode.State{Active: true}) {
		t.Fatalf("Project = %+v, want plan mode and nothing pending", p)
	}
}

// TestApprovalMustBeDurableBeforeTheModeChanges fails the sync that makes
// the logged approval durable: plan mode stays on.
func TestApprovalMustBeDurableBeforeTheModeChanges(t *testing.T) {
	f := newReviewFixture(t)
	base := f.h.newSession(t)
	sess := &syncSession{Session: base}
	f.a = agentOn(sess)
	set(t, f.c, f.a, true)
	withHeader(f.h, f.a)
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	f.p.QueueAnswers(approve())
	if out, err := f.call(t, goodPlan); err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want approved", out, err)
	}
	sess.fail = errors.New("disk gone")
	from := sess.Len()
	f.h.runStep(f.a, accepted)
	if got := modes(t, sess, from); len(got) != 0 {
		t.Fatalf("plan/mode after a failed sync = %v, want none", got)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
}

// TestLaterErrorResultWithdrawsTheApproval: a store reported the approved
// result's append as failed although it committed, and the host later
// wrote the call's is-error result, while the plan/cancel marker could not
// be written. The log must not read as an approval, live or after a
// restart.
func TestLaterErrorResultWithdrawsTheApproval(t *testing.T) {
	f := newReviewFixture(t)
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	f.p.QueueAnswers(approve())
	if out, err := f.hostCall(t, planInput(t, goodPlan)); err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want approved", out, err)
	}
	must(appendJSON(f.a.Session(), host.TypeToolResult, nil, host.ToolResult{CallID: "x1", Name: planmode.ExitToolName, Output: host.ToolErrorPrefix + "lost", IsError: true}))
	if p := planmode.Project(f.a.Session().Events()); p != (planmode.State{Active: true}) {
		t.Fatalf("Project = %+v, want plan mode and nothing pending", p)
	}
	from := f.a.Session().Len()
	f.h.runStep(f.a, accepted)
	if got := modes(t, f.a.Session(), from); len(got) != 0 {
		t.Fatalf("plan/mode = %v, want none", got)
	}
	c2 := f.h.restart(t, f.c)
	wantState(t, c2, f.a, planmode.State{Active: true})
}
