package tui_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/e2etest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/present"
)

// fakeBackend records what the UI asked of the agent.
type fakeBackend struct {
	mu   sync.Mutex
	sent []string // the messages
	// order is every submission, messages and commands, in the order
	// they reached the backend.
	order     []string
	cancelled int
	mode      tui.Mode
	sets      []bool
}

func (b *fakeBackend) Send(text string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, text)
	b.order = append(b.order, text)
	return nil
}

func (b *fakeBackend) Command(line string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.order = append(b.order, line)
	return "ok", true, nil
}

func (b *fakeBackend) Cancel() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cancelled++
}

func (b *fakeBackend) SetPlan(active bool) (tui.Mode, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sets = append(b.sets, active)
	b.mode.Active = active
	return b.mode, nil
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// harness drives a Model like the program does: messages in, commands run
// at once, their messages fed back.
type harness struct {
	t     *testing.T
	m     tea.Model
	clock *clock
	b     *fakeBackend
	quit  bool
}

func newHarness(t *testing.T, cfg tui.Config) *harness {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := &fakeBackend{mode: tui.Mode{Composed: true}}
	if cfg.Backend == nil {
		cfg.Backend = b
	}
	cfg.Now = c.now
	cfg.Mode = tui.Mode{Composed: true}
	h := &harness{t: t, m: tui.New(cfg), clock: c, b: b}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 30})
	return h
}

// send delivers msg and runs the resulting commands (ticks are dropped).
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		var cmd tea.Cmd
		h.m, cmd = h.m.Update(queue[0])
		h.m.View() // the program draws after every message
		queue = queue[1:]
		queue = append(queue, h.run(cmd)...)
	}
}

func (h *harness) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(80 * time.Millisecond):
		return nil // the spinner's tick (100 ms): not driven here
	}
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, h.run(c)...)
		}
		return out
	case tea.QuitMsg:
		h.quit = true
		return nil
	}
	if _, ok := msg.(interface{ IsDark() bool }); ok {
		return nil
	}
	return []tea.Msg{msg}
}

func (h *harness) keys(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) key(code rune, mod tea.KeyMod) {
	h.t.Helper()
	h.send(tea.KeyPressMsg{Code: code, Mod: mod})
}

// answer lets the quiet keyboard a question waits for pass, then types
// keys.
func (h *harness) answer(keys string) {
	h.t.Helper()
	h.clock.advance(time.Second)
	h.keys(keys)
}

// replied returns the question's answer, which the harness has delivered
// by the time the key that gave it returns.
func (h *harness) replied(reply chan tui.AskResult) tui.AskResult {
	h.t.Helper()
	select {
	case r := <-reply:
		return r
	default:
		h.t.Fatalf("no reply; view:\n%s", h.view())
		return tui.AskResult{}
	}
}

// noReply fails the test if the question was answered: what answered it.
func (h *harness) noReply(reply chan tui.AskResult, what string) {
	h.t.Helper()
	select {
	case r := <-reply:
		h.t.Fatalf("%s: %+v", what, r)
	default:
	}
}

// view is the screen's text, without styles.
func (h *harness) view() string { return ansi.Strip(h.m.View().Content) }

// reviewed is a plan presented to the user, with its review's result
// (none without an outcome).
type reviewed struct {
	plan, output string
	isError      bool
	outcome      planmode.ExitOutcome
}

// planLog is a session's log in which each plan was presented with
// exit_plan_mode, and answered when it has an outcome.
func planLog(t *testing.T, plans ...reviewed) host.Log {
	t.Helper()
	var events []host.Event
	add := func(typ string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, host.Event{Seq: uint64(len(events) + 1), Type: typ, Data: b})
	}
	for i, p := range plans {
		id := strconv.Itoa(i + 1)
		in, _ := json.Marshal(map[string]string{"plan": p.plan})
		add(host.TypeToolCall, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: in})
		if p.outcome != "" {
			add(host.TypeToolResult, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: p.output, IsError: p.isError, Outcome: string(p.outcome)})
		}
	}
	return host.LogOf(events)
}

