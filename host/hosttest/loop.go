package hosttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// LoopHarness builds the hosts [TestLoop] runs: an agent host of the
// author's, with plan mode installed, on one store the harness keeps.
type LoopHarness interface {
	// Open builds a host with plan mode installed and configured with
	// cfg.Plan, whose model answers through cfg.Model and whose
	// [host.UserQuestions] (the plan review) are answered by cfg.User,
	// and an agent on the harness's session: created by the first Open,
	// opened again from the store by every later one (a restart, after
	// the previous host's Close). It fails t when the host cannot be
	// built.
	Open(t testing.TB, cfg LoopConfig) LoopHost
}

// LoopConfig is what [TestLoop] asks a [LoopHarness] to build a host with.
type LoopConfig struct {
	// Plan is plan mode's configuration.
	Plan planmode.Config
	// Model stands for the host's model: the host sends it every request
	// with [LoopModel.Reply] and uses the reply as the model's.
	Model *LoopModel
	// User answers every question the host's user-question channel gets.
	User host.UserQuestions
}

// LoopHost is one host a [LoopHarness] built.
type LoopHost interface {
	// Plan returns the plan-mode controller installed in the host.
	Plan() *planmode.Controller
	// Agent returns the agent on the harness's session.
	Agent() host.Agent
	// Validators returns the host's validator registry (its store); the
	// suite adds a validator there to make one append fail.
	Validators() host.Validators
	// Send gives the agent a user message and returns once the turn it
	// starts has ended. When ctx is done first, the host cancels the turn
	// and Send returns once it has ended. A turn that ends with an error
	// is not an error of Send.
	Send(ctx context.Context, text string) error
	// Close stops the host and its plan mode and releases the session;
	// the session stays in the store for the next Open.
	Close() error
}

// LoopCommander is implemented by a [LoopHost] whose host runs slash
// commands ([host.Commands]); [TestLoop] then checks that a "/plan" run
// is rebuilt from the log after a restart.
type LoopCommander interface {
	// Command runs a command line such as "/plan" for the agent, as the
	// host's front end does.
	Command(ctx context.Context, line string) error
}

// LoopRequest is what [TestLoop] reads of one request the host sent to
// its model.
type LoopRequest struct {
	// System is the system prompt.
	System string
	// Tools names the tools offered.
	Tools []string
	// Messages holds the text of each transcript message, in order: user
	// text, assistant text, tool results.
	Messages []string
}

// LoopReply is one reply of the scripted model: text, tool calls or both.
type LoopReply struct {
	Text      string
	ToolCalls []host.ToolCall
}

// LoopModel is the scripted model of [TestLoop]. The host's model calls
// [LoopModel.Reply] for every request. It is safe for concurrent use.
type LoopModel struct {
	mu    sync.Mutex
	queue []loopStep
	reqs  []LoopRequest
}

// loopStep is one queued answer; do runs when its request arrives.
type loopStep struct {
	reply LoopReply
	err   error
	do    func()
}

// Reply records req and answers it with the next reply the suite queued,
// or with text alone when none is queued. An error is a request error:
// the host may retry the step or end the turn.
func (m *LoopModel) Reply(ctx context.Context, req LoopRequest) (LoopReply, error) {
	if err := ctx.Err(); err != nil {
		return LoopReply{}, err
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	s := loopStep{reply: LoopReply{Text: loopDone}}
	if len(m.queue) > 0 {
		s, m.queue = m.queue[0], m.queue[1:]
	}
	m.mu.Unlock()
	if s.do != nil {
		s.do()
	}
	return s.reply, s.err
}

func (m *LoopModel) add(steps ...loopStep) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue = append(m.queue, steps...)
}

// since returns the requests from the nth on.
func (m *LoopModel) since(n int) []LoopRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]LoopRequest(nil), m.reqs[min(n, len(m.reqs)):]...)
}

