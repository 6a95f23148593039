package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
)

// proc is one planhost process on the line console (pipes).
type proc struct {
	cmd         *exec.Cmd
	in          io.WriteCloser
	out, errOut syncBuffer
	done        chan struct{}
}

// startProc runs the built planhost with args; stdin stays open until
// close or the test's end.
func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	home := t.TempDir()
	p := &proc{cmd: exec.Command(builtBinary(t), args...), done: make(chan struct{})}
	p.cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "PATH=" + os.Getenv("PATH")}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errOut
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = in
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.in.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		// The process is gone: say why, from what it printed.
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
		t.Fatalf("send %q: %v; the process exited (%v); stderr:\n%s\nstdout:\n%s", line, err, p.cmd.ProcessState, p.errOut.String(), p.out.String())
	}
}

func (p *proc) signal(t *testing.T, s syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		t.Fatal(err)
	}
}

// procSetup creates session id in a fresh database and returns its URL
// and a store the test reads the log with.
func procSetup(t *testing.T, id string) (string, *pgstore.Store) {
	t.Helper()
	builtBinary(t)
	url := pgtest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Create(id); err != nil {
		t.Fatal(err)
	}
	return url, st
}

// procArgs are the flags of a planhost run on session id of url with
// script.
func procArgs(t *testing.T, url, id, script string, lease time.Duration) []string {
	return ptyRunArgs(t, newRunDir(t), script, "-store", url, "-session", id, "-lease", lease.String())
}

// logOf reads the session's whole log from the database.
func logOf(t *testing.T, st *pgstore.Store, id string) []host.Event {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Refresh(s); err != nil {
		t.Fatal(err)
	}
	return s.Events().Copy(0, s.Len())
}

// transcriptOf checks events as a transcript of turns (one open at a
// time, numbers rising, every model tool call answered once) and returns
// how often each user text occurs and whether a turn is open.
func transcriptOf(t *testing.T, events []host.Event) (texts map[string]int, open bool) {
	t.Helper()
	texts = map[string]int{}
	last := 0
	asked, answered := map[string]bool{}, map[string]int{}
	for _, e := range events {
		switch e.Type {
		case host.TypeTurnStart:
			var p host.TurnStart
			_ = json.Unmarshal(e.Data, &p)
			if open || p.Turn <= last {
				t.Fatalf("event %d: turn/start %d while open=%v after turn %d", e.Seq, p.Turn, open, last)
			}
			open, last = true, p.Turn
		case host.TypeTurnEnd:
			var p host.TurnEnd
			_ = json.Unmarshal(e.Data, &p)
			if !open || p.Turn != last {
				t.Fatalf("event %d: turn/end %d while open=%v in turn %d", e.Seq, p.Turn, open, last)
			}
			open = false
		case host.TypeUserMessage:
			var p host.UserMessage
			_ = json.Unmarshal(e.Data, &p)
			for _, b := range p.Content {
				texts[b.Text]++
			}
		case host.TypeAssistantMessage:
			var p host.AssistantMessage
			_ = json.Unmarshal(e.Data, &p)
			for _, c := range p.ToolCalls {
				asked[c.ID] = true
			}
		case host.TypeToolResult:
			var p host.ToolResult
			_ = json.Unmarshal(e.Data, &p)
			answered[p.CallID]++
		}
	}
	for id := range asked {
		if answered[id] > 1 || (!open && answered[id] != 1) {
			t.Fatalf("tool call %s answered %d times", id, answered[id])
		}
	}
	return texts, open
}

// waitLog polls the session's log until cond holds.
func waitLog(t *testing.T, st *pgstore.Store, id, what string, within time.Duration, cond func([]host.Event) bool) []host.Event {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		events := logOf(t, st, id)
		if cond(events) {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; log has %d events", within, what, len(events))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// has reports whether events hold one of type typ whose data contains s.
func has(events []host.Event, typ, s string) bool {
	for _, e := range events {
		if e.Type == typ && strings.Contains(string(e.Data), s) {
			return true
		}
	}
	return false
}

// textSteps is a script of n text answers.
func textSteps(n int, who string) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - text: %q\n", fmt.Sprintf("%s answer %d", who, i+1))
	}
	return b.String()
}

// toolThenTextSteps is a script of n pairs of steps: a tool call (to a
// tool that does not exist, answered with an error) and a text answer, so
// a turn has a point between two steps where another process's message
// can join it.
func toolThenTextSteps(n int, who string) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - toolCalls:\n      - id: %s-%d\n        name: no_such_tool\n  - text: %q\n", who, i+1, fmt.Sprintf("%s answer %d", who, i+1))
	}
	return b.String()
}