func planAsk(id int, plan string) (tui.AskMsg, chan tui.AskResult) {
	reply := make(chan tui.AskResult, 1)
	return tui.AskMsg{ID: id, Reply: reply, Request: host.AskRequest{
		Questions: []host.Question{{ID: e2etest.ReviewQuestionID, Header: "Plan review", Question: "Approve?", Detail: plan,
			Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}}},
		Kind: host.AskReview,
	}}, reply
}

func TestReviewKeepPlanningWithPastedFeedback(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n\n1. One.\n")
	h.send(ask)
	h.answer("k")
	h.send(tea.PasteMsg{Content: "More tests.\nAnd docs."})
	h.key(tea.KeyEnter, 0)
	want := host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewKeepPlanning}, Custom: "More tests.\nAnd docs."}
	if r := h.replied(reply); r.Err != nil || len(r.Answers) != 1 || r.Answers[0].Custom != want.Custom || r.Answers[0].Selected[0] != want.Selected[0] {
		t.Fatalf("reply = %+v", r)
	}
}

// TestMain checks for leaked goroutines; the regular expression library of
// the code highlighter keeps a clock goroutine for a while after use.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

func TestShiftTabTogglesAgainstThePendingSwitch(t *testing.T) {
	h := newHarness(t, tui.Config{})
	h.key(tea.KeyTab, tea.ModShift)
	if got := h.b.sets; len(got) != 1 || !got[0] {
		t.Fatalf("sets = %v, want [true]", got)
	}
	if !strings.Contains(h.view(), " plan ") {
		t.Errorf("view lacks the plan badge:\n%s", h.view())
	}
	// A switch pending from plan back to default: the badge shows it, and
	// the next Shift+Tab asks for plan again.
	h.send(tui.EventsMsg{Mode: tui.Mode{Composed: true, Active: true, Pending: planmode.SelectionInactive}})
	if !strings.Contains(h.view(), "plan → default") {
		t.Errorf("view lacks the pending switch:\n%s", h.view())
	}
	h.key(tea.KeyTab, tea.ModShift)
	if got := h.b.sets; len(got) != 2 || !got[1] {
		t.Errorf("sets = %v, want [true true]", got)
	}
}

func TestCtrlCCancelsThenExits(t *testing.T) {
	h := newHarness(t, tui.Config{})
	h.send(tui.EventsMsg{TurnStarted: true, Mode: tui.Mode{Composed: true}})
	h.key('c', tea.ModCtrl)
	if h.b.cancelled != 1 || h.quit {
		t.Fatalf("after one Ctrl-C: cancelled %d, quit %t", h.b.cancelled, h.quit)
	}
	h.clock.advance(3 * time.Second) // too late to count as the second
	h.key('c', tea.ModCtrl)
	if h.quit {
		t.Fatal("a Ctrl-C after the window exited")
	}
	h.key('c', tea.ModCtrl)
	if !h.quit {
		t.Fatal("two Ctrl-C in a row did not exit")
	}
}

func TestEscCancelsOnlyARunningTurn(t *testing.T) {
	h := newHarness(t, tui.Config{})
	h.key(tea.KeyEscape, 0)
	if h.b.cancelled != 0 {
		t.Fatal("Esc cancelled with nothing running")
	}
	h.send(tui.EventsMsg{TurnStarted: true, Mode: tui.Mode{Composed: true}})
	h.key(tea.KeyEscape, 0)
	if h.b.cancelled != 1 {
		t.Fatalf("cancelled %d, want 1", h.b.cancelled)
	}
}

