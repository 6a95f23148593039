package planmode_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// miniHost is the smallest host plan mode runs in, written without refhost
// or hosttest: the registries, one agent and a loop that plays a scripted
// model. docs/host.md walks through it. Its only dependency besides package
// host is a store (store.Memory here; yours may be a database).
type miniHost struct {
	mu        sync.Mutex
	sections  []host.Section
	tools     map[string]host.Tool
	listeners []miniListener // outermost first
	types     map[string]host.EventKind
	out       io.Writer
}

// newMiniHost returns a host that declares the core event types and
// prints each step's prompt and tool results to out.
func newMiniHost(out io.Writer) *miniHost {
	h := &miniHost{tools: map[string]host.Tool{}, types: map[string]host.EventKind{}, out: out}
	for _, t := range host.CoreEventTypes() { // the core types a host declares
		h.types[t.Name] = t.Kind
	}
	return h
}

func (h *miniHost) AddSection(s host.Section) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sections = append(h.sections, s)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.sections = slices.DeleteFunc(h.sections, func(x host.Section) bool { return x.Name == s.Name })
	}, nil
}

func (h *miniHost) AddTool(t host.Tool) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	name := t.Definition().Name
	if _, ok := h.tools[name]; ok {
		return nil, host.ErrDuplicate
	}
	h.tools[name] = t
	return func() { h.mu.Lock(); defer h.mu.Unlock(); delete(h.tools, name) }, nil
}

type miniListener struct {
	name string
	l    host.PreStepListener
}

func (h *miniHost) AddPreStep(name string, l host.PreStepListener, prepend bool) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if prepend { // plan mode asks to be outermost
		h.listeners = slices.Insert(h.listeners, 0, miniListener{name, l})
	} else {
		h.listeners = append(h.listeners, miniListener{name, l})
	}
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.listeners = slices.DeleteFunc(h.listeners, func(x miniListener) bool { return x.name == name })
	}, nil
}

func (h *miniHost) DeclareEventType(t host.EventType) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.types[t.Name]; ok {
		return nil, host.ErrDuplicate
	}
	h.types[t.Name] = t.Kind
	return func() { h.mu.Lock(); defer h.mu.Unlock(); delete(h.types, t.Name) }, nil
}

// EventKind tells the transcript builder which events the model sees.
func (h *miniHost) EventKind(name string) (host.EventKind, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k, ok := h.types[name]
	return k, ok
}

// miniAgent is one agent on one session. Steer and Inject queue input.
type miniAgent struct {
	sess  host.Session
	queue []host.Message
	turns int
	lost  []host.ToolResult // results whose append failed, written first on the next append
}

func (a *miniAgent) ID() string                 { return "agent-1" }
func (a *miniAgent) Session() host.Session      { return a.sess }
func (a *miniAgent) Status() host.AgentStatus   { return host.StatusIdle }
func (a *miniAgent) Steer(m host.Message) error { a.queue = append(a.queue, m); return nil }
func (a *miniAgent) Inject(m host.Message) error {
	a.queue = append(a.queue, m)
	return nil
}

// log appends one event; the payload types of package host are the JSON.
// A tool result that could not be written is written first, so every call
// gets one.
func (a *miniAgent) log(typ string, src *host.Source, v any) error {
	for len(a.lost) > 0 {
		if err := a.append(host.TypeToolResult, nil, a.lost[0]); err != nil {
			return err
		}
		a.lost = a.lost[1:]
	}
	return a.append(typ, src, v)
}

func (a *miniAgent) append(typ string, src *host.Source, v any) error {
	data, err := json.Marshal(v)
	if err == nil {
		_, err = a.sess.Append(host.Event{Type: typ, Source: src, Data: data})
	}
	return err
}

// miniRequest is what the loop sends the model for one step.
type miniRequest struct {
	System   string
	Tools    []string
	Messages []string // the text of the transcript's messages
}

// miniModel answers one request (a script in the example).
type miniModel func(ctx context.Context, req miniRequest) (host.AssistantMessage, error)

// turn runs one turn: every step passes the pre-step chain before its
// request is derived, and the model either calls tools or answers. A
// failed append or request, or cancellation, ends the turn.
func (h *miniHost) turn(ctx context.Context, a *miniAgent, model miniModel) {
	a.turns++
	n := a.turns
	end := host.TurnEnd{Turn: n, Reason: host.TurnCompleted}
	if a.log(host.TypeTurnStart, nil, host.TurnStart{Turn: n}) != nil {
		return
	}
	defer func() { _ = a.log(host.TypeTurnEnd, nil, end) }()
	for step := 1; ; step++ {
		if ctx.Err() != nil {
			end.Reason = host.TurnCancelled
			return
		}
		s := host.Step{Agent: a, Turn: n, Step: step, Attempt: 1, Messages: a.queue}
		a.queue = nil
		next := host.PreStepNext(func(_ context.Context, s host.Step) host.Decision { return host.Accept(s.Messages) })
		h.mu.Lock()
		chain := slices.Clone(h.listeners)
		h.mu.Unlock()
		for _, l := range slices.Backward(chain) {
			inner := next
			next = func(ctx context.Context, s host.Step) host.Decision { return l.l(ctx, s, inner) }
		}
		d := next(ctx, s)
		if !d.Accepted {
			end.Reason = host.TurnBlocked
			return
		}
		reply, err := h.step(ctx, a, model, s, d)
		if err != nil {
			end.Reason, end.Error = host.TurnError, err.Error()
			return
		}
		if len(reply.ToolCalls) == 0 {
			return
		}
	}
}

