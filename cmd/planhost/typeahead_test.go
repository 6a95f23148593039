package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// fakeTerminal is a terminal line source the test types into.
type fakeTerminal struct{ ch chan inputEvent }

func (f *fakeTerminal) Lines() <-chan inputEvent { return f.ch }
func (f *fakeTerminal) SetPrompt(string)         {}
func (f *fakeTerminal) Close() error             { return nil }

// TestTypeAheadDoesNotAnswerTheReview protects the review from keys typed
// as chat just as it appears: a line completed before the review was shown
// is ignored (and said so), and only a later line answers it.
func TestTypeAheadDoesNotAnswerTheReview(t *testing.T) {
	steps, err := scripted.ParseScript([]byte("steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\n1. Step.\"}\n  - text: ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	dep, err := deploy.Load(filepath.Join("testdata", "run", "deploy.yaml"), offeredPlugins()...)
	if err != nil {
		t.Fatal(err)
	}
	mem := store.NewMemory()
	app, parts := newHost(hostConfig{store: mem, model: scripted.NewModel(steps...), deployment: dep})
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer stopApp(app)
	sess, err := mem.Create("")
	if err != nil {
		t.Fatal(err)
	}
	agent, err := parts.Runtime.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	defer stopAgent(agent)
	md, err := newMarkdown(styleNoTTY)
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	term := &fakeTerminal{ch: make(chan inputEvent)}
	c := &console{
		out: &out, rt: parts.Runtime, agent: agent, plan: parts.Plan,
		view: newPrinter(&out, md, parts.Presenters, true), src: term,
	}
	unset, err := parts.Runtime.Questions().SetProvider(c)
	if err != nil {
		t.Fatal(err)
	}
	defer unset()
	done := make(chan serveResult, 1)
	go func() { done <- c.serve(ctx) }()

	typedEarly := time.Now()
	term.ch <- inputEvent{line: "/plan Go", at: typedEarly}
	waitFor(t, &out, lineReviewEnd)
	// "a" (Approve) was typed before the review appeared: ignored.
	term.ch <- inputEvent{line: "a", at: typedEarly}
	waitFor(t, &out, "it came before the question appeared")
	// The user reads the review and dismisses it.
	term.ch <- inputEvent{line: "d", at: time.Now().Add(reviewgate.Quiet)}
	term.ch <- inputEvent{eof: true}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("console did not end:\n%s", out.String())
	}
	if err := agent.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	var results int
	for _, e := range sess.Events().Slice() {
		if e.Type != host.TypeToolResult {
			continue
		}
		var r host.ToolResult
		if err := json.Unmarshal(e.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.Name == planmode.ExitToolName {
			results++
			if !r.IsError || !bytes.Contains([]byte(r.Output), []byte("dismissed")) {
				t.Errorf("review result = %q (error %t), want the dismissal", r.Output, r.IsError)
			}
		}
	}
	if results != 1 {
		t.Errorf("%d review results, want 1:\n%s", results, out.String())
	}
	if st := parts.Plan.Get(agent); !st.Active || st.Pending != planmode.SelectionNone {
		t.Errorf("plan state = %+v, want plan mode still on", st)
	}
}

// TestEmptyCommentsNeverApprove: in the line console, an empty line for
// Approve with comments is refused, not taken as an approval without
// comments; the comments typed next approve.
func TestEmptyCommentsNeverApprove(t *testing.T) {
	dir := newRunDir(t)
	p, stdout, stderr, _ := testProgram(t, "/plan Add Goodbye\n2\n\nLooks fine.\n") // 2: Approve with comments
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "typing.yaml"), "-config", planFileDeploy(t, dir))
	if code := p.main(args); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), lineCommentsNeeded) {
		t.Errorf("the empty comments were not refused:\n%s", stdout)
	}
	out := exitResult(t, dir)
	if out["approved"] != true || !strings.Contains(fmt.Sprint(out), "Looks fine.") {
		t.Errorf("result = %v, want the approval with the comments", out)
	}
}
