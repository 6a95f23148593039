//go:build unix

package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
)

// benchConfig is the program's configuration as planhost sets it.
func benchConfig() tui.Config {
	return tui.Config{Backend: &fakeBackend{}, Mode: tui.Mode{Composed: true}, Sanitize: safetext.Escape,
		Markdown: safetext.Markdown, Rendered: safetext.EscapeExceptSGR}
}

func step(m tea.Model, msg tea.Msg) tea.Model {
	m, _ = m.Update(msg)
	m.View()
	return m
}

// withTranscript is a model at 100 columns by 40 rows showing about n
// lines of the model's answers.
func withTranscript(n int) tea.Model {
	var m tea.Model = tui.New(benchConfig())
	m = step(m, tea.WindowSizeMsg{Width: 100, Height: 40})
	var text strings.Builder
	for i := range 10 {
		fmt.Fprintf(&text, "Line %d of an answer, with a few words to wrap and read.\n", i)
	}
	var items []present.Item
	for range n / 10 {
		items = append(items, present.Item{Kind: present.Assistant, Text: text.String()})
	}
	return step(m, tui.EventsMsg{Items: items, Mode: tui.Mode{Composed: true}, TurnStarted: true})
}

var sizes = []int{100, 2000, 20000}

// BenchmarkStreamChunk is one streamed piece of an answer reaching the
// screen, with n lines of transcript above it: each piece gets a frame of
// its own here (the program gives several pieces one frame).
func BenchmarkStreamChunk(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			m := withTranscript(n)
			b.ResetTimer()
			defer benchcpu.Measure(b)()
			for i := range b.N {
				piece := "word "
				if i%16 == 15 {
					piece = "word\n"
				}
				m = step(m, tui.DeltaMsg{Text: piece})
				m = step(m, tui.FrameForTest())
				if i%500 == 499 {
					m = step(m, tui.EventsMsg{AssistantDone: true, Mode: tui.Mode{Composed: true}})
				}
			}
		})
	}
}

// BenchmarkKeystroke is one key typed on the input line and echoed.
func BenchmarkKeystroke(b *testing.B) {
	for _, n := range append([]int{0}, sizes...) {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			m := withTranscript(n)
			b.ResetTimer()
			defer benchcpu.Measure(b)()
			for i := range b.N {
				if i%40 == 39 {
					m = step(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
					continue
				}
				m = step(m, tea.KeyPressMsg{Code: 'x', Text: "x"})
			}
		})
	}
}

// longPlan is version v of a plan of n lines; a revised plan changes
// every tenth step.
func longPlan(n, v int, revised bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# A long plan, version %d\n\n", v)
	for i := 1; i <= n-2; i++ {
		verb := "Change"
		if revised && i%10 == 0 {
			verb = "Rewrite"
		}
		fmt.Fprintf(&b, "%d. %s `file%d.go` so that step %d does what the plan says.\n", i, verb, i, i)
	}
	return b.String()
}

func reviewOf(id int, plan, previous string) tui.AskMsg {
	return tui.AskMsg{ID: id, Reply: make(chan tui.AskResult, 1), Request: host.AskRequest{Kind: host.AskReview,
		Questions: []host.Question{{ID: e2etest.ReviewQuestionID, Detail: plan, Previous: previous,
			Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}}}}}
}

// BenchmarkRevisedReviewDrawn is the review of a 2,000-line plan opening
// with what changed since the text shown before, drawn in full; each is a
// plan the screen has not shown yet (the transcript did not draw it
// first).
func BenchmarkRevisedReviewDrawn(b *testing.B) {
	m := withTranscript(100)
	defer benchcpu.Measure(b)()
	for i := range b.N {
		m = step(m, reviewOf(i+1, longPlan(2000, i, true), longPlan(2000, i, false)))
		b.StopTimer()
		m = step(m, tui.AskGoneMsg{ID: i + 1})
		b.StartTimer()
	}
}

// BenchmarkReviewPageDown is PgDn (and back up) in the review of a
// 2,000-line plan.
func BenchmarkReviewPageDown(b *testing.B) {
	m := withTranscript(100)
	m = step(m, reviewOf(1, longPlan(2000, 1, false), ""))
	b.ResetTimer()
	defer benchcpu.Measure(b)()
	for i := range b.N {
		code := tea.KeyPgDown
		if i%60 >= 30 {
			code = tea.KeyPgUp
		}
		m = step(m, tea.KeyPressMsg{Code: code})
	}
}

// BenchmarkReviewWaiting is a tick of the spinner reaching the review of
// a 2,000-line plan while it waits for the user during a turn: what one
// would cost, since the UI asks for none while a question waits.
func BenchmarkReviewWaiting(b *testing.B) {
	m := withTranscript(100)
	m = step(m, reviewOf(1, longPlan(2000, 1, false), ""))
	b.ResetTimer()
	defer benchcpu.Measure(b)()
	for range b.N {
		m = step(m, tui.TickForTest(time.Now()))
	}
}
