package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/console"
	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// terminal is a typed line source the test types into.
type terminal struct{ ch chan console.Event }

func (f *terminal) Lines() <-chan console.Event { return f.ch }
func (f *terminal) SetPrompt(string)            {}
func (f *terminal) Close() error                { return nil }

// buffer is a transcript the test reads while the console writes it.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the transcript holds want.
func waitFor(t *testing.T, out *buffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the transcript lacks %q:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// session runs a console over a host with the deployment and script; it
// returns the terminal to type into, the transcript, the agent and the
// console's end.
func session(t *testing.T, deployment, script string) (*terminal, *buffer, *refhost.Agent, *wiring.Parts, <-chan struct{}) {
	t.Helper()
	steps, err := scripted.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	dep, err := wiring.LoadDeployment(filepath.Join("..", "..", "testdata", deployment))
	if err != nil {
		t.Fatal(err)
	}
	mem := store.NewMemory()
	app, parts := wiring.New(wiring.Config{Store: mem, Model: scripted.NewModel(steps...), Deployment: dep.Deployment})
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wiring.Stop(app) })
	sess, err := mem.Create("")
	if err != nil {
		t.Fatal(err)
	}
	agent, err := parts.Runtime.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wiring.StopAgent(agent) })
	out := &buffer{}
	term := &terminal{ch: make(chan console.Event)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = console.Run(ctx, console.Config{Out: out, In: term, Runtime: parts.Runtime, Agent: agent, Plan: parts.Plan,
			Catalog: present.English})
	}()
	return term, out, agent, parts, done
}

// wait waits for the console to end and the agent to be idle.
func wait(t *testing.T, done <-chan struct{}, out *buffer, agent *refhost.Agent) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("console did not end:\n%s", out.String())
	}
	if err := agent.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// askScript is a model that asks one clarifying question, then answers.
const askScript = "steps:\n  - toolCalls:\n      - name: ask_user\n        input:\n" +
	"          questions:\n            - {header: H, question: Which one, options: [{label: A, description: a}, {label: B, description: b}]}\n" +
	"  - text: ok\n"

// typeAhead asks for a plan, types early as if completed before the
// question (whose menu ends with shown) appeared, which must be ignored,
// then late once the user read it, and ends the input.
func typeAhead(t *testing.T, term *terminal, out *buffer, shown, early, late string) {
	t.Helper()
	typedEarly := time.Now()
	term.ch <- console.Event{Line: "/plan Go", At: typedEarly}
	waitFor(t, out, shown)
	term.ch <- console.Event{Line: early, At: typedEarly}
	waitFor(t, out, "it came before the question appeared")
	term.ch <- console.Event{Line: late, At: time.Now().Add(reviewgate.Quiet)}
	term.ch <- console.Event{EOF: true}
}

// TestTypeAheadDoesNotAnswerTheReview protects the review from keys typed
// as chat just as it appears: a line completed before the review was shown
// is ignored (and said so), and only a later line answers it.
func TestTypeAheadDoesNotAnswerTheReview(t *testing.T) {
	term, out, agent, parts, done := session(t, "run/deploy.yaml",
		"steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\n1. Step.\"}\n  - text: ok\n")
	// "a" (Approve) was typed before the review appeared: ignored; the
	// user reads the review and dismisses it.
	typeAhead(t, term, out, present.English.Console.MenuEnd, "a", "d")
	wait(t, done, out, agent)
	var results []host.ToolResult
	for _, e := range agent.Session().Events().All() {
		var r host.ToolResult
		if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil && r.Name == planmode.ExitToolName {
			results = append(results, r)
		}
	}
	if len(results) != 1 || planmode.ExitOutcome(results[0].Outcome) != planmode.ExitDismissed {
		t.Errorf("review results %+v, want one dismissal:\n%s", results, out.String())
	}
	if st := parts.Plan.Get(agent); !st.Active || st.Pending != planmode.SelectionNone {
		t.Errorf("plan state = %+v, want plan mode still on", st)
	}
}

// TestTypeAheadDoesNotAnswerAClarifyingQuestion: a line completed before
// the question appeared is ignored, and only a later line answers it.
func TestTypeAheadDoesNotAnswerAClarifyingQuestion(t *testing.T) {
	term, out, agent, _, done := session(t, "ask/deploy.yaml", askScript)
	typeAhead(t, term, out, present.English.Console.AskOther, "1", "2")
	wait(t, done, out, agent)
	asks := planask.Asks(agent.Session().Events())
	if len(asks) != 1 || asks[0].Answer == nil || !slices.Equal(asks[0].Answer.Answers[0].Selected, []string{"B"}) {
		t.Fatalf("asks %+v\n%s", asks, out.String())
	}
}

// reviewResults are the session's exit_plan_mode results.
func reviewResults(agent *refhost.Agent) []host.ToolResult {
	var results []host.ToolResult
	for _, e := range agent.Session().Events().All() {
		var r host.ToolResult
		if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil && r.Name == planmode.ExitToolName {
			results = append(results, r)
		}
	}
	return results
}

// reviewScript presents one plan, then answers.
const reviewScript = "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\n1. Step.\"}\n  - text: ok\n  - text: ok\n"

