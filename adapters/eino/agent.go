package eino

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/adk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Agent is plan mode's agent on one session: the host.Agent that plan
// mode and its companions are given, and the runner of Eino turns on that
// session. Use one Agent per session at a time in a process; on a session
// several processes share (a host.TurnLeaser, such as pgstore's), each turn
// runs under the session's turn lease.
type Agent struct {
	h    *Host
	sess host.Session

	mu      sync.Mutex
	queue   []host.Message    // input the next step claims
	running bool              // a turn is open
	owed    []host.ToolResult // results to write before the next append
	lease   host.TurnLease    // the turn lease while a turn runs (shared sessions)

	// Turn state, touched by one turn at a time (Eino runs the hooks of a
	// run in sequence).
	turn     int  // the number of the last turn in the log
	step     int  // the current step of the turn
	stepOpen bool // step/start logged, step/end not yet
	base     *string
	blocked  string // why the pre-step chain rejected the step

	// The last request header, to log a new one when the prompt changes.
	headerSeen, resumed bool
	system, tools       string
}

// NewAgent binds an agent to sess, a session of the host's store. On a
// session that already has events (a restart), it continues the turn
// numbering, answers every tool call the log holds no result for and
// closes a turn the log left open, so the log reads as idle again. On a
// session several processes share (a host.TurnLeaser) it closes a turn
// only under the session's turn lease: a turn whose holder is alive is left
// to it. It refuses while a tool guard names a tool that is not
// registered.
func (h *Host) NewAgent(sess host.Session) (*Agent, error) {
	if sess == nil {
		return nil, fmt.Errorf("%s: agent: session is nil: %w", name, ErrBadRegistration)
	}
	if err := h.CheckGuards(); err != nil {
		return nil, err
	}
	a := &Agent{h: h, sess: sess}
	open, _ := a.scan()
	a.resumed = a.headerSeen
	l, shared := sess.(host.TurnLeaser)
	var err error
	switch {
	case !shared:
		err = a.repair()
	case open:
		err = a.takeLease(l)
		if errors.Is(err, host.ErrBusy) {
			return a, nil // the live holder's turn is its own
		}
		a.dropLease()
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// scan reads the log: the last turn's number and step, the last request
// header's digests, and whether a turn or a step was left open.
func (a *Agent) scan() (open, stepOpen bool) {
	for _, e := range a.sess.Events().All() {
		switch e.Type {
		case host.TypeTurnStart:
			var ts host.TurnStart
			_ = json.Unmarshal(e.Data, &ts) // a bad payload leaves the count
			a.turn, open = max(a.turn, ts.Turn), true
		case host.TypeTurnEnd:
			open, stepOpen = false, false
		case host.TypeStepStart:
			stepOpen = true
			_ = json.Unmarshal(e.Data, &struct{ Step *int }{&a.step})
		case host.TypeStepEnd:
			stepOpen = false
		case host.TypeRequestHeader:
			var hdr host.RequestHeader
			_ = json.Unmarshal(e.Data, &hdr)
			a.headerSeen, a.system, a.tools = true, hdr.SystemDigest, hdr.ToolsDigest
		}
	}
	return open, stepOpen
}

// repair closes what a turn that did not end left in the log: every tool
// call without a result gets an is-error one, and the open step and turn
// end as interrupted.
func (a *Agent) repair() error {
	open, stepOpen := a.scan()
	text := textResultLost
	if open {
		text = textToolInterrupted
	}
	if err := a.answerDangling(0, text); err != nil {
		return err
	}
	if stepOpen {
		if err := a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1, Error: textTurnInterrupted}); err != nil {
			return err
		}
	}
	if open {
		return a.log(host.TypeTurnEnd, nil, host.TurnEnd{Turn: a.turn, Reason: host.TurnError, Error: textTurnInterrupted})
	}
	return nil
}

// takeLease takes the session's turn lease, reads what other processes
// wrote since and repairs a turn a holder that died left open. It fails
// with a *host.BusyError while another process holds the lease.
func (a *Agent) takeLease(l host.TurnLeaser) error {
	g, err := l.LeaseTurn()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	a.mu.Lock()
	a.lease = g
	a.mu.Unlock()
	if err := host.Refresh(a.sess); err != nil {
		return err
	}
	return a.repair()
}

// watchLease returns ctx, under the turn lease when the agent holds one
// and cancelled when that lease is lost; stop ends the watch.
func (a *Agent) watchLease(ctx context.Context) (_ context.Context, stop func()) {
	a.mu.Lock()
	g := a.lease
	a.mu.Unlock()
	if g == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(host.WithTurnLease(ctx, a.sess, g))
	done := make(chan struct{})
	go func() {
		select {
		case <-g.Lost():
			cancel()
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel() }
}

// dropLease releases the turn lease, if held. When the lease was lost, the
// results owed to the turn's calls are no longer this agent's to write:
// the lease's next holder repairs the turn.
func (a *Agent) dropLease() {
	a.mu.Lock()
	g := a.lease
	a.lease = nil
	if g != nil && g.Err() != nil {
		a.owed = nil
	}
	a.mu.Unlock()
	if g == nil {
		return
	}
	if err := g.Release(); err != nil {
		a.h.o.Logger.Warn(warnLeaseNotReleased, "session", a.sess.ID(), "err", err)
	}
}

// ID is the session's ID.
func (a *Agent) ID() string { return a.sess.ID() }

// Session is the agent's session.
func (a *Agent) Session() host.Session { return a.sess }

// Status is running while a turn is open.
func (a *Agent) Status() host.AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return host.StatusRunning
	}
	return host.StatusIdle
}

