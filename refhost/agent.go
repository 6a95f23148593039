package refhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Agent is one agent of a Runtime, bound to one session. It implements
// [host.Agent]; create it with [Runtime.NewAgent]. All methods are safe for
// concurrent use.
type Agent struct {
	rt       *Runtime
	id       string
	sess     host.Session
	log      *slog.Logger
	base     context.Context // cancelled by Stop
	stopBase context.CancelFunc

	mu         sync.Mutex
	queue      []host.Message
	running    bool
	wake       bool   // a Steer arrived since the last claim or Cancel
	cancels    uint64 // Cancel calls so far
	stopped    bool
	turn       int
	cancelTurn context.CancelFunc
	idle       chan struct{} // closed while not running
	compaction *string       // a summary to append before the next request

	// Owned by the loop goroutine (only one runs at a time).
	resume bool                // the next header is the first since the agent was created on a non-empty session
	header *host.RequestHeader // the log's last request header
	tx     transcript
	lost   []lostResult   // calls whose result could not be written, oldest first
	lease  host.TurnLease // the session's turn lease while a turn runs (shared sessions only)

	// Set when the session is a host.TurnLeaser (several processes serve
	// it): the fold of where the log stands, and its unsubscribe.
	fold        *turnFold
	unsubscribe func()
}

// lostResult is a tool call whose result could not be written to the log:
// the agent writes it, as an is-error result, before its next append.
type lostResult struct {
	call   host.ToolCall
	called bool   // the call's "tool/call" is in the log
	output string // the is-error result to write
}

func newAgent(r *Runtime, id string, s host.Session) (*Agent, error) {
	base, stop := context.WithCancel(context.Background())
	a := &Agent{
		rt:       r,
		id:       id,
		sess:     s,
		log:      r.o.Logger.With("agent", id, "session", s.ID()),
		base:     base,
		stopBase: stop,
		idle:     make(chan struct{}),
	}
	close(a.idle)
	if _, ok := s.(host.TurnLeaser); ok {
		a.fold = newTurnFold()
		a.unsubscribe = s.Subscribe(0, a.fold.add)
	}
	if err := a.readLog(); err != nil {
		if a.unsubscribe != nil {
			a.unsubscribe()
		}
		stop()
		return nil, err
	}
	return a, nil
}