// TestReviewIgnoresKeysTypedAsItAppears protects the review from type-ahead.
func TestReviewIgnoresKeysTypedAsItAppears(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n")
	h.send(ask)
	h.keys("a") // at once: not an answer
	h.noReply(reply, "the key typed as the review appeared answered it")
	h.answer("a")
	r := h.replied(reply)
	if r.Err != nil || r.Answers[0].Selected[0] != e2etest.ReviewApprove {
		t.Fatalf("reply = %+v", r)
	}
}

func TestReviewDismissAndWithdraw(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n")
	h.send(ask)
	h.answer("d")
	if r := h.replied(reply); !errors.Is(r.Err, host.ErrDismissed) {
		t.Fatalf("dismiss reply = %+v", r)
	}
	ask2, _ := planAsk(2, "# Plan\n")
	h.send(ask2)
	h.send(tui.AskGoneMsg{ID: 2})
	if v := h.view(); strings.Contains(v, "What now?") {
		t.Errorf("a withdrawn review is still shown:\n%s", v)
	}
}

func TestEditedPlanIsApprovedAsEdited(t *testing.T) {
	const plan, edited = "# Plan\n\n1. One.\n", "# Plan\n\n1. One.\n2. Two.\n"
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, plan)
	ask.Request.Questions[0].DetailDigest = host.DigestDetail(plan)
	h.send(ask)
	h.send(tui.EditedForTest(edited))
	if v := h.view(); !strings.Contains(v, "+2. Two.") || !strings.Contains(v, "You edited this plan") {
		t.Errorf("the edit is not shown as a diff:\n%s", v)
	}
	h.answer("a")
	r := h.replied(reply)
	want := host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewApprove}, DetailDigest: host.DigestDetail(plan), Edited: edited}
	if len(r.Answers) != 1 || !reflect.DeepEqual(r.Answers[0], want) {
		t.Fatalf("reply = %+v; want %+v (the edit in the answer, the digest of the text shown)", r, want)
	}
}

func TestSanitizeAppliesToStreamedText(t *testing.T) {
	h := newHarness(t, tui.Config{Sanitize: func(s string) string { return strings.ReplaceAll(s, "\x1b", "\\x1b") }})
	h.send(tui.DeltaMsg{Text: "red \x1b[31mtext"})
	if v := h.m.View().Content; strings.Contains(v, "\x1b[31m") || !strings.Contains(v, `\x1b[31mtext`) {
		t.Errorf("view = %q", v)
	}
}

func TestHistoryRecallsEarlierInputs(t *testing.T) {
	var saved []string
	h := newHarness(t, tui.Config{History: []string{"first", "second\nline"}, SaveHistory: func(e string) { saved = append(saved, e) }})
	h.keys("draft")
	h.key(tea.KeyUp, 0)
	if v := h.view(); !strings.Contains(v, "line") {
		t.Fatalf("up did not recall the last input:\n%s", v)
	}
	h.key(tea.KeyUp, 0) // the cursor is on the entry's last line: up moves within it
	h.key(tea.KeyUp, 0)
	if v := h.view(); !strings.Contains(v, "› first") {
		t.Fatalf("up did not recall the first input:\n%s", v)
	}
	h.key(tea.KeyDown, 0)
	h.key(tea.KeyDown, 0)
	h.key(tea.KeyDown, 0)
	if v := h.view(); !strings.Contains(v, "› draft") {
		t.Fatalf("down did not return to the draft:\n%s", v)
	}
	h.key(tea.KeyEnter, 0)
	if len(saved) != 1 || saved[0] != "draft" || len(h.b.sent) != 1 {
		t.Errorf("saved %q, sent %q", saved, h.b.sent)
	}
}

