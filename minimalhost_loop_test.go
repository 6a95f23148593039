package planmode_test

import (
	"context"
	"io"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

// TestLoopMinimalHost runs the host-loop suite against the minimal host
// of docs/host.md (Example_minimalHost), so the smallest host a reader
// copies keeps every contract point it claims.
func TestLoopMinimalHost(t *testing.T) {
	hosttest.TestLoop(t, func(testing.TB) hosttest.LoopHarness { return &miniLoop{st: store.NewMemory()} })
}

// miniLoop builds minimal hosts on one in-memory store.
type miniLoop struct {
	st *store.Memory
	id string
}

func (l *miniLoop) Open(t testing.TB, cfg hosttest.LoopConfig) hosttest.LoopHost {
	h := newMiniHost(io.Discard)
	res, err := planmode.New(planmode.Params{Config: cfg.Plan, Sections: h, Tools: h, PreStep: h,
		Validators: l.st, EventTypes: h, Questions: cfg.User})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sess host.Session
	if l.id == "" {
		sess, err = l.st.Create("")
	} else {
		sess, err = l.st.Open(l.id)
	}
	if err != nil {
		t.Fatal(err)
	}
	l.id = sess.ID()
	model := func(ctx context.Context, req miniRequest) (host.AssistantMessage, error) {
		rep, err := cfg.Model.Reply(ctx, hosttest.LoopRequest(req))
		return host.AssistantMessage{Text: rep.Text, ToolCalls: rep.ToolCalls}, err
	}
	return &miniLoopHost{h: h, plan: res.Controller, agent: &miniAgent{sess: sess}, st: l.st, model: model}
}

type miniLoopHost struct {
	h     *miniHost
	plan  *planmode.Controller
	agent *miniAgent
	st    *store.Memory
	model miniModel
}

func (m *miniLoopHost) Plan() *planmode.Controller  { return m.plan }
func (m *miniLoopHost) Agent() host.Agent           { return m.agent }
func (m *miniLoopHost) Validators() host.Validators { return m.st }
func (m *miniLoopHost) Close() error                { return m.plan.Stop(context.Background()) }

// Send runs the turn in the caller's goroutine, as the example does.
func (m *miniLoopHost) Send(ctx context.Context, text string) error {
	if err := m.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		return err
	}
	m.h.turn(ctx, m.agent, m.model)
	return nil
}