// readLog reads what the loop needs from an existing log: the last turn
// number and the last request header. It then repairs the log (see
// repair). On a session several processes share, the repair needs the
// session's turn lease: while another process holds it, the open turn is
// that live process's and is left alone (the process that next takes the
// lease after it expires repairs it).
func (a *Agent) readLog() error {
	events := a.sess.Events()
	a.resume = events.Len() > 0
	for _, e := range events.Backward(events.Len()) {
		if a.turn > 0 && a.header != nil {
			break
		}
		switch {
		case e.Type == host.TypeTurnStart && a.turn == 0:
			p, err := decode[host.TurnStart](a.sess, e)
			if err != nil {
				return err
			}
			a.turn = p.Turn
		case e.Type == host.TypeRequestHeader && a.header == nil:
			p, err := decode[host.RequestHeader](a.sess, e)
			if err != nil {
				return err
			}
			a.header = &p
		}
	}
	l, shared := a.sess.(host.TurnLeaser)
	if !shared || !needsRepair(events) {
		return a.repair(events)
	}
	g, err := l.LeaseTurn()
	if errors.Is(err, host.ErrBusy) {
		a.log.Info("refhost: session's turn is held by a live process; not repaired", "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("refhost: session %q: repair: %w", a.sess.ID(), err)
	}
	a.lease = g
	defer a.dropLease()
	return a.repairUnderLease()
}

// decode returns the payload of e, an event of s.
func decode[T any](s host.Session, e host.Event) (T, error) {
	var p T
	if err := json.Unmarshal(e.Data, &p); err != nil {
		return p, fmt.Errorf("refhost: session %q: event %d (%s): %w", s.ID(), e.Seq, e.Type, err)
	}
	return p, nil
}

// needsRepair reports whether the log has a turn left open or a tool call
// without a result.
func needsRepair(events host.Log) bool {
	open, start := openTurn(events)
	return open || len(unanswered(events, start)) > 0
}

// openTurn reports whether the log's last turn is open, and the index of
// its "turn/start" (the log's length when none is open).
func openTurn(events host.Log) (open bool, start int) {
	for i, e := range events.Backward(events.Len()) {
		switch e.Type {
		case host.TypeTurnStart:
			return true, i
		case host.TypeTurnEnd:
			return false, events.Len()
		}
	}
	return false, events.Len()
}

// repair answers every tool call the model asked for that has no result
// (is-error: lost, or interrupted in a turn the log left open) and closes
// a turn left open (the process stopped mid-turn) with a "turn/end" of
// reason error.
func (a *Agent) repair(events host.Log) error {
	open, lastStart := openTurn(events)
	a.lost = append(a.lost, unanswered(events, lastStart)...)
	if err := a.flushLost(); err != nil {
		return err
	}
	if !open {
		return nil
	}
	p, err := decode[host.TurnStart](a.sess, events.At(lastStart))
	if err != nil {
		return err
	}
	return a.emit(host.TypeTurnEnd, nil, host.TurnEnd{Turn: p.Turn, Reason: host.TurnError, Error: TextTurnInterrupted})
}

// unanswered returns, as lost results, the tool calls the model asked for,
// anywhere in the log, that no "tool/result" answers, in the order they
// were asked for. Those asked for after index open (an open turn's
// "turn/start") were interrupted rather than lost.
func unanswered(events host.Log, open int) []lostResult {
	var calls []lostResult
	called, answered := map[string]bool{}, map[string]bool{}
	for i, e := range events.All() {
		switch e.Type {
		case host.TypeAssistantMessage:
			out := TextResultLost
			if i > open {
				out = ToolErrorPrefix + TextTurnInterrupted
			}
			var p host.AssistantMessage
			if json.Unmarshal(e.Data, &p) == nil {
				for _, c := range p.ToolCalls {
					calls = append(calls, lostResult{call: c, output: out})
				}
			}
		case host.TypeToolCall:
			var p host.ToolCall
			if json.Unmarshal(e.Data, &p) == nil {
				called[p.ID] = true
			}
		case host.TypeToolResult:
			var p host.ToolResult
			if json.Unmarshal(e.Data, &p) == nil {
				answered[p.CallID] = true
			}
		}
	}
	out := calls[:0]
	for _, c := range calls {
		if answered[c.call.ID] {
			continue
		}
		answered[c.call.ID] = true // a call ID asked for twice is answered once
		c.called = called[c.call.ID]
		out = append(out, c)
	}
	return out
}

// flushLost writes the results of the calls whose own result could not be
// written, oldest first, each after its "tool/call" when that is missing
// too. It stops at the first failure and keeps the rest for the next try.
func (a *Agent) flushLost() error {
	for len(a.lost) > 0 {
		l := &a.lost[0]
		if !l.called {
			if err := a.appendJSON(host.TypeToolCall, nil, l.call); err != nil {
				return err
			}
			l.called = true
		}
		res := host.ToolResult{CallID: l.call.ID, Name: l.call.Name, Output: l.output, IsError: true}
		if err := a.appendJSON(host.TypeToolResult, nil, res); err != nil {
			return err
		}
		a.lost = a.lost[1:]
	}
	a.lost = nil
	return nil
}

// loseResults records the calls of a batch from the one whose record
// failed on: that call's result is lost (the tool that ran it is told, see
// [host.ResultLossHandler]), and the calls after it are not run. Their
// results are written before the agent's next append.
func (a *Agent) loseResults(ctx context.Context, calls []host.ToolCall, called bool, ran host.Tool, cause error) {
	for i, c := range calls {
		l := lostResult{call: c, output: TextResultNotRun}
		if i == 0 {
			l.called = called
			if ran != nil {
				l.output = a.resultLost(ctx, ran, c, cause)
			}
		}
		a.lost = append(a.lost, l)
	}
}

// resultLost tells t, when it cares, that the result of call could not be
// written, and returns the result to write instead. ctx is the turn's.
func (a *Agent) resultLost(ctx context.Context, t host.Tool, call host.ToolCall, cause error) (out string) {
	h, ok := t.(host.ResultLossHandler)
	if !ok {
		return TextResultLost
	}
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("refhost: result-loss handler panicked", "tool", call.Name, "panic", p)
			out = TextResultLost
		}
	}()
	if s := h.ResultLost(ctx, host.CallContext{Agent: a, CallID: call.ID}, cause); s != "" {
		return s
	}
	return TextResultLost
}

