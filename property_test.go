package planmode_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"testing"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// refModel is a small reference model of SPEC §3–§5 (and the projection
// of §8), written independently of the controller: the property test
// compares the real plugin with it after every action.
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

	failing  bool // plan/mode appends fail
	warned   bool // the current pending selection's failure was warned about
	warnings int

	// The projection: the latest completed /plan or approved exit whose
	// plan/mode has not been logged.
	projSel  planmode.Selection
	projExit bool
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
	m.projSel, m.projExit = planmode.SelectionNone, false
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

func (m *refModel) setPending(s planmode.Selection, exit bool) {
	m.pending, m.pendingExit, m.warned = s, exit, false
}

// set is SPEC §3's Set; it returns the expected outcome, or 0 with
// wantErr when the commit's append fails.
func (m *refModel) set(active bool) (want planmode.Outcome, wantErr bool) {
	target := sel(m.logged)
	if m.pending != planmode.SelectionNone {
		target = m.pending
	}
	switch {
	case sel(active) == target:
		return planmode.Noop, false
	case m.pending != planmode.SelectionNone && m.logged == active:
		m.setPending(planmode.SelectionNone, false)
		return planmode.Cancelled, false
	case m.turnOpen:
		m.setPending(sel(active), false)
		return planmode.Queued, false
	case m.failing:
		return 0, true
	}
	m.setPending(planmode.SelectionNone, false)
	m.logMode(active, true)
	return planmode.Committed, false
}

// acceptedStep is SPEC §4's pre-step append, then the host's header.
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
// pending selection.
func (m *refModel) restart() {
	m.setPending(planmode.SelectionNone, false)
	if m.projSel != planmode.SelectionNone && m.projSel != sel(m.logged) {
		m.setPending(m.projSel, m.projExit)
	}
	m.agentKnows = false
}

func (m *refModel) state() planmode.State {
	return planmode.State{Active: m.logged, Pending: m.pending}
}

// system is the plugin under test on the fake host.
type system struct {
	h       *fakeHost
	sess    host.Session
	a       *fakeAgent
	c       *planmode.Controller
	warns   *warnCounter
	restore func() // undoes the failing validator
	runs    int
}

func (s *system) start(t *rapid.T) {
	res, err := planmode.New(s.h.params(slog.New(s.warns)))
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

func TestControllerMatchesReferenceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := newFakeHost()
		sess, err := h.store.Create("")
		if err != nil {
			t.Fatal(err)
		}
		s := &system{h: h, sess: sess, warns: &warnCounter{}}
		s.start(t)
		defer func() { s.stop(t) }()
		m := &refModel{}

		set := func(t *rapid.T, active bool) {
			want, wantErr := m.set(active)
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
			want := planmode.Projection{Active: m.logged}
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
			"plan command": func(t *rapid.T) {
				args := rapid.SampledFrom([]string{"", "off", " off ", "look at the store"}).Draw(t, "args")
				s.runs++
				id := fmt.Sprint("run-", s.runs)
				must(appendJSON(s.sess, host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: planmode.CommandName, Args: args}))
				logged := len(modes(t, s.sess, 0))
				choice := planmode.SelectionForArgs(args)
				set(t, choice == planmode.SelectionActive)
				must(appendJSON(s.sess, host.TypeCommandDone, nil, host.CommandDone{ID: id, OK: true}))
				if len(modes(t, s.sess, 0)) == logged { // plan/mode did not land during the command
					m.projSel, m.projExit = choice, false
				}
			},
			"steer": func(t *rapid.T) {
				must(s.a.Steer(host.Message{Content: []host.Block{host.TextBlock("more")}}))
				m.turnOpen = true
			},
			"step": func(t *rapid.T) {
				if !m.turnOpen {
					t.Skip("no open turn")
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
			"approved exit": func(t *rapid.T) {
				if !m.turnOpen || !m.logged {
					t.Skip("the exit tool approves only in an open turn in plan mode")
				}
				if err := planmode.QueueExit(s.c, s.a); err != nil {
					t.Fatal(err)
				}
				must(appendJSON(s.sess, host.TypeToolResult, nil, host.ToolResult{CallID: "c", Name: planmode.ExitToolName, Output: `{"approved":true}`}))
				m.setPending(planmode.SelectionInactive, true)
				m.projSel, m.projExit = planmode.SelectionInactive, true
			},
			"end turn": func(t *rapid.T) {
				if !m.turnOpen {
					t.Skip("no open turn")
				}
				must(s.a.endTurn())
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
			"restart": func(t *rapid.T) {
				checkProjection(t)
				s.stop(t)
				s.start(t)
				m.restart()
			},
			"": func(t *rapid.T) {
				if got, want := s.c.Get(s.a), m.state(); got != want {
					t.Fatalf("Get = %+v, model %+v", got, want)
				}
				ev := s.sess.Events()
				if got := planmode.FoldPlanMode(ev, len(ev)); got != m.logged {
					t.Fatalf("FoldPlanMode = %v, model %v", got, m.logged)
				}
				if got := planmode.FoldTurnOpen(ev, len(ev)); got != m.turnOpen {
					t.Fatalf("FoldTurnOpen = %v, model %v", got, m.turnOpen)
				}
				if got := planmode.FoldHeaderMode(ev, len(ev)); got != m.header {
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
