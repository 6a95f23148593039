package hosttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// Host is a small in-memory agent host for plugin tests: the registries a
// plugin adds to ([hostkit.Registries]: prompt sections, tools, commands,
// pre-step listeners, event types, tool guards), sessions from a
// [host.Store] the test supplies, and agents whose turns and steps the test
// drives by hand with [Host.RunStep]. It runs no model: a test plays what a
// host's loop would do, one call at a time, and inspects the log.
//
// Registrations follow the host contracts: names are unique
// ([host.ErrDuplicate]) and not empty, prepended pre-step listeners run
// outermost, and every unregister func removes its own registration only
// and is safe to call more than once. All methods are safe for concurrent
// use.
type Host struct {
	*hostkit.Registries

	store host.Store

	mu   sync.Mutex
	runs int // command runs, for their IDs
}

// PreStep is a registered pre-step listener with its name.
type PreStep = hostkit.PreStep

// NewHost returns a host whose sessions live in st (for example
// store.NewMemory()). The store is also the host's validator registry.
func NewHost(st host.Store) *Host {
	reg, _ := hostkit.NewRegistries("hosttest") // no event types: no error
	return &Host{Registries: reg, store: st}
}

// Store returns the host's store; it is also its [host.Validators].
func (h *Host) Store() host.Store { return h.store }

// AddValidator implements [host.Validators] through the store.
func (h *Host) AddValidator(name string, v host.Validator) (func(), error) {
	return h.store.AddValidator(name, v)
}

// Registered counts what plugins registered: sections, tools, commands,
// pre-step listeners and event types. A stopped plugin leaves all zero.
func (h *Host) Registered() (sections, tools, commands, listeners, types int) {
	return len(h.Sections()), len(h.Tools()), len(h.Commands()), len(h.PreSteps()), len(h.EventTypes())
}

// Render returns the names of the sections that render text for agent
// (nil for an agent-less assembly), in prompt order.
func (h *Host) Render(agent host.Agent) []string {
	names := []string{}
	for _, s := range h.Sections() {
		if s.Text(host.AssembleContext{Agent: agent}) != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

// Verdict is how a driven step ends in the pre-step chain's innermost link.
type Verdict int

const (
	// Accepted: the step goes on to a request.
	Accepted Verdict = iota
	// Rejected: the innermost link rejects the step.
	Rejected
	// Cancelled: the agent is cancelled before the chain runs.
	Cancelled
)

// RunStep proposes the agent's next step to the pre-step chain. When the
// step is accepted and not cancelled it logs what a host logs before the
// request: "step/start", the decision's messages as "user/message" events,
// a "request/header" when the rendered sections changed (or for the first
// request), and "step/end". A rejected or cancelled step puts the claimed
// messages back in the agent's queue. It returns the decision.
func (h *Host) RunStep(a *Agent, v Verdict) host.Decision { return h.runAttempt(a, v, false) }

// RetryStep is RunStep for a retry of the agent's last step (the same step
// number, as after a failed request).
func (h *Host) RetryStep(a *Agent, v Verdict) host.Decision { return h.runAttempt(a, v, true) }

func (h *Host) runAttempt(a *Agent, v Verdict, retry bool) host.Decision {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if v == Cancelled {
		cancel()
	}
	a.mu.Lock()
	if !retry {
		a.step++
	}
	msgs := a.queue
	a.queue = nil
	s := host.Step{Agent: a, Turn: a.turn, Step: a.step, Attempt: 1, Messages: msgs}
	a.mu.Unlock()

	d := h.RunPreSteps(ctx, s, func(_ context.Context, s host.Step) host.Decision {
		if v == Rejected {
			return host.Reject("rejected by the test")
		}
		return host.Accept(s.Messages)
	})
	if !d.Accepted || ctx.Err() != nil {
		a.mu.Lock()
		a.queue = append(msgs, a.queue...)
		a.mu.Unlock()
		return d
	}
	a.log(host.TypeStepStart, nil, host.StepStart{Turn: s.Turn, Step: s.Step, Attempt: 1})
	for _, m := range d.Messages {
		a.log(host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content})
	}
	h.logHeader(a)
	a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: s.Turn, Step: s.Step, Attempt: 1})
	return d
}

