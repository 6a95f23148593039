package plangate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plangate"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name string
		give string
		want string // error substring; "" for success
	}{
		{"a list of tools", "tools: [write_file, run]", ""},
		{"missing tools", "{}", "tools: is required"},
		{"empty entry", "", "tools: is required"},
		{"an empty list", "tools: []", "at least one"},
		{"not a list", "tools: write_file", "must be a list"},
		{"a number in the list", "tools: [1]", "must be a string"},
		{"a repeated tool", "tools: [a, a]", `lists "a" twice`},
		{"a plan-mode tool", "tools: [write, exit_plan_mode]", `"exit_plan_mode" belongs to plan mode`},
		{"a companion tool", "tools: [plan_write]", `"plan_write" belongs to plan mode`},
		{"the clarifying-question tool", "tools: [ask_user]", `"ask_user" belongs to plan mode`},
		{"an unknown key", "tools: [a]\nextra: 1", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(tt.give), &n); err != nil {
				t.Fatal(err)
			}
			_, err := plangate.DecodeConfig(&n)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v; want %q", err, tt.want)
			}
		})
	}
}

func TestDeploymentErrorsCarryFilePositions(t *testing.T) {
	file := "plugins:\n  plan-mode:\n    section: guidance\n  plan-gate:\n    tools: [exit_plan_mode]\n"
	_, err := deploy.Parse("deploy.yaml", []byte(file), planmode.DeployPlugin(), plangate.DeployPlugin())
	if err == nil || !strings.Contains(err.Error(), "deploy.yaml:5:13: plan-gate: tools[0]:") {
		t.Fatalf("error %v", err)
	}
	_, err = deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-gate:\n    tools: [w]\n"), planmode.DeployPlugin(), plangate.DeployPlugin())
	if err == nil || !strings.Contains(err.Error(), "deploy.yaml:2:3: plan-gate: needs the plugin \"plan-mode\"") {
		t.Fatalf("error %v", err)
	}
}

// writeTool is a listed write tool that counts its runs.
type writeTool struct {
	name string
	runs *atomic.Int64
}

func (w writeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: w.name, Description: "writes", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (w writeTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	w.runs.Add(1)
	return "written", nil
}

func gateHost(t *testing.T, tools ...string) (*e2etest.Host, *atomic.Int64) {
	t.Helper()
	return gateHostWith(t, tools)
}

// gateHostWith is gateHost with more fx options (other plugins).
func gateHostWith(t *testing.T, tools []string, opts ...fx.Option) (*e2etest.Host, *atomic.Int64) {
	t.Helper()
	runs := new(atomic.Int64)
	h := e2etest.New(t, append([]fx.Option{
		fx.Supply(plangate.Config{Tools: tools}),
		plangate.Module,
		fx.Invoke(func(lc fx.Lifecycle, reg host.Tools) {
			lc.Append(fx.StartHook(func() error {
				_, err := reg.AddTool(writeTool{name: "write_file", runs: runs})
				if err != nil {
					return err
				}
				_, err = reg.AddTool(writeTool{name: "read_file", runs: new(atomic.Int64)})
				return err
			}))
		}),
	}, opts...)...)
	return h, runs
}

// TestTheGateIsArmedFromTheUsersConsentToEnter: once the user consents to
// enter_plan_mode, a listed tool later in the same batch is refused, with
// an error that says plan mode was agreed and starts with the next
// request; a declined entry leaves the batch's write alone.
func TestTheGateIsArmedFromTheUsersConsentToEnter(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		wantRef bool
	}{
		{"consent", planentry.OptionEnter, true},
		{"decline", planentry.OptionDecline, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, runs := gateHostWith(t, []string{"write_file"}, fx.Supply(planentry.Config{}), planentry.Module)
			a := h.Agent()
			h.User.QueueAnswers(host.Answer{QuestionID: planentry.QuestionID, Selected: []string{tt.answer}})
			h.Model.Add(
				e2etest.Batch(
					e2etest.Call("w0", "write_file", map[string]string{}),
					e2etest.Call("e", planentry.ToolName, map[string]string{"goal": "rework the uploader"}),
					e2etest.Call("w1", "write_file", map[string]string{}),
					e2etest.Call("r1", "read_file", map[string]string{}),
				),
				e2etest.Call("w2", "write_file", map[string]string{}),
				e2etest.Say("done"),
			)
			h.Prompt(a, "rework it")
			if r := e2etest.Result(t, a, "e"); r.IsError {
				t.Fatalf("enter_plan_mode: %+v", r)
			}
			if r := e2etest.Result(t, a, "w0"); r.IsError {
				t.Fatalf("a write before the question was refused: %+v", r)
			}
			if r := e2etest.Result(t, a, "r1"); r.IsError {
				t.Fatalf("an unlisted tool was refused: %+v", r)
			}
			r1, r2 := e2etest.Result(t, a, "w1"), e2etest.Result(t, a, "w2")
			if !tt.wantRef {
				if r1.IsError || r2.IsError || runs.Load() != 3 {
					t.Fatalf("after a declined entry: %+v, %+v, %d runs", r1, r2, runs.Load())
				}
				return
			}
			if !r1.IsError || !strings.Contains(r1.Output, `"write_file" was not run`) || !strings.Contains(r1.Output, "agreed") {
				t.Fatalf("a write after the consent, in the same batch: %+v", r1)
			}
			if !r2.IsError || !strings.Contains(r2.Output, "plan mode is on") {
				t.Fatalf("a write in plan mode: %+v", r2)
			}
			if runs.Load() != 1 {
				t.Fatalf("%d runs, want only the write before the question", runs.Load())
			}
		})
	}
}

