package wiring_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/refhosttest"
)

// TestLoopConformance runs the host-loop suite against planhost's host as
// "planhost run" composes it (wiring.New from a deployment file), on each
// store -store offers: session files, and PostgreSQL, where every turn
// runs under the session's turn lease.
func TestLoopConformance(t *testing.T) {
	noEnv := func(string) string { return "" }
	t.Run("file", func(t *testing.T) {
		hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness {
			return openLoop(t, wiring.StoreFile, filepath.Join(t.TempDir(), "sessions"), noEnv)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.NewServer(t)
		hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness {
			return openLoop(t, pgtest.NewDBOn(t, srv), "", noEnv)
		})
	})
}

// openLoop opens the store -store value names, closed at t's end.
func openLoop(t testing.TB, value, dir string, getenv func(string) string) *planhostLoop {
	st, _, err := wiring.OpenStore(value, dir, getenv, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &planhostLoop{st: st}
}

// planhostLoop builds planhost hosts on one store.
type planhostLoop struct {
	st wiring.Store
	id string
}

func (h *planhostLoop) Open(t testing.TB, cfg hosttest.LoopConfig) hosttest.LoopHost {
	section, err := json.Marshal(cfg.Plan.Section)
	if err != nil {
		t.Fatal(err)
	}
	dep, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-mode:\n    section: "+string(section)+"\n"), wiring.Plugins()...)
	if err != nil {
		t.Fatal(err)
	}
	app, parts := wiring.New(wiring.Config{Store: h.st, Model: refhosttest.LoopModel(cfg.Model), Deployment: dep})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	unset, err := parts.Runtime.Questions().SetProvider(cfg.User)
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
	a, err := parts.Runtime.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	return &planhostHost{rt: parts.Runtime, plan: parts.Plan, agent: a, st: h.st, close: func() error {
		wiring.StopAgent(a)
		unset()
		wiring.Stop(app)
		return h.st.(hosttest.SessionCloser).CloseSession(h.id)
	}}
}

type planhostHost struct {
	rt    *refhost.Runtime
	plan  *planmode.Controller
	agent *refhost.Agent
	st    host.Store
	close func() error
}

func (h *planhostHost) Plan() *planmode.Controller  { return h.plan }
func (h *planhostHost) Agent() host.Agent           { return h.agent }
func (h *planhostHost) Validators() host.Validators { return h.st }
func (h *planhostHost) Close() error                { return h.close() }

func (h *planhostHost) Send(ctx context.Context, text string) error {
	if err := h.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		return err
	}
	if h.agent.WaitIdle(ctx) == nil {
		return nil
	}
	h.agent.Cancel()
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.agent.WaitIdle(wctx)
}

func (h *planhostHost) Command(ctx context.Context, line string) error {
	_, _, err := h.rt.Execute(ctx, h.agent, line, nil)
	return err
}