func (m *LoopModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

// TestLoop checks that the hosts newHarness builds run plan mode as the
// contracts in docs/host.md ("Contract points that are easy to miss")
// describe: a whole round trip of entering plan mode, presenting a plan,
// keeping planning, approving, the default mode at the next step, a
// restart, a failed append during the review and a cancellation. Each
// rule is one named subtest whose failure names the rule and what the log
// held instead; every subtest gets a fresh harness, which should release
// what it holds with t.Cleanup. A host's own test is one call:
//
//	func TestLoop(t *testing.T) {
//		hosttest.TestLoop(t, func(t testing.TB) hosttest.LoopHarness { return newHarness(t) })
//	}
func TestLoop(t *testing.T, newHarness func(t testing.TB) LoopHarness) {
	t.Helper()
	for _, c := range loopCases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if h == nil {
				t.Fatal("newHarness returned nil")
			}
			r := &loopRun{t: t, h: h, model: &LoopModel{}, user: &loopUser{}}
			r.open()
			t.Cleanup(r.close)
			c.run(r)
			r.checkClosed()
		})
	}
}

// The rules, as docs/host.md states them; a failure names its rule.
const (
	ruleHeader    = "log a request/header whose sections list the sections that rendered text"
	ruleToolLog   = "log tool/call before the tool runs and tool/result after it, with name and isError"
	ruleApproval  = "an approval counts only once its tool/result is in the log and synced"
	ruleSource    = "log the messages of a pre-step decision with the Source given"
	rulePreStep   = "run the pre-step chain for every step (first request, continuation, retry), plan mode outermost"
	ruleOneResult = "every tool call gets exactly one tool/result, even when an append fails"
	ruleTurns     = "append turn/start and turn/end around every turn"
	ruleCoreTypes = "declare the core event types (host.CoreEventTypes)"
	ruleCommand   = "log command/run with the raw arguments before the handler and command/done with ok after it"
	ruleCancel    = "cancelling a turn cancels the running tool's context and answers its call"
	ruleResume    = "a reopened session goes on from its log"
)

// Texts the suite plays.
const (
	loopPolicy   = "hosttest: plan before you change anything."
	loopPlan     = "# Fix the loop\n\n1. Write a failing test.\n2. Fix it."
	loopDone     = "hosttest: done."
	loopFeedback = "hosttest: split step 2 in two."
	loopCallID   = "hosttest-call-1"
	loopWait     = 30 * time.Second // bounds a turn
)

type loopCase struct {
	name string
	run  func(r *loopRun)
}