// TestProcessesShareOneSessionOnPostgres runs three planhost processes
// on one PostgreSQL session and types prompts and mode switches into all
// of them, interleaved: afterwards the log is one valid transcript (one
// turn open at a time, turn numbers rising, every call answered) holding
// every typed message exactly once.
func TestProcessesShareOneSessionOnPostgres(t *testing.T) {
	const id = "shared"
	url, st := procSetup(t, id)
	var procs []*proc
	for _, who := range []string{"A", "B", "C"} {
		dir := t.TempDir()
		script := writeScript(t, dir, "s.yaml", toolThenTextSteps(20, who))
		procs = append(procs, startProc(t, procArgs(t, url, id, script, time.Second)...))
	}
	var want []string
	for round := range 4 {
		for i, p := range procs {
			msg := fmt.Sprintf("message %d from %c", round+1, 'A'+i)
			want = append(want, msg)
			p.send(t, msg)
			if round == 1 && i == 0 {
				p.send(t, "/plan")
			}
			if round == 2 && i == 1 {
				p.send(t, "/plan off")
			}
			time.Sleep(time.Duration(10*(i+round)) * time.Millisecond)
		}
	}
	events := waitLog(t, st, id, "every message answered", 60*time.Second, func(events []host.Event) bool {
		texts, open := transcriptOf(t, events)
		for _, w := range want {
			if texts[w] == 0 {
				return false
			}
		}
		return !open
	})
	texts, _ := transcriptOf(t, events)
	for _, w := range want {
		if texts[w] != 1 {
			t.Errorf("%q is in the log %d times, want once", w, texts[w])
		}
	}
	handed := 0
	for i, p := range procs {
		s := p.errOut.String()
		if strings.Contains(s, "panic") || strings.Contains(s, "interrupted") {
			t.Errorf("process %c stderr:\n%s", 'A'+i, s)
		}
		handed += strings.Count(s, "session busy on")
	}
	t.Logf("%d events, %d prompts queued for another process's turn", len(events), handed)
}

// waitUntil polls cond until it holds.
func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitOpenStep waits until the log's last turn is open and in a step that
// took the message text (the loop logs the message after step/start).
func waitOpenStep(t *testing.T, st *pgstore.Store, id, text string) {
	t.Helper()
	waitLog(t, st, id, "a step of an open turn", 30*time.Second, func(events []host.Event) bool {
		_, open := transcriptOf(t, events)
		return open && has(events, host.TypeStepStart, `"step":1`) && has(events, host.TypeUserMessage, text)
	})
}

// TestProcessKilledMidTurnTakenOver: the owner of a turn is SIGKILLed
// mid-turn (in a model call, or with a plan review open); another process
// opened on the session meanwhile takes the session over within the lease
// expiry, closes the dead turn as interrupted, answers its dangling call
// and goes on.
func TestProcessKilledMidTurnTakenOver(t *testing.T) {
	const lease = time.Second
	for _, tc := range []struct {
		name, script string
		input        []string
		ready        func([]host.Event) bool
	}{
		{"model call", "steps:\n  - block: true\n", []string{"from A"}, func(events []host.Event) bool {
			return has(events, host.TypeStepStart, `"step":1`) && has(events, host.TypeUserMessage, "from A")
		}},
		{"review", "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\nDo it.\"}\n", []string{"/plan", "from A"}, func(events []host.Event) bool {
			return has(events, host.TypeToolCall, "exit_plan_mode")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "-")
			url, st := procSetup(t, id)
			dirA, dirB := t.TempDir(), t.TempDir()
			a := startProc(t, procArgs(t, url, id, writeScript(t, dirA, "a.yaml", tc.script), lease)...)
			for _, in := range tc.input {
				a.send(t, in)
			}
			waitLog(t, st, id, "A mid-turn", 30*time.Second, tc.ready)
			b := startProc(t, procArgs(t, url, id, writeScript(t, dirB, "b.yaml", textSteps(1, "B")), lease)...)
			waitUntil(t, "B's session line", 20*time.Second, func() bool { return strings.Contains(b.out.String(), "session ") })
			if events := logOf(t, st, id); has(events, host.TypeTurnEnd, "") {
				t.Fatalf("opening B closed A's live turn")
			}
			a.signal(t, syscall.SIGKILL)
			start := time.Now()
			b.send(t, "from B")
			events := waitLog(t, st, id, "B's turn", 20*time.Second, func(events []host.Event) bool {
				return has(events, host.TypeAssistantMessage, "B answer 1") && has(events, host.TypeTurnEnd, `"turn":2`)
			})
			if d := time.Since(start); d > lease+2*time.Second {
				t.Errorf("B answered %s after the kill, want within the lease %s (+2s)", d, lease)
			}
			texts, open := transcriptOf(t, events)
			if open || texts["from A"] != 1 || texts["from B"] != 1 {
				t.Fatalf("open=%v texts=%v", open, texts)
			}
			if !has(events, host.TypeTurnEnd, "interrupted") {
				t.Fatal("A's turn was not closed as interrupted")
			}
		})
	}
}

