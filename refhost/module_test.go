package refhost_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

func TestModule(t *testing.T) {
	var (
		agent   *refhost.Agent
		reg     struct{ sections, tools, commands, prestep, questions, validators, types bool }
		unblock = make(chan struct{})
	)
	var maxAttempts int // as the request-error listener saw it
	model := scripted.NewModel(scripted.Step{Err: errors.New("down")}, scripted.Step{Block: true})
	app := fxtest.New(t,
		fx.Provide(
			func() host.Store { return store.NewMemory() },
			func() refhost.Model { return model },
			func() *refhost.Settings { return &refhost.Settings{MaxAttempts: 5} },
		),
		refhost.Module,
		fx.Invoke(func(r *refhost.Runtime, s host.Sections, tl host.Tools, c host.Commands, p host.PreStepChain,
			q host.UserQuestions, v host.Validators, et host.EventTypes) {
			reg.sections, reg.tools, reg.commands, reg.prestep = s == r, tl == r, c == r, p == r
			reg.questions, reg.validators, reg.types = q == r.Questions(), v == r.Store(), et == r
		}),
		fx.Invoke(func(lc fx.Lifecycle, r *refhost.Runtime) {
			lc.Append(fx.StartHook(func(context.Context) error {
				if _, err := r.AddRequestErrorListener("retry", func(_ context.Context, e refhost.RequestError) bool {
					maxAttempts = e.MaxAttempts
					return true
				}); err != nil {
					return err
				}
				s, err := r.Store().Create("")
				if err != nil {
					return err
				}
				agent, err = r.NewAgent("", s)
				if err != nil {
					return err
				}
				close(unblock)
				return agent.Steer(userText("hi"))
			}))
		}),
	)
	app.RequireStart()
	<-unblock
	if err := model.WaitCalls(ctxTimeout(t), 2); err != nil {
		t.Fatal(err)
	}
	// Stopping the app stops the agent blocked in its model call.
	app.RequireStop()
	if agent.Status() != host.StatusIdle {
		t.Error("agent still running after the app stopped")
	}
	if got := lastTurnEnd(t, agent.Session()); got.Reason != host.TurnCancelled {
		t.Errorf("turn end = %+v", got)
	}
	if maxAttempts != 5 {
		t.Errorf("settings not applied: max attempts %d", maxAttempts)
	}
	if reg != (struct{ sections, tools, commands, prestep, questions, validators, types bool }{true, true, true, true, true, true, true}) {
		t.Errorf("provided services: %+v", reg)
	}
}
