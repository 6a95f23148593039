package tui_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
)

// fakeBackend records what the UI asked of the agent.
type fakeBackend struct {
	mu        sync.Mutex
	sent      []string
	commands  []string
	cancelled int
	mode      tui.Mode
	sets      []bool
}

func (b *fakeBackend) Send(text string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, text)
	return nil
}

func (b *fakeBackend) Command(line string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.commands = append(b.commands, line)
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
	case <-time.After(200 * time.Millisecond):
		return nil // a tick or a blink: not driven here
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

func (h *harness) view() string { return h.m.View().Content }

func planAsk(id int, plan string) (tui.AskMsg, chan tui.AskResult) {
	reply := make(chan tui.AskResult, 1)
	return tui.AskMsg{ID: id, Reply: reply, Request: host.AskRequest{
		Questions: []host.Question{{ID: planmode.ReviewQuestionID, Header: "Plan review", Question: "Approve?", Detail: plan,
			Options: []host.Option{{Label: planmode.ReviewApprove}, {Label: planmode.ReviewKeepPlanning}}}},
		Intent: &host.Intent{Kind: planmode.ReviewIntentKind, ApproveOption: planmode.ReviewApprove},
	}}, reply
}

func TestReviewKeepPlanningWithPastedFeedback(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n\n1. One.\n")
	h.send(ask)
	h.clock.advance(time.Second)
	h.keys("k")
	h.send(tea.PasteMsg{Content: "More tests.\nAnd docs."})
	h.key(tea.KeyEnter, 0)
	select {
	case r := <-reply:
		want := host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewKeepPlanning}, Custom: "More tests.\nAnd docs."}
		if r.Err != nil || len(r.Answers) != 1 || r.Answers[0].Custom != want.Custom || r.Answers[0].Selected[0] != want.Selected[0] {
			t.Fatalf("reply = %+v", r)
		}
	default:
		t.Fatalf("no reply; view:\n%s", h.view())
	}
}

var _ = errors.Is
var _ = strings.Contains