// step logs an accepted step, asks the model and runs its tool calls.
func (h *miniHost) step(ctx context.Context, a *miniAgent, model miniModel, s host.Step, d host.Decision) (reply host.AssistantMessage, err error) {
	if err := a.log(host.TypeStepStart, nil, host.StepStart{Turn: s.Turn, Step: s.Step, Attempt: 1}); err != nil {
		return reply, err
	}
	defer func() {
		if e := a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: s.Turn, Step: s.Step, Attempt: 1}); err == nil {
			err = e
		}
	}()
	for _, m := range d.Messages {
		if err := a.log(host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content}); err != nil { // Source as given
			return reply, err
		}
	}
	// Derive the request only now: the prompt is the sections that render.
	req := miniRequest{Messages: h.transcript(a.sess.Events())}
	var names []string
	for _, sec := range h.sortedSections() {
		if text := sec.Text(host.AssembleContext{Agent: a}); text != "" {
			names = append(names, sec.Name)
			req.System += text + "\n\n"
		}
	}
	h.mu.Lock()
	req.Tools = slices.Sorted(maps.Keys(h.tools))
	h.mu.Unlock()
	if err := a.log(host.TypeRequestHeader, nil, host.RequestHeader{Reason: host.HeaderChange, Sections: names}); err != nil {
		return reply, err
	}
	fmt.Fprintf(h.out, "step %d prompt %v\n", s.Step, names)
	if reply, err = model(ctx, req); err != nil {
		return reply, err
	}
	if err := a.log(host.TypeAssistantMessage, nil, reply); err != nil {
		return reply, err
	}
	for _, call := range reply.ToolCalls {
		if err := a.log(host.TypeToolCall, nil, call); err != nil { // before the tool runs
			return reply, err
		}
		res := host.ToolResult{CallID: call.ID, Name: call.Name}
		h.mu.Lock()
		tool := h.tools[call.Name]
		h.mu.Unlock()
		cc := host.CallContext{Agent: a, CallID: call.ID}
		callCtx, outcome := host.RecordOutcome(ctx) // the tool's outcome, for front ends
		out, err := tool.Execute(callCtx, cc, call.Input)
		res.Output, res.Outcome = out, outcome()
		if err != nil {
			res.Output, res.IsError = host.ToolErrorPrefix+err.Error(), true
		}
		if err := a.log(host.TypeToolResult, nil, res); err != nil {
			// The result is lost: tell the tool, and answer the call with
			// an is-error result on the next append that succeeds.
			lost := host.ToolResult{CallID: call.ID, Name: call.Name, Output: host.ToolErrorPrefix + "the result was lost", IsError: true}
			if l, ok := tool.(host.ResultLossHandler); ok {
				lost.Output = cmp.Or(l.ResultLost(ctx, cc, err), lost.Output)
			}
			a.lost = append(a.lost, lost)
			return reply, err
		}
		fmt.Fprintf(h.out, "%s -> %s (%s)\n", call.Name, res.Output, res.Outcome)
	}
	return reply, nil
}

// transcript is the text of the transcript-kind events the model sees.
func (h *miniHost) transcript(events host.Log) []string {
	var msgs []string
	for _, e := range events.All() {
		if k, _ := h.EventKind(e.Type); k != host.Transcript {
			continue
		}
		var m struct {
			Content []host.Block `json:"content"`
			Text    string       `json:"text"`
			Output  string       `json:"output"`
		}
		_ = json.Unmarshal(e.Data, &m)
		text := m.Text + m.Output
		for _, b := range m.Content {
			text += b.Text
		}
		msgs = append(msgs, text)
	}
	return msgs
}

func (h *miniHost) sortedSections() []host.Section {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.SortedFunc(slices.Values(h.sections), func(x, y host.Section) int {
		return cmp.Or(cmp.Compare(x.Order, y.Order), strings.Compare(x.Name, y.Name))
	})
}

// approveAll is a user-question channel whose user approves every review:
// it selects the option whose role approves.
type approveAll struct{}

func (approveAll) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	q := req.Questions[0]
	for _, o := range q.Options {
		if o.Role == host.RoleApprove {
			return []host.Answer{{QuestionID: q.ID, Selected: []string{o.Label}}}, nil
		}
	}
	return nil, host.ErrDismissed
}

// Example_minimalHost runs plan mode in a host written from the contracts
// alone, without fx: planmode.New with Params, then Start and Stop.
func Example_minimalHost() {
	st := store.NewMemory() // also the registry of validators
	h := newMiniHost(os.Stdout)
	res, err := planmode.New(planmode.Params{
		Config:     planmode.Config{Section: "Plan before you change anything."},
		Sections:   h,
		Tools:      h,
		PreStep:    h,
		Validators: st,
		EventTypes: h,
		Questions:  approveAll{},
	})
	if err != nil {
		panic(err)
	}
	plan := res.Controller
	ctx := context.Background()
	if err := plan.Start(ctx); err != nil {
		panic(err)
	}
	defer plan.Stop(ctx)

	sess, _ := st.Create("")
	a := &miniAgent{sess: sess}
	outcome, _ := plan.Set(a, true) // idle: committed at once
	fmt.Println("set:", outcome, plan.Get(a))

	input, _ := json.Marshal(map[string]string{"plan": "# Fix the bug\n\n1. Write a test."})
	script := []host.AssistantMessage{
		{ToolCalls: []host.ToolCall{{ID: "c1", Name: planmode.ExitToolName, Input: input}}},
		{Text: "Done."},
	}
	h.turn(ctx, a, func(context.Context, miniRequest) (host.AssistantMessage, error) {
		reply := script[0]
		script = script[1:]
		return reply, nil
	})
	fmt.Println("after the turn:", plan.Get(a))
	// Output:
	// set: committed {true none false}
	// step 1 prompt [plan:policy]
	// exit_plan_mode -> {"approved":true} (approved)
	// step 2 prompt []
	// after the turn: {false none false}
}