// logHeader logs a request header when the rendered sections differ from
// the last ones the agent logged.
func (h *Host) logHeader(a *Agent) {
	names := h.Render(a)
	a.mu.Lock()
	defer a.mu.Unlock()
	reason := host.HeaderChange
	if a.sections == nil {
		reason = host.HeaderInitial
	} else if slices.Equal(a.sections, names) {
		return
	}
	a.sections = names
	a.logLocked(host.TypeRequestHeader, nil, host.RequestHeader{Reason: reason, Sections: names})
}

// RunCommand runs a registered command for the agent as a host does: it
// logs "command/run" with the raw argument text, runs the handler, and
// logs "command/done" with the reply or the error. A command that is not
// registered fails with an error naming it, and nothing is logged.
func (h *Host) RunCommand(ctx context.Context, a *Agent, name, args string, attachments ...host.Block) (string, error) {
	c, ok := h.Command(name)
	if !ok {
		return "", fmt.Errorf("hosttest: /%s: %w", name, errNotRegistered)
	}
	h.mu.Lock()
	h.runs++
	id := fmt.Sprint("run-", h.runs)
	h.mu.Unlock()
	a.log(host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: name, Args: args})
	ctx, outcome := host.RecordOutcome(ctx)
	reply, err := c.Run(ctx, host.Invocation{Agent: a, Args: args, Attachments: attachments})
	done := host.CommandDone{ID: id, OK: err == nil, Text: reply, Outcome: outcome()}
	if err != nil {
		done.Text = err.Error()
	}
	a.log(host.TypeCommandDone, nil, done)
	return reply, err
}

// CallTool runs a registered tool for the agent as a host's loop does: it
// logs "tool/call", runs the tool guards (the first refusal wins) and then
// the tool, and logs "tool/result" (a refusal or an error becomes an
// is-error result reading [host.ToolErrorPrefix] + the message). It returns
// the result as logged. A tool that is not registered gives an is-error
// result, as a model calling an unknown tool would get.
func (h *Host) CallTool(ctx context.Context, a *Agent, callID, name string, input json.RawMessage) (output string, isError bool) {
	a.log(host.TypeToolCall, nil, host.ToolCall{ID: callID, Name: name, Input: input})
	var (
		text string
		err  error
	)
	ctx, outcome := host.RecordOutcome(ctx)
	cc := host.CallContext{Agent: a, CallID: callID}
	err = h.RunGuards(ctx, cc, name, input)
	t, ok := h.Tool(name)
	switch {
	case err != nil: // refused
	case !ok:
		err = fmt.Errorf("unknown tool %q: %w", name, errNotRegistered)
	default:
		text, err = t.Execute(ctx, cc, input)
	}
	res := host.ToolResult{CallID: callID, Name: name, Output: text, Outcome: outcome()}
	if err != nil {
		res.Output, res.IsError = host.ToolErrorPrefix+err.Error(), true
	}
	a.log(host.TypeToolResult, nil, res)
	return res.Output, res.IsError
}

var errNotRegistered = errors.New("not registered")

// Agent is an agent whose turns and steps a test drives: StartTurn and
// EndTurn log "turn/start" and "turn/end", Steer queues a message (and
// starts a turn when none is open, as a host does), and [Host.RunStep]
// runs its next step. It implements [host.Agent].
//
// The helpers that log panic if the session refuses the event: the test
// harness's own appends are not what a test checks, so a failure there is
// a broken test.
type Agent struct {
	id   string
	sess host.Session

	mu       sync.Mutex
	queue    []host.Message
	turn     int
	step     int
	open     bool
	sections []string // sections of the last logged header; nil before the first
}

// NewAgent returns an agent with the given ID bound to sess. It knows
// nothing of earlier request headers: the first step it runs logs one.
// Whether a turn is open is read from the log.
func NewAgent(id string, sess host.Session) *Agent {
	a := &Agent{id: id, sess: sess}
	ev := sess.Events()
	for _, e := range ev.Backward(ev.Len()) {
		if e.Type == host.TypeTurnStart || e.Type == host.TypeTurnEnd {
			a.open = e.Type == host.TypeTurnStart
			break
		}
	}
	return a
}

// NewAgent creates a session in the host's store and binds a new agent to
// it, named after the session.
func (h *Host) NewAgent(t testing.TB) *Agent {
	t.Helper()
	sess, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	return NewAgent("agent-"+sess.ID(), sess)
}

