package planmode

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Outcome says what [Controller.Set] did.
type Outcome uint8

const (
	// Noop means the requested state already was the target (the pending
	// selection if any, else the logged state). Nothing changed.
	Noop Outcome = iota + 1
	// Committed means no turn was open, so the "plan/mode" event was
	// appended at once (with a notice when one was due).
	Committed
	// Queued means a turn was open, so the selection is pending until the
	// next accepted pre-step. It replaces an earlier pending selection.
	Queued
	// Cancelled means an opposite pending selection existed and the logged
	// state already was the requested one: the selection was dropped (with
	// an [EventPlanCancel] marker when the log recorded it).
	Cancelled
)

// String returns "noop", "committed", "queued" or "cancelled".
func (o Outcome) String() string {
	if o < Noop || o > Cancelled {
		return fmt.Sprintf("Outcome(%d)", uint8(o))
	}
	return [...]string{"noop", "committed", "queued", "cancelled"}[o-Noop]
}

// Controller is the plan-mode service (ctx.planMode): it reads and changes
// an agent's plan mode, appends pending selections from its pre-step
// listener and renders the plan:policy section.
//
// Create it with [New] (or through [Module]) and run it between Start and
// Stop. All methods are safe for concurrent use.
type Controller struct {
	p     Params         // Logger is never nil
	exits exitExtensions // the companions' parts in exit_plan_mode, sorted

	lifecycle sync.Mutex // serializes Start and Stop
	runMu     sync.Mutex // guards run; never held while calling out
	run       *run       // the current run, nil while stopped
}

// current returns the current run, nil while the controller is stopped.
func (c *Controller) current() *run {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	return c.run
}

// setRun makes r the current run (nil: stopped).
func (c *Controller) setRun(r *run) {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	c.run = r
}

// Get returns the agent's logged state and, when one exists, the selection
// waiting for the next accepted pre-step. It never appends, subscribes or
// waits for an append, so it may be called from anywhere, a session
// subscriber included, and it reflects every event appended before it. Once the controller
// serves the session its cost does not grow with the log; before that Get
// folds the log ([Project]). A stopped controller reports no pending
// selection; a nil agent, or one without a session, reads as the zero State.
func (c *Controller) Get(agent host.Agent) State {
	if agent == nil || agent.Session() == nil {
		return State{}
	}
	sess := agent.Session()
	r := c.current()
	if r == nil {
		ev := sess.Events()
		return State{Active: FoldPlanMode(ev, ev.Len())}
	}
	if st, _ := r.lookup(sess.ID()); st != nil {
		return st.get(sess.Events())
	}
	return Project(sess.Events())
}

// Set selects plan mode (active true) or the default mode for the agent, as
// the user's choice, and reports what it did:
//
//   - [Noop]: active already is the target (the pending selection if any,
//     else the logged state).
//   - [Cancelled]: an opposite selection was pending and the logged state
//     equals active: the selection is dropped. When the log records it (a
//     "/plan" run, an approved exit), Set first appends an [EventPlanCancel]
//     marker; if that fails, Set returns the error and it stays pending.
//   - [Committed]: no turn is open, so "plan/mode" is appended now, then a
//     notice when the last request header described the other mode. If the
//     append fails, Set returns the error and nothing changes.
//   - [Queued]: a turn is open; the selection replaces any pending one and
//     lands at the next accepted pre-step (lost if the process exits first,
//     unless the log records it: see [Project]).
//
// Set is linearizable with turn start and end, first catches up on a
// session other processes append to ([host.Refresher]), and makes what it
// appends durable ([host.Sync]) before it returns. It fails with
// [ErrNoAgent], with [ErrNotRunning] when the controller is not running
// (or stops meanwhile), and with [host.ErrClosed] once the session closed.
func (c *Controller) Set(agent host.Agent, active bool) (Outcome, error) {
	return c.set(agent, active, false)
}