// ID implements [host.Agent].
func (a *Agent) ID() string { return a.id }

// Session implements [host.Agent].
func (a *Agent) Session() host.Session { return a.sess }

// Status implements [host.Agent]. It is running from the Steer that starts
// a turn until after the turn's checkpoint.
func (a *Agent) Status() host.AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return host.StatusRunning
	}
	return host.StatusIdle
}

// Turn returns the number of the latest turn started (0 before the first).
func (a *Agent) Turn() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn
}

// Pending returns a copy of the queued messages no step has claimed yet.
func (a *Agent) Pending() []host.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.queue)
}

// Steer implements [host.Agent]: it queues m and, when the agent is idle,
// starts a turn in a new goroutine. A Steer that arrives while a turn runs
// is claimed by that turn's next step or, when the turn has no further
// step, starts another turn once it ends.
func (a *Agent) Steer(m host.Message) error { return a.enqueue(m, true) }

// Inject implements [host.Agent]: it queues m for the next step without
// starting a turn.
func (a *Agent) Inject(m host.Message) error { return a.enqueue(m, false) }

func (a *Agent) enqueue(m host.Message, wake bool) error {
	if len(m.Content) == 0 {
		return fmt.Errorf("refhost: agent %q: %w", a.id, ErrEmptyMessage)
	}
	m.Content = slices.Clone(m.Content)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return fmt.Errorf("refhost: agent %q: %w", a.id, ErrAgentStopped)
	}
	a.queue = append(a.queue, m)
	switch {
	case !wake:
	case a.running:
		a.wake = true
	default:
		a.running = true
		a.idle = make(chan struct{})
		ctx, cancel := context.WithCancel(a.base)
		a.cancelTurn = cancel
		go a.run(ctx)
	}
	return nil
}

// Cancel cancels the running turn, if any: it ends "cancelled" and the
// model call, tool executions and pre-step listeners see a cancelled
// context. Messages queued but not yet logged stay queued, and do not start
// a turn by themselves; a Steer that comes after Cancel does.
func (a *Agent) Cancel() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wake = false
	a.cancels++
	if a.cancelTurn != nil {
		a.cancelTurn()
	}
}

// WaitIdle blocks until the agent is idle (its turn and checkpoint done) or
// ctx is done.
func (a *Agent) WaitIdle(ctx context.Context) error {
	a.mu.Lock()
	idle := a.idle
	a.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("refhost: agent %q: wait idle: %w", a.id, ctx.Err())
	}
}

// Stop cancels the running turn, refuses further input, releases the
// agent's session binding in the runtime, and waits for the turn to end or
// for ctx. Messages still queued (see Pending) are never logged. Stop is
// safe to call more than once.
func (a *Agent) Stop(ctx context.Context) error {
	a.mu.Lock()
	a.stopped = true
	a.wake = false
	if a.cancelTurn != nil {
		a.cancelTurn()
	}
	a.mu.Unlock()
	a.stopBase()
	a.rt.forget(a)
	err := a.WaitIdle(ctx)
	if a.unsubscribe != nil {
		a.unsubscribe()
	}
	return err
}

// run is the agent's goroutine: turns back to back while Steers keep
// arriving after a turn's last claim.
func (a *Agent) run(ctx context.Context) {
	for {
		a.runTurn(ctx)
		a.mu.Lock()
		a.cancelTurn()
		if !a.wake || a.stopped {
			a.running = false
			a.cancelTurn = nil
			close(a.idle)
			a.mu.Unlock()
			return
		}
		a.wake = false
		ctx, a.cancelTurn = context.WithCancel(a.base)
		a.mu.Unlock()
	}
}

