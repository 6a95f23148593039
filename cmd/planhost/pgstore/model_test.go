package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
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

// onTwo is one session open on two hosts, each through an agent.
type onTwo struct {
	nodes  [2]*node
	agents [2]fakeAgent
}

// openOnTwo creates session id on the first host and opens it on both.
func openOnTwo(rt *rapid.T, nodes [2]*node, id string) onTwo {
	if _, err := nodes[0].st.Create(id); err != nil {
		rt.Fatal(err)
	}
	p := onTwo{nodes: nodes}
	for i, n := range nodes {
		s, err := n.st.Open(id)
		if err != nil {
			rt.Fatal(err)
		}
		p.agents[i] = fakeAgent{s}
	}
	return p
}

// converge waits until both hosts hold the whole log.
func (p onTwo) converge(rt *rapid.T) {
	deadline := time.Now().Add(10 * time.Second)
	for p.agents[0].sess.Len() != p.agents[1].sess.Len() {
		if time.Now().After(deadline) {
			rt.Fatalf("hosts did not converge: %d and %d events", p.agents[0].sess.Len(), p.agents[1].sess.Len())
		}
		time.Sleep(time.Millisecond)
	}
}

// set calls Set(active) on host i once it has caught up, and checks the
// outcome against m's.
func (p onTwo) set(rt *rapid.T, m *twoHostModel, i int, active bool) {
	p.converge(rt)
	want := m.set(i, active)
	got, err := p.nodes[i].c.Set(p.agents[i], active)
	if err != nil {
		rt.Fatal(err)
	}
	if got != want {
		rt.Fatalf("host %d Set(%v) = %v, model says %v", i, active, got, want)
	}
}

// check checks, once both hosts have caught up, each host's Get against m.
func (p onTwo) check(rt *rapid.T, m *twoHostModel) {
	p.converge(rt)
	for j, n := range p.nodes {
		if got, want := n.c.Get(p.agents[j]), (planmode.State{Active: m.logged, Pending: m.effective(j)}); got != want {
			rt.Fatalf("host %d Get = %+v, model says %+v", j, got, want)
		}
	}
}

