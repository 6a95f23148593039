package planmode

import (
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
	// state already was the requested one: the pending selection was
	// dropped. Nothing was logged, unless the log recorded the selection;
	// then an [EventPlanCancel] marker was (see [Controller.Set]).
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

// Get returns the agent's plan-mode state: the logged state, plus the
// selection waiting for the next accepted pre-step when one exists.
//
// Get never appends, never subscribes and never waits for an append to
// finish (only, briefly, for the fold of one event), so it may be called
// from anywhere, a session subscriber included (a UI refreshing on every
// event), and it reflects every event appended before the call. Once the controller serves the session (after its first Set,
// request section or pre-step), Get reads the state the controller keeps
// current, at a cost that does not grow with the log. Before that, and
// while the controller is not running, Get folds the log ([Project]); a
// stopped controller reports no pending selection. A nil agent, or one
// without a session, reads as the zero State.
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

// Set selects plan mode (active true) or the default mode (active false) for
// the agent, as the user's choice, and reports which of four things it did:
//
//   - [Noop]: active already is the target, that is the pending selection if
//     there is one and the logged state otherwise. Nothing changes.
//   - [Cancelled]: an opposite selection was pending and the logged state
//     already equals active. The pending selection is dropped, and nothing
//     is logged unless the log records the selection: a "/plan" run (done
//     or still running) or an approved exit_plan_mode call. The log alone
//     would read it as pending until a "plan/mode" follows, so Set first
//     appends an [EventPlanCancel] marker; if that fails, Set returns the
//     error and the selection stays pending.
//   - [Committed]: no turn is open, so the "plan/mode" event is appended now,
//     followed by a notice to the model when the last request header
//     described the other mode. If the append fails, Set returns the error
//     and nothing changes (a failed notice is only logged as a warning).
//   - [Queued]: a turn is open (or opened while Set ran), so the selection is
//     kept in memory, replacing any earlier one, and appended by the plugin's
//     pre-step listener at the next accepted step, before its request is
//     built. It is lost if the process exits first, unless the log records
//     it (a "/plan", see [Project]).
//
// Set is linearizable with turn start and end: the commit is conditional on
// no turn being open at the moment of the append. On a session that other
// processes append to ([host.Refresher]) Set first catches up. Whatever Set
// appends is durable before it returns ([host.Sync]), since a UI shows the
// outcome at once; a failed sync is returned.
//
// Set fails with [ErrNoAgent] for a nil agent, with [ErrNotRunning] when
// the controller is not started (or stops while Set runs), and with
// [host.ErrClosed] when the session reported that it closed
// ([host.SessionCloseNotifier]).
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
		appended, err := st.appendIf(e, func() bool {
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
			c.notify(agent, st, noticeFor(header, announced, want, false))
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

// Enter records a consented entry into plan mode: a silent pending
// selection of plan mode (no notice; the caller's tool result narrates it),
// applied at the next accepted pre-step. It is the seam of companions that
// let the model ask to enter plan mode with the user's consent.
//
// It fails with [ErrNoAgent] for a nil agent, [ErrNotRunning] when the
// controller is stopped, and [ErrPlanMode] when the agent already is in plan
// mode or has a pending entry. It replaces a pending exit.
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

// applyPending lands the session's pending selection: it appends
// "plan/mode", whose fold clears the selection, and reports whether it did
// and the notice due, if any. A failed append leaves the selection pending
// and is logged once per selection. An approved exit lands only once the
// log holds the call's approved result and is durable ([host.Sync]); else
// it is withdrawn, since an approval the log does not hold does not count.
// idle (for LandPending) makes the append conditional on no turn being
// open too: a turn that is open takes the selection at its next step.
func (c *Controller) applyPending(agent host.Agent, st *sessionState, idle bool) (landed bool, notice string, err error) {
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
				c.withdrawExit(agent, st, warnExitNotDurable, err)
				return false, "", nil
			}
		}
		var (
			header, announced Selection
			unrecorded        bool // an approved exit whose result the log lacks
			opened            bool // idle, but a turn is open
		)
		appended, err := st.appendIf(modeEvent(sel == SelectionActive), func() bool {
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
			c.withdrawExit(agent, st, warnExitUnrecorded, nil)
			return false, "", nil
		case !appended:
			continue
		}
		return true, noticeFor(header, announced, sel, silent), nil
	}
}

// LandPending lands the agent's pending selection once no turn is open,
// as the next accepted pre-step would, and reports whether it logged a
// change. A selection made after a turn's last accepted pre-step otherwise
// waits, in memory, for the next turn: a front end calls LandPending when
// a turn ends, so that the switch is logged, and shown, at once. It
// appends "plan/mode" on the condition that no turn is open, then the
// notice when one is due, and makes both durable ([host.Sync]); an
// approved exit lands only as the pre-step lands it. With nothing pending
// it does nothing.
//
// It fails with [ErrNoAgent] for a nil agent and with [ErrNotRunning]
// when the controller is not started; an append that fails leaves the
// selection pending and is returned.
func (c *Controller) LandPending(agent host.Agent) (bool, error) {
	st, err := c.state(agent)
	if err != nil {
		return false, fmt.Errorf("%s: land pending: %w", PluginName, err)
	}
	landed, text, err := c.applyPending(agent, st, true)
	if err != nil {
		return false, fmt.Errorf("%s: land pending: append %s: %w", PluginName, EventPlanMode, err)
	}
	if !landed {
		return false, nil
	}
	c.notify(agent, st, text)
	if err := host.Sync(st.sess); err != nil {
		return true, fmt.Errorf("%s: land pending: %w", PluginName, err)
	}
	return true, nil
}

// noticeFor returns the notice that a change to sel records, "" for none,
// given what the last request header before the append described and the
// state the last notice since that header named. Only a user's change has
// one (not a silent one), only when the header described the other mode,
// and only once: not when a notice for sel was recorded since the header.
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
func (c *Controller) notify(agent host.Agent, st *sessionState, text string) {
	if text == "" {
		return
	}
	if _, err := st.appendIf(messageEvent(pluginMessage(text, noticeForm)), func() bool { return true }); err != nil {
		c.p.Logger.Warn(warnNoticeFailed, "agent", agent.ID(), "session", st.sess.ID(), "error", err)
	}
}

// pluginMessage returns text as a message from the plugin, of form (a
// notice, a reopened plan).
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

// warnOnce logs err, which the section or the pre-step listener swallows
// (they may not fail the request), the first time in the current run that
// such an error happens. A stopped controller (a race with Stop) is not
// worth a warning.
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
