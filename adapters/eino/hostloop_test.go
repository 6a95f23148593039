package eino_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	planeino "github.com/dshgo/planmode/adapters/eino"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

// TestLoop runs the host-loop suite against the adapter as a program
// composes it: a ChatModelAgent with the host's middleware, plan mode
// started on the host, turns run through Agent.Run, commands through
// Agent.Execute, on a durable store.Dir, so a restart reads the session
// back from its file.
func TestLoop(t *testing.T) {
	hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness {
		st, err := store.OpenDir(filepath.Join(t.TempDir(), "sessions"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return &einoLoop{st: st}
	})
}

// einoLoop builds Eino programs on one store.
type einoLoop struct {
	st interface {
		host.Store
		hosttest.SessionCloser
	}
	id string
}

func (l *einoLoop) Open(t testing.TB, cfg hosttest.LoopConfig) hosttest.LoopHost {
	ctx := context.Background()
	h, err := planeino.New(planeino.Options{Store: l.st, Questions: cfg.User})
	if err != nil {
		t.Fatal(err)
	}
	res, err := planmode.New(planmode.Params{
		Config: cfg.Plan, Sections: h, Tools: h, PreStep: h,
		Validators: h.Validators(), EventTypes: h, Commands: h, Questions: h,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mw, err := h.Middleware()
	if err != nil {
		t.Fatal(err)
	}
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "Writes code.", Instruction: "You are a coder.",
		Model:       &loopModel{m: cfg.Model},
		Middlewares: []adk.AgentMiddleware{mw},
	})
	if err != nil {
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
	a, err := h.NewAgent(sess)
	if err != nil {
		t.Fatal(err)
	}
	return &einoHost{plan: res.Controller, agent: a, ag: ag, validators: h.Validators(), close: func() error {
		err := res.Controller.Stop(ctx)
		if e := l.st.CloseSession(l.id); err == nil {
			err = e
		}
		return err
	}}
}

// einoHost is one Eino program under the suite.
type einoHost struct {
	plan       *planmode.Controller
	agent      *planeino.Agent
	ag         adk.Agent
	validators host.Validators
	close      func() error
}

func (h *einoHost) Plan() *planmode.Controller  { return h.plan }
func (h *einoHost) Agent() host.Agent           { return h.agent }
func (h *einoHost) Validators() host.Validators { return h.validators }
func (h *einoHost) Close() error                { return h.close() }

// Send runs one turn and reads its events to the end, which comes after
// the turn's end is in the log; a cancelled ctx cancels the run.
func (h *einoHost) Send(ctx context.Context, text string) error {
	it := h.agent.Run(ctx, h.ag, text)
	for {
		if _, ok := it.Next(); !ok {
			return nil
		}
	}
}

func (h *einoHost) Command(ctx context.Context, line string) error {
	_, _, err := h.agent.Execute(ctx, line)
	return err
}

// loopModel is an Eino chat model that answers through the suite's model.
type loopModel struct {
	m     *hosttest.LoopModel
	tools []string
}

func (l *loopModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	req := hosttest.LoopRequest{Tools: l.tools}
	for i, m := range in {
		if i == 0 && m.Role == schema.System {
			req.System = m.Content
			continue
		}
		req.Messages = append(req.Messages, m.Content)
	}
	rep, err := l.m.Reply(ctx, req)
	if err != nil {
		return nil, err
	}
	out := schema.AssistantMessage(rep.Text, nil)
	for _, c := range rep.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, schema.ToolCall{
			ID: c.ID, Type: "function", Function: schema.FunctionCall{Name: c.Name, Arguments: string(c.Input)},
		})
	}
	return out, nil
}

func (l *loopModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := l.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WithTools returns a model that reports the tools' names with each
// request.
func (l *loopModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	c := &loopModel{m: l.m}
	for _, ti := range tools {
		c.tools = append(c.tools, ti.Name)
	}
	return c, nil
}