// TestSaveTakesNoText: s (Save plan and stop) saves at once: it asks for
// no text, a line typed after it is no feedback that turns it into Keep
// planning, and the transcript says the plan was saved, not abandoned.
func TestSaveTakesNoText(t *testing.T) {
	for _, after := range [][]string{nil, {""}, {"but change step 1"}} {
		t.Run(strings.Join(append([]string{"s"}, after...), "+"), func(t *testing.T) {
			term, out, agent, _, done := session(t, "run/deploy.yaml", reviewScript)
			term.ch <- console.Event{Line: "/plan Go"}
			waitFor(t, out, present.English.Console.MenuEnd)
			term.ch <- console.Event{Line: present.KeySave}
			for _, l := range after {
				term.ch <- console.Event{Line: l}
			}
			term.ch <- console.Event{EOF: true}
			wait(t, done, out, agent)
			results := reviewResults(agent)
			if len(results) != 1 || results[0].IsError || planmode.ExitOutcome(results[0].Outcome) != planmode.ExitAbandoned ||
				!strings.Contains(results[0].Output, `"saved":true`) {
				t.Fatalf("review results %+v, want one save:\n%s", results, out.String())
			}
			w := present.English
			if got := out.String(); !strings.Contains(got, fmt.Sprintf(w.Session.Outcome, w.Plans.Saved)) ||
				strings.Contains(got, w.Plans.Abandoned) || strings.Contains(got, w.Console.PromptFeedback) {
				t.Errorf("the transcript does not say the plan was saved, or asks for feedback:\n%s", got)
			}
		})
	}
}

// TestQuitAtAQuestionIsNoAnswer: /quit or /exit typed while a plan review
// or a question from the model waits is never taken as its answer (nor as
// feedback or an answer in the user's words); it leaves.
func TestQuitAtAQuestionIsNoAnswer(t *testing.T) {
	for _, quit := range []string{"/quit", " /exit "} {
		t.Run("review/"+quit, func(t *testing.T) {
			term, out, agent, parts, done := session(t, "run/deploy.yaml", reviewScript)
			term.ch <- console.Event{Line: "/plan Go"}
			waitFor(t, out, present.English.Console.MenuEnd)
			term.ch <- console.Event{Line: quit}
			wait(t, done, out, agent)
			for _, r := range reviewResults(agent) {
				if o := planmode.ExitOutcome(r.Outcome); o == planmode.ExitApproved || o == planmode.ExitKeepPlanning || o == planmode.ExitAbandoned {
					t.Fatalf("%s answered the review: %+v", quit, r)
				}
			}
			if st := parts.Plan.Get(agent); !st.Active {
				t.Errorf("plan state = %+v, want plan mode still on", st)
			}
		})
		t.Run("keep planning's feedback/"+quit, func(t *testing.T) {
			term, out, agent, _, done := session(t, "run/deploy.yaml", reviewScript)
			term.ch <- console.Event{Line: "/plan Go"}
			waitFor(t, out, present.English.Console.MenuEnd)
			term.ch <- console.Event{Line: present.KeyKeep}
			term.ch <- console.Event{Line: quit}
			wait(t, done, out, agent)
			for _, r := range reviewResults(agent) {
				if strings.Contains(r.Output, strings.TrimSpace(quit)) {
					t.Fatalf("%s was sent to the model as feedback: %+v", quit, r)
				}
			}
		})
		t.Run("question from the model/"+quit, func(t *testing.T) {
			term, out, agent, _, done := session(t, "ask/deploy.yaml", askScript)
			term.ch <- console.Event{Line: "/plan Go"}
			waitFor(t, out, present.English.Console.AskOther)
			term.ch <- console.Event{Line: quit}
			wait(t, done, out, agent)
			for _, a := range planask.Asks(agent.Session().Events()) {
				if a.Answer != nil && a.Answer.Outcome == planask.OutcomeAnswered {
					t.Fatalf("%s answered the question: %+v", quit, a.Answer)
				}
			}
		})
	}
}

// TestQuestionFromTheModelNeverLooksLikeTheReview: a question from the
// model worded close to the review (plan-ask refuses its exact words) is
// framed as the model's, asked with numbered options, not the review's
// menu of roles.
func TestQuestionFromTheModelNeverLooksLikeTheReview(t *testing.T) {
	w := present.English
	script := "steps:\n  - toolCalls:\n      - name: ask_user\n        input:\n          questions:\n" +
		"            - {header: \"Review: P\", question: \"The plan is ready. Go ahead?\", options: [{label: Go ahead, description: a}, {label: Wait, description: b}]}\n" +
		"  - text: ok\n"
	term, out, agent, _, done := session(t, "ask/deploy.yaml", script)
	term.ch <- console.Event{Line: "/plan Go"}
	waitFor(t, out, w.Console.AskOther)
	term.ch <- console.Event{EOF: true}
	wait(t, done, out, agent)
	got := out.String()
	if !strings.Contains(got, w.Form.From+"\n"+fmt.Sprintf(w.Console.MenuHead, fmt.Sprintf(w.Form.Head, 1, 1, "Review: P"))) {
		t.Errorf("the question is not framed as the model's first:\n%s", got)
	}
	for _, bad := range []string{"[a]", "[k]"} {
		if strings.Contains(got, bad) {
			t.Errorf("the transcript holds %q:\n%s", bad, got)
		}
	}
	if !strings.Contains(got, "[1] Go ahead") {
		t.Errorf("the options are not numbered as a question's:\n%s", got)
	}
}
