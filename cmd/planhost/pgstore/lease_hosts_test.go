package pgstore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// checkTranscript fails t unless events are a valid transcript of turns:
// one turn open at a time, turn numbers rising, every turn ended, every
// tool call the model asked for answered once. It returns how often each
// user message text occurs.
func checkTranscript(t *testing.T, events []host.Event) map[string]int {
	t.Helper()
	texts := map[string]int{}
	open, last := false, 0
	asked, answered := map[string]bool{}, map[string]int{}
	for _, e := range events {
		switch e.Type {
		case host.TypeTurnStart:
			var p host.TurnStart
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			if open || p.Turn <= last {
				t.Fatalf("event %d: turn/start %d while open=%v after turn %d", e.Seq, p.Turn, open, last)
			}
			open, last = true, p.Turn
		case host.TypeTurnEnd:
			var p host.TurnEnd
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			if !open || p.Turn != last {
				t.Fatalf("event %d: turn/end %d while open=%v in turn %d", e.Seq, p.Turn, open, last)
			}
			open = false
		case host.TypeUserMessage:
			var p host.UserMessage
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			for _, b := range p.Content {
				texts[b.Text]++
			}
		case host.TypeAssistantMessage:
			var p host.AssistantMessage
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			for _, c := range p.ToolCalls {
				asked[c.ID] = true
			}
		case host.TypeToolResult:
			var p host.ToolResult
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			answered[p.CallID]++
		}
	}
	if open {
		t.Fatalf("turn %d never ended", last)
	}
	for id := range asked {
		if answered[id] != 1 {
			t.Fatalf("tool call %s answered %d times", id, answered[id])
		}
	}
	return texts
}

// requestHas reports whether a request's transcript holds text.
func requestHas(r refhost.Request, text string) bool {
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Text == text {
				return true
			}
		}
	}
	return false
}

