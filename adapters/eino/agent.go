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
// session. Use one Agent per session at a time.
type Agent struct {
	h    *Host
	sess host.Session

	mu      sync.Mutex
	queue   []host.Message    // input the next step claims
	running bool              // a turn is open
	owed    []host.ToolResult // results to write before the next append

	// Turn state, touched by one turn at a time (Eino runs the hooks of a
	// run in sequence).
	turn     int  // the number of the last turn in the log
	step     int  // the current step of the turn
	stepOpen bool // step/start logged, step/end not yet
	base     *string

	// The last request header, to log a new one when the prompt changes.
	headerSeen, resumed bool
	system, tools       string
}

// NewAgent binds an agent to sess, a session of the host's store. On a
// session that already has events (a restart), it continues the turn
// numbering, answers every tool call the log holds no result for and
// closes a turn the log left open, so the log reads as idle again. It
// refuses while a tool guard names a tool that is not registered.
func (h *Host) NewAgent(sess host.Session) (*Agent, error) {
	if sess == nil {
		return nil, fmt.Errorf("%s: agent: session is nil: %w", name, ErrBadRegistration)
	}
	if err := h.checkGuards(); err != nil {
		return nil, err
	}
	a := &Agent{h: h, sess: sess}
	log := sess.Events()
	open, stepOpen := false, false
	for _, e := range log.All() {
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
			a.headerSeen, a.resumed = true, true
		}
	}
	text := textResultLost
	if open {
		text = textToolInterrupted
	}
	if err := a.answerDangling(0, text); err != nil {
		return nil, err
	}
	if stepOpen {
		if err := a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1, Error: textTurnInterrupted}); err != nil {
			return nil, err
		}
	}
	if open {
		if err := a.log(host.TypeTurnEnd, nil, host.TurnEnd{Turn: a.turn, Reason: host.TurnError, Error: textTurnInterrupted}); err != nil {
			return nil, err
		}
	}
	return a, nil
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
func (a *Agent) Run(ctx context.Context, ag adk.Agent, text string, opts ...adk.AgentRunOption) *adk.AsyncIterator[*adk.AgentEvent] {
	iter, gen := adk.NewAsyncIteratorPair[*adk.AgentEvent]()
	if err := a.begin(text); err != nil {
		gen.Send(&adk.AgentEvent{Err: err})
		gen.Close()
		return iter
	}
	go func() {
		defer gen.Close()
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag})
		events := runner.Run(context.WithValue(ctx, agentKey{}, a), nil, opts...)
		var runErr error
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			if ev.Err != nil {
				runErr = ev.Err
			}
			gen.Send(ev)
		}
		if err := a.end(ctx, runErr); err != nil {
			gen.Send(&adk.AgentEvent{Err: err})
		}
	}()
	return iter
}

// begin opens a turn.
func (a *Agent) begin(text string) error {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return fmt.Errorf("%s: run: %w", name, host.ErrAgentBusy)
	}
	a.running = true
	if text != "" {
		a.queue = append(a.queue, host.Message{Content: []host.Block{host.TextBlock(text)}})
	}
	a.mu.Unlock()
	a.turn, a.step, a.stepOpen, a.base = a.turn+1, 0, false, nil
	if err := a.log(host.TypeTurnStart, nil, host.TurnStart{Turn: a.turn}); err != nil {
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
		return err
	}
	return nil
}

// end closes the turn: the open step, every call of the turn without a
// result, then turn/end with the reason, and makes the log durable.
func (a *Agent) end(ctx context.Context, runErr error) error {
	defer func() {
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
	te := host.TurnEnd{Turn: a.turn, Reason: host.TurnCompleted}
	switch {
	case runErr == nil:
	case errors.Is(runErr, ErrBlocked):
		te.Reason = host.TurnBlocked
	case ctx.Err() != nil:
		te.Reason = host.TurnCancelled
	default:
		te.Reason, te.Error = host.TurnError, runErr.Error()
	}
	var errs []error
	if a.stepOpen {
		errs = append(errs, a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1, Error: te.Error}))
		a.stepOpen = false
	}
	errs = append(errs, a.answerDangling(a.turnStart(), textToolInterrupted))
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

// answerDangling gives every tool call from index from on that has no
// result an is-error result reading text.
func (a *Agent) answerDangling(from int, text string) error {
	log := a.sess.Events()
	var calls []host.ToolCall
	answered := map[string]bool{}
	for _, e := range log.Range(from, log.Len()) {
		switch e.Type {
		case host.TypeToolCall:
			var c host.ToolCall
			if json.Unmarshal(e.Data, &c) == nil {
				calls = append(calls, c)
			}
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) == nil {
				answered[r.CallID] = true
			}
		}
	}
	a.mu.Lock()
	for _, r := range a.owed {
		answered[r.CallID] = true
	}
	a.mu.Unlock()
	for _, c := range calls {
		if !answered[c.ID] {
			answered[c.ID] = true
			if err := a.log(host.TypeToolResult, nil, host.ToolResult{CallID: c.ID, Name: c.Name, Output: text, IsError: true}); err != nil {
				return err
			}
		}
	}
	return nil
}

// log appends one event, after the results owed to calls whose result
// could not be written.
func (a *Agent) log(typ string, src *host.Source, v any) error {
	a.mu.Lock()
	owed := slices.Clone(a.owed)
	a.mu.Unlock()
	for _, r := range owed {
		if err := appendJSON(a.sess, host.TypeToolResult, nil, r); err != nil {
			return err
		}
		a.mu.Lock()
		a.owed = slices.DeleteFunc(a.owed, func(x host.ToolResult) bool { return x.CallID == r.CallID })
		a.mu.Unlock()
	}
	return appendJSON(a.sess, typ, src, v)
}

func appendJSON(s host.Session, typ string, src *host.Source, v any) error {
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
func (a *Agent) Execute(ctx context.Context, line string) (handled bool, reply string, err error) {
	cmdName, args, ok := refhost.ParseCommand(line)
	if !ok {
		return false, "", nil
	}
	c, ok := a.h.commands.Get(cmdName)
	if !ok {
		return false, "", nil
	}
	id := rand.Text() // pairs command/run with its command/done
	if err := a.log(host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: cmdName, Args: args}); err != nil {
		return true, "", err
	}
	ctx, outcome := host.RecordOutcome(ctx)
	reply, runErr := c.Run(ctx, host.Invocation{Agent: a, Args: args})
	done := host.CommandDone{ID: id, OK: runErr == nil, Text: reply, Outcome: outcome()}
	if runErr != nil {
		done.Text = runErr.Error()
	}
	err = a.log(host.TypeCommandDone, nil, done)
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
