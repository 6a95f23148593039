package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	planeino "github.com/dshgo/planmode/adapters/eino"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
)

// TestLoopPostgres runs the host-loop suite against the adapter on
// PostgreSQL, where every turn runs under the session's turn lease.
func TestLoopPostgres(t *testing.T) {
	srv := pgtest.NewServer(t)
	hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness {
		return &einoLoop{st: openPG(t, pgtest.NewDBOn(t, srv))}
	})
}

// openPG opens a store on url, closed at t's end: one "process".
func openPG(t testing.TB, url string, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := pgstore.Open(ctx, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// gate holds a turn until the test opens it; the turn does not watch its
// context, as a paused process does not.
type gate struct{ entered, release chan struct{} }

func newGate() *gate { return &gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) hold() {
	close(g.entered)
	<-g.release
}

func (g *gate) reached(t testing.TB) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("timed out waiting for the turn to reach the gate")
	}
}

// held is a reply that waits at g, then plays r.
func held(g *gate, r reply) reply {
	return func(t testing.TB, in []*schema.Message) *schema.Message {
		g.hold()
		return r(t, in)
	}
}

// node is one process serving session "s": its own store on the shared
// database, a host with plan mode, an Eino agent and a model.
type node struct {
	st    *pgstore.Store
	e     *env
	m     *scripted
	agent *planeino.Agent
}

func newNode(t testing.TB, url string, q host.UserQuestions, opts ...pgstore.Option) *node {
	t.Helper()
	m := &scripted{t: t}
	n := newNodeWith(t, url, m, q, opts...)
	n.m = m
	return n
}

// newNodeWith is newNode with the model m.
func newNodeWith(t testing.TB, url string, m model.ToolCallingChatModel, q host.UserQuestions, opts ...pgstore.Option) *node {
	t.Helper()
	st := openPG(t, url, opts...)
	if _, err := st.Create("s"); err != nil && !errors.Is(err, host.ErrSessionExists) {
		t.Fatal(err)
	}
	sess, err := st.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	n := &node{st: st, e: newEnv(t, st, m, q)}
	if n.agent, err = n.e.h.NewAgent(sess); err != nil {
		t.Fatal(err)
	}
	return n
}

// start runs one turn in the background; the channel gets its errors.
func (n *node) start(t testing.TB, text string) <-chan []error {
	done := make(chan []error, 1)
	go func() { done <- run(t, context.Background(), n.agent, n.e.ag, text) }()
	return done
}

// fresh is the session's log as the database holds it.
func (n *node) fresh(t testing.TB) []host.Event {
	t.Helper()
	sess := n.agent.Session()
	if err := host.Refresh(sess); err != nil {
		t.Fatal(err)
	}
	return sess.Events().Copy(0, sess.Len())
}

func wait(t testing.TB, done <-chan []error) []error {
	t.Helper()
	select {
	case errs := <-done:
		return errs
	case <-time.After(30 * time.Second):
		t.Fatal("timed out waiting for a turn to end")
		return nil
	}
}

// expire ends the lease's life in the database, as when its holder was
// paused past the expiry.
func expire(t testing.TB, st *pgstore.Store) {
	t.Helper()
	if _, err := st.Pool().Exec(t.Context(), `UPDATE planmode_sessions SET lease_until = clock_timestamp() WHERE id = 's'`); err != nil {
		t.Fatal(err)
	}
}

// turnEnds lists the log's turn/end payloads.
func turnEnds(t testing.TB, events []host.Event) []host.TurnEnd {
	t.Helper()
	var out []host.TurnEnd
	for _, e := range events {
		if e.Type == host.TypeTurnEnd {
			var te host.TurnEnd
			if err := json.Unmarshal(e.Data, &te); err != nil {
				t.Fatal(err)
			}
			out = append(out, te)
		}
	}
	return out
}

