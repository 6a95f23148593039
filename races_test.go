package planmode_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// hookSession is a session that runs a hook once, at the next AppendIf: a
// test uses it to make something happen while a controller call is between
// deciding and appending. The hook runs before the append takes the
// session's lock or, when inCond, inside the append's condition once it
// passes (the append is decided then, and its event not yet folded).
type hookSession struct {
	host.Session
	inCond bool

	mu   sync.Mutex
	hook func()
}

// startHooked starts a controller on a new fake host and returns an agent
// on a new hookSession.
func startHooked(t *testing.T, inCond bool) (*fakeHost, *planmode.Controller, *hookSession, *fakeAgent) {
	t.Helper()
	h := newFakeHost()
	c := h.start(t, nil)
	hs := &hookSession{Session: h.newSession(t), inCond: inCond}
	return h, c, hs, agentOn(hs)
}

// arm sets the hook that the next AppendIf runs.
func (s *hookSession) arm(hook func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = hook
}

func (s *hookSession) fire() {
	s.mu.Lock()
	hook := s.hook
	s.hook = nil
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
}

func (s *hookSession) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	if !s.inCond {
		s.fire()
		return s.Session.AppendIf(e, cond)
	}
	return s.Session.AppendIf(e, func() bool {
		if !cond() {
			return false
		}
		s.fire()
		return true
	})
}

func TestCancelledApprovedExitStaysCancelledAfterRestart(t *testing.T) {
	f := newReviewFixture(t)
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	// The host logs the call, runs the tool (the user approves), and logs
	// the result only after the user took the approval back.
	must(appendJSON(f.a.Session(), host.TypeToolCall, nil, host.ToolCall{ID: "x1", Name: planmode.ExitToolName, Input: planInput(t, goodPlan)}))
	f.p.QueueAnswers(approve())
	out, err := f.tool(t).Execute(context.Background(), host.CallContext{Agent: f.a, CallID: "x1"}, planInput(t, goodPlan))
	if err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want %s", out, err, planmode.ExitResult)
	}
	from := f.a.Session().Len()
	if got := set(t, f.c, f.a, true); got != planmode.Cancelled {
		t.Fatalf("Set(true) = %v, want cancelled", got)
	}
	if got := cancels(t, f.a.Session(), from); len(got) != 1 || got[0].Cancelled != planmode.SelectionInactive.String() {
		t.Fatalf("plan/cancel markers = %+v; want one withdrawing the exit", got)
	}
	must(appendJSON(f.a.Session(), host.TypeToolResult, nil, host.ToolResult{CallID: "x1", Name: planmode.ExitToolName, Output: out}))

	if got := planmode.Project(f.a.Session().Events()); got != (planmode.State{Active: true}) {
		t.Fatalf("Project = %+v; the cancelled exit is pending by the log", got)
	}
	c2 := f.h.restart(t, f.c)
	wantState(t, c2, f.a, planmode.State{Active: true})
	from = f.a.Session().Len()
	f.h.runStep(f.a, accepted)
	if got := modes(t, f.a.Session(), from); len(got) != 0 {
		t.Fatalf("a restarted controller applied the cancelled exit: plan/mode %v", got)
	}
}