func TestTheGateRefusesListedToolsOnlyWhileThePlanModeIsLogged(t *testing.T) {
	h, runs := gateHost(t, "write_file")
	a := h.Agent()
	h.Model.Add(e2etest.Call("w1", "write_file", map[string]string{}), e2etest.Say("done"))
	h.Prompt(a, "write it")
	if r := e2etest.Result(t, a, "w1"); r.IsError || runs.Load() != 1 {
		t.Fatalf("in the default mode: %+v, %d runs", r, runs.Load())
	}

	h.EnterPlanMode(a)
	h.Model.Add(
		e2etest.Batch(e2etest.Call("w2", "write_file", map[string]string{}), e2etest.Call("r2", "read_file", map[string]string{})),
		e2etest.Say("planning"),
	)
	h.Prompt(a, "write it again")
	r := e2etest.Result(t, a, "w2")
	if !r.IsError || !strings.Contains(r.Output, `"write_file" was not run`) || !strings.Contains(r.Output, "exit_plan_mode") {
		t.Fatalf("in plan mode: %+v", r)
	}
	if runs.Load() != 1 {
		t.Fatalf("the refused tool ran (%d runs)", runs.Load())
	}
	if r := e2etest.Result(t, a, "r2"); r.IsError {
		t.Fatalf("an unlisted tool was refused: %+v", r)
	}
}

func TestAPendingEntryDoesNotArmTheGateAndAPendingExitKeepsItArmed(t *testing.T) {
	h, runs := gateHost(t, "write_file")
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(e2etest.Approve())
	// One batch: the approved exit is pending until the next step, so the
	// write right after it is still refused; the next step's write runs.
	h.Model.Add(
		e2etest.Batch(
			e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": "# Plan\n\nwrite"}),
			e2etest.Call("w1", "write_file", map[string]string{}),
		),
		e2etest.Call("w2", "write_file", map[string]string{}),
		e2etest.Say("done"),
	)
	h.Prompt(a, "plan, then write")
	if r := e2etest.Result(t, a, "x"); r.IsError {
		t.Fatalf("exit: %+v", r)
	}
	if r := e2etest.Result(t, a, "w1"); !r.IsError {
		t.Fatalf("a write while the exit was pending ran: %+v", r)
	}
	if r := e2etest.Result(t, a, "w2"); r.IsError {
		t.Fatalf("a write after the exit was applied: %+v", r)
	}
	if runs.Load() != 1 {
		t.Fatalf("%d runs", runs.Load())
	}

}

func TestTheGateIsArmedWhileAPendingEntryWaitsOnlyAfterItLands(t *testing.T) {
	h, runs := gateHost(t, "write_file")
	a := h.Agent()
	// Select plan mode while the turn runs (from inside a tool): the entry
	// is pending, the write in the same batch runs, the next step's does not.
	sel := selectTool{h: h}
	if _, err := h.Runtime.AddTool(sel); err != nil {
		t.Fatal(err)
	}
	h.Model.Add(
		e2etest.Batch(
			e2etest.Call("s", "select_plan", map[string]string{}),
			e2etest.Call("w1", "write_file", map[string]string{}),
		),
		e2etest.Call("w2", "write_file", map[string]string{}),
		e2etest.Say("done"),
	)
	h.Prompt(a, "go")
	if r := e2etest.Result(t, a, "w1"); r.IsError {
		t.Fatalf("write with the entry pending was refused: %+v", r)
	}
	if r := e2etest.Result(t, a, "w2"); !r.IsError {
		t.Fatalf("write after the entry landed ran: %+v", r)
	}
	if runs.Load() != 1 {
		t.Fatalf("%d runs", runs.Load())
	}
}

// selectTool selects plan mode as the user would while the turn runs.
type selectTool struct{ h *e2etest.Host }

func (selectTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "select_plan", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (s selectTool) Execute(_ context.Context, call host.CallContext, _ json.RawMessage) (string, error) {
	o, err := s.h.Plan.Set(call.Agent, true)
	if err != nil || o != planmode.Queued {
		return "", errors.New("not queued")
	}
	return "selected", nil
}

func TestServingFailsWhenAListedToolIsNotRegistered(t *testing.T) {
	h, _ := gateHost(t, "write_file", "no_such_tool")
	sess, err := h.Store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Runtime.NewAgent("", sess)
	if !errors.Is(err, host.ErrUnknownGuardedTool) || !strings.Contains(err.Error(), "no_such_tool") {
		t.Fatalf("NewAgent: %v", err)
	}
}

func TestWithoutPlanModeTheGateFailsToBuild(t *testing.T) {
	_, err := plangate.New(plangate.Params{Config: plangate.Config{Tools: []string{"w"}}})
	if !errors.Is(err, plangate.ErrNeedsPlanMode) {
		t.Fatalf("New: %v", err)
	}
}

func TestStopRemovesTheGuard(t *testing.T) {
	h := e2etest.New(t)
	runs := new(atomic.Int64)
	if _, err := h.Runtime.AddTool(writeTool{name: "write_file", runs: runs}); err != nil {
		t.Fatal(err)
	}
	gate, err := plangate.New(plangate.Params{Config: plangate.Config{Tools: []string{"write_file"}}, Controller: h.Plan, Guards: h.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	if err := gate.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := h.Agent()
	h.EnterPlanMode(a)
	call := host.ToolCall{ID: "1", Name: "write_file", Input: json.RawMessage(`{}`)}
	if res := a.CallTool(context.Background(), call); !res.IsError || runs.Load() != 0 {
		t.Fatalf("armed gate: %+v, %d runs", res, runs.Load())
	}
	if err := gate.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := a.CallTool(context.Background(), call); res.IsError || runs.Load() != 1 {
		t.Fatalf("stopped gate: %+v, %d runs", res, runs.Load())
	}
}
