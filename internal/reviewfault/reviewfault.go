// Package reviewfault is the fault-injection suite of a plan review turn,
// shared by the stores' tests: it fails each append of a turn in which the
// user approves a plan, once, and checks that plan mode is left only after
// the approval is in the log, that the next turns succeed against an
// endpoint that refuses unanswered tool calls, and that the log stays a
// valid transcript, also after a resume.
package reviewfault

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Env is one case's environment, made fresh for each case.
type Env struct {
	// Store is an empty store.
	Store host.Store
	// Model answers the requests with [Respond]; it must refuse a request
	// whose tool calls and results are not paired, as OpenAI does (see
	// [StrictError]).
	Model refhost.Model
	// FailAt makes the n-th append to the store from now on fail once, as
	// a transient write error does; 0 disarms it.
	FailAt func(n int)
	// Fired reports whether the armed failure happened.
	Fired func() bool
	// Reopen returns a store over the same data, as a restarted process
	// opens it. The suite no longer uses Store afterwards.
	Reopen func() host.Store
}

// The script's user prompts and the model's texts.
const (
	promptPlan  = "Plan the change."
	promptNext  = "What next?"
	promptAgain = "And now?"
	textWorking = "Working on it."
	textDone    = "Done."
	plan        = "# Add retries\n\n1. Wrap the call in a retry loop.\n"
)

// Respond is the script's model: it presents the plan when asked to plan,
// starts working once a tool result came back, and answers every other
// request with a short text.
func Respond(req refhost.Request) refhost.Response {
	if len(req.Messages) == 0 {
		return refhost.Response{Text: textDone}
	}
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role == refhost.RoleUser && len(last.Content) > 0 && last.Content[0].Text == promptPlan:
		input, _ := json.Marshal(map[string]string{"plan": plan})
		id := fmt.Sprintf("exit-%d", len(req.Messages))
		return refhost.Response{ToolCalls: []host.ToolCall{{ID: id, Name: planmode.ExitToolName, Input: input}}}
	case last.Role == refhost.RoleTool:
		return refhost.Response{Text: textWorking}
	}
	return refhost.Response{Text: textDone}
}

// StrictError says why an endpoint that enforces the tool-call rules
// (OpenAI, DeepSeek) refuses msgs: an assistant message with tool calls
// must be followed by one tool message per call before any other message,
// and every tool message must answer such a call. nil when msgs pass.
func StrictError(msgs []refhost.Message) error {
	var open []string
	for i, m := range msgs {
		if m.Role == refhost.RoleTool {
			j := slices.Index(open, m.ToolCallID)
			if j < 0 {
				return fmt.Errorf("message %d: the tool message for %q answers no tool call", i, m.ToolCallID)
			}
			open = slices.Delete(open, j, j+1)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: tool calls %v have no tool message after them", i, open)
		}
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tool calls %v have no tool message after them", open)
	}
	return nil
}

// StrictModel is the script's model behind the check of [StrictError],
// for stores whose tests cannot reach a fake endpoint.
type StrictModel struct{}

// Generate implements [refhost.Model].
func (StrictModel) Generate(_ context.Context, req refhost.Request) (refhost.Response, error) {
	if err := StrictError(req.Messages); err != nil {
		return refhost.Response{}, fmt.Errorf("400 Bad Request: %w", err)
	}
	return Respond(req), nil
}

// approver approves every plan review.
type approver struct{}

func (approver) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	q := req.Questions[0]
	for _, o := range q.Options {
		if o.Role == host.RoleApprove {
			return []host.Answer{{QuestionID: q.ID, Selected: []string{o.Label}}}, nil
		}
	}
	return nil, host.ErrDismissed
}

// host is the reference host with plan mode on one store.
type hostRun struct {
	rt *refhost.Runtime
	c  *planmode.Controller
}