var loopCases = []loopCase{
	{"entering plan mode puts plan:policy in the next request", func(r *loopRun) {
		r.enter()
		reqs := r.send("Plan a fix.")
		r.wantPolicy(reqs, 0, true, "after Set(true) while idle")
		if !slices.Contains(reqs[0].Tools, planmode.ExitToolName) {
			r.t.Errorf("the request offers tools %q, without %s: it must be registered through host.Tools", reqs[0].Tools, planmode.ExitToolName)
		}
		if h, ok := r.lastHeader(); !ok || !slices.Contains(h.Sections, planmode.SectionName) {
			r.t.Errorf("rule %q: the last request/header is %+v (found %v), want its sections to hold %s; the log: %s",
				ruleHeader, h, ok, planmode.SectionName, r.summary())
		}
	}},
	{"tool/call is logged before the tool runs and tool/result after", func(r *loopRun) {
		r.enter()
		var (
			during  host.Log
			invoked bool
		)
		r.user.add(func(req host.AskRequest) ([]host.Answer, error) {
			during, invoked = r.events(), true
			return answer(req, host.RoleApprove, "")
		})
		r.model.add(loopStep{reply: exitCall()})
		r.send("Present your plan.")
		if !invoked {
			r.t.Fatalf("the plan was never reviewed: the exit tool did not ask through host.UserQuestions; the log: %s", r.summary())
		}
		if callAt(during, loopCallID) < 0 || resultAt(during, loopCallID) >= 0 {
			r.t.Errorf("rule %q: while the tool ran the log held tool/call %v and tool/result %v for the call, want the call and no result yet; the log then: %s",
				ruleToolLog, callAt(during, loopCallID) >= 0, resultAt(during, loopCallID) >= 0, summarize(during))
		}
		res, ok := r.result(loopCallID)
		if !ok || res.Name != planmode.ExitToolName || res.IsError {
			r.t.Errorf("rule %q: the call's tool/result is %+v (found %v), want name %s and isError false; the log: %s",
				ruleToolLog, res, ok, planmode.ExitToolName, r.summary())
		}
	}},
	{"an approved exit leaves plan mode at the next step", func(r *loopRun) {
		r.enter()
		r.user.add(func(req host.AskRequest) ([]host.Answer, error) { return answer(req, host.RoleApprove, "") })
		r.model.add(loopStep{reply: exitCall()})
		reqs := r.send("Present your plan.")
		if len(reqs) < 2 {
			r.t.Fatalf("rule %q: the turn made %d requests, want a continuation after the tool result; the log: %s", rulePreStep, len(reqs), r.summary())
		}
		if strings.Contains(reqs[1].System, loopPolicy) {
			why := "the log holds the approved result, so the pre-step did not run for the continuation"
			rule := rulePreStep
			if res, ok := r.result(loopCallID); !ok || res.IsError {
				why, rule = fmt.Sprintf("the log holds no approved tool/result for the call (found %v)", ok), ruleApproval
			}
			r.t.Errorf("rule %q: the request after the approval still has plan:policy: %s; the log: %s", rule, why, r.summary())
		}
		if st := r.host.Plan().Get(r.host.Agent()); st.Active || st.Pending != planmode.SelectionNone {
			r.t.Errorf("rule %q: after the turn Get = %+v, want the default mode with nothing pending; the log: %s", ruleApproval, st, r.summary())
		}
		if i := r.noticeAfter(0); i >= 0 {
			r.t.Errorf("an approved exit records no notice, but the log holds one at index %d: %s", i, r.summary())
		}
	}},
	{"keeping planning sends the feedback to the model and plan mode stays on", func(r *loopRun) {
		r.enter()
		r.user.add(func(req host.AskRequest) ([]host.Answer, error) {
			return answer(req, host.RoleKeepPlanning, loopFeedback)
		})
		r.model.add(loopStep{reply: exitCall()})
		reqs := r.send("Present your plan.")
		if len(reqs) < 2 {
			r.t.Fatalf("rule %q: the turn made %d requests, want a continuation after the tool result; the log: %s", rulePreStep, len(reqs), r.summary())
		}
		r.wantPolicy(reqs, 1, true, "after the user kept planning")
		if !anyContains(reqs[1].Messages, loopFeedback) {
			r.t.Errorf("rule %q: the request after the review lacks the user's feedback %q (tool/result is transcript); its messages: %q",
				ruleCoreTypes, loopFeedback, reqs[1].Messages)
		}
		if res, ok := r.result(loopCallID); !ok || !res.IsError {
			r.t.Errorf("rule %q: the call's tool/result is %+v (found %v), want isError true; the log: %s", ruleToolLog, res, ok, r.summary())
		}
	}},
	{"a notice is logged with the Source given and reaches the model", func(r *loopRun) {
		r.model.add(loopStep{reply: exitCall(), do: func() { r.set(true, planmode.Queued) }})
		reqs := r.send("Look around first.")
		if len(reqs) < 2 {
			r.t.Fatalf("rule %q: the turn made %d requests, want a continuation after the tool result; the log: %s", rulePreStep, len(reqs), r.summary())
		}
		r.wantPolicy(reqs, 1, true, "after Set(true) queued plan mode during the turn")
		i := r.noticeAfter(0)
		if i < 0 {
			r.t.Fatalf("rule %q: no user/message with source {plugin %s notice} after plan/mode; the log: %s", ruleSource, planmode.PluginName, r.summary())
		}
		var msg host.UserMessage
		decodeEvent(r.events().At(i), &msg)
		if len(msg.Content) == 0 || !anyContains(reqs[1].Messages, msg.Content[0].Text) {
			r.t.Errorf("rule %q: the notice %q is not in the next request's messages %q", ruleCoreTypes, msg.Content, reqs[1].Messages)
		}
	}},
	{"the pre-step chain runs for retries too", func(r *loopRun) {
		r.enter()
		r.model.add(loopStep{err: errors.New("hosttest: the model is overloaded"), do: func() { r.set(false, planmode.Queued) }})
		reqs := r.send("Plan a fix.")
		if len(reqs) < 2 {
			r.t.Logf("the host made no retry after a request error (%d requests): nothing to check", len(reqs))
			return
		}
		if strings.Contains(reqs[1].System, loopPolicy) {
			r.t.Errorf("rule %q: the retry still has plan:policy after Set(false) queued the default mode during the failed request; the log: %s",
				rulePreStep, r.summary())
		}
	}},
	{"transcript events reach the model across turns", func(r *loopRun) {
		r.model.add(loopStep{reply: LoopReply{Text: "hosttest: first answer."}})
		r.send("hosttest: first question.")
		reqs := r.send("hosttest: second question.")
		for _, want := range []string{"hosttest: first question.", "hosttest: first answer.", "hosttest: second question."} {
			if !anyContains(reqs[0].Messages, want) {
				r.t.Errorf("rule %q: the second turn's request lacks %q; its messages: %q", ruleCoreTypes, want, reqs[0].Messages)
			}
		}
	}},
	{"a failed tool/result append still gets one result and plan mode stays on", func(r *loopRun) {
		r.enter()
		var mu sync.Mutex
		refused := false
		unregister, err := r.host.Validators().AddValidator("hosttest-refuse-result", func(e host.Event) error {
			mu.Lock()
			defer mu.Unlock()
			var res host.ToolResult
			if e.Type != host.TypeToolResult || decodeEvent(e, &res) != nil || res.CallID != loopCallID || refused {
				return nil
			}
			refused = true
			return errors.New("hosttest: this append fails")
		})
		if err != nil {
			r.t.Fatalf("AddValidator: %v", err)
		}
		r.t.Cleanup(unregister)
		r.user.add(func(req host.AskRequest) ([]host.Answer, error) { return answer(req, host.RoleApprove, "") })
		r.model.add(loopStep{reply: exitCall()})
		r.send("Present your plan.")
		if st := r.host.Plan().Get(r.host.Agent()); !st.Active || st.Pending == planmode.SelectionInactive {
			r.t.Errorf("rule %q: after the approved result could not be written Get = %+v, want plan mode on with nothing pending: tell the tool (host.ResultLossHandler); the log: %s",
				ruleApproval, st, r.summary())
		}
		reqs := r.send("Go on.")
		r.wantPolicy(reqs, 0, true, "after the approved result could not be written")
		if res, ok := r.result(loopCallID); !ok || !res.IsError {
			r.t.Errorf("rule %q: the call's tool/result is %+v (found %v), want one is-error result written on a later append; the log: %s",
				ruleOneResult, res, ok, r.summary())
		}
	}},
	{"cancelling the turn during the review answers the call and plan mode stays on", func(r *loopRun) {
		r.enter()
		ctx, cancel := context.WithTimeout(context.Background(), loopWait)
		defer cancel()
		reached := false
		r.user.ask = func(actx context.Context) error {
			cancel()
			select {
			case <-actx.Done():
				reached = true
				return fmt.Errorf("%w: %w", host.ErrAborted, actx.Err())
			case <-time.After(loopWait / 3):
				return host.ErrAborted
			}
		}
		r.model.add(loopStep{reply: exitCall()})
		r.sendCtx(ctx, "Present your plan.")
		if !reached {
			r.t.Errorf("rule %q: the review's context was not cancelled with the turn; the log: %s", ruleCancel, r.summary())
		}
		if res, ok := r.result(loopCallID); !ok || !res.IsError {
			r.t.Errorf("rule %q: the cancelled call's tool/result is %+v (found %v), want an is-error result; the log: %s", ruleCancel, res, ok, r.summary())
		}
		if st := r.host.Plan().Get(r.host.Agent()); !st.Active || st.Pending != planmode.SelectionNone {
			r.t.Errorf("rule %q: after the cancelled review Get = %+v, want plan mode on with nothing pending; the log: %s", ruleCancel, st, r.summary())
		}
		r.wantPolicy(r.send("Go on."), 0, true, "after the cancelled review")
	}},
	{"a restart keeps plan mode and an approval after it leaves it", func(r *loopRun) {
		r.enter()
		r.send("Plan a fix.")
		r.restart()
		if st := r.host.Plan().Get(r.host.Agent()); !st.Active {
			r.t.Fatalf("rule %q: after the restart Get = %+v, want plan mode on; the log: %s", ruleResume, st, r.summary())
		}
		n := r.events().Len()
		r.user.add(func(req host.AskRequest) ([]host.Answer, error) { return answer(req, host.RoleApprove, "") })
		r.model.add(loopStep{reply: exitCall()})
		reqs := r.send("Present your plan.")
		r.wantPolicy(reqs, 0, true, "after the restart")
		if !r.headerAfter(n, planmode.SectionName) {
			r.t.Errorf("rule %q: no request/header after the restart lists %s; the log: %s", ruleHeader, planmode.SectionName, r.summary())
		}
		if len(reqs) < 2 || strings.Contains(reqs[1].System, loopPolicy) {
			r.t.Errorf("rule %q: after the approval following the restart, %d requests, want a continuation without plan:policy; the log: %s",
				ruleApproval, len(reqs), r.summary())
		}
	}},
	{"a /plan run during a turn is rebuilt from the log after a restart", func(r *loopRun) {
		cmd, ok := r.host.(LoopCommander)
		if !ok {
			r.t.Skip("the host runs no commands: its LoopHost does not implement LoopCommander")
		}
		r.model.add(loopStep{reply: LoopReply{Text: loopDone}, do: func() {
			ctx, cancel := context.WithTimeout(context.Background(), loopWait)
			defer cancel()
			if err := cmd.Command(ctx, "/"+planmode.CommandName); err != nil {
				r.t.Errorf("Command(/plan): %v", err)
			}
		}})
		r.send("Answer briefly.")
		if !r.commandLogged(planmode.CommandName) {
			r.t.Errorf("rule %q: the log holds no command/run named %s followed by its command/done with ok; the log: %s",
				ruleCommand, planmode.CommandName, r.summary())
		}
		r.restart()
		st := r.host.Plan().Get(r.host.Agent())
		if !st.Active && st.Pending != planmode.SelectionActive {
			r.t.Errorf("rule %q: after the restart Get = %+v, want plan mode on or pending from the logged /plan run; the log: %s",
				ruleCommand, st, r.summary())
		}
		r.wantPolicy(r.send("Plan a fix."), 0, true, "after the restart that followed /plan")
	}},
}

