// Package e2etest runs plan mode and its companions on the reference host
// with a scripted model and a scripted user, for the companions' end-to-end
// tests.
package e2etest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// Policy is the plan:policy text the hosts use.
const Policy = "You are in plan mode. Explore read-only, then present a plan."

// Host is plan mode on the reference host, built with fx from the given
// companion modules.
type Host struct {
	T        testing.TB
	Store    host.Store
	Model    *scripted.Model
	User     *scripted.Provider
	Runtime  *refhost.Runtime
	Plan     *planmode.Controller
	App      *fxtest.App
	attached func()
}

// New starts the host with plan mode, the extra options (companion modules
// with their configs, tools) and a scripted user attached.
func New(t testing.TB, opts ...fx.Option) *Host {
	t.Helper()
	h := &Host{T: t, Store: store.NewMemory(), Model: scripted.NewModel(), User: scripted.NewProvider()}
	all := []fx.Option{
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(h.Store, fx.As(new(host.Store))),
			fx.Annotate(h.Model, fx.As(new(refhost.Model))),
			planmode.Config{Section: Policy},
		),
		refhost.Module,
		planmode.Module,
		fx.Populate(&h.Runtime, &h.Plan),
	}
	h.App = fxtest.New(t, append(all, opts...)...)
	h.App.RequireStart()
	t.Cleanup(h.App.RequireStop)
	unset, err := h.Runtime.Questions().SetProvider(h.User)
	if err != nil {
		t.Fatal(err)
	}
	h.attached = unset
	return h
}

// Params returns the plugin's params wired to the reference host's runtime
// rt, with section as its plan:policy text and v checking its events.
func Params(rt *refhost.Runtime, v host.Validators, section string) planmode.Params {
	return planmode.Params{
		Config:     planmode.Config{Section: section},
		Sections:   rt,
		Tools:      rt,
		PreStep:    rt,
		Validators: v,
		EventTypes: rt,
		Commands:   rt,
		Questions:  rt.Questions(),
	}
}

// Start builds a controller from p and starts it, as a host's lifecycle
// does; it is stopped when the test ends.
func Start(t testing.TB, p planmode.Params) *planmode.Controller {
	t.Helper()
	res, err := planmode.New(p)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Controller
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

// Detach detaches the scripted user: the host then reports no provider.
func (h *Host) Detach() { h.attached() }

// Agent returns an agent on a new session.
func (h *Host) Agent() *refhost.Agent {
	h.T.Helper()
	sess, err := h.Store.Create("")
	if err != nil {
		h.T.Fatal(err)
	}
	return h.AgentOn(sess)
}

// AgentOn returns an agent on sess.
func (h *Host) AgentOn(sess host.Session) *refhost.Agent {
	h.T.Helper()
	a, err := h.Runtime.NewAgent("", sess)
	if err != nil {
		h.T.Fatal(err)
	}
	h.T.Cleanup(func() { _ = a.Stop(context.Background()) })
	return a
}

// Prompt steers text and waits for the turn to end.
func (h *Host) Prompt(a *refhost.Agent, text string) {
	h.T.Helper()
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		h.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.WaitIdle(ctx); err != nil {
		h.T.Fatal(err)
	}
}

// EnterPlanMode switches a's session into plan mode as the user (idle
// agent: committed at once).
func (h *Host) EnterPlanMode(a *refhost.Agent) {
	h.T.Helper()
	if _, err := h.Plan.Set(a, true); err != nil {
		h.T.Fatal(err)
	}
}

// Call returns a scripted step calling one tool with input (any JSON value).
func Call(id, name string, input any) scripted.Step {
	data, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return scripted.Step{ToolCalls: []host.ToolCall{{ID: id, Name: name, Input: data}}}
}

// Say returns a scripted step that answers with text.
func Say(text string) scripted.Step { return scripted.Step{Text: text} }

// Results returns the tool results of a's session, by call ID.
func Results(a host.Agent) map[string]host.ToolResult {
	out := map[string]host.ToolResult{}
	for _, e := range a.Session().Events().All() {
		if e.Type != host.TypeToolResult {
			continue
		}
		var r host.ToolResult
		if json.Unmarshal(e.Data, &r) == nil {
			out[r.CallID] = r
		}
	}
	return out
}

// Result returns one tool result, failing the test when there is none.
func Result(t testing.TB, a host.Agent, id string) host.ToolResult {
	t.Helper()
	r, ok := Results(a)[id]
	if !ok {
		t.Fatalf("no result for call %q; log: %s", id, Types(a))
	}
	return r
}

// LastTurnEnd returns the payload of the last "turn/end" in log.
func LastTurnEnd(t testing.TB, log host.Log) host.TurnEnd {
	t.Helper()
	for _, e := range log.Backward(log.Len()) {
		if e.Type == host.TypeTurnEnd {
			var te host.TurnEnd
			if err := json.Unmarshal(e.Data, &te); err != nil {
				t.Fatal(err)
			}
			return te
		}
	}
	t.Fatal("the log has no turn/end")
	return host.TurnEnd{}
}

// TurnOpen reports whether a turn is open after the first end events of
// log: the latest of "turn/start" and "turn/end" among them is
// "turn/start".
func TurnOpen(log host.Log, end int) bool {
	for _, e := range log.Backward(end) {
		switch e.Type {
		case host.TypeTurnStart:
			return true
		case host.TypeTurnEnd:
			return false
		}
	}
	return false
}

// Events returns the events of type typ in a's session.
func Events(a host.Agent, typ string) []host.Event {
	var out []host.Event
	for _, e := range a.Session().Events().All() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Types lists the event types of a's session, for failure messages.
func Types(a host.Agent) string {
	var b strings.Builder
	for _, e := range a.Session().Events().All() {
		fmt.Fprintf(&b, "%s ", e.Type)
	}
	return b.String()
}

// Active reports a's logged plan-mode state.
func Active(a host.Agent) bool {
	ev := a.Session().Events()
	return planmode.FoldPlanMode(ev, ev.Len())
}

// The plan review as the plan-mode plugin asks it: the ID of its one
// question and the labels of its own options. A test double answers by
// them, as a front end answers with the label of the option whose role it
// chose.
const (
	// ReviewQuestionID is the ID of the review's question.
	ReviewQuestionID = "plan-review"
	// ReviewApprove is the label of the option of host.RoleApprove.
	ReviewApprove = "Approve"
	// ReviewKeepPlanning is the label of the option of
	// host.RoleKeepPlanning.
	ReviewKeepPlanning = "Keep planning"
)

// Approve is the user's approving answer to a plan review.
func Approve() host.Answer {
	return host.Answer{QuestionID: ReviewQuestionID, Selected: []string{ReviewApprove}}
}

// Batch merges the tool calls of steps into one step: one assistant message
// asking for all of them, run in order.
func Batch(steps ...scripted.Step) scripted.Step {
	var out scripted.Step
	for _, s := range steps {
		out.ToolCalls = append(out.ToolCalls, s.ToolCalls...)
	}
	return out
}