// TestSharedSessionBusy: while one process runs a turn of a PostgreSQL
// session, a turn of another process on it fails at once with a
// *host.BusyError naming the holder, and writes nothing; once the turn
// ended, the other process runs its turn.
func TestSharedSessionBusy(t *testing.T) {
	url := pgtest.NewDB(t)
	a, b := newNode(t, url, nil), newNode(t, url, nil)
	g := newGate()
	defer close(g.release)
	a.m.replies = []reply{held(g, answer("a done", nil))}
	b.m.replies = []reply{answer("b done", nil)}
	doneA := a.start(t, "from A")
	g.reached(t)
	before := len(b.fresh(t))
	errs := run(t, context.Background(), b.agent, b.e.ag, "from B")
	var busy *host.BusyError
	if len(errs) != 1 || !errors.As(errs[0], &busy) || !errors.Is(errs[0], host.ErrBusy) || busy.Holder.PID == 0 {
		t.Fatalf("B's turn while A's runs: %v, want one *host.BusyError naming the holder", errs)
	}
	if got := len(b.fresh(t)); got != before {
		t.Fatalf("B's busy turn wrote %d events", got-before)
	}
	if b.agent.Status() != host.StatusIdle {
		t.Fatal("B's agent is not idle after a busy turn")
	}
	g.release <- struct{}{}
	if errs := wait(t, doneA); len(errs) > 0 {
		t.Fatalf("A's turn: %v", errs)
	}
	if errs := run(t, context.Background(), b.agent, b.e.ag, "from B"); len(errs) > 0 {
		t.Fatalf("B's turn after A's: %v", errs)
	}
	ends := turnEnds(t, b.fresh(t))
	if len(ends) != 2 || ends[0].Turn != 1 || ends[1].Turn != 2 || ends[1].Reason != host.TurnCompleted {
		t.Fatalf("turn ends %+v, want turns 1 and 2 completed", ends)
	}
}

// gatedUser is a UI whose user answers a review only when the test says
// so, then approves.
type gatedUser struct{ g *gate }

func (u gatedUser) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	u.g.hold()
	return (&answers{roles: []host.Role{host.RoleApprove}}).Ask(context.Background(), req)
}

// TestFencedHolderWritesNothing: A's turn waits on the user's plan review
// while its lease runs out (A is paused) and B takes the session over; when
// A's user approves, A writes nothing more: neither plan mode's approval
// nor the exit tool's result reach the log, and A's run reports
// host.ErrFenced.
func TestFencedHolderWritesNothing(t *testing.T) {
	url := pgtest.NewDB(t)
	g := newGate()
	defer func() {
		select {
		case <-g.release:
		default:
			close(g.release)
		}
	}()
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(600 * time.Millisecond)}
	a, b := newNode(t, url, gatedUser{g}, opts...), newNode(t, url, nil, opts...)
	if _, _, err := a.agent.Execute(context.Background(), "/plan"); err != nil {
		t.Fatal(err)
	}
	a.m.replies = []reply{call("x1", planmode.ExitToolName, map[string]string{"plan": thePlan}, nil), answer("late from A", nil)}
	b.m.replies = []reply{answer("b done", nil)}
	doneA := a.start(t, "from A")
	g.reached(t)
	// B takes the session over once A's lease ran out.
	var errs []error
	for range 50 {
		expire(t, b.st)
		errs = run(t, context.Background(), b.agent, b.e.ag, "from B")
		if len(errs) != 1 || !errors.Is(errs[0], host.ErrBusy) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(errs) > 0 {
		t.Fatalf("B's turn: %v", errs)
	}
	after := b.fresh(t)
	close(g.release) // A's user approves, late
	errs = wait(t, doneA)
	if !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, host.ErrFenced) }) {
		t.Errorf("A's run errors %v, want one saying the lease was lost (host.ErrFenced)", errs)
	}
	final := b.fresh(t)
	for _, e := range final[len(after):] {
		t.Errorf("A's late write reached the log: %s %s", e.Type, e.Data)
	}
	ends := turnEnds(t, final)
	if len(ends) != 2 || ends[0].Turn != 1 || ends[0].Reason != host.TurnError || ends[1].Turn != 2 || ends[1].Reason != host.TurnCompleted {
		t.Fatalf("turn ends %+v, want A's turn 1 closed as interrupted by B, then B's turn 2", ends)
	}
	if rs := results(b.agent.Session()); len(rs) != 1 || rs[0].CallID != "x1" || !rs[0].IsError {
		t.Fatalf("results %+v, want B's repair answering A's exit call", rs)
	}
}

