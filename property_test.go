package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"testing"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// refModel is a small reference model of Set, Get and the pre-step (and
// of the projection, with the plan/cancel marker that keeps a cancelled selection
// cancelled after a restart), written independently of the controller: the
// property test compares the real plugin with it after every action.
type refModel struct {
	logged      bool
	pending     planmode.Selection
	pendingExit bool
	turnOpen    bool

	header    planmode.HeaderMode // what the last logged request header described
	announced planmode.Selection  // state named by a notice since that header
	notices   []string

	// What the running agent last put in a header; a restarted agent knows
	// nothing and logs a fresh header at its first accepted step.
	agentKnows bool
	agentShown bool

	failing       bool // plan/mode appends fail
	cancelFailing bool // plan/cancel appends fail
	warned        bool // the current pending selection's failure was warned about
	warnings      int

	// recorded: a /plan whose run is logged queued or repeated the pending
	// selection, so the log shows it, or will once the command completes.
	recorded bool

	// The projection: the selection made last (a completed /plan, made
	// when its run was logged, or an approved exit) that no plan/mode or
	// plan/cancel followed.
	projSel  planmode.Selection
	projExit bool
	projAt   int // when projSel was made
	clock    int // logical time: every logged run, exit, plan/mode and plan/cancel ticks it
	cutAt    int // when the last plan/mode or plan/cancel was logged
	runs     []modelRun
	calls    []modelCall // approved exit calls whose result is not logged yet
}