// loopRun is one subtest's host, model and user.
type loopRun struct {
	t     *testing.T
	h     LoopHarness
	model *LoopModel
	user  *loopUser
	host  LoopHost // nil once closed
}

func (r *loopRun) open() {
	r.host = r.h.Open(r.t, LoopConfig{Plan: planmode.Config{Section: loopPolicy}, Model: r.model, User: r.user})
	if r.host == nil {
		r.t.Fatal("Open returned nil")
	}
}

func (r *loopRun) close() {
	if r.host == nil {
		return
	}
	if err := r.host.Close(); err != nil {
		r.t.Errorf("Close: %v", err)
	}
	r.host = nil
}

func (r *loopRun) restart() {
	r.close()
	r.open()
	if r.events().Len() == 0 {
		r.t.Fatalf("rule %q: the session reopened empty", ruleResume)
	}
}

func (r *loopRun) events() host.Log { return r.host.Agent().Session().Events() }

func (r *loopRun) summary() string { return summarize(r.events()) }

// set calls Set and checks its outcome.
func (r *loopRun) set(active bool, want planmode.Outcome) {
	got, err := r.host.Plan().Set(r.host.Agent(), active)
	if err != nil || got != want {
		r.t.Errorf("rule %q: Set(%v) = %v, %v, want %v (the turn events are the idle signal); the log: %s",
			ruleTurns, active, got, err, want, r.summary())
	}
}