// Steer queues m as input of the next step: the running turn's next
// chat-model call, or the next [Agent.Run].
func (a *Agent) Steer(m host.Message) error { return a.Inject(m) }

// Inject queues m like [Agent.Steer]; this host starts no turn by itself
// for either.
func (a *Agent) Inject(m host.Message) error {
	if len(m.Content) == 0 {
		return fmt.Errorf("%s: %w", name, refhost.ErrEmptyMessage)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, m)
	return nil
}

// Run runs one turn of ag, a ChatModelAgent made with [Host.Middleware],
// on the agent's session, with text (when not empty) as the user's
// message. It returns ag's events, as adk.Runner does; the iterator ends
// after the turn's end is in the log. The Eino agent's own input is
// ignored: every chat-model call is given the conversation the session log
// holds. A second Run while a turn is open fails with host.ErrAgentBusy.
//
// On a session several processes share (a host.TurnLeaser), the turn runs
// under the session's turn lease: while another process holds it, Run
// fails at once with a *host.BusyError (errors.Is host.ErrBusy) naming the
// holder, writes nothing and drops text; run it again later. A turn whose
// lease is lost (another process took the session over) is cancelled and
// writes nothing more; its last event's error says why (host.ErrFenced,
// host.ErrLeaseExpired or host.ErrClosed). A run a tool interrupts
// (compose.Interrupt) is not resumed: the turn ends with reason error.
func (a *Agent) Run(ctx context.Context, ag adk.Agent, text string, opts ...adk.AgentRunOption) *adk.AsyncIterator[*adk.AgentEvent] {
	iter, gen := adk.NewAsyncIteratorPair[*adk.AgentEvent]()
	if err := a.begin(text); err != nil {
		gen.Send(&adk.AgentEvent{Err: err})
		gen.Close()
		return iter
	}
	go func() {
		defer gen.Close()
		ctx, stop := a.watchLease(ctx)
		defer stop()
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag})
		events := runner.Run(context.WithValue(ctx, agentKey{}, a), nil, opts...)
		var runErr error
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			switch {
			case ev.Err != nil:
				runErr = ev.Err
			case ev.Action != nil && ev.Action.Interrupted != nil:
				runErr = errRunInterrupted // not resumed: the turn ends
			}
			gen.Send(ev)
		}
		if err := a.end(ctx, runErr); err != nil {
			gen.Send(&adk.AgentEvent{Err: err})
		}
	}()
	return iter
}

// begin opens a turn: under the turn lease on a shared session.
func (a *Agent) begin(text string) error {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return fmt.Errorf("%s: run: %w", name, host.ErrAgentBusy)
	}
	a.running = true
	a.mu.Unlock()
	err := a.open(text)
	if err != nil {
		a.dropLease()
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}
	return err
}

func (a *Agent) open(text string) error {
	if l, ok := a.sess.(host.TurnLeaser); ok {
		if err := a.takeLease(l); err != nil {
			return err
		}
	}
	if text != "" {
		a.mu.Lock()
		a.queue = append(a.queue, host.Message{Content: []host.Block{host.TextBlock(text)}})
		a.mu.Unlock()
	}
	a.step, a.stepOpen, a.base, a.blocked = 0, false, nil, ""
	if err := a.log(host.TypeTurnStart, nil, host.TurnStart{Turn: a.turn + 1}); err != nil {
		return err // no turn: the next takes the number
	}
	a.turn++
	return nil
}

// end closes the turn: the open step, every call of the turn without a
// result, then turn/end with the reason, and makes the log durable. A turn
// whose lease was lost writes nothing: it reports why.
func (a *Agent) end(ctx context.Context, runErr error) error {
	defer func() {
		a.dropLease()
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
	a.mu.Lock()
	g := a.lease
	a.mu.Unlock()
	if g != nil && g.Err() != nil {
		return fmt.Errorf("%s: turn %d: %w", name, a.turn, g.Err())
	}
	te := host.TurnEnd{Turn: a.turn, Reason: host.TurnCompleted}
	switch {
	case runErr == nil:
	case errors.Is(runErr, ErrBlocked):
		te.Reason, te.Error = host.TurnBlocked, a.blocked
	case ctx.Err() != nil:
		te.Reason = host.TurnCancelled
	case errors.Is(runErr, adk.ErrExceedMaxIterations):
		te.Reason, te.Error = host.TurnStepsExhausted, runErr.Error()
	default:
		te.Reason, te.Error = host.TurnError, runErr.Error()
	}
	var errs []error
	if a.stepOpen {
		errs = append(errs, a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1, Error: te.Error}))
		a.stepOpen = false
	}
	notRun := textToolNotRun
	if te.Reason == host.TurnCancelled {
		notRun = textToolCancelled
	}
	errs = append(errs, a.answerDangling(a.turnStart(), notRun))
	errs = append(errs, a.log(host.TypeTurnEnd, nil, te))
	errs = append(errs, host.Sync(a.sess))
	return errors.Join(errs...)
}

