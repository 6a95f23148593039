package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	planeino "github.com/dshgo/planmode/adapters/eino"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// TestMain stops the shared PostgreSQL server after the tests and fails
// them if goroutines leaked.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// policy is plan mode's section text in these tests.
const policy = "PLAN MODE: explore and plan; change nothing."

// reply is one scripted model reply: it may check the request it answers.
type reply func(t testing.TB, in []*schema.Message) *schema.Message

// scripted is an Eino chat model that plays replies in order and keeps
// every request.
type scripted struct {
	t       testing.TB
	mu      sync.Mutex
	replies []reply
	seen    [][]*schema.Message
	tools   []*schema.ToolInfo
}

func (m *scripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, in)
	if len(m.replies) == 0 {
		return nil, errors.New("scripted model: no reply left")
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return r(m.t, in), nil
}

func (m *scripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scripted) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = tools
	return m, nil
}

func (m *scripted) left() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.replies)
}

// call is a reply that calls one tool.
func call(id, name string, args any, check func(testing.TB, []*schema.Message)) reply {
	return func(t testing.TB, in []*schema.Message) *schema.Message {
		if check != nil {
			check(t, in)
		}
		js, _ := json.Marshal(args)
		return &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{
			{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: string(js)}},
		}}
	}
}

// answer is a reply without tool calls: it ends the turn.
func answer(text string, check func(testing.TB, []*schema.Message)) reply {
	return func(t testing.TB, in []*schema.Message) *schema.Message {
		if check != nil {
			check(t, in)
		}
		return schema.AssistantMessage(text, nil)
	}
}

// inPlanMode checks that the request's system prompt has plan mode's
// section (want) or not.
func inPlanMode(want bool) func(testing.TB, []*schema.Message) {
	return func(t testing.TB, in []*schema.Message) {
		t.Helper()
		if len(in) == 0 || in[0].Role != schema.System {
			t.Errorf("request has no system message: %v", in)
			return
		}
		if got := strings.Contains(in[0].Content, policy); got != want {
			t.Errorf("plan mode's section in the prompt = %v, want %v; prompt:\n%s", got, want, in[0].Content)
		}
		if !strings.HasPrefix(in[0].Content, "You are a coder.") {
			t.Errorf("the agent's instruction is not first in the prompt:\n%s", in[0].Content)
		}
	}
}

// answers is the program's UI: it picks, for each review in turn, the
// option of the next role.
type answers struct {
	mu    sync.Mutex
	roles []host.Role
	asked []host.AskRequest
}

func (q *answers) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.asked = append(q.asked, req)
	if len(q.roles) == 0 {
		return nil, host.ErrDismissed
	}
	role := q.roles[0]
	q.roles = q.roles[1:]
	qu := req.Questions[0]
	for _, o := range qu.Options {
		if o.Role == role {
			a := host.Answer{QuestionID: qu.ID, Selected: []string{o.Label}}
			if role.TakesText() {
				a.Custom = "Add a regression test first."
			}
			return []host.Answer{a}, nil
		}
	}
	return nil, fmt.Errorf("no option with role %q", role)
}

// readFile is the Eino agent's own tool.
func readFile(t testing.TB) tool.InvokableTool {
	type in struct {
		Path string `json:"path"`
	}
	tl, err := utils.InferTool("read_file", "Read a file.", func(_ context.Context, i in) (string, error) {
		if i.Path == "missing.go" {
			return "", errors.New("no such file")
		}
		return "package main // " + i.Path, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// env is a program: a host on a store, plan mode (and the hosted tools
// newEnv is given), an Eino agent.
type env struct {
	h    *planeino.Host
	plan *planmode.Controller
	ag   adk.Agent
}

func newEnv(t testing.TB, st host.Store, m model.ToolCallingChatModel, q host.UserQuestions, hosted ...host.Tool) *env {
	t.Helper()
	ctx := context.Background()
	h, err := planeino.New(planeino.Options{Store: st, Questions: q})
	if err != nil {
		t.Fatal(err)
	}
	res, err := planmode.New(planmode.Params{
		Config: planmode.Config{Section: policy}, Sections: h, Tools: h, PreStep: h,
		Validators: h.Validators(), EventTypes: h, Commands: h, Questions: h,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Controller.Stop(ctx) })
	for _, tl := range hosted {
		if _, err := h.AddTool(tl); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{h: h, plan: res.Controller}
	e.ag = e.agent(t, m, nil)
	return e
}

// agent builds a ChatModelAgent on the host's middleware with the model m;
// edit, when not nil, changes its configuration first.
func (e *env) agent(t testing.TB, m model.ToolCallingChatModel, edit func(*adk.ChatModelAgentConfig)) adk.Agent {
	t.Helper()
	mw, err := e.h.Middleware()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &adk.ChatModelAgentConfig{
		Name: "coder", Description: "Writes code.", Instruction: "You are a coder.",
		Model:       m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{readFile(t)}}},
		Middlewares: []adk.AgentMiddleware{mw},
	}
	if edit != nil {
		edit(cfg)
	}
	ag, err := adk.NewChatModelAgent(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

// run runs one turn to its end and returns the run's errors.
func run(t testing.TB, ctx context.Context, a *planeino.Agent, ag adk.Agent, text string) []error {
	t.Helper()
	var errs []error
	it := a.Run(ctx, ag, text)
	for {
		ev, ok := it.Next()
		if !ok {
			return errs
		}
		if ev.Err != nil {
			errs = append(errs, ev.Err)
		}
	}
}

// types lists the log's event types from index from on.
func types(s host.Session, from int) []string {
	var out []string
	log := s.Events()
	for _, e := range log.Range(from, log.Len()) {
		out = append(out, e.Type)
	}
	return out
}

// results lists the log's tool results.
func results(s host.Session) []host.ToolResult {
	var out []host.ToolResult
	for _, e := range s.Events().All() {
		if e.Type == host.TypeToolResult {
			var r host.ToolResult
			_ = json.Unmarshal(e.Data, &r)
			out = append(out, r)
		}
	}
	return out
}