// modelCall is an approved exit_plan_mode call whose tool/call is logged
// and whose tool/result is not yet.
type modelCall struct {
	id  string
	at  int    // when its tool/call was logged
	out string // the tool's result
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// modelRun is a logged /plan run whose completion is not logged yet.
type modelRun struct {
	id     string
	choice planmode.Selection
	at     int
}

func sel(active bool) planmode.Selection {
	if active {
		return planmode.SelectionActive
	}
	return planmode.SelectionInactive
}

func headerSel(h planmode.HeaderMode) planmode.Selection {
	switch h {
	case planmode.HeaderActive:
		return planmode.SelectionActive
	case planmode.HeaderInactive:
		return planmode.SelectionInactive
	}
	return planmode.SelectionNone
}

// logMode records that plan/mode landed with the given state, and the
// notice when one is due for a user's change.
func (m *refModel) logMode(active, user bool) {
	m.logged = active
	m.withdraw()
	s := sel(active)
	if user && m.header != planmode.HeaderUnknown && headerSel(m.header) != s && m.announced != s {
		if active {
			m.notices = append(m.notices, planmode.NoticeEntered)
		} else {
			m.notices = append(m.notices, planmode.NoticeLeft)
		}
		m.announced = s
	}
}

// withdraw records a plan/mode or plan/cancel in the projection: every
// selection made before it is over.
func (m *refModel) withdraw() {
	m.clock++
	m.cutAt = m.clock
	m.projSel, m.projExit = planmode.SelectionNone, false
}

// projected is the pending selection the log alone shows.
func (m *refModel) projected() planmode.Selection {
	if m.projSel == sel(m.logged) {
		return planmode.SelectionNone
	}
	return m.projSel
}

func (m *refModel) setPending(s planmode.Selection, exit bool) {
	m.pending, m.pendingExit, m.warned, m.recorded = s, exit, false, false
}

// set is Controller.Set, by the user (a UI) or by a /plan command whose run
// is logged; it returns the expected outcome, or 0 with wantErr when an
// append fails.
//
// A cancel of a selection the log records (projected, or made by a logged
// /plan) appends plan/cancel first; only one that lived in memory logs
// nothing.
func (m *refModel) set(active, byCommand bool) (want planmode.Outcome, wantErr bool) {
	target := sel(m.logged)
	if m.pending != planmode.SelectionNone {
		target = m.pending
	}
	switch {
	case sel(active) == target:
		if byCommand && m.pending == sel(active) {
			m.recorded = true
		}
		return planmode.Noop, false
	case m.pending != planmode.SelectionNone && m.logged == active:
		if m.projected() != planmode.SelectionNone || m.recorded {
			if m.cancelFailing {
				return 0, true
			}
			m.withdraw()
		}
		m.setPending(planmode.SelectionNone, false)
		return planmode.Cancelled, false
	case m.turnOpen:
		m.setPending(sel(active), false)
		m.recorded = byCommand
		return planmode.Queued, false
	case m.failing:
		return 0, true
	}
	m.setPending(planmode.SelectionNone, false)
	m.logMode(active, true)
	return planmode.Committed, false
}

// startRun records a logged /plan run.
func (m *refModel) startRun(id string, choice planmode.Selection) {
	m.clock++
	m.runs = append(m.runs, modelRun{id: id, choice: choice, at: m.clock})
}

// completeRun records a run's completion: a successful one made after the
// last plan/mode or plan/cancel, and after the selection projected now,
// becomes the projected selection.
func (m *refModel) completeRun(id string, ok bool) {
	i := slices.IndexFunc(m.runs, func(r modelRun) bool { return r.id == id })
	r := m.runs[i]
	m.runs = slices.Delete(m.runs, i, i+1)
	if ok && r.at > m.cutAt && r.at > m.projAt {
		m.projSel, m.projExit, m.projAt = r.choice, false, r.at
	}
}

// approvedExit records an exit call (its tool/call logged) that the user
// approved: pending in memory, and recorded by the log from then on (a
// cancel logs a marker, which withdraws the exit for the log once its result
// is logged).
func (m *refModel) approvedExit(id string) {
	m.clock++
	m.calls = append(m.calls, modelCall{id: id, at: m.clock})
	m.setPending(planmode.SelectionInactive, true)
	m.recorded = true
}

// exitResult records the logged result of an approved call: the exit is
// pending by the log unless a plan/mode or plan/cancel was logged after its
// tool/call.
func (m *refModel) exitResult(i int) {
	c := m.calls[i]
	m.calls = slices.Delete(m.calls, i, i+1)
	m.clock++
	if c.at > m.cutAt {
		m.projSel, m.projExit, m.projAt = planmode.SelectionInactive, true, m.clock
	}
}

// outsideMode records a plan/mode another writer logged: like any
// plan/mode it withdraws the pending selection, in memory as in the log.
func (m *refModel) outsideMode(active bool) {
	m.logMode(active, false)
	m.setPending(planmode.SelectionNone, false)
}

// appends reports whether set(active) would append (a commit or a cancel
// marker), without changing the model.
func (m *refModel) appends(active bool) bool {
	target := sel(m.logged)
	if m.pending != planmode.SelectionNone {
		target = m.pending
	}
	switch {
	case sel(active) == target:
		return false
	case m.pending != planmode.SelectionNone && m.logged == active:
		return m.projected() != planmode.SelectionNone || m.recorded
	default:
		return !m.turnOpen
	}
}

// reply is what /plan answers for the outcome of selecting active.
func (m *refModel) reply(o planmode.Outcome, active bool) string {
	if o == planmode.Noop && m.pending != planmode.SelectionNone {
		o = planmode.Queued
	}
	switch {
	case o == planmode.Committed && active:
		return planmode.ReplyEntered
	case o == planmode.Committed:
		return planmode.ReplyLeft
	case o == planmode.Queued && active:
		return planmode.ReplyEntering
	case o == planmode.Queued:
		return planmode.ReplyLeaving
	case o == planmode.Cancelled && active:
		return planmode.ReplyExitCancelled
	case o == planmode.Cancelled:
		return planmode.ReplyEntryCancelled
	case active:
		return planmode.ReplyAlreadyActive
	default:
		return planmode.ReplyAlreadyInactive
	}
}

// acceptedStep is the pre-step's append, then the host's header.
func (m *refModel) acceptedStep() {
	if m.pending != planmode.SelectionNone {
		if m.failing {
			if !m.warned {
				m.warnings++
				m.warned = true
			}
		} else {
			exit := m.pendingExit
			active := m.pending == planmode.SelectionActive
			m.setPending(planmode.SelectionNone, false)
			m.logMode(active, !exit)
		}
	}
	if !m.agentKnows || m.agentShown != m.logged {
		m.agentKnows, m.agentShown = true, m.logged
		m.header = planmode.HeaderInactive
		if m.logged {
			m.header = planmode.HeaderActive
		}
		m.announced = planmode.SelectionNone
	}
}

// restart is a process restart: memory is gone, the projection seeds the
// pending selection. Commands that were running died with the process, so
// their completion is never logged.
func (m *refModel) restart() {
	m.setPending(planmode.SelectionNone, false)
	if p := m.projected(); p != planmode.SelectionNone {
		m.setPending(p, m.projExit)
	}
	m.runs = nil
	m.calls = nil
	m.agentKnows = false
}

func (m *refModel) state() planmode.State {
	return planmode.State{Active: m.logged, Pending: m.pending, Exit: m.pendingExit && m.pending != planmode.SelectionNone}
}

// system is the plugin under test on the fake host.
type system struct {
	h             *fakeHost
	sess          *hookSession
	a             *fakeAgent
	c             *planmode.Controller
	warns         *warnCounter
	restore       func() // undoes the failing plan/mode validator
	restoreCancel func() // undoes the failing plan/cancel validator
	runs          int
	open          []openRun // /plan runs whose command/done is not logged yet
	calls         int       // exit calls made so far
	answer        host.Answer
	asked         int // reviews the user was asked for
}

// openRun is a /plan run whose handler returned but whose command/done the
// test has not logged yet.
type openRun struct {
	id string
	ok bool
}

func (s *system) start(t *rapid.T) {
	p := s.h.params(slog.New(s.warns))
	p.Questions = questionsFunc(func(context.Context, host.AskRequest) ([]host.Answer, error) {
		s.asked++
		return []host.Answer{s.answer}, nil
	})
	res, err := planmode.New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.c = res.Controller
	s.a = agentOn(s.sess)
}

func (s *system) stop(t *rapid.T) {
	if err := s.c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// complete logs the completion of the i-th open run.
func (s *system) complete(i int) {
	r := s.open[i]
	s.open = slices.Delete(s.open, i, i+1)
	must(appendJSON(s.sess, host.TypeCommandDone, nil, host.CommandDone{ID: r.id, OK: r.ok}))
}

func TestControllerMatchesReferenceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := newFakeHost()
		inner := h.newSession(t)
		sess := &hookSession{Session: inner}
		s := &system{h: h, sess: sess, warns: &warnCounter{}}
		s.start(t)
		defer func() { s.stop(t) }()
		m := &refModel{}

		set := func(t *rapid.T, active bool) {
			want, wantErr := m.set(active, false)
			got, err := s.c.Set(s.a, active)
			if wantErr {
				if !errors.Is(err, errAppendRefused) {
					t.Fatalf("Set(%v) = %v, %v; want the append error", active, got, err)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("Set(%v) = %v, %v; want %v", active, got, err, want)
			}
		}

		// The projection is checked where it matters, before a restart seeds
		// from it, and at the end (it decodes the whole log, so not after
		// every action).
		checkProjection := func(t *rapid.T) {
			want := planmode.State{Active: m.logged}
			if m.projSel != planmode.SelectionNone && m.projSel != sel(m.logged) {
				want.Pending, want.Exit = m.projSel, m.projExit
			}
			if got := planmode.Project(s.sess.Events()); got != want {
				t.Fatalf("Project = %+v, model %+v", got, want)
			}
		}

		t.Repeat(map[string]func(*rapid.T){
			"set": func(t *rapid.T) {
				set(t, rapid.Bool().Draw(t, "active"))
			},
			// The /plan command as a host runs it: command/run, the handler,
			// command/done. The completion may be logged later, after other
			// actions (commands completing out of order).
			"plan command": func(t *rapid.T) {
				args := rapid.SampledFrom([]string{"", "off", " off ", "look at the store"}).Draw(t, "args")
				later := rapid.Bool().Draw(t, "completes later")
				s.runs++
				id := fmt.Sprint("run-", s.runs)
				must(appendJSON(s.sess, host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: planmode.CommandName, Args: args}))
				choice := planmode.SelectionForArgs(args)
				active := choice == planmode.SelectionActive
				m.startRun(id, choice)
				want, wantErr := m.set(active, true)
				reply, err := runPlan(t, s.h, s.a, args)
				switch {
				case wantErr && !errors.Is(err, errAppendRefused):
					t.Fatalf("/plan %q = %q, %v; want the append error", args, reply, err)
				case !wantErr && (err != nil || reply != m.reply(want, active)):
					t.Fatalf("/plan %q = %q, %v; want %q (%v)", args, reply, err, m.reply(want, active), want)
				case !wantErr && active && strings.TrimSpace(args) != "":
					m.turnOpen = true // the steered message starts a turn when none is open
				}
				s.open = append(s.open, openRun{id: id, ok: err == nil})
				if !later {
					s.complete(len(s.open) - 1)
					m.completeRun(id, err == nil)
				}
			},
			"complete command": func(t *rapid.T) {
				if len(s.open) == 0 {
					t.Skip("no command is waiting for its completion")
				}
				i := rapid.IntRange(0, len(s.open)-1).Draw(t, "command")
				r := s.open[i]
				s.complete(i)
				m.completeRun(r.id, r.ok)
			},
			"steer": func(t *rapid.T) {
				must(s.a.Steer(host.Message{Content: []host.Block{host.TextBlock("more")}}))
				m.turnOpen = true
			},
			"step": func(t *rapid.T) {
				if !m.turnOpen {
					t.Skip("no open turn")
				}
				if len(m.calls) > 0 {
					t.Skip("a host logs every result of the batch before the next step")
				}
				v := rapid.SampledFrom([]verdict{accepted, rejected, cancelled}).Draw(t, "verdict")
				d := s.h.runStep(s.a, v)
				if v == accepted {
					m.acceptedStep()
					if !d.Accepted {
						t.Fatal("the plugin failed an accepted step")
					}
				}
			},
			// An exit call the user approves: the host logs its tool/call,
			// the tool records the approval; its result is logged by a later
			// action, so a Set, a /plan, another writer or a restart can
			// come in between.
			// The model calls exit_plan_mode, in plan mode or not, and the
			// user answers Approve or Keep planning if asked. A second call
			// after an approval in the same batch is refused unasked.
			"exit call": func(t *rapid.T) {
				if !m.turnOpen {
					t.Skip("the model calls tools inside a turn")
				}
				approved := rapid.Bool().Draw(t, "the user approves")
				s.answer = keepPlanning("")
				if approved {
					s.answer = approve()
				}
				s.calls++
				id := fmt.Sprint("call-", s.calls)
				input := json.RawMessage(`{"plan":` + strconv.Quote(goodPlan) + `}`)
				must(appendJSON(s.sess, host.TypeToolCall, nil, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: input}))
				asked := s.asked
				out, err := findTool(s.h, planmode.ExitToolName).Execute(context.Background(), host.CallContext{Agent: s.a, CallID: id}, input)
				var want error
				switch {
				case !m.logged:
					want = planmode.ErrExitNotPlanMode
				case m.pending == planmode.SelectionInactive && m.pendingExit:
					want = planmode.ErrExitDecided
				case !approved:
					want = planmode.ErrKeepPlanning
				}
				if wantAsked := asked + btoi(m.logged && want != planmode.ErrExitDecided); s.asked != wantAsked {
					t.Fatalf("the user was asked %d times, want %d", s.asked-asked, wantAsked-asked)
				}
				if want != nil {
					if !errors.Is(err, want) {
						t.Fatalf("exit call = %q, %v; want %v", out, err, want)
					}
					must(appendJSON(s.sess, host.TypeToolResult, nil, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: host.ToolErrorPrefix + err.Error(), IsError: true}))
					return
				}
				if err != nil {
					t.Fatalf("exit call = %q, %v; want approved", out, err)
				}
				m.approvedExit(id)
				m.calls[len(m.calls)-1].out = out
			},
			"log exit result": func(t *rapid.T) {
				if len(m.calls) == 0 {
					t.Skip("no approved call is waiting for its result")
				}
				i := rapid.IntRange(0, len(m.calls)-1).Draw(t, "call")
				must(appendJSON(s.sess, host.TypeToolResult, nil, host.ToolResult{CallID: m.calls[i].id, Name: planmode.ExitToolName, Output: m.calls[i].out}))
				m.exitResult(i)
			},
			// Another writer (a second process, a repair tool) logs a
			// plan/mode directly.
			"outside writer": func(t *rapid.T) {
				active := rapid.Bool().Draw(t, "active")
				err := appendJSON(s.sess, planmode.EventPlanMode, nil, planmode.ModePayload{Active: active})
				if m.failing {
					if !errors.Is(err, errAppendRefused) {
						t.Fatalf("outside plan/mode append = %v; want the append error", err)
					}
					return
				}
				must(err)
				m.outsideMode(active)
			},
			// Stop begins while a Set is between deciding and appending, and
			// a turn may open at once; then the controller starts again. A
			// Set that would append fails with ErrNotRunning and appends
			// nothing; one that appends nothing was done before Stop.
			"stop during set": func(t *rapid.T) {
				active := rapid.Bool().Draw(t, "active")
				steer := rapid.Bool().Draw(t, "a turn opens") && !m.turnOpen
				checkProjection(t)
				stopped := false
				s.sess.arm(func() {
					s.stop(t)
					stopped = true
					if steer {
						must(s.a.Steer(host.Message{Content: []host.Block{host.TextBlock("more")}}))
					}
				})
				appends := m.appends(active)
				got, err := s.c.Set(s.a, active)
				s.sess.arm(nil)
				if appends {
					if !errors.Is(err, planmode.ErrNotRunning) || !stopped {
						t.Fatalf("Set(%v) across Stop = %v, %v; want ErrNotRunning", active, got, err)
					}
					if steer {
						m.turnOpen = true
					}
				} else {
					want, _ := m.set(active, false)
					if err != nil || got != want || stopped {
						t.Fatalf("Set(%v) = %v, %v; want %v before Stop", active, got, err, want)
					}
					s.stop(t)
				}
				s.open = nil
				s.start(t)
				m.restart()
			},
			"end turn": func(t *rapid.T) {
				if !m.turnOpen {
					t.Skip("no open turn")
				}
				if len(m.calls) > 0 {
					t.Skip("a host logs every result of the batch first")
				}
				must(s.a.EndTurn())
				m.turnOpen = false
			},
			"toggle append failure": func(t *rapid.T) {
				if m.failing {
					s.restore()
				} else {
					s.restore = rejectModes(t, s.h)
				}
				m.failing = !m.failing
			},
			"toggle cancel failure": func(t *rapid.T) {
				if m.cancelFailing {
					s.restoreCancel()
				} else {
					s.restoreCancel = rejectType(t, s.h, planmode.EventPlanCancel)
				}
				m.cancelFailing = !m.cancelFailing
			},
			// A restart kills the commands that are still running: their
			// completion is never logged.
			"restart": func(t *rapid.T) {
				checkProjection(t)
				s.stop(t)
				s.open = nil
				s.start(t)
				m.restart()
			},
			"": func(t *rapid.T) {
				if got, want := s.c.Get(s.a), m.state(); got != want {
					t.Fatalf("Get = %+v, model %+v", got, want)
				}
				ev := s.sess.Events().Slice()
				if got := planmode.FoldPlanMode(host.LogOf(ev), len(ev)); got != m.logged {
					t.Fatalf("FoldPlanMode = %v, model %v", got, m.logged)
				}
				if got := turnOpen(host.LogOf(ev), len(ev)); got != m.turnOpen {
					t.Fatalf("TurnOpen = %v, model %v", got, m.turnOpen)
				}
				if got := planmode.FoldHeaderMode(host.LogOf(ev), len(ev)); got != m.header {
					t.Fatalf("FoldHeaderMode = %v, model %v", got, m.header)
				}
				if got := notices(t, s.sess, 0); !slices.Equal(got, m.notices) {
					t.Fatalf("notices = %q, model %q", got, m.notices)
				}
				if got := s.warns.count(); got != m.warnings {
					t.Fatalf("warnings = %d, model %d", got, m.warnings)
				}
			},
		})
		checkProjection(t)
	})
}
