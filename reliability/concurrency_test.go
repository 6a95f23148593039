package reliability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// toolSteps calls the noop tool three times and then answers, so every
// turn has four steps (each a pre-step where a queued selection lands),
// and steers arriving meanwhile keep the turn going.
type toolSteps struct{}

func (toolSteps) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	// A model step takes time, so that the selections made meanwhile
	// meet open turns (and are queued) however the machine schedules.
	select {
	case <-ctx.Done():
		return refhost.Response{}, ctx.Err()
	case <-time.After(200 * time.Microsecond):
	}
	results := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != refhost.RoleUser; i-- {
		if req.Messages[i].Role == refhost.RoleTool {
			results++
		}
	}
	if results >= 3 {
		return refhost.Response{Text: "ok"}, nil
	}
	return refhost.Response{ToolCalls: []host.ToolCall{{ID: fmt.Sprintf("n%d", results), Name: "noop", Input: json.RawMessage(`{}`)}}}, nil
}

// selection is one Set (or /plan) a goroutine made, with the logical time
// and the log length around it.
type selection struct {
	agent         int
	want          bool
	outcome       planmode.Outcome
	start, end    int64 // logical clock
	before, after int   // session Len before the call and after it returned
	fromCommand   bool
}

// TestConcurrentSelections runs 64 goroutines that call Set, Get, Steer and
// /plan on four agents while their turns run, then checks every agent's log
// against what the goroutines were told: no selection lost or applied
// twice, every committed selection in the log, every other plan/mode landed
// by a pre-step from a queued one, the final state what the last selection
// asked for, and the live state equal to a sequential replay of the log.
func TestConcurrentSelections(t *testing.T) {
	replies := commandOutcomes(t)
	t.Run("memory store", func(t *testing.T) {
		concurrentSelections(t, store.NewMemory(), replies)
	})
	t.Run("durable store", func(t *testing.T) {
		d := openDir(t, filepath.Join(t.TempDir(), "sessions"), store.WithSyncPolicy(store.SyncNever))
		concurrentSelections(t, d, replies)
	})
}