// set is [Controller.Set]; byCommand is true for the "/plan" command, whose
// run the host logs, so that a selection it queues or repeats is one the
// log records (or will, once the command completes).
func (c *Controller) set(agent host.Agent, active, byCommand bool) (Outcome, error) {
	st, err := c.state(agent)
	if err != nil {
		return 0, fmt.Errorf("%s: set: %w", PluginName, err)
	}
	// Another process may have opened or closed a turn, or logged a mode,
	// that this one has not seen yet: decide on a caught-up view.
	if err := host.Refresh(st.sess); err != nil {
		return 0, fmt.Errorf("%s: set: %w", PluginName, err)
	}
	want := selectionOf(active)
	for {
		st.lock()
		if st.closed {
			err := st.closedErrLocked()
			st.mu.Unlock()
			return 0, fmt.Errorf("%s: set: %w", PluginName, err)
		}
		logged, pending, gen := selectionOf(st.v.active), st.sel, st.gen
		projected, _ := st.v.pending()
		target := logged
		if pending != SelectionNone {
			target = pending
		}
		var e host.Event
		switch {
		case want == target:
			if byCommand && pending == want {
				st.recorded = true
			}
			st.mu.Unlock()
			return Noop, nil
		case pending != SelectionNone && logged == want && projected == SelectionNone && !st.recorded:
			// The selection lived only in memory: nothing to log.
			st.setPendingLocked(SelectionNone, false)
			st.mu.Unlock()
			return Cancelled, nil
		case pending != SelectionNone && logged == want:
			e = cancelEvent(pending)
		case st.v.turnOpen:
			st.setPendingLocked(want, false)
			st.recorded = byCommand
			st.mu.Unlock()
			return Queued, nil
		default:
			e = modeEvent(active)
		}
		st.mu.Unlock()

		// Append the cancel marker, or commit, on the condition that
		// nothing this decision read changed meanwhile; else decide again.
		// The fold of either event clears the pending selection.
		var header, announced Selection
		appended, err := st.appendIf(context.Background(), e, func() bool { // a user's action
			header, announced = st.v.header, st.v.announced
			return st.gen == gen && st.v.active == (logged == SelectionActive) && (e.Type == EventPlanCancel || !st.v.turnOpen)
		})
		if err != nil {
			return 0, fmt.Errorf("%s: set: append %s: %w", PluginName, e.Type, err)
		}
		if !appended {
			continue
		}
		outcome := Cancelled
		if e.Type == EventPlanMode {
			outcome = Committed
			c.notify(context.Background(), agent, st, noticeFor(header, announced, want, false))
		}
		if err := host.Sync(st.sess); err != nil {
			return 0, fmt.Errorf("%s: set: %w", PluginName, err)
		}
		return outcome, nil
	}
}

// state returns the per-session state for the agent's session, creating it
// (and folding the log once) the first time the session is seen.
func (c *Controller) state(agent host.Agent) (*sessionState, error) {
	if agent == nil || agent.Session() == nil {
		return nil, ErrNoAgent
	}
	r := c.current()
	if r == nil {
		return nil, ErrNotRunning
	}
	return r.state(agent.Session())
}

// Enter records a consented entry into plan mode, for companions that let
// the model ask for it: a silent pending selection (no notice), applied at
// the next accepted pre-step, replacing a pending exit. It fails with
// [ErrNoAgent], [ErrNotRunning], and [ErrPlanMode] when the agent already
// is in plan mode or has a pending entry.
func (c *Controller) Enter(agent host.Agent) error {
	st, err := c.state(agent)
	if err != nil {
		return fmt.Errorf("%s: enter: %w", PluginName, err)
	}
	st.lock()
	defer st.mu.Unlock()
	switch {
	case st.closed:
		return fmt.Errorf("%s: enter: %w", PluginName, st.closedErrLocked())
	case st.v.active || st.sel == SelectionActive:
		return fmt.Errorf("%s: enter: %w", PluginName, ErrPlanMode)
	}
	st.setPendingLocked(SelectionActive, true)
	return nil
}

// applyPending appends the pending selection's "plan/mode" (whose fold
// clears it) and reports whether it did and the notice due. A failed append
// leaves it pending and is logged once per selection. An approved exit lands
// only once the log durably holds the call's approved result; else it is
// withdrawn. idle (LandPending) also requires that no turn is open.
func (c *Controller) applyPending(ctx context.Context, agent host.Agent, st *sessionState, idle bool) (landed bool, notice string, err error) {
	for {
		st.lock()
		sel, silent, gen := st.sel, st.silent, st.gen
		wait := st.closed || idle && st.v.turnOpen
		st.mu.Unlock()
		if sel == SelectionNone || wait {
			return false, "", nil
		}
		approval := sel == SelectionInactive && silent
		if approval {
			// The mode changes only once the approval's record is durable.
			if err := host.Sync(st.sess); err != nil {
				c.withdrawExit(ctx, agent, st, warnExitNotDurable, err)
				return false, "", nil
			}
		}
		var (
			header, announced Selection
			unrecorded        bool // an approved exit whose result the log lacks
			opened            bool // idle, but a turn is open
		)
		appended, err := st.appendIf(ctx, modeEvent(sel == SelectionActive), func() bool {
			header, announced = st.v.header, st.v.announced
			switch p, _ := st.v.pending(); {
			case st.gen != gen:
				return false // the selection changed: decide again
			case idle && st.v.turnOpen:
				opened = true
				return false
			case approval && p != SelectionInactive:
				// Fail closed: an exit lands only once the log holds the
				// call's approved result (a host that could not write it
				// drops the exit).
				unrecorded = true
				return false
			}
			return true
		})
		switch {
		case err != nil:
			st.mu.Lock()
			first := st.gen == gen && !st.warned
			st.warned = st.warned || first
			st.mu.Unlock()
			if first {
				c.p.Logger.Warn(warnAppendFailed, "agent", agent.ID(), "session", st.sess.ID(),
					"active", sel == SelectionActive, "error", err)
			}
			return false, "", err
		case opened:
			return false, "", nil
		case unrecorded:
			c.withdrawExit(ctx, agent, st, warnExitUnrecorded, nil)
			return false, "", nil
		case !appended:
			continue
		}
		return true, noticeFor(header, announced, sel, silent), nil
	}
}

