package planmode_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
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
func (a *miniAgent) log(typ string, src *host.Source, v any) {
	data, _ := json.Marshal(v)
	if _, err := a.sess.Append(host.Event{Type: typ, Source: src, Data: data}); err != nil {
		panic(err)
	}
}

// turn runs one turn: every step passes the pre-step chain before its
// request is derived, and the model (a script: one reply per step) either
// calls tools or answers.
func (h *miniHost) turn(ctx context.Context, a *miniAgent, script []host.AssistantMessage) {
	a.log(host.TypeTurnStart, nil, host.TurnStart{Turn: 1})
	defer a.log(host.TypeTurnEnd, nil, host.TurnEnd{Turn: 1, Reason: host.TurnCompleted})
	for step, reply := range script {
		s := host.Step{Agent: a, Turn: 1, Step: step + 1, Attempt: 1, Messages: a.queue}
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
			return
		}
		a.log(host.TypeStepStart, nil, host.StepStart{Turn: 1, Step: s.Step, Attempt: 1})
		for _, m := range d.Messages {
			a.log(host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content}) // Source as given
		}
		// Derive the request only now: the prompt is the sections that render.
		var names []string
		for _, sec := range h.sortedSections() {
			if sec.Text(host.AssembleContext{Agent: a}) != "" {
				names = append(names, sec.Name)
			}
		}
		a.log(host.TypeRequestHeader, nil, host.RequestHeader{Reason: host.HeaderChange, Sections: names})
		fmt.Printf("step %d prompt %v\n", s.Step, names)
		a.log(host.TypeAssistantMessage, nil, reply)
		for _, call := range reply.ToolCalls {
			a.log(host.TypeToolCall, nil, call) // before the tool runs
			res := host.ToolResult{CallID: call.ID, Name: call.Name}
			h.mu.Lock()
			tool := h.tools[call.Name]
			h.mu.Unlock()
			callCtx, outcome := host.RecordOutcome(ctx) // the tool's outcome, for front ends
			out, err := tool.Execute(callCtx, host.CallContext{Agent: a, CallID: call.ID}, call.Input)
			res.Output, res.Outcome = out, outcome()
			if err != nil {
				res.Output, res.IsError = host.ToolErrorPrefix+err.Error(), true
			}
			a.log(host.TypeToolResult, nil, res)
			fmt.Printf("%s -> %s (%s)\n", call.Name, res.Output, res.Outcome)
		}
		a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: 1, Step: s.Step, Attempt: 1})
	}
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
	h := &miniHost{tools: map[string]host.Tool{}, types: map[string]host.EventKind{}}
	for _, t := range host.CoreEventTypes() { // the core types a host declares
		h.types[t.Name] = t.Kind
	}
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
	h.turn(ctx, a, []host.AssistantMessage{
		{ToolCalls: []host.ToolCall{{ID: "c1", Name: planmode.ExitToolName, Input: input}}},
		{Text: "Done."},
	})
	fmt.Println("after the turn:", plan.Get(a))
	// Output:
	// set: committed {true none false}
	// step 1 prompt [plan:policy]
	// exit_plan_mode -> {"approved":true} (approved)
	// step 2 prompt []
	// after the turn: {false none false}
}
