package pgstore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/e2etest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

const policy = "You are in plan mode. Explore read-only, then present a plan with exit_plan_mode."

// node is one host process: its own store (pool and listener), reference
// runtime, scripted model, question provider and plan-mode controller.
type node struct {
	st    *pgstore.Store
	model *scripted.Model
	prov  *scripted.Provider
	rt    *refhost.Runtime
	c     *planmode.Controller
}

func newNode(t *testing.T, url string) *node {
	t.Helper()
	return newNodeWith(t, url, nil, refhost.Options{})
}

// newNodeWith is newNode with store options and runtime options (whose
// Store and Model it sets).
func newNodeWith(t *testing.T, url string, stOpts []pgstore.Option, o refhost.Options) *node {
	t.Helper()
	n := &node{st: open(t, url, stOpts...), model: scripted.NewModel(), prov: scripted.NewProvider()}
	o.Store, o.Model = n.st, n.model
	rt, err := refhost.New(o)
	if err != nil {
		t.Fatal(err)
	}
	n.rt = rt
	t.Cleanup(func() { _ = rt.Stop(context.Background()) })
	unset, err := rt.Questions().SetProvider(n.prov)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unset)
	res, err := planmode.New(planmode.Params{
		Config:     planmode.Config{Section: policy},
		Sections:   rt,
		Tools:      rt,
		PreStep:    rt,
		Validators: n.st,
		EventTypes: rt,
		Commands:   rt,
		Questions:  rt.Questions(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Controller.Stop(context.Background()) })
	n.c = res.Controller
	return n
}

// agent binds a new agent of n to the session id, as a process does when a
// prompt for that session lands on it.
func (n *node) agent(t *testing.T, id string) *refhost.Agent {
	t.Helper()
	s, err := n.st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.rt.NewAgent("", s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	return a
}

// prompt runs one turn of a fresh agent on n and waits for it to end.
func (n *node) prompt(t *testing.T, id, text string) *refhost.Agent {
	t.Helper()
	a := n.agent(t, id)
	steer(t, a, text)
	waitIdle(t, a)
	return a
}

func steer(t *testing.T, a *refhost.Agent, text string) {
	t.Helper()
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		t.Fatal(err)
	}
}