// LandPending lands the agent's pending selection if no turn is open, as
// the next accepted pre-step would (notice included, made durable), and
// reports whether it logged a change. A front end calls it when a turn
// ends, so a selection made after the turn's last step is logged at once
// rather than at the next turn. It fails with [ErrNoAgent], [ErrNotRunning]
// or the append's error, which leaves the selection pending.
func (c *Controller) LandPending(agent host.Agent) (bool, error) {
	st, err := c.state(agent)
	if err != nil {
		return false, fmt.Errorf("%s: land pending: %w", PluginName, err)
	}
	landed, text, err := c.applyPending(context.Background(), agent, st, true)
	if err != nil {
		return false, fmt.Errorf("%s: land pending: append %s: %w", PluginName, EventPlanMode, err)
	}
	if !landed {
		return false, nil
	}
	c.notify(context.Background(), agent, st, text)
	if err := host.Sync(st.sess); err != nil {
		return true, fmt.Errorf("%s: land pending: %w", PluginName, err)
	}
	return true, nil
}

// noticeFor returns the notice a change to sel records, "" for none: only
// for a user's (not silent) change, when the last request header described
// the other mode and no notice since that header named sel.
func noticeFor(header, announced, sel Selection, silent bool) string {
	switch {
	case silent || header == SelectionNone || header == sel || announced == sel:
		return ""
	case sel == SelectionActive:
		return noticeEntered
	}
	return noticeLeft
}

// modeEvent returns a "plan/mode" event for the state.
func modeEvent(active bool) host.Event {
	return host.Event{Type: EventPlanMode, Data: mustJSON(ModePayload{Active: active})}
}

// cancelEvent returns a "plan/cancel" event withdrawing sel.
func cancelEvent(sel Selection) host.Event {
	return host.Event{Type: EventPlanCancel, Data: mustJSON(CancelPayload{Cancelled: sel.String()})}
}

// notify appends the notice text, if any; a failure is logged as a
// warning, and the change it announces stands.
func (c *Controller) notify(ctx context.Context, agent host.Agent, st *sessionState, text string) {
	if text == "" {
		return
	}
	if _, err := st.appendIf(ctx, messageEvent(pluginMessage(text, noticeForm)), func() bool { return true }); err != nil {
		c.p.Logger.Warn(warnNoticeFailed, "agent", agent.ID(), "session", st.sess.ID(), "error", err)
	}
}

// pluginMessage returns text as a message from the plugin, of form.
func pluginMessage(text, form string) host.Message {
	return host.Message{
		Content: []host.Block{host.TextBlock(text)},
		Source:  &host.Source{Kind: host.SourcePlugin, Plugin: PluginName, Form: form},
	}
}

// messageEvent returns m as a "user/message" event.
func messageEvent(m host.Message) host.Event {
	return host.Event{Type: host.TypeUserMessage, Source: m.Source, Data: mustJSON(host.UserMessage{Content: m.Content})}
}

// warnOnce logs the first error of the run that the section or the
// pre-step listener swallows; not one caused by a stop.
func (c *Controller) warnOnce(msg string, agent host.Agent, err error) {
	r := c.current()
	if r == nil || errors.Is(err, ErrNotRunning) || !r.warned.CompareAndSwap(false, true) {
		return
	}
	id := ""
	if agent != nil {
		id = agent.ID()
	}
	c.p.Logger.Warn(msg, "agent", id, "error", err)
}
