package refhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
)

// TestOutcomesAreLoggedNeverSentToTheModel checks that the outcome a tool
// or a command supplies with host.SetOutcome lands in its logged result,
// on success and on failure, that one that supplies none logs "", and that
// the model's requests never carry it.
func TestOutcomesAreLoggedNeverSentToTheModel(t *testing.T) {
	f := newFixture(t,
		scripted.Step{ToolCalls: []host.ToolCall{call("c1", "judge", `{"ok":true}`), call("c2", "judge", `{}`), call("c3", "echo", `{"text":"x"}`)}},
		scripted.Step{Text: "done"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	must[func()](t)(f.rt.AddTool(funcTool{name: "judge", fn: func(ctx context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
		var in struct{ OK bool }
		_ = json.Unmarshal(input, &in)
		if in.OK {
			host.SetOutcome(ctx, "code-accepted")
			return "fine", nil
		}
		host.SetOutcome(ctx, "code-declined")
		return "", errors.New("not fine")
	}}))
	must[func()](t)(f.rt.AddCommand(host.Command{Name: "judge", Run: func(ctx context.Context, inv host.Invocation) (string, error) {
		host.SetOutcome(ctx, "code-"+strings.TrimSpace(inv.Args))
		if strings.TrimSpace(inv.Args) == "no" {
			return "", errors.New("refused")
		}
		return "judged", nil
	}}))
	a := f.agent()
	f.steer(a, "hi")

	results := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	want := map[string]string{"c1": "code-accepted", "c2": "code-declined", "c3": ""}
	for _, r := range results {
		if r.Outcome != want[r.CallID] {
			t.Errorf("result %s logged outcome %q, want %q", r.CallID, r.Outcome, want[r.CallID])
		}
	}
	for _, req := range f.model.Requests() {
		if s := fmt.Sprintf("%+v", req); strings.Contains(s, "code-") {
			t.Fatalf("a model request carries an outcome: %s", s)
		}
	}

	for _, args := range []string{"yes", "no"} {
		_, _, _ = f.rt.Execute(context.Background(), a, "/judge "+args, nil)
	}
	dones := payloads[host.CommandDone](t, a.Session(), host.TypeCommandDone)
	if len(dones) != 2 || dones[0].Outcome != "code-yes" || !dones[0].OK || dones[1].Outcome != "code-no" || dones[1].OK {
		t.Fatalf("command/done = %+v, want the outcomes code-yes (ok) and code-no (failed)", dones)
	}
}
