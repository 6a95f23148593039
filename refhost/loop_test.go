package refhost_test

import (
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestToolLoop(t *testing.T) {
	f := newFixture(t,
		scripted.Step{Text: "looking", ToolCalls: []host.ToolCall{call("c1", "echo", `{"text":"one"}`), call("c2", "echo", `{"fail":"boom"}`)}},
		scripted.Step{ToolCalls: []host.ToolCall{call("c3", "missing", `{}`)}},
		scripted.Step{Text: "done"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a := f.agent()
	f.steer(a, "hi")

	want := []string{
		host.TypeTurnStart,
		host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader, host.TypeAssistantMessage,
		host.TypeToolCall, host.TypeToolResult, host.TypeToolCall, host.TypeToolResult, host.TypeStepEnd,
		host.TypeStepStart, host.TypeAssistantMessage, host.TypeToolCall, host.TypeToolResult, host.TypeStepEnd,
		host.TypeStepStart, host.TypeAssistantMessage, host.TypeStepEnd,
		host.TypeTurnEnd,
	}
	if got := types(a.Session()); !slices.Equal(got, want) {
		t.Fatalf("log:\n got %v\nwant %v", got, want)
	}
	results := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	wantResults := []host.ToolResult{
		{CallID: "c1", Name: "echo", Output: "one"},
		{CallID: "c2", Name: "echo", Output: refhost.ToolErrorPrefix + "boom", IsError: true},
		{CallID: "c3", Name: "missing", Output: `Error: unknown tool "missing"; use only the tools you were given`, IsError: true},
	}
	if !slices.Equal(results, wantResults) {
		t.Errorf("results:\n got %+v\nwant %+v", results, wantResults)
	}
	if got := lastTurnEnd(t, a.Session()); got != (host.TurnEnd{Turn: 1, Reason: host.TurnCompleted}) {
		t.Errorf("turn end = %+v", got)
	}
	starts := payloads[host.StepStart](t, a.Session(), host.TypeStepStart)
	if want := []host.StepStart{{Turn: 1, Step: 1, Attempt: 1}, {Turn: 1, Step: 2, Attempt: 1}, {Turn: 1, Step: 3, Attempt: 1}}; !slices.Equal(starts, want) {
		t.Errorf("step starts = %v, want %v", starts, want)
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model got %d requests, want 3", len(reqs))
	}
	last := reqs[2].Messages
	roles := make([]refhost.Role, len(last))
	for i, m := range last {
		roles[i] = m.Role
	}
	wantRoles := []refhost.Role{refhost.RoleUser, refhost.RoleAssistant, refhost.RoleTool, refhost.RoleTool, refhost.RoleAssistant, refhost.RoleTool}
	if !slices.Equal(roles, wantRoles) {
		t.Errorf("third request roles = %v, want %v", roles, wantRoles)
	}
	if a.Status() != host.StatusIdle || a.Turn() != 1 {
		t.Errorf("status %s turn %d, want idle after turn 1", a.Status(), a.Turn())
	}
}
