package refhost_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

func TestToolGuardsConformance(t *testing.T) {
	hosttest.TestToolGuards(t, func(t *testing.T) hosttest.GuardHarness {
		st := store.NewMemory()
		rt, err := refhost.New(refhost.Options{Store: st, Model: scripted.NewModel()})
		if err != nil {
			t.Fatal(err)
		}
		sess, err := st.Create("")
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu    sync.Mutex
			agent *refhost.Agent
		)
		return hosttest.GuardHarness{
			Guards: rt,
			Tools:  rt,
			Call: func(ctx context.Context, name string, input json.RawMessage) host.ToolResult {
				mu.Lock()
				a := agentFor(t, rt, sess, &agent)
				mu.Unlock()
				return a.CallTool(ctx, host.ToolCall{ID: "c", Name: name, Input: input})
			},
			Serve: rt.CheckGuards,
		}
	})
}

// agentFor creates the harness's agent on first use (after the guards are
// registered, since NewAgent checks them). It does not run the checks
// through t.Fatal, since calls may come from other goroutines.
func agentFor(t *testing.T, rt *refhost.Runtime, sess host.Session, a **refhost.Agent) *refhost.Agent {
	if *a == nil {
		ag, err := rt.NewAgent("", sess)
		if err != nil {
			t.Error(err)
			return nil
		}
		t.Cleanup(func() { _ = ag.Stop(context.Background()) })
		*a = ag
	}
	return *a
}

func TestNewAgentRefusesToServeWithAGuardNamingAnUnknownTool(t *testing.T) {
	st := store.NewMemory()
	rt, err := refhost.New(refhost.Options{Store: st, Model: scripted.NewModel()})
	if err != nil {
		t.Fatal(err)
	}
	ok := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
	if _, err := rt.AddToolGuard(host.Guard{Name: "gate", Check: ok, Tools: []string{"nope"}}); err != nil {
		t.Fatal(err)
	}
	sess, _ := st.Create("")
	if _, err := rt.NewAgent("", sess); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("NewAgent: %v; want an error naming nope", err)
	}
}

func TestAPanickingGuardFailsClosed(t *testing.T) {
	st := store.NewMemory()
	rt, _ := refhost.New(refhost.Options{Store: st, Model: scripted.NewModel()})
	if _, err := rt.AddToolGuard(host.Guard{Name: "boom", Check: func(context.Context, host.CallContext, string, json.RawMessage) error {
		panic("boom")
	}}); err != nil {
		t.Fatal(err)
	}
	sess, _ := st.Create("")
	a, err := rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	res := a.CallTool(context.Background(), host.ToolCall{ID: "1", Name: "x", Input: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Output, "boom") {
		t.Fatalf("result %+v", res)
	}
}

func TestCompactionLandsBeforeTheNextRequest(t *testing.T) {
	st := store.NewMemory()
	var rt *refhost.Runtime
	var agent *refhost.Agent
	model := scripted.NewModel(
		scripted.Step{ToolCalls: []host.ToolCall{{ID: "1", Name: "compact", Input: json.RawMessage(`{}`)}}},
		scripted.Step{Text: "working from the summary"},
	)
	rt, err := refhost.New(refhost.Options{Store: st, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.AddTool(compactTool{rt: rt}); err != nil {
		t.Fatal(err)
	}
	sess, _ := st.Create("")
	agent, err = rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(context.Background()) })
	if err := agent.Steer(host.Message{Content: []host.Block{host.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := agent.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	second := reqs[1].Messages
	if len(second) != 1 || second[0].Text != "the summary" {
		t.Fatalf("second request's transcript %+v; want only the summary", second)
	}
	var types []string
	for _, e := range sess.Events().Slice() {
		types = append(types, e.Type)
	}
	got := strings.Join(types, " ")
	if !strings.Contains(got, "tool/result step/end step/start compaction/summary request/header") &&
		!strings.Contains(got, "tool/result step/end step/start compaction/summary assistant/message") {
		t.Fatalf("log %s", got)
	}
	if err := rt.CompactBeforeNextRequest(fakeAgent{}, "x"); err == nil {
		t.Fatal("a foreign agent was accepted")
	}
}

type compactTool struct{ rt *refhost.Runtime }

func (compactTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "compact", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (c compactTool) Execute(_ context.Context, call host.CallContext, _ json.RawMessage) (string, error) {
	return "scheduled", c.rt.CompactBeforeNextRequest(call.Agent, "the summary")
}

type fakeAgent struct{ host.Agent }