func waitIdle(t *testing.T, a *refhost.Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

// planned reports whether a request carried the plan:policy section.
func planned(r refhost.Request) bool {
	return slices.Contains(r.Sections, planmode.SectionName) && strings.Contains(r.System, policy)
}

// eachMode calls f with the index of each plan/mode event of a log and
// whether a turn is open there.
func eachMode(events []host.Event, f func(i int, inTurn bool)) {
	open := false
	for i, e := range events {
		switch e.Type {
		case host.TypeTurnStart:
			open = true
		case host.TypeTurnEnd:
			open = false
		case planmode.EventPlanMode:
			f(i, open)
		}
	}
}

// modesByPlace returns the states of a log's plan/mode events, split into
// those logged between turns (commits) and inside turns (pre-steps).
func modesByPlace(t *testing.T, events []host.Event) (between, atPreStep []bool) {
	t.Helper()
	eachMode(events, func(i int, inTurn bool) {
		var p planmode.ModePayload
		if err := json.Unmarshal(events[i].Data, &p); err != nil {
			t.Fatal(err)
		}
		if inTurn {
			atPreStep = append(atPreStep, p.Active)
		} else {
			between = append(between, p.Active)
		}
	})
	return between, atPreStep
}

// commitsInsideTurn returns the seqs of plan/mode events inside an open
// turn that a pre-step did not append: a pre-step appends right before the
// step's "step/start".
func commitsInsideTurn(events []host.Event) []uint64 {
	var bad []uint64
	eachMode(events, func(i int, inTurn bool) {
		if inTurn && (i+1 >= len(events) || events[i+1].Type != host.TypeStepStart) {
			bad = append(bad, events[i].Seq)
		}
	})
	return bad
}

func TestTwoHostsPlanCommandDuringOtherHostsTurn(t *testing.T) {
	url := pgtest.NewDB(t)
	a, b := newNode(t, url), newNode(t, url)
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	agentB := b.agent(t, "s") // idle on B; used for the command
	inModel, release := make(chan struct{}), make(chan struct{})
	a.model.Add(scripted.Step{Respond: func(ctx context.Context, req refhost.Request) (refhost.Response, error) {
		close(inModel)
		select {
		case <-release:
		case <-ctx.Done():
			return refhost.Response{}, ctx.Err()
		}
		return refhost.Response{Text: "done"}, nil
	}})
	agentA := a.agent(t, "s")
	steer(t, agentA, "work")
	<-inModel
	// A's turn is open in the database; B may not have heard of it yet.
	// The command's AppendIf catches up under the session's lock first.
	handled, reply, err := b.rt.Execute(context.Background(), agentB, "/plan", nil)
	if err != nil || !handled {
		t.Fatalf("/plan on B: handled %v, %q, %v", handled, reply, err)
	}
	if got := b.c.Get(agentB); got.Active || got.Pending != planmode.SelectionActive {
		t.Fatalf("B's state after /plan during A's turn: %+v, want inactive with active pending", got)
	}
	close(release)
	waitIdle(t, agentA)
	sessA, _ := a.st.Open("s")
	if between, inside := modesByPlace(t, sessA.Events().Slice()); len(between)+len(inside) != 0 {
		t.Fatalf("plan/mode logged during or after A's turn: between %v, inside %v", between, inside)
	}
	// A third process that never saw the selection rebuilds it from the
	// log: the /plan completed and no plan/mode followed.
	c := newNode(t, url)
	if got := c.c.Get(c.agent(t, "s")); got.Active || got.Pending != planmode.SelectionActive {
		t.Fatalf("a new host reads the log as %+v, want the /plan pending", got)
	}
	// The next turn lands on B: its first pre-step applies the selection.
	if err := agentB.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.model.Add(scripted.Step{Text: "planning"})
	b.prompt(t, "s", "next")
	reqs := b.model.Requests()
	if len(reqs) != 1 || !planned(reqs[0]) {
		t.Fatalf("B's request carried no plan guidance")
	}
	sessB, _ := b.st.Open("s")
	if bad := commitsInsideTurn(sessB.Events().Slice()); len(bad) > 0 {
		t.Fatalf("plan/mode committed inside a turn at seqs %v", bad)
	}
	// A sees B's change within a notification round trip.
	waitFor(t, "A to see plan mode", 5*time.Second, func() bool { return a.c.Get(agentA).Active })
}

func TestTwoHostsConcurrentSetAtIdle(t *testing.T) {
	url := pgtest.NewDB(t)
	a, b := newNode(t, url), newNode(t, url)
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	agentA, agentB := a.agent(t, "s"), b.agent(t, "s")
	for round := range 20 {
		want := round%2 == 0
		var wg sync.WaitGroup
		outcomes := make([]planmode.Outcome, 2)
		for i, n := range []*node{a, b} {
			ag := []*refhost.Agent{agentA, agentB}[i]
			wg.Add(1)
			go func() {
				defer wg.Done()
				o, err := n.c.Set(ag, want)
				if err != nil {
					t.Error(err)
				}
				outcomes[i] = o
			}()
		}
		wg.Wait()
		slices.Sort(outcomes)
		if want := []planmode.Outcome{planmode.Noop, planmode.Committed}; !sameOutcomes(outcomes, want) {
			t.Fatalf("round %d: outcomes %v, want one committed and one noop", round, outcomes)
		}
		for _, n := range []struct {
			c  *planmode.Controller
			ag *refhost.Agent
		}{{a.c, agentA}, {b.c, agentB}} {
			waitFor(t, "both hosts to agree", 5*time.Second, func() bool {
				g := n.c.Get(n.ag)
				return g.Active == want && g.Pending == planmode.SelectionNone
			})
		}
	}
	sess, _ := a.st.Open("s")
	between, _ := modesByPlace(t, sess.Events().Slice())
	if len(between) != 20 {
		t.Fatalf("%d plan/mode events for 20 changes", len(between))
	}
	for i, m := range between {
		if m != (i%2 == 0) {
			t.Fatalf("plan/mode %d is %v: a change was logged twice or lost", i, m)
		}
	}
}

func sameOutcomes(got, want []planmode.Outcome) bool {
	slices.Sort(want)
	return slices.Equal(got, want)
}

func TestTwoHostsApprovedExitThenNextTurnOnOther(t *testing.T) {
	url := pgtest.NewDB(t)
	a, b := newNode(t, url), newNode(t, url)
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	agentA := a.agent(t, "s")
	if o, err := a.c.Set(agentA, true); err != nil || o != planmode.Committed {
		t.Fatalf("Set: %v, %v", o, err)
	}
	input, _ := json.Marshal(map[string]string{"plan": "# Plan\n\n1. Do it."})
	a.model.Add(
		scripted.Step{Text: "here is the plan", ToolCalls: []host.ToolCall{{ID: "exit", Name: planmode.ExitToolName, Input: input}}},
		scripted.Step{Text: "carrying it out"},
	)
	a.prov.QueueAnswers(host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewApprove}})
	steer(t, agentA, "plan it")
	waitIdle(t, agentA)
	if reqs := a.model.Requests(); len(reqs) != 2 || !planned(reqs[0]) || planned(reqs[1]) {
		t.Fatalf("A's requests: want the first planned and the second not")
	}
	// The next prompt lands on B.
	b.model.Add(scripted.Step{Text: "next"})
	agentB := b.prompt(t, "s", "go on")
	if reqs := b.model.Requests(); len(reqs) != 1 || planned(reqs[0]) {
		t.Fatalf("B's request carried plan guidance after the approved exit")
	}
	if got := b.c.Get(agentB); got.Active || got.Pending != planmode.SelectionNone {
		t.Fatalf("B's state %+v, want inactive, nothing pending", got)
	}
	sess, _ := b.st.Open("s")
	between, inside := modesByPlace(t, sess.Events().Slice())
	if !slices.Equal(between, []bool{true}) || !slices.Equal(inside, []bool{false}) {
		t.Fatalf("plan/mode between turns %v, inside %v; want [true] and one exit [false]", between, inside)
	}
	waitFor(t, "A to agree", 5*time.Second, func() bool { return a.c.Get(agentA) == planmode.State{} })
}