func (r *loopRun) enter() {
	r.set(true, planmode.Committed)
	if r.t.Failed() {
		r.t.FailNow()
	}
}

// send runs one turn and returns the requests the host made in it.
func (r *loopRun) send(text string) []LoopRequest {
	ctx, cancel := context.WithTimeout(context.Background(), loopWait)
	defer cancel()
	return r.sendCtx(ctx, text)
}

func (r *loopRun) sendCtx(ctx context.Context, text string) []LoopRequest {
	r.t.Helper()
	n := r.model.count()
	if err := r.host.Send(ctx, text); err != nil && ctx.Err() == nil {
		r.t.Fatalf("Send(%q): %v", text, err)
	}
	reqs := r.model.since(n)
	if len(reqs) == 0 && ctx.Err() == nil {
		r.t.Fatalf("Send(%q) made no model request; the log: %s", text, r.summary())
	}
	return reqs
}

// wantPolicy checks whether request i has plan mode's section text.
func (r *loopRun) wantPolicy(reqs []LoopRequest, i int, want bool, when string) {
	r.t.Helper()
	if i >= len(reqs) {
		r.t.Fatalf("%s: the host made %d requests, want at least %d; the log: %s", when, len(reqs), i+1, r.summary())
	}
	if got := strings.Contains(reqs[i].System, loopPolicy); got != want {
		r.t.Errorf("rule %q: %s, request %d has plan:policy %v, want %v; the log: %s", rulePreStep, when, i+1, got, want, r.summary())
	}
}

