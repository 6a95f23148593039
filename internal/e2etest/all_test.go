//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package e2etest_test

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/plangate"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type writeTool struct{ runs *atomic.Int64 }

func (writeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "write_file", Description: "writes", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (w writeTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	w.runs.Add(1)
	return "written", nil
}

// allHost runs plan mode with plan-file, plan-entry, plan-ask,
// plan-review and plan-gate, the extra options (more companions) and a write tool.
func allHost(t *testing.T, extra ...fx.Option) (*e2etest.Host, *atomic.Int64) {
	t.Helper()
	runs := new(atomic.Int64)
	h := e2etest.New(t, append([]fx.Option{
		fx.Supply(
			planfile.Config{Dir: filepath.Join(t.TempDir(), "plans")},
			planentry.Config{},
			planreview.Config{Options: []string{planreview.OptionApproveWithComments, planreview.OptionApproveAndClear, planreview.OptionAbandon}},
			plangate.Config{Tools: []string{"write_file"}},
			planask.DefaultConfig(),
		),
		planfile.Module, planentry.Module, planask.Module, planreview.Module, plangate.Module,
		fx.Invoke(func(lc fx.Lifecycle, tools host.Tools) {
			lc.Append(fx.StartHook(func() error {
				_, err := tools.AddTool(writeTool{runs: runs})
				return err
			}))
		}),
	}, extra...)...)
	return h, runs
}

func TestAllCompanionsTogether(t *testing.T) {
	h, runs := allHost(t)
	a := h.Agent()
	const plan = "# Retry uploads\n\n1. Wrap the call.\n2. Test it.\n"
	h.User.QueueAnswers(
		host.Answer{QuestionID: planentry.QuestionID, Selected: []string{planentry.OptionEnter}},
		host.Answer{QuestionID: "q1", Selected: []string{"Exponential"}},
		host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{planreview.LabelApproveWithComments}, Custom: "behind a flag"},
	)
	h.Model.Add(
		e2etest.Call("enter", planentry.ToolName, map[string]string{"goal": "Make uploads retry", "scope": "upload/"}),
		e2etest.Call("w1", "write_file", map[string]string{}),
		e2etest.Call("ask", planask.ToolName, map[string]any{"questions": []any{map[string]any{
			"header": "Backoff", "question": "Which backoff?", "options": []map[string]string{
				{"label": "Fixed", "description": "One second each time."},
				{"label": "Exponential", "description": "Doubling, capped."}}}}}),
		e2etest.Call("draft", planfile.WriteToolName, map[string]string{"plan": plan}),
		e2etest.Call("exit", planmode.ExitToolName, map[string]string{}),
		e2etest.Call("w2", "write_file", map[string]string{}),
		e2etest.Say("done"),
	)
	h.Prompt(a, "make uploads retry")

	if r := e2etest.Result(t, a, "enter"); r.IsError {
		t.Fatalf("enter: %+v", r)
	}
	if r := e2etest.Result(t, a, "w1"); !r.IsError || !strings.Contains(r.Output, "plan mode is on") {
		t.Fatalf("write while planning: %+v", r)
	}
	if r := e2etest.Result(t, a, "ask"); r.IsError || !strings.Contains(r.Output, `"selected":["Exponential"]`) {
		t.Fatalf("ask while planning: %+v", r)
	}
	if r := e2etest.Result(t, a, "draft"); r.IsError {
		t.Fatalf("draft: %+v", r)
	}
	r := e2etest.Result(t, a, "exit")
	var res map[string]any
	if r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
		t.Fatalf("exit: %+v", r)
	}
	if res["approved"] != true || res["comments"] != "behind a flag" || res["edited"] != false {
		t.Fatalf("exit result %v", res)
	}
	if r := e2etest.Result(t, a, "w2"); r.IsError || runs.Load() != 1 {
		t.Fatalf("write after approval: %+v (%d runs)", r, runs.Load())
	}
	if e2etest.Active(a) {
		t.Fatal("still in plan mode")
	}
	if n := len(e2etest.Events(a, planfile.EventApproved)); n != 1 {
		t.Fatalf("%d plan/approved", n)
	}
	if n := len(e2etest.Events(a, planentry.EventGoal)); n != 1 {
		t.Fatalf("%d plan/goal", n)
	}
	if req := h.User.Requests()[1]; req.Kind != host.AskClarify || req.Purpose != planask.Purpose {
		t.Fatalf("the questions' request: kind %q, purpose %q", req.Kind, req.Purpose)
	}
	review := h.User.Requests()[2].Questions[0]
	if review.Detail != plan || len(review.Options) != 5 {
		t.Fatalf("review %+v", review)
	}
	// The planning request carried every plan-mode section, in order.
	reqs := h.Model.Requests()
	got := strings.Join(reqs[1].Sections, " ")
	if !strings.Contains(got, planmode.SectionName+" "+planfile.SectionName+" "+planentry.SectionName) {
		t.Fatalf("sections %s", got)
	}
	// The tool catalog never changed.
	for i := range reqs {
		if len(reqs[i].Tools) != len(reqs[0].Tools) {
			t.Fatalf("request %d has %d tools, the first %d", i, len(reqs[i].Tools), len(reqs[0].Tools))
		}
	}
}