// TestCrashedHolderRepaired: A dies in the middle of a turn; its lease
// runs out and B's next turn closes A's turn as interrupted, answers its
// call, then runs.
func TestCrashedHolderRepaired(t *testing.T) {
	url := pgtest.NewDB(t)
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(500 * time.Millisecond)}
	a, b := newNode(t, url, nil, opts...), newNode(t, url, nil, opts...)
	g := newGate()
	a.m.replies = []reply{call("r1", "read_file", map[string]string{"path": "main.go"}, nil), held(g, answer("late", nil))}
	b.m.replies = []reply{answer("b done", nil)}
	doneA := a.start(t, "from A")
	g.reached(t)
	_ = a.st.Close() // A dies: its lease is renewed no more
	var errs []error
	deadline := time.Now().Add(10 * time.Second)
	for {
		errs = run(t, context.Background(), b.agent, b.e.ag, "from B")
		if len(errs) != 1 || !errors.Is(errs[0], host.ErrBusy) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(errs) > 0 {
		t.Fatalf("B's turn: %v", errs)
	}
	close(g.release)
	wait(t, doneA)
	final := b.fresh(t)
	ends := turnEnds(t, final)
	if len(ends) != 2 || ends[0].Turn != 1 || ends[0].Reason != host.TurnError || ends[1].Turn != 2 || ends[1].Reason != host.TurnCompleted {
		t.Fatalf("turn ends %+v, want A's turn 1 interrupted, then B's turn 2", ends)
	}
	if rs := results(b.agent.Session()); len(rs) != 1 || rs[0].CallID != "r1" {
		t.Fatalf("results %+v, want A's call answered once", rs)
	}
}

// waitModel is a chat model whose call waits for its context to end.
type waitModel struct{ entered chan struct{} }

func (m waitModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	close(m.entered)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (m waitModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	_, err := m.Generate(ctx, in, opts...)
	return nil, err
}

func (m waitModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// TestLostLeaseCancelsTurn: when another process takes the session over,
// the turn that lost the lease is cancelled at once (its chat-model call
// returns) and its run says why, host.ErrFenced.
func TestLostLeaseCancelsTurn(t *testing.T) {
	url := pgtest.NewDB(t)
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(600 * time.Millisecond)}
	m := waitModel{entered: make(chan struct{})}
	a := newNodeWith(t, url, m, nil, opts...)
	other := openPG(t, url, opts...)
	sess, err := other.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	done := a.start(t, "from A")
	select {
	case <-m.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("A's turn did not call the model")
	}
	var g host.TurnLease
	for range 50 {
		expire(t, other)
		if g, err = sess.(host.TurnLeaser).LeaseTurn(); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the other process's lease: %v", err)
	}
	defer func() { _ = g.Release() }()
	errs := wait(t, done)
	if !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, host.ErrFenced) }) {
		t.Fatalf("A's run errors %v, want one saying the lease was lost (host.ErrFenced)", errs)
	}
}

// TestCommandDuringALostTurn: a command is the user's action, not the
// turn's: while A's turn runs on a lease another process has taken, A's
// user's /plan is still written (command/run, command/done ok) instead of
// failing with host.ErrFenced.
func TestCommandDuringALostTurn(t *testing.T) {
	url := pgtest.NewDB(t)
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(600 * time.Millisecond)}
	a := newNode(t, url, nil, opts...)
	g := newGate()
	a.m.replies = []reply{held(g, answer("late", nil))}
	done := a.start(t, "from A")
	g.reached(t)
	other := openPG(t, url, opts...)
	sess, err := other.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	var lease host.TurnLease
	for range 50 {
		expire(t, other)
		if lease, err = sess.(host.TurnLeaser).LeaseTurn(); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the other process's lease: %v", err)
	}
	defer func() { _ = lease.Release() }()
	handled, _, err := a.agent.Execute(context.Background(), "/plan")
	close(g.release)
	wait(t, done)
	if !handled || err != nil {
		t.Fatalf("Execute(/plan) = %v, %v, want handled and no error", handled, err)
	}
	var ok bool
	for _, e := range a.fresh(t) {
		var d host.CommandDone
		if e.Type == host.TypeCommandDone && json.Unmarshal(e.Data, &d) == nil && d.OK {
			ok = true
		}
	}
	if !ok {
		t.Error("the log holds no command/done with ok for the /plan")
	}
}