func (r *loopRun) result(callID string) (host.ToolResult, bool) {
	ev := r.events()
	var res host.ToolResult
	i := resultAt(ev, callID)
	if i < 0 {
		return res, false
	}
	decodeEvent(ev.At(i), &res)
	return res, true
}

func (r *loopRun) lastHeader() (host.RequestHeader, bool) {
	var h host.RequestHeader
	for _, e := range r.events().Backward(r.events().Len()) {
		if e.Type == host.TypeRequestHeader {
			return h, decodeEvent(e, &h) == nil
		}
	}
	return h, false
}

// headerAfter reports whether a request/header from index from on lists
// section.
func (r *loopRun) headerAfter(from int, section string) bool {
	for _, e := range r.events().Range(from, r.events().Len()) {
		var h host.RequestHeader
		if e.Type == host.TypeRequestHeader && decodeEvent(e, &h) == nil && slices.Contains(h.Sections, section) {
			return true
		}
	}
	return false
}

// noticeAfter returns the index of plan mode's first notice from index
// from on, -1 when there is none.
func (r *loopRun) noticeAfter(from int) int {
	ev := r.events()
	for i := from; i < ev.Len(); i++ {
		e := ev.At(i)
		if e.Type == host.TypeUserMessage && e.Source != nil && e.Source.Kind == host.SourcePlugin &&
			e.Source.Plugin == planmode.PluginName && e.Source.Form == "notice" {
			return i
		}
	}
	return -1
}

// commandLogged reports whether the log holds a command/run named name
// and, after it, the command/done of the same run with ok.
func (r *loopRun) commandLogged(name string) bool {
	ev := r.events()
	id := ""
	for _, e := range ev.All() {
		var run host.CommandRun
		var done host.CommandDone
		switch {
		case e.Type == host.TypeCommandRun && decodeEvent(e, &run) == nil && run.Name == name:
			id = run.ID
		case e.Type == host.TypeCommandDone && decodeEvent(e, &done) == nil && id != "" && done.ID == id && done.OK:
			return true
		}
	}
	return false
}

// checkClosed checks what every subtest's log must hold at its end: one
// result per call the model asked for (in an assistant/message) or the
// host logged, after it, and a turn/end for every turn/start.
func (r *loopRun) checkClosed() {
	if r.host == nil {
		return
	}
	ev := r.events()
	open := false
	calls := map[string]int{}
	for _, e := range ev.All() {
		switch e.Type {
		case host.TypeTurnStart:
			open = true
		case host.TypeTurnEnd:
			open = false
		case host.TypeAssistantMessage:
			var m host.AssistantMessage
			decodeEvent(e, &m)
			for _, c := range m.ToolCalls {
				if _, ok := calls[c.ID]; !ok {
					calls[c.ID] = 0
				}
			}
		case host.TypeToolCall:
			var c host.ToolCall
			decodeEvent(e, &c)
			calls[c.ID] = 0
		case host.TypeToolResult:
			var res host.ToolResult
			decodeEvent(e, &res)
			if n, ok := calls[res.CallID]; ok {
				calls[res.CallID] = n + 1
			}
		}
	}
	if open {
		r.t.Errorf("rule %q: the log ends inside a turn; the log: %s", ruleTurns, summarize(ev))
	}
	for id, n := range calls {
		if n != 1 {
			r.t.Errorf("rule %q: tool call %q has %d tool/result events after it, want 1; the log: %s", ruleOneResult, id, n, summarize(ev))
		}
	}
}