// checkNoCommitInsideTurn checks the log for a plan/mode committed inside a
// turn.
func (p onTwo) checkNoCommitInsideTurn(rt *rapid.T) {
	if bad := commitsInsideTurn(p.agents[0].sess.Events().Slice()); len(bad) > 0 {
		rt.Fatalf("plan/mode committed inside a turn at seqs %v", bad)
	}
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
		p := openOnTwo(rt, nodes, id)
		appendTurn := func(i int, typ string) {
			if _, err := p.agents[i].sess.Append(host.Event{Type: typ, Data: []byte(`{"turn":1}`)}); err != nil {
				rt.Fatal(err)
			}
		}
		var m twoHostModel
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for range steps {
			i := rapid.IntRange(0, 1).Draw(rt, "host")
			switch rapid.SampledFrom([]string{"set", "turn", "race"}).Draw(rt, "action") {
			case "set":
				p.set(rt, &m, i, rapid.Bool().Draw(rt, "active"))
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
				p.converge(rt)
				var (
					wg  sync.WaitGroup
					got planmode.Outcome
					err error
				)
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err = nodes[i].c.Set(p.agents[i], active)
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
			p.check(rt, &m)
		}
		p.checkNoCommitInsideTurn(rt)
		for _, n := range nodes {
			if err := n.st.CloseSession(id); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

// leaseModel is the reference for the turn lease of one session shared by
// two hosts: who holds a live lease (-1: nobody), the newest token, and
// the token each host's grant carries (0: none).
type leaseModel struct {
	holder int
	token  uint64
	grants [2]uint64
}

// TestTwoControllersTwoLeasesMatchReferenceModel runs random Set calls,
// lease grants, releases and expiries (a host paused past its lease), and
// turn boundaries appended under each host's lease, on two hosts, against
// the reference models: one live lease at a time, tokens that only grow,
// an append under a stale grant refused with host.ErrFenced and nothing
// written, and each host's Get agreeing with the plan-mode model.
func TestTwoControllersTwoLeasesMatchReferenceModel(t *testing.T) {
	url := pgtest.NewDB(t)
	// Renewals (every 20 minutes) never run during the test: expiry is
	// what the test sets in the database.
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(time.Hour)}
	nodes := [2]*node{newNodeWith(t, url, opts, refhost.Options{}), newNodeWith(t, url, opts, refhost.Options{})}
	var seq atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		id := fmt.Sprintf("l%d", seq.Add(1))
		p := openOnTwo(rt, nodes, id)
		var leases [2]host.TurnLease
		defer func() {
			for _, l := range leases {
				if l != nil {
					_ = l.Release()
				}
			}
			for _, n := range nodes {
				_ = n.st.CloseSession(id)
			}
		}()
		var (
			m  twoHostModel
			lm = leaseModel{holder: -1}
		)
		steps := rapid.IntRange(1, 16).Draw(rt, "steps")
		for range steps {
			i := rapid.IntRange(0, 1).Draw(rt, "host")
			switch rapid.SampledFrom([]string{"set", "lease", "release", "expire", "turn"}).Draw(rt, "action") {
			case "set":
				p.set(rt, &m, i, rapid.Bool().Draw(rt, "active"))
			case "lease":
				g, err := p.agents[i].sess.(host.TurnLeaser).LeaseTurn()
				if lm.holder >= 0 {
					if !errors.Is(err, host.ErrBusy) {
						rt.Fatalf("host %d lease while host %d holds it: %v, want busy", i, lm.holder, err)
					}
					continue
				}
				if err != nil {
					rt.Fatalf("host %d lease: %v", i, err)
				}
				if g.Token() <= lm.token {
					rt.Fatalf("token %d after %d: tokens must grow", g.Token(), lm.token)
				}
				if leases[i] != nil {
					_ = leases[i].Release() // a stale grant: changes nothing
				}
				leases[i], lm.token, lm.holder, lm.grants[i] = g, g.Token(), i, g.Token()
			case "release":
				if leases[i] == nil {
					continue
				}
				if err := leases[i].Release(); err != nil {
					rt.Fatal(err)
				}
				if lm.grants[i] == lm.token && lm.holder == i {
					lm.holder = -1
				}
				leases[i], lm.grants[i] = nil, 0
			case "expire":
				// The holder is paused past its lease: the database lets it run out.
				if _, err := nodes[i].st.Pool().Exec(context.Background(), `UPDATE planmode_sessions SET lease_until = clock_timestamp() WHERE id = $1 AND lease_until IS NOT NULL`, id); err != nil {
					rt.Fatal(err)
				}
				lm.holder = -1
			case "turn":
				if leases[i] == nil {
					continue
				}
				typ := host.TypeTurnStart
				if m.turnOpen {
					typ = host.TypeTurnEnd
				}
				n := p.agents[i].sess.Len()
				_, err := leases[i].Append(host.Event{Type: typ, Data: []byte(`{"turn":1}`)})
				if lm.grants[i] != lm.token {
					if !errors.Is(err, host.ErrFenced) {
						rt.Fatalf("host %d append under stale token %d (newest %d): %v, want ErrFenced", i, lm.grants[i], lm.token, err)
					}
					if err := p.agents[i].sess.(host.Refresher).Refresh(); err != nil {
						rt.Fatal(err)
					}
					p.converge(rt)
					if p.agents[i].sess.Len() != n {
						rt.Fatalf("a fenced append changed the log: %d events, had %d", p.agents[i].sess.Len(), n)
					}
					continue
				}
				if err != nil {
					rt.Fatalf("host %d append under the newest token: %v", i, err)
				}
				m.turnOpen = !m.turnOpen
			}
			p.check(rt, &m)
		}
		p.checkNoCommitInsideTurn(rt)
	})
}
