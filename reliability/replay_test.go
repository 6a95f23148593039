package reliability_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// wantReplayAgrees checks that the log alone (Project, and a controller
// started afresh on the same session) shows what the live controller shows.
func wantReplayAgrees(t *testing.T, h *testHost, a host.Agent) {
	t.Helper()
	live := h.ctl.Get(a)
	if p := planmode.Project(a.Session().Events()); p.Active != live.Active || p.Pending != live.Pending {
		t.Errorf("Project = %+v, live controller %+v", p, live)
	}
	if err := h.ctl.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := startController(t, mustRuntime(t, h.store), h.store).Get(a); got != live {
		t.Errorf("restarted controller: Get = %+v, live controller before the restart %+v", got, live)
	}
}

// A user who cancels a pending selection through the controller (a UI
// toggle calling Set) has cancelled it: the log alone must not show it
// pending, or a restarted process applies what the user took back.
//
// Set's cancellation logs nothing, so a completed "/plan" (or an approved
// exit) that it cancels still reads as pending from the log: Project and a
// restarted controller disagree with the live one, and the next turn after
// a restart switches the mode the user had switched back.
func TestCancelledSelectionStaysCancelledAfterRestart(t *testing.T) {
	tests := []struct {
		name     string
		inactive bool // start in the default mode instead of plan mode
		steps    []scripted.Step
		review   bool
	}{
		{
			name:     "/plan cancelled by Set(false)",
			inactive: true,
			steps: []scripted.Step{
				{ToolCalls: []host.ToolCall{hookCall("h1", "plan-on"), hookCall("h2", "set-false")}},
				{Text: "ok"},
			},
		},
		{
			name: "/plan off cancelled by Set(true)",
			steps: []scripted.Step{
				{ToolCalls: []host.ToolCall{hookCall("h1", "plan-off"), hookCall("h2", "set-true")}},
				{Text: "ok"},
			},
		},
		{
			name: "approved exit cancelled by Set(true)",
			steps: []scripted.Step{
				{ToolCalls: []host.ToolCall{exitCall("x", goodPlan), hookCall("h2", "set-true")}},
				{Text: "ok"},
			},
			review: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			var h *testHost
			outcomes := map[string]planmode.Outcome{}
			set := func(active bool) hookFunc {
				return func(_ context.Context, a host.Agent) (string, error) {
					out, err := h.ctl.Set(a, active)
					outcomes[tt.name] = out
					return out.String(), err
				}
			}
			command := func(args string) hookFunc {
				return func(ctx context.Context, a host.Agent) (string, error) {
					_, reply, err := h.rt.Execute(ctx, a, "/"+planmode.CommandName+args, nil)
					return reply, err
				}
			}
			h = startHost(t, st, scripted.NewModel(append(tt.steps, scripted.Step{Text: "next turn"})...), map[string]hookFunc{
				"plan-on": command(""), "plan-off": command(" " + argOff),
				"set-true": set(true), "set-false": set(false),
			})
			if tt.review {
				h.reviewer.queue(approve)
			}
			a := h.newAgent(t, "")
			if !tt.inactive {
				if _, err := h.ctl.Set(a, true); err != nil {
					t.Fatal(err)
				}
			}
			prompt(t, a, "go")
			if outcomes[tt.name] != planmode.Cancelled {
				t.Fatalf("the Set in the turn was %v, want cancelled", outcomes[tt.name])
			}
			want := planmode.State{Active: !tt.inactive}
			if got := h.ctl.Get(a); got != want {
				t.Fatalf("live controller: Get = %+v, want %+v (the user's last choice)", got, want)
			}
			wantReplayAgrees(t, h, a)
		})
	}
}

// blockingAgent is an agent whose Steer waits until released, so that a
// "/plan <message>" is held between its selection and its completion.
type blockingAgent struct {
	logAgent
	steering chan struct{} // closed when Steer is called
	release  chan struct{}
}

func (a blockingAgent) Steer(host.Message) error {
	close(a.steering)
	<-a.release
	return nil
}

// Two "/plan" runs on one agent whose completions reach the log in the
// other order than their selections: the later selection (off, which
// cancels the entry) completes first. The log alone then reads the earlier
// one as the latest and pending, while the live controller has nothing
// pending.
func TestCommandsCompletingOutOfOrderAgreeWithTheLog(t *testing.T) {
	st := store.NewMemory()
	h := startHost(t, st, scripted.NewModel(), nil)
	sess, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	// A turn is open (the log says so), so selections queue.
	turn, _ := json.Marshal(host.TurnStart{Turn: 1})
	if _, err := sess.Append(host.Event{Type: host.TypeTurnStart, Data: turn}); err != nil {
		t.Fatal(err)
	}
	slow := blockingAgent{logAgent: logAgent{sess}, steering: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error)
	go func() {
		_, _, err := h.rt.Execute(context.Background(), slow, "/"+planmode.CommandName+" look at the parser", nil)
		done <- err
	}()
	<-slow.steering // its Set queued plan mode; its completion is not logged yet
	if _, reply, err := h.rt.Execute(context.Background(), logAgent{sess}, "/"+planmode.CommandName+" "+argOff, nil); err != nil {
		t.Fatalf("/plan off: %v (%s)", err, reply)
	}
	close(slow.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := h.ctl.Get(logAgent{sess}); got != (planmode.State{}) {
		t.Fatalf("live controller: Get = %+v, want the default mode with nothing pending (/plan off came last)", got)
	}
	wantReplayAgrees(t, h, logAgent{sess})
}
