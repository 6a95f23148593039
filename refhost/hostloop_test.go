package refhost_test

import (
	"context"
	"path/filepath"
	"testing"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/refhosttest"
	"github.com/dshgo/planmode/store"
)

// TestLoopConformance runs the host-loop suite against the reference
// host composed as a program does: refhost.Module and planmode.Module in
// one fx application, on a durable store.Dir, so a restart reads the
// session back from its file.
func TestLoopConformance(t *testing.T) {
	hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness {
		st, err := store.OpenDir(filepath.Join(t.TempDir(), "sessions"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return &fxLoop{st: st}
	})
}

// fxLoop builds fx applications of the reference host on one store.Dir.
type fxLoop struct {
	st *store.Dir
	id string
}

func (h *fxLoop) Open(t testing.TB, cfg hosttest.LoopConfig) hosttest.LoopHost {
	var (
		rt   *refhost.Runtime
		plan *planmode.Controller
	)
	app := fx.New(
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(h.st, fx.As(new(host.Store))),
			fx.Annotate(refhosttest.LoopModel(cfg.Model), fx.As(new(refhost.Model))),
			cfg.Plan,
		),
		refhost.Module,
		planmode.Module,
		fx.Populate(&rt, &plan),
	)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	unset, err := rt.Questions().SetProvider(cfg.User)
	if err != nil {
		t.Fatal(err)
	}
	var sess host.Session
	if h.id == "" {
		sess, err = h.st.Create("")
	} else {
		sess, err = h.st.Open(h.id)
	}
	if err != nil {
		t.Fatal(err)
	}
	h.id = sess.ID()
	a, err := rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	return &loopHost{rt: rt, plan: plan, agent: a, validators: h.st, close: func(ctx context.Context) error {
		unset()
		err := app.Stop(ctx)
		if e := h.st.CloseSession(h.id); err == nil {
			err = e
		}
		return err
	}}
}

// loopHost is a reference host under the suite.
type loopHost struct {
	rt         *refhost.Runtime
	plan       *planmode.Controller
	agent      *refhost.Agent
	validators host.Validators
	close      func(context.Context) error
}

func (h *loopHost) Plan() *planmode.Controller  { return h.plan }
func (h *loopHost) Agent() host.Agent           { return h.agent }
func (h *loopHost) Validators() host.Validators { return h.validators }

func (h *loopHost) Send(ctx context.Context, text string) error {
	if err := h.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		return err
	}
	if h.agent.WaitIdle(ctx) == nil {
		return nil
	}
	h.agent.Cancel()
	wctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	return h.agent.WaitIdle(wctx)
}

func (h *loopHost) Command(ctx context.Context, line string) error {
	_, _, err := h.rt.Execute(ctx, h.agent, line, nil)
	return err
}

func (h *loopHost) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	err := h.agent.Stop(ctx)
	if e := h.close(ctx); err == nil {
		err = e
	}
	return err
}