func start(t *testing.T, st host.Store, m refhost.Model) *hostRun {
	t.Helper()
	rt, err := refhost.New(refhost.Options{Store: st, Model: m, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Questions().SetProvider(approver{}); err != nil {
		t.Fatal(err)
	}
	res, err := planmode.New(planmode.Params{
		Config:     planmode.Config{Section: "You are in plan mode."},
		Sections:   rt,
		Tools:      rt,
		PreStep:    rt,
		Validators: st,
		EventTypes: rt,
		Commands:   rt,
		Questions:  rt.Questions(),
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := &hostRun{rt: rt, c: res.Controller}
	t.Cleanup(h.stop)
	return h
}

var stopOnce sync.Map // *hostRun → struct{}

func (h *hostRun) stop() {
	if _, done := stopOnce.LoadOrStore(h, struct{}{}); done {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = h.rt.Stop(ctx)
	_ = h.c.Stop(ctx)
}

// prompt steers text and waits for the turn to end; it returns the turn's
// end.
func prompt(t *testing.T, a *refhost.Agent, text string) host.TurnEnd {
	t.Helper()
	from := a.Session().Len()
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	var end host.TurnEnd
	for _, e := range a.Session().Events().Range(from, a.Session().Len()) {
		if e.Type == host.TypeTurnEnd {
			end = host.TurnEnd{}
			if err := json.Unmarshal(e.Data, &end); err != nil {
				t.Fatal(err)
			}
		}
	}
	return end
}

// sessionID is the one session of a case.
const sessionID = "review"

// Run runs the suite: a clean review turn counts its appends, then each
// append in turn fails once in a fresh environment.
func Run(t *testing.T, newEnv func(t *testing.T) Env) {
	clean := runCase(t, newEnv(t), 0, nil)
	if len(clean) == 0 {
		t.Fatal("the clean review turn appended nothing")
	}
	for k := 1; k <= len(clean); k++ {
		t.Run(fmt.Sprintf("append %d (%s) fails", k, clean[k-1]), func(t *testing.T) {
			runCase(t, newEnv(t), k, clean)
		})
	}
}

// runCase runs the review turn with append failAt failing (0: none), then
// a turn, a restart and another turn, checking the log after each. It
// returns the types appended in the review turn.
func runCase(t *testing.T, env Env, failAt int, clean []string) []string {
	t.Helper()
	h := start(t, env.Store, env.Model)
	sess, err := env.Store.Create(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := h.c.Set(a, true); err != nil || got != planmode.Committed {
		t.Fatalf("Set(plan mode) = %v, %v", got, err)
	}
	from := sess.Len()
	env.FailAt(failAt)
	prompt(t, a, promptPlan)
	if failAt > 0 && !env.Fired() {
		t.Fatalf("append %d of the review turn did not fail", failAt)
	}
	env.FailAt(0)
	var appended []string
	for _, e := range sess.Events().Range(from, sess.Len()) {
		appended = append(appended, e.Type)
	}
	failed := ""
	if failAt > 0 {
		failed = clean[failAt-1]
	}
	check(t, "after the review turn", sess.Events(), h.c.Get(a), failed, false)

	if end := prompt(t, a, promptNext); end.Reason != host.TurnCompleted {
		t.Fatalf("the turn after the review ended %s: %s", end.Reason, end.Error)
	}
	check(t, "after the next turn", sess.Events(), h.c.Get(a), failed, true)

	// Restart: a new process opens the store and resumes the session.
	h.stop()
	st := env.Reopen()
	h2 := start(t, st, env.Model)
	sess2, err := st.Open(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := h2.rt.NewAgent("", sess2)
	if err != nil {
		t.Fatal(err)
	}
	if end := prompt(t, a2, promptAgain); end.Reason != host.TurnCompleted {
		t.Fatalf("the turn after the restart ended %s: %s", end.Reason, end.Error)
	}
	check(t, "after the restart", sess2.Events(), h2.c.Get(a2), failed, true)
	return appended
}

// check checks the log and the state: the log is a valid transcript (when
// settled: the failed turn itself may leave calls for the next append),
// plan mode was left only after the approval reached the log, and when
// the approval's record failed, plan mode is on, nothing is pending and
// the log says why.
func check(t *testing.T, when string, log host.Log, state planmode.State, failed string, settled bool) {
	t.Helper()
	events := log.Slice()
	if settled {
		if err := TranscriptError(events); err != nil {
			t.Fatalf("%s: %v\n%s", when, err, dump(events))
		}
	}
	approvedAt, leftAt := -1, -1
	var lost bool
	for i, e := range events {
		switch e.Type {
		case host.TypeToolResult:
			var r host.ToolResult
			if err := json.Unmarshal(e.Data, &r); err != nil {
				t.Fatal(err)
			}
			if r.Name != planmode.ExitToolName {
				continue
			}
			if !r.IsError && approvedAt < 0 {
				approvedAt = i
			}
			if r.IsError && strings.Contains(r.Output, "not approved") {
				lost = true
			}
		case planmode.EventPlanMode:
			var p planmode.ModePayload
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			if !p.Active && leftAt < 0 {
				leftAt = i
			}
		}
	}
	if leftAt >= 0 && (approvedAt < 0 || approvedAt > leftAt) {
		t.Fatalf("%s: plan mode was left (event %d) without an approval in the log before it\n%s", when, leftAt, dump(events))
	}
	if (!state.Active || state.Pending != planmode.SelectionNone) && approvedAt < 0 {
		t.Fatalf("%s: state %+v although the log holds no approval\n%s", when, state, dump(events))
	}
	if failed == host.TypeToolResult {
		if approvedAt >= 0 || !state.Active || state.Pending != planmode.SelectionNone {
			t.Fatalf("%s: the approval's record failed, yet state %+v, approved result at %d\n%s", when, state, approvedAt, dump(events))
		}
		if settled && !lost {
			t.Fatalf("%s: the log does not say that the approval was not recorded\n%s", when, dump(events))
		}
	}
}

// TranscriptError says what makes the log an invalid transcript: a tool
// call the model asked for without exactly one "tool/result", or a result
// that answers no earlier call.
func TranscriptError(events []host.Event) error {
	asked := map[string]bool{}
	answered := map[string]int{}
	var order []string
	for _, e := range events {
		switch e.Type {
		case host.TypeAssistantMessage:
			var p host.AssistantMessage
			if err := json.Unmarshal(e.Data, &p); err != nil {
				return err
			}
			for _, c := range p.ToolCalls {
				asked[c.ID] = true
				order = append(order, c.ID)
			}
		case host.TypeToolResult:
			var p host.ToolResult
			if err := json.Unmarshal(e.Data, &p); err != nil {
				return err
			}
			if !asked[p.CallID] {
				return fmt.Errorf("event %d: a result for %q, which no earlier assistant message asked for", e.Seq, p.CallID)
			}
			answered[p.CallID]++
		}
	}
	for _, id := range order {
		if answered[id] != 1 {
			return fmt.Errorf("tool call %q has %d results, want 1", id, answered[id])
		}
	}
	return nil
}

// dump lists the events, one a line, for a failure message.
func dump(events []host.Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %d %s %.160s\n", e.Seq, e.Type, e.Data)
	}
	return b.String()
}