func concurrentSelections(t *testing.T, st host.Store, replies map[string]planmode.Outcome) {
	const (
		agents     = 4
		goroutines = 64
		ops        = 40
	)
	h := startHost(t, st, toolSteps{}, nil)
	as := make([]*refhost.Agent, agents)
	for i := range as {
		sess, err := st.Create(fmt.Sprintf("agent-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		as[i] = h.agentOn(t, sess)
	}

	var (
		clock   atomic.Int64
		mu      sync.Mutex
		sels    []selection
		steered = make([][]string, agents)
		wg      sync.WaitGroup
	)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range ops {
				ai := (g + i) % agents
				a := as[ai]
				switch k := rng.IntN(12); {
				case k < 4:
					want := rng.IntN(2) == 0
					s := selection{agent: ai, want: want, start: clock.Add(1), before: a.Session().Len()}
					out, err := h.ctl.Set(a, want)
					if err != nil {
						t.Errorf("Set(agent %d, %v): %v", ai, want, err)
						return
					}
					s.outcome, s.after, s.end = out, a.Session().Len(), clock.Add(1)
					mu.Lock()
					sels = append(sels, s)
					mu.Unlock()
				case k < 6:
					var args string
					switch rng.IntN(3) {
					case 0:
						args = " " + argOff
					case 1:
						args = fmt.Sprintf(" g%d-op%d", g, i)
					}
					s := selection{agent: ai, want: args != " "+argOff, fromCommand: true, start: clock.Add(1), before: a.Session().Len()}
					handled, reply, err := h.rt.Execute(context.Background(), a, "/"+planmode.CommandName+args, nil)
					if !handled || err != nil {
						t.Errorf("/%s%s on agent %d: handled %v, %v", planmode.CommandName, args, ai, handled, err)
						return
					}
					s.after, s.end = a.Session().Len(), clock.Add(1)
					out, ok := replies[reply]
					if !ok {
						t.Errorf("/%s%s: unknown reply %q", planmode.CommandName, args, reply)
						return
					}
					s.outcome = out
					mu.Lock()
					sels = append(sels, s)
					if s.want && args != "" {
						steered[ai] = append(steered[ai], args[1:])
					}
					mu.Unlock()
				case k < 9:
					if s := h.ctl.Get(a); s.Pending == planmode.SelectionActive && s.Active || s.Pending == planmode.SelectionInactive && !s.Active {
						t.Errorf("Get(agent %d) = %+v: the pending selection equals the logged state", ai, s)
					}
				default:
					text := fmt.Sprintf("g%d-op%d", g, i)
					if err := a.Steer(userText(text)); err != nil {
						t.Errorf("Steer(agent %d): %v", ai, err)
						return
					}
					mu.Lock()
					steered[ai] = append(steered[ai], text)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, a := range as {
		waitIdle(t, a)
	}

	counts := map[planmode.Outcome]int{}
	commands := 0
	for _, s := range sels {
		counts[s.outcome]++
		if s.fromCommand {
			commands++
		}
	}
	t.Logf("%d selections (%d by /plan): %d committed, %d queued, %d cancelled, %d no-ops; %d messages steered",
		len(sels), commands, counts[planmode.Committed], counts[planmode.Queued], counts[planmode.Cancelled], counts[planmode.Noop],
		len(slices.Concat(steered...)))
	if counts[planmode.Committed] == 0 || counts[planmode.Queued] == 0 || commands == 0 {
		t.Fatalf("the run must make committed, queued and /plan selections to mean anything: %v, %d by /plan", counts, commands)
	}

	for ai, a := range as {
		t.Run(fmt.Sprintf("agent %d", ai), func(t *testing.T) {
			var mine []selection
			for _, s := range sels {
				if s.agent == ai {
					mine = append(mine, s)
				}
			}
			events := a.Session().Events().Slice()
			checkLog(t, events, nil)
			committed, landed := checkSelections(t, events, mine)
			t.Logf("%d events, %d turns, %d plan/mode: %d committed between turns, %d landed by a pre-step",
				len(events), a.Turn(), committed+landed, committed, landed)
			checkSteered(t, events, steered[ai])

			// The final target is what the last selection asked for: after
			// any Set the target (pending, else logged) is what it asked.
			got := h.ctl.Get(a)
			target := got.Active
			if got.Pending != planmode.SelectionNone {
				target = got.Pending == planmode.SelectionActive
			}
			if !slices.Contains(lastWants(mine), target) {
				t.Errorf("final target %v, want what one of the last selections asked for (%v)", target, lastWants(mine))
			}
			if fold := planmode.FoldPlanMode(host.LogOf(events), len(events)); fold != got.Active {
				t.Errorf("Get = %+v, FoldPlanMode of the log = %v", got, fold)
			}

			// Nothing is lost: one more turn lands what is pending.
			prompt(t, a, "final")
			events = a.Session().Events().Slice()
			if s := h.ctl.Get(a); s != (planmode.State{Active: target}) {
				t.Errorf("after a final turn: Get = %+v, want active %v and nothing pending", s, target)
			}
			checkLog(t, events, nil)
			checkReplay(t, events, h.ctl.Get(a))
		})
	}
}

// checkSelections accounts for every plan/mode of a log: each committed
// selection owns one plan/mode of its value appended while its Set ran,
// and every other plan/mode was appended inside a turn (by the pre-step
// listener) with the value of a queued selection made before it.
//
// It returns how many plan/mode events were committed between turns and how
// many a pre-step landed.
func checkSelections(t *testing.T, events []host.Event, sels []selection) (committed, landed int) {
	t.Helper()
	var modes []int // indexes of plan/mode events
	for i, e := range events {
		if e.Type == planmode.EventPlanMode {
			modes = append(modes, i)
		}
	}
	owned := map[int]bool{}
	var commits []selection
	for _, s := range sels {
		if s.outcome == planmode.Committed {
			commits = append(commits, s)
		}
	}
	// A commit never lands inside a turn. Windows are intervals: matching in
	// order of window end to the earliest free event in the window finds a
	// matching when one exists.
	sort.Slice(commits, func(i, j int) bool { return commits[i].after < commits[j].after })
	for _, s := range commits {
		found := false
		for _, i := range modes {
			if i >= s.before && i < s.after && !owned[i] && !turnOpen(events[:i]) && modeOf(t, events[i]) == s.want {
				owned[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("a committed selection of %v (log %d..%d, /plan %v) has no plan/mode of its own", s.want, s.before+1, s.after, s.fromCommand)
		}
	}
	for _, i := range modes {
		if owned[i] {
			continue
		}
		v := modeOf(t, events[i])
		if !turnOpen(events[:i]) {
			t.Errorf("event %d: plan/mode %v outside a turn that no committed Set accounts for", i+1, v)
		}
		justified := slices.ContainsFunc(sels, func(s selection) bool {
			return s.outcome == planmode.Queued && s.want == v && s.before <= i
		})
		if !justified {
			t.Errorf("event %d: plan/mode %v landed by a pre-step with no queued selection before it", i+1, v)
		}
	}
	return len(owned), len(modes) - len(owned)
}

// checkSteered checks that every steered text is in the log exactly once,
// as a user's message.
func checkSteered(t *testing.T, events []host.Event, texts []string) {
	t.Helper()
	seen := map[string]int{}
	for _, e := range events {
		if e.Type != host.TypeUserMessage || e.Source != nil {
			continue
		}
		var m host.UserMessage
		if err := json.Unmarshal(e.Data, &m); err != nil {
			t.Fatal(err)
		}
		for _, b := range m.Content {
			seen[b.Text]++
		}
	}
	for _, text := range texts {
		if seen[text] != 1 {
			t.Errorf("steered %q is in the log %d times, want once", text, seen[text])
		}
	}
}

// lastWants returns what the selections that may have been the last one
// asked for: those still running when the latest of them started.
func lastWants(sels []selection) []bool {
	var latest int64
	for _, s := range sels {
		latest = max(latest, s.start)
	}
	var out []bool
	for _, s := range sels {
		if s.end >= latest && !slices.Contains(out, s.want) {
			out = append(out, s.want)
		}
	}
	return out
}

// checkReplay replays a log into a new session of a fresh store, one event
// at a time, and checks that a fresh controller reads the same state there
// as the live one did.
func checkReplay(t *testing.T, events []host.Event, live planmode.State) {
	t.Helper()
	st := store.NewMemory()
	rt, err := refhost.New(refhost.Options{Store: st, Model: toolSteps{}})
	if err != nil {
		t.Fatal(err)
	}
	ctl := startController(t, rt, st)
	sess, err := st.Create("replay")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if _, err := sess.Append(host.Event{Type: e.Type, Source: e.Source, Data: e.Data}); err != nil {
			t.Fatal(err)
		}
	}
	if got := ctl.Get(logAgent{sess}); got != live {
		t.Errorf("sequential replay: Get = %+v, live controller %+v", got, live)
	}
	if p := planmode.Project(host.LogOf(events)); p.Active != live.Active || p.Pending != live.Pending {
		t.Errorf("Project = %+v, live controller %+v", p, live)
	}
}

// commandOutcomes learns the /plan replies by running the command in each
// situation once, on a host of its own, and maps each reply to the outcome
// of the selection it reports. A no-op while the same selection is pending
// is worded as that pending selection, so it is read as queued.
func commandOutcomes(t *testing.T) map[string]planmode.Outcome {
	t.Helper()
	st := store.NewMemory()
	out := map[string]planmode.Outcome{}
	var a *refhost.Agent
	var h *testHost
	run := func(args string, want planmode.Outcome) {
		t.Helper()
		handled, reply, err := h.rt.Execute(context.Background(), a, "/"+planmode.CommandName+args, nil)
		if !handled || err != nil {
			t.Fatalf("/%s%s: handled %v, %v", planmode.CommandName, args, handled, err)
		}
		if got, ok := out[reply]; ok && got != want {
			t.Fatalf("/%s%s replied %q, the reply of outcome %v too", planmode.CommandName, args, reply, got)
		}
		out[reply] = want
	}
	off := " " + argOff
	inTurn := func(ctx context.Context, _ host.Agent) (string, error) {
		run("", planmode.Queued)
		run(off, planmode.Cancelled)
		if _, err := h.ctl.Set(a, true); err != nil {
			return "", err
		}
		return "ok", nil
	}
	inActiveTurn := func(ctx context.Context, _ host.Agent) (string, error) {
		run(off, planmode.Queued)
		run("", planmode.Cancelled)
		return "ok", nil
	}
	h = startHost(t, st, scripted.NewModel(
		scripted.Step{ToolCalls: []host.ToolCall{hookCall("h1", "in-turn")}}, scripted.Step{Text: "ok"},
		scripted.Step{ToolCalls: []host.ToolCall{hookCall("h2", "in-active-turn")}}, scripted.Step{Text: "ok"},
	), map[string]hookFunc{"in-turn": inTurn, "in-active-turn": inActiveTurn})
	a = h.newAgent(t, "")
	run(off, planmode.Noop)
	run("", planmode.Committed)
	run("", planmode.Noop)
	run(off, planmode.Committed)
	prompt(t, a, "in a turn")
	if !h.ctl.Get(a).Active {
		t.Fatal("the queued Set(true) did not land")
	}
	prompt(t, a, "in an active turn")
	if len(out) != 8 {
		t.Fatalf("learned %d distinct /plan replies, want 8: %q", len(out), out)
	}
	return out
}