func (a *Agent) runTurn(ctx context.Context) {
	if l, ok := a.sess.(host.TurnLeaser); ok {
		if !a.takeLease(ctx, l) {
			return
		}
		defer a.dropLease()
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer a.watchLease(cancel)()
		// What plugins append during the turn goes through its lease.
		ctx = host.WithTurnLease(ctx, a.sess, a.lease)
	}
	n := a.Turn() + 1
	if err := a.emit(host.TypeTurnStart, nil, host.TurnStart{Turn: n}); err != nil {
		a.log.Error("refhost: turn not started", "turn", n, "err", err)
		return
	}
	a.mu.Lock()
	a.turn = n
	a.mu.Unlock()
	for step := 1; ; {
		end, next := a.runSteps(ctx, n, step)
		ended, err := a.endTurn(end)
		if err != nil {
			a.log.Error("refhost: turn end not logged", "turn", n, "err", err)
			break
		}
		if ended {
			if err := host.Sync(a.sess); err != nil { // a durability point
				a.log.Error("refhost: turn end not made durable", "turn", n, "err", err)
			}
			break
		}
		step = next // another process handed a message in: one more step
	}
	if a.rt.o.Checkpoint != nil {
		if err := a.rt.o.Checkpoint(a.base, a); err != nil {
			a.log.Warn("refhost: checkpoint", "turn", n, "err", err)
		}
	}
}

// endTurn appends the turn's "turn/end". On a shared session, a turn that
// completed does not end while a message another process handed in waits
// for a step: endTurn then reports false, and the turn takes one more.
func (a *Agent) endTurn(end host.TurnEnd) (bool, error) {
	if a.lease == nil || end.Reason != host.TurnCompleted {
		return true, a.emit(host.TypeTurnEnd, nil, end)
	}
	if err := a.flushLost(); err != nil {
		return false, err
	}
	data, err := json.Marshal(end)
	if err != nil {
		return false, fmt.Errorf("refhost: %s: %w", host.TypeTurnEnd, err)
	}
	_, ok, err := a.lease.AppendIf(host.Event{Type: host.TypeTurnEnd, Data: data}, func() bool { return !a.fold.handedIn() })
	if err != nil {
		return false, fmt.Errorf("refhost: %s: %w", host.TypeTurnEnd, err)
	}
	return ok, nil
}

// stepResult says how a step ended and what the turn does next.
type stepResult int

const (
	stepNext      stepResult = iota // tool calls ran: the next step follows
	stepRetry                       // the request failed and will be retried
	stepDone                        // the model answered without tool calls
	stepCancelled                   // the turn was cancelled
	stepFailed                      // the request or the log failed for good
)

// runSteps runs the steps of turn n from step first on, and returns how
// the turn ends and the number its next step would take.
func (a *Agent) runSteps(ctx context.Context, n, first int) (host.TurnEnd, int) {
	step, attempt := first, 1
	for {
		c := a.claim()
		dec := a.rt.RunPreSteps(ctx, host.Step{Agent: a, Turn: n, Step: step, Attempt: attempt, Messages: c.msgs}, nil)
		if ctx.Err() != nil {
			a.putBack(c, true)
			return host.TurnEnd{Turn: n, Reason: host.TurnCancelled}, step + 1
		}
		if !dec.Accepted {
			a.putBack(c, false)
			return host.TurnEnd{Turn: n, Reason: host.TurnBlocked, Error: dec.Reason}, step + 1
		}
		res, err := a.runStep(ctx, n, step, attempt, dec.Messages)
		switch res {
		case stepNext:
			if step >= a.rt.o.MaxSteps {
				err := fmt.Errorf("%w (%d)", ErrStepsExhausted, step)
				a.log.Warn("refhost: turn failed", "turn", n, "step", step, "err", err)
				return host.TurnEnd{Turn: n, Reason: host.TurnStepsExhausted, Error: err.Error()}, step + 1
			}
			step, attempt = step+1, 1
		case stepRetry:
			attempt++
		case stepDone:
			return host.TurnEnd{Turn: n, Reason: host.TurnCompleted}, step + 1
		case stepCancelled:
			return host.TurnEnd{Turn: n, Reason: host.TurnCancelled}, step + 1
		default:
			a.log.Warn("refhost: turn failed", "turn", n, "step", step, "attempt", attempt, "err", err)
			return host.TurnEnd{Turn: n, Reason: host.TurnError, Error: err.Error()}, step + 1
		}
	}
}