// turnStart is the index of the last turn/start in the log.
func (a *Agent) turnStart() int {
	log := a.sess.Events()
	for i, e := range log.Backward(log.Len()) {
		if e.Type == host.TypeTurnStart {
			return i
		}
	}
	return 0
}

// answerDangling gives every tool call the model asked for (an
// assistant/message) from index from on that has no result an is-error
// result reading text, after its tool/call when that is missing too (Eino
// failed before the tool ran, or the process stopped).
func (a *Agent) answerDangling(from int, text string) error {
	log := a.sess.Events()
	var calls []host.ToolCall
	called, answered := map[string]bool{}, map[string]bool{}
	for _, e := range log.Range(from, log.Len()) {
		switch e.Type {
		case host.TypeAssistantMessage:
			var m host.AssistantMessage
			if json.Unmarshal(e.Data, &m) == nil {
				calls = append(calls, m.ToolCalls...)
			}
		case host.TypeToolCall:
			var c host.ToolCall
			if json.Unmarshal(e.Data, &c) == nil {
				called[c.ID] = true
			}
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) == nil {
				answered[r.CallID] = true
			}
		}
	}
	a.mu.Lock()
	// A result another process wrote for a call is not owed any more.
	a.owed = slices.DeleteFunc(a.owed, func(r host.ToolResult) bool { return answered[r.CallID] })
	for _, r := range a.owed {
		answered[r.CallID] = true
	}
	a.mu.Unlock()
	for _, c := range calls {
		if answered[c.ID] {
			continue
		}
		answered[c.ID] = true // a call ID asked for twice is answered once
		if !called[c.ID] {
			if err := a.log(host.TypeToolCall, nil, c); err != nil {
				return err
			}
		}
		if err := a.log(host.TypeToolResult, nil, host.ToolResult{CallID: c.ID, Name: c.Name, Output: text, IsError: true}); err != nil {
			return err
		}
	}
	return nil
}

// log appends one event, after the results owed to calls whose result
// could not be written; through the turn lease while the agent holds one.
func (a *Agent) log(typ string, src *host.Source, v any) error {
	a.mu.Lock()
	owed := slices.Clone(a.owed)
	var to appender = a.sess
	if a.lease != nil {
		to = a.lease
	}
	a.mu.Unlock()
	for _, r := range owed {
		if err := appendJSON(to, host.TypeToolResult, nil, r); err != nil {
			return err
		}
		a.mu.Lock()
		a.owed = slices.DeleteFunc(a.owed, func(x host.ToolResult) bool { return x.CallID == r.CallID })
		a.mu.Unlock()
	}
	return appendJSON(to, typ, src, v)
}

// appender is what events are appended to: a session, or a turn lease.
type appender interface {
	Append(e host.Event) (host.Event, error)
}

func appendJSON(s appender, typ string, src *host.Source, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", name, typ, err)
	}
	_, err = s.Append(host.Event{Type: typ, Source: src, Data: data})
	return err
}

// Execute runs a command line such as "/plan off" for the agent: it logs
// command/run, runs the command and logs command/done with its outcome. A
// line that names no registered command is not handled and logs nothing.
// A command is the user's action, not the turn's: it is written to the
// session directly, without a running turn's lease, as refhost does.
func (a *Agent) Execute(ctx context.Context, line string) (handled bool, reply string, err error) {
	cmdName, args, ok := refhost.ParseCommand(line)
	if !ok {
		return false, "", nil
	}
	c, ok := a.h.Command(cmdName)
	if !ok {
		return false, "", nil
	}
	id := rand.Text() // pairs command/run with its command/done
	if err := appendJSON(a.sess, host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: cmdName, Args: args}); err != nil {
		return true, "", err
	}
	ctx, outcome := host.RecordOutcome(ctx)
	reply, runErr := c.Run(ctx, host.Invocation{Agent: a, Args: args})
	done := host.CommandDone{ID: id, OK: runErr == nil, Text: reply, Outcome: outcome()}
	if runErr != nil {
		done.Text = runErr.Error()
	}
	err = appendJSON(a.sess, host.TypeCommandDone, nil, done)
	if err == nil {
		err = host.Sync(a.sess) // the reply is shown
	}
	return true, reply, errors.Join(runErr, err)
}

// agentKey carries the running *Agent in the context of a run.
type agentKey struct{}

func agentFrom(ctx context.Context) (*Agent, error) {
	if a, ok := ctx.Value(agentKey{}).(*Agent); ok {
		return a, nil
	}
	return nil, fmt.Errorf("%s: %w", name, ErrNoAgent)
}

var _ host.Agent = (*Agent)(nil)