// TestOtherProcessJoinsLiveTurn: process B opens a session while A runs
// a turn on it (the open turn is A's and is left alone), and a prompt
// typed on B goes to A's turn: it is queued in the log between A's steps,
// B says so, and A's next step reads it. One turn, every message once.
func TestOtherProcessJoinsLiveTurn(t *testing.T) {
	url := pgtest.NewDB(t)
	busy := make(chan host.LeaseHolder, 1)
	a := newNode(t, url)
	b := newNodeWith(t, url, nil, refhost.Options{Busy: func(_ *refhost.Agent, h host.LeaseHolder, n int) {
		if n == 1 {
			busy <- h
		}
	}})
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	step1, step2 := pgtest.NewGate(), pgtest.NewGate()
	defer step1.Open()
	defer step2.Open()
	call := host.ToolCall{ID: "c1", Name: "no_such_tool", Input: json.RawMessage(`{}`)}
	a.model.Add(step1.Step(refhost.Response{ToolCalls: []host.ToolCall{call}}), scripted.Step{Text: "done"})
	// A's second step waits in its pre-step: between two steps.
	defer step2.BeforeStep(t, a.rt, 2)()

	aa := a.agent(t, "s")
	steer(t, aa, "from A")
	step1.Reached(t, "A's first step")

	ab := b.agent(t, "s") // opening on B must not close A's live turn
	sb, _ := b.st.Open("s")
	for _, e := range sb.Events().All() {
		if e.Type == host.TypeTurnEnd || e.Type == host.TypeToolResult {
			t.Fatalf("opening on B wrote %s into A's live turn: %s", e.Type, e.Data)
		}
	}
	steer(t, ab, "hello from B")
	step1.Open()
	step2.Reached(t, "A between steps")
	select {
	case h := <-busy:
		if h.PID == 0 || h.Host == "" {
			t.Fatalf("busy names no holder: %+v", h)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("B never queued its message for A's turn")
	}
	step2.Open()
	waitIdle(t, aa)
	waitIdle(t, ab)
	reqs := a.model.Requests()
	if len(reqs) != 2 || !requestHas(reqs[1], "hello from B") {
		t.Fatalf("A's second request lacks B's message (%d requests)", len(reqs))
	}
	if n := b.model.Calls(); n != 0 {
		t.Fatalf("B's model was called %d times, want 0: the turn is A's", n)
	}
	if err := sb.(host.Refresher).Refresh(); err != nil {
		t.Fatal(err)
	}
	texts := checkTranscript(t, sb.Events().Copy(0, sb.Len()))
	if texts["from A"] != 1 || texts["hello from B"] != 1 {
		t.Fatalf("user messages %v, want each once", texts)
	}
}

// TestCrashedOwnerTakenOver: A dies mid-turn (its store closes without
// releasing the lease); a prompt on B waits for A's lease to expire, then
// B closes A's turn as interrupted and runs its own, numbered after it.
func TestCrashedOwnerTakenOver(t *testing.T) {
	const ttl = 600 * time.Millisecond
	url := pgtest.NewDB(t)
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(ttl)}
	a := newNodeWith(t, url, opts, refhost.Options{})
	b := newNodeWith(t, url, opts, refhost.Options{})
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	call := host.ToolCall{ID: "c1", Name: "no_such_tool", Input: json.RawMessage(`{}`)}
	a.model.Add(scripted.Step{ToolCalls: []host.ToolCall{call}}, scripted.Step{Block: true})
	b.model.Add(scripted.Step{Text: "b done"})
	aa := a.agent(t, "s")
	steer(t, aa, "from A")
	if err := a.model.WaitCalls(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	ab := b.agent(t, "s")
	_ = a.st.Close() // A is gone: no renewal, no release
	start := time.Now()
	steer(t, ab, "from B")
	waitIdle(t, ab)
	if d := time.Since(start); d > ttl+time.Second {
		t.Fatalf("B took over after %s, want within the lease expiry %s (+1s)", d, ttl)
	}
	sb, _ := b.st.Open("s")
	events := sb.Events().Copy(0, sb.Len())
	texts := checkTranscript(t, events)
	if texts["from A"] != 1 || texts["from B"] != 1 {
		t.Fatalf("user messages %v, want each once", texts)
	}
	var ends []host.TurnEnd
	for _, e := range events {
		if e.Type == host.TypeTurnEnd {
			var p host.TurnEnd
			_ = json.Unmarshal(e.Data, &p)
			ends = append(ends, p)
		}
	}
	if len(ends) != 2 || ends[0].Turn != 1 || ends[0].Error != refhost.TextTurnInterrupted || ends[1].Turn != 2 || ends[1].Reason != host.TurnCompleted {
		t.Fatalf("turn ends %+v, want 1 interrupted then 2 completed", ends)
	}
}

// TestFencedOwnerWritesRefused: A's lease runs out while A is stuck (as a
// paused or cut-off process is) and B takes the session over; when A
// comes back its writes are refused by the fencing token and it says so.
func TestFencedOwnerWritesRefused(t *testing.T) {
	const ttl = 600 * time.Millisecond
	url := pgtest.NewDB(t)
	opts := []pgstore.Option{pgstore.WithLeaseExpiry(ttl)}
	lost := make(chan error, 1)
	a := newNodeWith(t, url, opts, refhost.Options{LeaseLost: func(_ *refhost.Agent, cause error) { lost <- cause }})
	b := newNodeWith(t, url, opts, refhost.Options{})
	if _, err := a.st.Create("s"); err != nil {
		t.Fatal(err)
	}
	step := pgtest.NewGate()
	defer step.Open()
	a.model.Add(step.Step(refhost.Response{Text: "late from A"}))
	b.model.Add(scripted.Step{Text: "b done"})
	aa := a.agent(t, "s")
	steer(t, aa, "from A")
	step.Reached(t, "A's step")
	// A's renewals stop reaching the database: its lease runs out there.
	if _, err := b.st.Pool().Exec(t.Context(), `UPDATE planmode_sessions SET lease_until = clock_timestamp() WHERE id = 's'`); err != nil {
		t.Fatal(err)
	}
	ab := b.agent(t, "s")
	steer(t, ab, "from B")
	waitIdle(t, ab)
	select {
	case cause := <-lost:
		if !errors.Is(cause, host.ErrFenced) {
			t.Errorf("A lost the lease for %v, want %v", cause, host.ErrFenced)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("A was not told it lost the lease")
	}
	step.Open() // A's model answers late
	waitIdle(t, aa)
	sb, _ := b.st.Open("s")
	if err := sb.(host.Refresher).Refresh(); err != nil {
		t.Fatal(err)
	}
	events := sb.Events().Copy(0, sb.Len())
	texts := checkTranscript(t, events)
	if texts["from A"] != 1 || texts["from B"] != 1 {
		t.Fatalf("user messages %v, want each once", texts)
	}
	for _, e := range events {
		if strings.Contains(string(e.Data), "late from A") {
			t.Fatalf("A's late write reached the log: %s %s", e.Type, e.Data)
		}
	}
}