// TestMarkdownHasNoPadding protects wrapped text from the renderer's
// padding: no rendered line ends in spaces.
func TestMarkdownHasNoPadding(t *testing.T) {
	h := newHarness(t, tui.Config{})
	h.send(tui.EventsMsg{Items: []present.Item{{Kind: present.Plan, Title: "Title", Text: "# Title\n\n1. Short.\n2. A longer step that wraps at the width of the terminal when it is narrow.\n"}}, Mode: tui.Mode{Composed: true}})
	h.send(tea.WindowSizeMsg{Width: 40, Height: 30})
	for _, e := range tui.RenderedForTest(h.m) {
		for _, l := range strings.Split(e, "\n") {
			if s := ansi.Strip(l); strings.HasSuffix(s, " ") {
				t.Errorf("line %q is padded", s)
			}
			if w := ansi.StringWidth(l); w > 40 {
				t.Errorf("line %q is %d wide at 40 columns", ansi.Strip(l), w)
			}
		}
	}
}

func TestPlansOfAResumedSessionAreListed(t *testing.T) {
	log := planLog(t,
		reviewed{plan: "# Old plan\n", output: "Error: keep planning", isError: true, outcome: planmode.ExitKeepPlanning},
		reviewed{plan: "# Second plan\n", output: `{"approved":true,"editedByUser":true,"editedPlan":"# Second plan\n\n1. Edited.\n"}`, outcome: planmode.ExitApproved},
		reviewed{plan: "# Unanswered\n"})
	h := newHarness(t, tui.Config{Log: func() host.Log { return log }})
	h.send(tea.KeyPressMsg{Code: '/', Text: "/"})
	h.keys("plans")
	h.key(tea.KeyEnter, 0)
	for _, want := range []string{"1. Old plan — sent back with feedback", "2. Second plan — approved as you edited it", "3. Unanswered — not answered before the session stopped"} {
		if !strings.Contains(h.view(), want) {
			t.Errorf("/plans lacks %q:\n%s", want, h.view())
		}
	}
}

// TestStatusLineShowsTheModel checks that the status line names the model
// that answered the last step once the events name one, keeps it when
// later events name none, and shows none before.
func TestStatusLineShowsTheModel(t *testing.T) {
	h := newHarness(t, tui.Config{})
	if strings.Contains(h.view(), "model ") {
		t.Errorf("view names a model before any step:\n%s", h.view())
	}
	for _, tt := range []struct {
		model, want string
	}{{"planner", "model planner"}, {"", "model planner"}, {"doer", "model doer"}} {
		h.send(tui.EventsMsg{Mode: tui.Mode{Composed: true}, Model: tt.model})
		if !strings.Contains(h.view(), tt.want) {
			t.Errorf("after %q the view lacks %q:\n%s", tt.model, tt.want, h.view())
		}
	}
}

// TestReviewApprovesAndExecutesWithAModel checks the "Approve and execute
// with MODEL" option: its own words with the model's name (escaped), the
// key m, and an answer that selects it with the digest of the text shown.
func TestReviewApprovesAndExecutesWithAModel(t *testing.T) {
	const plan = "# Plan\n\n1. One.\n"
	label := approvewith.Label("doer\x1b[2J")
	h := newHarness(t, tui.Config{Sanitize: func(s string) string { return strings.ReplaceAll(s, "\x1b", "^[") }})
	ask, reply := planAsk(1, plan)
	ask.Request.Questions[0].DetailDigest = host.DigestDetail(plan)
	q := &ask.Request.Questions[0]
	q.Options = append(q.Options[:1:1], append([]host.Option{{Label: label, Role: host.RoleApproveWithModel, Model: "doer\x1b[2J"}}, q.Options[1:]...)...)
	h.send(ask)
	if v := h.view(); !strings.Contains(v, "[m] Approve and execute with doer^[[2J") {
		t.Errorf("the option is not shown with the model's name escaped:\n%s", v)
	}
	h.answer("m")
	r := h.replied(reply)
	want := host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{label}, DetailDigest: host.DigestDetail(plan)}
	if len(r.Answers) != 1 || !reflect.DeepEqual(r.Answers[0], want) {
		t.Fatalf("reply = %+v; want %+v", r, want)
	}
}