// loopUser is the user of [TestLoop]: it answers each question with the
// next queued answer, or fails it when none is queued.
type loopUser struct {
	mu      sync.Mutex
	answers []func(host.AskRequest) ([]host.Answer, error)
	ask     func(ctx context.Context) error // when set, replaces the answers
}

func (u *loopUser) add(f func(host.AskRequest) ([]host.Answer, error)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.answers = append(u.answers, f)
}

// Ask implements [host.UserQuestions].
func (u *loopUser) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	u.mu.Lock()
	ask := u.ask
	var f func(host.AskRequest) ([]host.Answer, error)
	if len(u.answers) > 0 {
		f, u.answers = u.answers[0], u.answers[1:]
	}
	u.mu.Unlock()
	switch {
	case ask != nil:
		return nil, ask(ctx)
	case f == nil:
		return nil, fmt.Errorf("%w: hosttest: no answer queued for %s", host.ErrDismissed, req.Purpose)
	}
	return f(req)
}

// answer selects the option of the review's first question whose role is
// role, never by its label text; custom is the user's words.
func answer(req host.AskRequest, role host.Role, custom string) ([]host.Answer, error) {
	if req.Kind != host.AskReview || len(req.Questions) == 0 {
		return nil, fmt.Errorf("%w: hosttest: want a plan review, got kind %v", host.ErrDismissed, req.Kind)
	}
	q := req.Questions[0]
	for _, o := range q.Options {
		if o.Role == role {
			return []host.Answer{{QuestionID: q.ID, Selected: []string{o.Label}, Custom: custom}}, nil
		}
	}
	return nil, fmt.Errorf("%w: hosttest: the review offers no option of role %v", host.ErrDismissed, role)
}

func exitCall() LoopReply {
	in, _ := json.Marshal(map[string]string{"plan": loopPlan})
	return LoopReply{ToolCalls: []host.ToolCall{{ID: loopCallID, Name: planmode.ExitToolName, Input: in}}}
}

// callAt and resultAt return the index of the call's tool/call or first
// tool/result, -1 when the log has none.
func callAt(ev host.Log, id string) int {
	return findEvent(ev, host.TypeToolCall, func(e host.Event) bool {
		var c host.ToolCall
		return decodeEvent(e, &c) == nil && c.ID == id
	})
}

func resultAt(ev host.Log, id string) int {
	return findEvent(ev, host.TypeToolResult, func(e host.Event) bool {
		var res host.ToolResult
		return decodeEvent(e, &res) == nil && res.CallID == id
	})
}

func findEvent(ev host.Log, typ string, match func(host.Event) bool) int {
	for i, e := range ev.All() {
		if e.Type == typ && match(e) {
			return i
		}
	}
	return -1
}

// summarize lists a log's events by type, with the call ID of tool events
// and the source of user messages: what the log held, for a failure.
func summarize(ev host.Log) string {
	var b strings.Builder
	for i, e := range ev.All() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Type)
		var c struct {
			ID     string `json:"id"`
			CallID string `json:"callId"`
			Active *bool  `json:"active"`
		}
		_ = decodeEvent(e, &c)
		switch {
		case c.ID != "" && e.Type == host.TypeToolCall:
			fmt.Fprintf(&b, "(%s)", c.ID)
		case c.CallID != "":
			fmt.Fprintf(&b, "(%s)", c.CallID)
		case c.Active != nil:
			fmt.Fprintf(&b, "(%v)", *c.Active)
		case e.Source != nil:
			fmt.Fprintf(&b, "(%s %s %s)", e.Source.Kind, e.Source.Plugin, e.Source.Form)
		}
	}
	return b.String()
}

// decodeEvent reads an event's payload into v.
func decodeEvent(e host.Event, v any) error { return json.Unmarshal(e.Data, v) }

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if sub != "" && strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