func TestApprovedExitIsWithdrawnOnlyByMarkersAfterItsCall(t *testing.T) {
	tests := []struct {
		name string
		// events are logged around the exit: before its tool/call, or
		// between the call and the result.
		before, between []host.Event
		want            planmode.State
	}{
		{
			name: "a marker before the call leaves the exit pending",
			before: []host.Event{
				{Type: planmode.EventPlanCancel, Data: []byte(`{"cancelled":"active"}`)},
			},
			want: planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true},
		},
		{
			name: "a marker after the call withdraws the exit",
			between: []host.Event{
				{Type: planmode.EventPlanCancel, Data: []byte(`{"cancelled":"inactive"}`)},
			},
			want: planmode.State{Active: true},
		},
		{
			name: "a plan/mode after the call withdraws the exit",
			between: []host.Event{
				{Type: planmode.EventPlanMode, Data: []byte(`{"active":true}`)},
			},
			want: planmode.State{Active: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := []host.Event{
				{Type: planmode.EventPlanMode, Data: []byte(`{"active":true}`)},
				{Type: host.TypeTurnStart, Data: []byte(`{"turn":1}`)},
			}
			events = append(events, tt.before...)
			events = append(events, host.Event{Type: host.TypeToolCall, Data: []byte(`{"id":"x1","name":"exit_plan_mode","input":{}}`)})
			events = append(events, tt.between...)
			events = append(events, host.Event{Type: host.TypeToolResult, Data: []byte(`{"callId":"x1","name":"exit_plan_mode","output":"{\"approved\":true}"}`)})
			if got := planmode.Project(host.LogOf(events)); got != tt.want {
				t.Fatalf("Project = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSetInFlightAcrossStopAppendsNothing(t *testing.T) {
	tests := []struct {
		name string
		// setup leaves the session where the Set below appends.
		setup  func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent)
		active bool
	}{
		{
			name:   "a commit between turns",
			setup:  func(*testing.T, *fakeHost, *planmode.Controller, *fakeAgent) {},
			active: true,
		},
		{
			name: "a cancel that logs its marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) {
				must(a.StartTurn())
				planRun(t, h, a, "r1", "", false)
				must(a.EndTurn())
			},
			active: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, hs, a := startHooked(t, false)
			tt.setup(t, h, c, a)
			from := hs.Len()
			// Stop begins while Set is between deciding and appending, and a
			// turn opens at once.
			hs.arm(func() {
				if err := c.Stop(context.Background()); err != nil {
					t.Error(err)
				}
				must(a.StartTurn())
			})
			got, err := c.Set(a, tt.active)
			if !errors.Is(err, planmode.ErrNotRunning) {
				t.Fatalf("Set = %v, %v; want ErrNotRunning", got, err)
			}
			if types := logTypes(hs, from); !slices.Equal(types, []string{host.TypeTurnStart}) {
				t.Fatalf("log after Stop = %v; want only the turn/start", types)
			}
		})
	}
}

func TestPreStepInFlightAcrossStopAppendsNothing(t *testing.T) {
	h, c, hs, a := startHooked(t, false)
	must(a.StartTurn())
	set(t, c, a, true) // queued
	from := hs.Len()
	hs.arm(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	h.runStep(a, accepted)
	if got := modes(t, hs, from); len(got) != 0 {
		t.Fatalf("a pre-step running across Stop appended plan/mode %v", got)
	}
}

func TestStaleSelectionIsDroppedNotHidden(t *testing.T) {
	tests := []struct {
		name string
		// between runs after another writer logged the pending selection
		// and before it logs the opposite state.
		between func(h *fakeHost, a *fakeAgent)
	}{
		{name: "with no step in between", between: func(*fakeHost, *fakeAgent) {}},
		{name: "across the next accepted step", between: func(h *fakeHost, a *fakeAgent) { h.runStep(a, accepted) }},
		{name: "across a rejected step", between: func(h *fakeHost, a *fakeAgent) { h.runStep(a, rejected) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			must(a.StartTurn())
			if got := set(t, c, a, true); got != planmode.Queued {
				t.Fatalf("Set(true) = %v, want queued", got)
			}
			must(appendJSON(a.Session(), planmode.EventPlanMode, nil, planmode.ModePayload{Active: true})) // another writer
			wantState(t, c, a, planmode.State{Active: true})
			tt.between(h, a)
			must(appendJSON(a.Session(), planmode.EventPlanMode, nil, planmode.ModePayload{Active: false})) // and back
			wantState(t, c, a, planmode.State{})
			from := a.Session().Len()
			h.runStep(a, accepted)
			if got := modes(t, a.Session(), from); len(got) != 0 {
				t.Fatalf("the stale selection came back and landed: plan/mode %v", got)
			}
		})
	}
}

// TestDecisionsDuringACommitSeeIt: a decision made while Set's commit is
// appended (its condition passed, its event not yet folded) is made on the
// state after the commit, never on the state before it.
func TestDecisionsDuringACommitSeeIt(t *testing.T) {
	tests := []struct {
		name  string
		call  func(c *planmode.Controller, a host.Agent) error
		check func(err error) error
		want  planmode.State
	}{
		{
			name: "Enter finds plan mode on",
			call: func(c *planmode.Controller, a host.Agent) error { return c.Enter(a) },
			check: func(err error) error {
				if !errors.Is(err, planmode.ErrPlanMode) {
					return fmt.Errorf("Enter = %v, want ErrPlanMode", err)
				}
				return nil
			},
			want: planmode.State{Active: true},
		},
		{
			name: "Set(false) commits the way back",
			call: func(c *planmode.Controller, a host.Agent) error {
				if got, err := c.Set(a, false); err != nil || got != planmode.Committed {
					return fmt.Errorf("Set(false) = %v, %v; want committed", got, err)
				}
				return nil
			},
			check: func(err error) error { return err },
			want:  planmode.State{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, hs, a := startHooked(t, true)
			wantState(t, c, a, planmode.State{})
			if _, err := c.Set(a, false); err != nil { // serve the session: Noop
				t.Fatal(err)
			}
			done := make(chan error, 1)
			hs.arm(func() {
				go func() { done <- tt.call(c, a) }()
				time.Sleep(20 * time.Millisecond) // the call reaches the state while the commit is in flight
			})
			if got := set(t, c, a, true); got != planmode.Committed {
				t.Fatalf("Set(true) = %v, want committed", got)
			}
			if err := tt.check(<-done); err != nil {
				t.Fatal(err)
			}
			wantState(t, c, a, tt.want)
		})
	}
}