// ID implements [host.Agent].
func (a *Agent) ID() string { return a.id }

// Session implements [host.Agent].
func (a *Agent) Session() host.Session { return a.sess }

// Status implements [host.Agent]: running while a turn is open.
func (a *Agent) Status() host.AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open {
		return host.StatusRunning
	}
	return host.StatusIdle
}

// Steer implements [host.Agent]: it queues m for the next step and starts
// a turn when none is open.
func (a *Agent) Steer(m host.Message) error {
	a.mu.Lock()
	a.queue = append(a.queue, m)
	idle := !a.open
	a.mu.Unlock()
	if idle {
		return a.StartTurn()
	}
	return nil
}

// Inject implements [host.Agent]: it queues m without starting a turn.
func (a *Agent) Inject(m host.Message) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, m)
	return nil
}

// Queued returns the messages waiting for the next step.
func (a *Agent) Queued() []host.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.queue)
}

// StartTurn logs "turn/start" for the agent's next turn.
func (a *Agent) StartTurn() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn++
	a.step = 0
	a.open = true
	return a.appendLocked(host.TypeTurnStart, nil, host.TurnStart{Turn: a.turn})
}

// EndTurn logs "turn/end" (completed) for the open turn.
func (a *Agent) EndTurn() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open = false
	return a.appendLocked(host.TypeTurnEnd, nil, host.TurnEnd{Turn: a.turn, Reason: host.TurnCompleted})
}

func (a *Agent) log(typ string, src *host.Source, payload any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.logLocked(typ, src, payload)
}

func (a *Agent) logLocked(typ string, src *host.Source, payload any) {
	if err := a.appendLocked(typ, src, payload); err != nil {
		panic(fmt.Sprintf("hosttest: the harness could not log %s: %v", typ, err))
	}
}

func (a *Agent) appendLocked(typ string, src *host.Source, payload any) error {
	return Append(a.sess, typ, src, payload)
}

// Append appends an event of type typ whose data is payload encoded as
// JSON.
func Append(s host.Session, typ string, src *host.Source, payload any) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = s.Append(host.Event{Type: typ, Source: src, Data: data})
	return err
}

// Questions is a user-question stub ([host.UserQuestions]): each Ask takes
// the next reply the test queued with Answer, Fail or Reply, and records the
// request. With nothing queued, Ask fails with [host.ErrNoProvider], as a
// host with no user attached does.
type Questions struct {
	mu       sync.Mutex
	replies  []reply
	requests []host.AskRequest
}

type reply struct {
	answers []host.Answer
	err     error
	f       func(context.Context, host.AskRequest) ([]host.Answer, error)
}

// Reply queues a reply computed from the request (for example an answer to
// the request's own question ID). f runs without the stub's lock held.
func (q *Questions) Reply(f func(ctx context.Context, req host.AskRequest) ([]host.Answer, error)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.replies = append(q.replies, reply{f: f})
}

// Answer queues the answers of one reply.
func (q *Questions) Answer(answers ...host.Answer) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.replies = append(q.replies, reply{answers: answers})
}

// Fail queues a reply that fails with err (for example
// [host.ErrDismissed]).
func (q *Questions) Fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.replies = append(q.replies, reply{err: err})
}

// Ask implements [host.UserQuestions]. A cancelled ctx fails at once with
// its error.
func (q *Questions) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q.mu.Lock()
	q.requests = append(q.requests, req)
	if len(q.replies) == 0 {
		q.mu.Unlock()
		return nil, host.ErrNoProvider
	}
	r := q.replies[0]
	q.replies = q.replies[1:]
	q.mu.Unlock()
	if r.f != nil {
		return r.f(ctx, req)
	}
	return r.answers, r.err
}

// Requests returns the requests asked so far.
func (q *Questions) Requests() []host.AskRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.requests)
}

var (
	_ host.Sections      = (*Host)(nil)
	_ host.Tools         = (*Host)(nil)
	_ host.Commands      = (*Host)(nil)
	_ host.PreStepChain  = (*Host)(nil)
	_ host.EventTypes    = (*Host)(nil)
	_ host.ToolGuards    = (*Host)(nil)
	_ host.Validators    = (*Host)(nil)
	_ host.Agent         = (*Agent)(nil)
	_ host.UserQuestions = (*Questions)(nil)
)