// askScript is a script whose first step asks the user one question with
// ask_user.
const askScript = `steps:
  - toolCalls:
      - name: ask_user
        input:
          questions:
            - header: Storage
              question: Where should the greetings live?
              options:
                - {label: In code, description: A Go map.}
                - {label: In a file, description: A JSON file.}
  - text: A planned with the answer.
`

// TestProcessStoppedPastLeaseIsFenced: the owner of a turn is SIGSTOPped
// past its lease (in a model call, or with an ask_user question open on
// its console, answered or not when it resumes); another process takes
// over and answers; when the owner is continued, nothing it writes
// reaches the log (no late "plan/answer", no answer the model never saw)
// and it says another process took the turn over.
func TestProcessStoppedPastLeaseIsFenced(t *testing.T) {
	const lease = time.Second
	config := filepath.Join("testdata", "ask", "deploy.yaml")
	for _, tc := range []struct {
		name, script string
		input        []string
		ready        func([]host.Event) bool
		onResume     []string // typed into A while it is stopped
	}{
		{"model call", "steps:\n  - block: true\n", []string{"from A"}, func(events []host.Event) bool {
			return has(events, host.TypeStepStart, `"step":1`) && has(events, host.TypeUserMessage, "from A")
		}, nil},
		{"question open", askScript, []string{"/plan", "from A"}, func(events []host.Event) bool {
			return has(events, planask.EventAsk, "Storage")
		}, nil},
		{"question answered on resume", askScript, []string{"/plan", "from A"}, func(events []host.Event) bool {
			return has(events, planask.EventAsk, "Storage")
		}, []string{"2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "-")
			url, st := procSetup(t, id)
			dirA, dirB := t.TempDir(), t.TempDir()
			a := startProc(t, append(procArgs(t, url, id, writeScript(t, dirA, "a.yaml", tc.script), lease), "-config", absPath(t, config))...)
			for _, in := range tc.input {
				a.send(t, in)
			}
			waitLog(t, st, id, "A mid-turn", 30*time.Second, tc.ready)
			a.signal(t, syscall.SIGSTOP)
			time.Sleep(lease + 500*time.Millisecond)
			b := startProc(t, append(procArgs(t, url, id, writeScript(t, dirB, "b.yaml", textSteps(1, "B")), lease), "-config", absPath(t, config))...)
			b.send(t, "from B")
			events := waitLog(t, st, id, "B's turn", 20*time.Second, func(events []host.Event) bool {
				return has(events, host.TypeTurnEnd, `"turn":2`)
			})
			n := len(events)
			for _, in := range tc.onResume {
				a.send(t, in)
			}
			a.signal(t, syscall.SIGCONT)
			waitUntil(t, "A says its writes were refused", 20*time.Second, func() bool { return strings.Contains(a.errOut.String(), present.English.Session.LeaseLost) })
			time.Sleep(500 * time.Millisecond)
			events = logOf(t, st, id)
			for _, e := range events[n:] {
				if e.Type == host.TypeTurnStart {
					// A line typed at the withdrawn question may reach A
					// once it knows the turn was lost: a new turn of its
					// own, under its own lease, is no late write.
					break
				}
				t.Errorf("A wrote after it lost the turn: %s %s", e.Type, e.Data)
			}
			texts, open := transcriptOf(t, events)
			if open || texts["from A"] != 1 || texts["from B"] != 1 {
				t.Fatalf("open=%v texts=%v", open, texts)
			}
			if has(events, planask.EventAnswer, "") {
				t.Fatal("the log holds an answer to A's question, which the model never saw")
			}
		})
	}
}

// TestDatabaseLostMidTurnSaysSo: the database goes away while a process
// runs a turn; once its lease can no longer be renewed the process says
// it could not reach the database, not that another process took over.
func TestDatabaseLostMidTurnSaysSo(t *testing.T) {
	const id, lease = "unreachable", time.Second
	builtBinary(t)
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv) + "&connect_timeout=1"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(id); err != nil {
		t.Fatal(err)
	}
	a := startProc(t, procArgs(t, url, id, writeScript(t, t.TempDir(), "a.yaml", "steps:\n  - block: true\n"), lease)...)
	a.send(t, "from A")
	waitOpenStep(t, st, id, "from A")
	_ = st.Close()
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Restart() }) // for its Close
	waitUntil(t, "A says it could not reach the database", 20*time.Second, func() bool {
		return strings.Contains(a.errOut.String(), present.English.Session.LeaseExpired)
	})
	if strings.Contains(a.errOut.String(), present.English.Session.LeaseLost) {
		t.Fatalf("A says another process took over:\n%s", a.errOut.String())
	}
}