// runStep runs one accepted step: "step/start", the decision's messages,
// the request (and its header when due), the model call, the assistant
// message and the tool calls, then "step/end". Every "step/start" gets its
// "step/end" (best effort when the log itself fails).
func (a *Agent) runStep(ctx context.Context, n, step, attempt int, msgs []host.Message) (res stepResult, err error) {
	var model string
	if ch, ok := a.rt.o.Model.(ModelChooser); ok {
		model = ch.ChooseModel(a)
	}
	if err := a.emit(host.TypeStepStart, nil, host.StepStart{Turn: n, Step: step, Attempt: attempt, Model: model}); err != nil {
		return stepFailed, err
	}
	var endErr string // the "step/end" error when the step did not fail with err
	defer func() {
		if endErr == "" && err != nil {
			endErr = err.Error()
		}
		if e := a.emit(host.TypeStepEnd, nil, host.StepEnd{Turn: n, Step: step, Attempt: attempt, Error: endErr}); e != nil && err == nil && res != stepCancelled {
			res, err = stepFailed, e
		}
	}()
	if err := a.appendCompaction(); err != nil {
		return stepFailed, err
	}
	for _, m := range msgs {
		if err := a.emit(host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content}); err != nil {
			return stepFailed, err
		}
	}
	req, hdr := a.derive()
	req.Model = model
	if hdr != nil {
		if err := a.emit(host.TypeRequestHeader, nil, hdr); err != nil {
			return stepFailed, err
		}
		a.header, a.resume = hdr, false
	}
	// A durability point: the model is about to see the log.
	if err := host.Sync(a.sess); err != nil {
		return stepFailed, err
	}
	resp, err := a.rt.o.Model.Generate(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			endErr = TextStepCancelled
			return stepCancelled, nil
		}
		endErr = err.Error()
		retry := a.rt.settleRequestError(ctx, RequestError{Agent: a, Turn: n, Step: step, Attempt: attempt, MaxAttempts: a.rt.o.MaxAttempts, Err: err})
		switch {
		case ctx.Err() != nil:
			return stepCancelled, nil
		case !retry:
			return stepFailed, err
		case attempt >= a.rt.o.MaxAttempts:
			return stepFailed, fmt.Errorf("%w (%d): %w", ErrAttemptsExhausted, attempt, err)
		}
		return stepRetry, nil
	}
	bad := sanitizeCalls(resp.ToolCalls)
	if err := a.emit(host.TypeAssistantMessage, nil, host.AssistantMessage{Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning, Model: model}); err != nil {
		return stepFailed, err
	}
	if resp.Text != "" && len(resp.ToolCalls) > 0 {
		// A durability point: the reply is shown while the tools run.
		// A reply without tool calls is made durable at the turn's end.
		if err := host.Sync(a.sess); err != nil {
			return stepFailed, err
		}
	}
	for i, call := range resp.ToolCalls {
		if err := a.emit(host.TypeToolCall, nil, call); err != nil {
			// The calls from this one on are not run; each gets a result
			// on the next append that succeeds.
			a.loseResults(ctx, resp.ToolCalls[i:], false, nil, err)
			return stepFailed, err
		}
		var (
			res host.ToolResult
			ran host.Tool
		)
		if bad[i] {
			res = host.ToolResult{CallID: call.ID, Name: call.Name, Output: TextBadToolInput, IsError: true}
		} else {
			res, ran = a.callTool(ctx, call)
		}
		if err := a.emit(host.TypeToolResult, nil, res); err != nil {
			// Fail closed: the tool withdraws what the lost result would
			// have recorded, and the batch stops here.
			a.loseResults(ctx, resp.ToolCalls[i:], true, ran, err)
			return stepFailed, err
		}
	}
	switch {
	case ctx.Err() != nil:
		endErr = TextStepCancelled
		return stepCancelled, nil
	case len(resp.ToolCalls) == 0:
		return stepDone, nil
	}
	return stepNext, nil
}

// derive builds the step's request from the registries and the log, and
// the header to log with it when one is due.
func (a *Agent) derive() (Request, *host.RequestHeader) {
	p := a.rt.Assemble(host.AssembleContext{Agent: a})
	msgs := a.tx.update(a.sess.Events(), a.rt.EventTypes(), a.log)
	req := Request{System: p.System, Sections: p.Sections, Tools: p.Tools, Messages: msgs}
	var reason host.HeaderReason
	switch {
	case a.header == nil:
		reason = host.HeaderInitial
	case a.resume:
		reason = host.HeaderResume
	case a.header.SystemDigest != p.SystemDigest || a.header.ToolsDigest != p.ToolsDigest:
		reason = host.HeaderChange
	default:
		return req, nil
	}
	return req, &host.RequestHeader{Reason: reason, Sections: p.Sections, SystemDigest: p.SystemDigest, ToolsDigest: p.ToolsDigest}
}

