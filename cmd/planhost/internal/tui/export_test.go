package tui

import (
	"strings"
	"time"
)

// EditedForTest is the message the editor's end sends with the saved text.
func EditedForTest(text string) any { return editedMsg{text: text} }

// EditFailedForTest is the message of an editor that failed.
func EditFailedForTest(err error) any { return editedMsg{err: err} }

// RenderedForTest returns the lines of the whole transcript, as rendered.
func RenderedForTest(m any) []string {
	mm := m.(Model)
	return mm.tr.window(0, mm.tr.total())
}

// ReviewBodyForTest returns the whole of what the page shows of the
// review open in m, at width.
func ReviewBodyForTest(m any, width int) string {
	mm := m.(Model)
	return strings.Join(mm.reviewBody(width), "\n")
}

// TickForTest is the spinner's tick at now; FrameForTest the frame that
// shows the streamed text.
func TickForTest(now time.Time) any { return tickMsg{now: now} }
func FrameForTest() any             { return frameMsg{} }
