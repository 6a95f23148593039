package pgstore_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// fakeAgent is what Set and Get need of an agent: its session.
type fakeAgent struct{ sess host.Session }

func (a fakeAgent) ID() string                { return a.sess.ID() }
func (a fakeAgent) Session() host.Session     { return a.sess }
func (a fakeAgent) Status() host.AgentStatus  { return host.StatusIdle }
func (a fakeAgent) Steer(host.Message) error  { return nil }
func (a fakeAgent) Inject(host.Message) error { return nil }

// twoHostModel is the reference for plan mode's Set and Get on
// one session shared by two hosts, with turns opened and closed by either:
// one logged state and turn flag (the log's), and a pending selection per
// host (process memory). A logged plan/mode withdraws every host's pending
// selection, wherever it was logged.
type twoHostModel struct {
	logged   bool
	turnOpen bool
	pending  [2]planmode.Selection
}

func sel(active bool) planmode.Selection {
	if active {
		return planmode.SelectionActive
	}
	return planmode.SelectionInactive
}

// effective is host i's pending selection as Get reports it.
func (m *twoHostModel) effective(i int) planmode.Selection {
	if m.pending[i] == sel(m.logged) {
		return planmode.SelectionNone
	}
	return m.pending[i]
}

// set is Set(active) on host i whose view is current.
func (m *twoHostModel) set(i int, active bool) planmode.Outcome {
	want, p := sel(active), m.effective(i)
	target := sel(m.logged)
	if p != planmode.SelectionNone {
		target = p
	}
	switch {
	case want == target:
		return planmode.Noop
	case p != planmode.SelectionNone && sel(m.logged) == want:
		m.pending[i] = planmode.SelectionNone
		return planmode.Cancelled
	case m.turnOpen:
		m.pending[i] = want
		return planmode.Queued
	}
	m.commit(active)
	return planmode.Committed
}

// commit logs a plan/mode: every pending selection is withdrawn.
func (m *twoHostModel) commit(active bool) {
	m.logged = active
	m.pending = [2]planmode.Selection{}
}

// TestTwoControllersMatchReferenceModel runs random Set calls and turns
// from two hosts (two stores, two controllers) on one database against the
// reference model, including a Set racing the other host's turn start. The
// log never has a plan/mode inside a turn (no pre-step runs here), and
// each host's Get agrees with the model once it has caught up.
func TestTwoControllersMatchReferenceModel(t *testing.T) {
	url := pgtest.NewDB(t)
	nodes := [2]*node{newNode(t, url), newNode(t, url)}
	var seq atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		id := fmt.Sprintf("m%d", seq.Add(1))
		if _, err := nodes[0].st.Create(id); err != nil {
			rt.Fatal(err)
		}
		var agents [2]fakeAgent
		for i, n := range nodes {
			s, err := n.st.Open(id)
			if err != nil {
				rt.Fatal(err)
			}
			agents[i] = fakeAgent{s}
		}
		// converge waits until both hosts hold the whole log.
		converge := func() {
			deadline := time.Now().Add(10 * time.Second)
			for agents[0].sess.Len() != agents[1].sess.Len() {
				if time.Now().After(deadline) {
					rt.Fatalf("hosts did not converge: %d and %d events", agents[0].sess.Len(), agents[1].sess.Len())
				}
				time.Sleep(time.Millisecond)
			}
		}
		appendTurn := func(i int, typ string) {
			if _, err := agents[i].sess.Append(host.Event{Type: typ, Data: []byte(`{"turn":1}`)}); err != nil {
				rt.Fatal(err)
			}
		}
		var m twoHostModel
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for range steps {
			i := rapid.IntRange(0, 1).Draw(rt, "host")
			switch rapid.SampledFrom([]string{"set", "turn", "race"}).Draw(rt, "action") {
			case "set":
				active := rapid.Bool().Draw(rt, "active")
				converge()
				want := m.set(i, active)
				got, err := nodes[i].c.Set(agents[i], active)
				if err != nil {
					rt.Fatal(err)
				}
				if got != want {
					rt.Fatalf("host %d Set(%v) = %v, model says %v", i, active, got, want)
				}
			case "turn":
				if m.turnOpen {
					appendTurn(i, host.TypeTurnEnd)
				} else {
					appendTurn(i, host.TypeTurnStart)
				}
				m.turnOpen = !m.turnOpen
			case "race":
				// Host 1-i opens a turn while host i sets the mode.
				if m.turnOpen || m.effective(i) != planmode.SelectionNone {
					continue
				}
				active := !m.logged
				converge()
				var (
					wg  sync.WaitGroup
					got planmode.Outcome
					err error
				)
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err = nodes[i].c.Set(agents[i], active)
				}()
				appendTurn(1-i, host.TypeTurnStart)
				wg.Wait()
				if err != nil {
					rt.Fatal(err)
				}
				switch got {
				case planmode.Committed: // before the turn opened
					m.commit(active)
				case planmode.Queued:
					m.pending[i] = sel(active)
				default:
					rt.Fatalf("racing Set = %v, want committed or queued", got)
				}
				m.turnOpen = true
			}
			converge()
			for j, n := range nodes {
				if got, want := n.c.Get(agents[j]), (planmode.State{Active: m.logged, Pending: m.effective(j)}); got != want {
					rt.Fatalf("host %d Get = %+v, model says %+v", j, got, want)
				}
			}
		}
		if bad := commitsInsideTurn(agents[0].sess.Events().Slice()); len(bad) > 0 {
			rt.Fatalf("plan/mode committed inside a turn at seqs %v", bad)
		}
		for _, n := range nodes {
			if err := n.st.CloseSession(id); err != nil {
				rt.Fatal(err)
			}
		}
	})
}