// TestAllSixCompanionsTogether runs every companion in one host: the plan
// drafted in the plan file becomes plan-steps' steps, the gate lets
// plan-steps' tools through while planning, and the todo list works next
// to them.
func TestAllSixCompanionsTogether(t *testing.T) {
	h, runs := allHost(t,
		fx.Supply(plansteps.DefaultConfig(), todo.DefaultConfig(),
			fx.Annotate(store.NewMemoryDocuments(), fx.As(new(host.Documents)))),
		plansteps.Module, todo.Module,
	)
	a := h.Agent()
	const plan = "# Retry uploads\n\n1. Wrap the call.\n2. Test it.\n"
	h.User.QueueAnswers(
		host.Answer{QuestionID: planentry.QuestionID, Selected: []string{planentry.OptionEnter}},
		host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{planreview.LabelApproveWithComments}, Custom: "behind a flag"},
	)
	todos := map[string]any{"todos": []map[string]string{
		{"id": "a", "content": "Wrap the call", "status": "completed", "priority": "high"},
		{"id": "b", "content": "Test it", "status": "in_progress", "priority": "medium"},
	}}
	h.Model.Add(
		e2etest.Call("enter", planentry.ToolName, map[string]string{"goal": "Make uploads retry", "scope": "upload/"}),
		e2etest.Call("w1", "write_file", map[string]string{}),
		e2etest.Call("status1", plansteps.StatusToolName, map[string]string{}),
		e2etest.Call("draft", planfile.WriteToolName, map[string]string{"plan": plan}),
		e2etest.Call("exit", planmode.ExitToolName, map[string]string{}),
		e2etest.Call("step1", plansteps.StepCompleteToolName, map[string]int{"step_id": 1}),
		e2etest.Call("todo", todo.WriteToolName, todos),
		e2etest.Call("w2", "write_file", map[string]string{}),
		e2etest.Call("read", todo.ReadToolName, map[string]string{}),
		e2etest.Say("done"),
	)
	h.Prompt(a, "make uploads retry")

	for _, id := range []string{"enter", "status1", "draft", "exit", "step1", "todo", "w2", "read"} {
		if r := e2etest.Result(t, a, id); r.IsError {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	if r := e2etest.Result(t, a, "w1"); !r.IsError || !strings.Contains(r.Output, "plan mode is on") {
		t.Fatalf("write while planning: %+v", r)
	}
	if !strings.Contains(e2etest.Result(t, a, "status1").Output, "Make uploads retry") {
		t.Fatalf("plan_status lacks plan-entry's goal: %s", e2etest.Result(t, a, "status1").Output)
	}
	if runs.Load() != 1 || e2etest.Active(a) {
		t.Fatalf("%d writes ran, plan mode %v", runs.Load(), e2etest.Active(a))
	}
	steps := e2etest.Events(a, plansteps.EventSteps)
	if len(steps) != 1 || !strings.Contains(string(steps[0].Data), "Wrap the call.") || !strings.Contains(string(steps[0].Data), "Test it.") {
		t.Fatalf("plan/steps %v: the plan file's numbered list should be the steps", steps)
	}
	if n := len(e2etest.Events(a, plansteps.EventStepCompleted)); n != 1 {
		t.Fatalf("%d plan/step-completed", n)
	}
	if n := len(e2etest.Events(a, planfile.EventApproved)); n != 1 {
		t.Fatalf("%d plan/approved", n)
	}
	if out := e2etest.Result(t, a, "read").Output; !strings.Contains(out, "Wrap the call") || !strings.Contains(out, "in_progress") {
		t.Fatalf("todo_read %s", out)
	}
	reqs := h.Model.Requests()
	for i := range reqs {
		if len(reqs[i].Tools) != len(reqs[0].Tools) {
			t.Fatalf("request %d has %d tools, the first %d", i, len(reqs[i].Tools), len(reqs[0].Tools))
		}
	}
}

func TestWithNoCompanionTheExitToolIsTheCores(t *testing.T) {
	h := e2etest.New(t)
	a := h.Agent()
	h.Model.Add(e2etest.Say("hi"))
	h.Prompt(a, "hi")
	for _, d := range h.Model.Requests()[0].Tools {
		if d.Name == planmode.ExitToolName {
			// The core's schemas: one required "plan" in, "approved" out.
			var in, out struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if json.Unmarshal(d.InputSchema, &in) != nil || json.Unmarshal(d.OutputSchema, &out) != nil ||
				!slices.Equal(slices.Sorted(maps.Keys(in.Properties)), []string{"plan"}) || !slices.Equal(in.Required, []string{"plan"}) ||
				!slices.Equal(slices.Sorted(maps.Keys(out.Properties)), []string{"approved"}) {
				t.Fatalf("schemas changed: %s %s", d.InputSchema, d.OutputSchema)
			}
			return
		}
	}
	t.Fatal("no exit tool")
}