// sanitizeCalls makes every call's input loggable JSON: a missing input
// becomes {}, and input that is not valid JSON is kept as a JSON string of
// the raw text and reported in bad (such a call is answered with an error
// and not executed).
func sanitizeCalls(calls []host.ToolCall) (bad map[int]bool) {
	bad = map[int]bool{}
	for i := range calls {
		switch in := calls[i].Input; {
		case len(in) == 0:
			calls[i].Input = json.RawMessage("{}")
		case !json.Valid(in):
			bad[i] = true
			calls[i].Input, _ = json.Marshal(string(in))
		}
	}
	return bad
}

// callTool runs one call and returns its result, and the tool when it ran
// (nil when the call was refused before); it never fails.
func (a *Agent) callTool(ctx context.Context, call host.ToolCall) (host.ToolResult, host.Tool) {
	res := host.ToolResult{CallID: call.ID, Name: call.Name}
	if ctx.Err() != nil {
		res.Output, res.IsError = TextToolCancelled, true
		return res, nil
	}
	cc := host.CallContext{Agent: a, CallID: call.ID}
	if err := a.rt.RunGuards(ctx, cc, call.Name, call.Input); err != nil {
		res.Output, res.IsError = ToolErrorPrefix+err.Error(), true
		return res, nil
	}
	t, ok := a.rt.Tool(call.Name)
	if !ok {
		res.Output, res.IsError = fmt.Sprintf(TextUnknownTool, call.Name), true
		return res, nil
	}
	ctx, outcome := host.RecordOutcome(ctx)
	out, err := execute(ctx, t, cc, call.Input)
	res.Outcome = outcome()
	if err != nil {
		res.Output, res.IsError = ToolErrorPrefix+err.Error(), true
		return res, t
	}
	res.Output = out
	return res, t
}

// execute runs t, turning a panic into an error so that one broken tool
// cannot take the host down.
func execute(ctx context.Context, t host.Tool, cc host.CallContext, input json.RawMessage) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf(TextToolPanicked, p)
		}
	}()
	return t.Execute(ctx, cc, input)
}

// claimed is what a step took from the queue.
type claimed struct {
	msgs    []host.Message
	wake    bool   // a Steer had arrived since the last claim or Cancel
	cancels uint64 // Cancel calls before the claim
}

func (a *Agent) claim() claimed {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := claimed{msgs: a.queue, wake: a.wake, cancels: a.cancels}
	a.queue, a.wake = nil, false
	return c
}

// putBack returns claimed messages to the front of the queue. When the step
// was cancelled by a Cancel that came before the claim, a Steer the claim
// swallowed (it arrived after that Cancel) still deserves its turn, so the
// wake-up is restored; a rejection restores none, or a blocked step would
// be proposed again and again.
func (a *Agent) putBack(c claimed, cancelled bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(c.msgs) > 0 {
		a.queue = append(slices.Clip(c.msgs), a.queue...)
	}
	if cancelled && c.wake && a.cancels == c.cancels {
		a.wake = true
	}
}

// emit appends one event to the agent's session, after the results of
// calls whose own result could not be written (see flushLost).
func (a *Agent) emit(typ string, src *host.Source, payload any) error {
	if err := a.flushLost(); err != nil {
		return err
	}
	return a.appendJSON(typ, src, payload)
}

// appendJSON appends one event with payload encoded as its data, under
// the turn lease when the agent holds one.
func (a *Agent) appendJSON(typ string, src *host.Source, payload any) error {
	if a.lease != nil {
		return appendJSON(a.lease, typ, src, payload)
	}
	return appendJSON(a.sess, typ, src, payload)
}

// appender is what events are appended to: a session, or a turn lease.
type appender interface {
	Append(e host.Event) (host.Event, error)
}

// appendJSON appends one event with payload encoded as its data.
func appendJSON(s appender, typ string, src *host.Source, payload any) error {
	data, err := json.Marshal(payload)
	if err == nil {
		_, err = s.Append(host.Event{Type: typ, Source: src, Data: data})
	}
	if err != nil {
		return fmt.Errorf("refhost: %s: %w", typ, err)
	}
	return nil
}

var _ host.Agent = (*Agent)(nil)
