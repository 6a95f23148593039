package planmode

import (
	"fmt"

	"github.com/dshgo/planmode/host"
)

// QueueExit is the hook the exit tool uses to record an approved exit,
// exposed to the external tests.
var QueueExit = (*Controller).queueExit

// Test-only views of the folds the controller keeps per session.
var (
	FoldHeaderMode   = foldHeaderMode
	SelectionForArgs = selectionForArgs
)

// HeaderMode is headerMode, for the fold tests.
type HeaderMode = headerMode

// The header modes.
const (
	HeaderUnknown  = headerUnknown
	HeaderActive   = headerActive
	HeaderInactive = headerInactive
)

// ServedSessions counts the sessions the running controller keeps state
// for; 0 when it is stopped.
func ServedSessions(c *Controller) int {
	r := c.run.Load()
	if r == nil {
		return 0
	}
	return r.count()
}

// MentionsExitTool is the exit-tool filter of the folds.
var MentionsExitTool = mentionsExitTool

// FoldViews folds events into two views and returns them printed: one
// event at a time, as the session subscription does (skipping those that
// change nothing), and events[:split] in one pass (as the controller's
// first sight and Project do) followed by the rest one at a time. The two
// must be equal.
func FoldViews(events []host.Event, split int) (stepwise, bulk string) {
	var s, b view
	for i := range events {
		if k, ok := foldKind(&events[i]); ok {
			s.apply(&events[i], k)
		}
	}
	b.applyAll(host.LogOf(events[:split]))
	for i := split; i < len(events); i++ {
		if k, ok := foldKind(&events[i]); ok {
			b.apply(&events[i], k)
		}
	}
	// The count of events folded lags behind skipped ones at the end (Get
	// scans those); the positions the views record do not.
	s.n, b.n = uint64(len(events)), uint64(len(events))
	return fmt.Sprintf("%+v", s), fmt.Sprintf("%+v", b)
}

// Names the plugin keeps to itself, for the tests.
const (
	NoticeForm      = noticeForm
	NoticeEntered   = noticeEntered
	NoticeLeft      = noticeLeft
	MaxFeedbackSize = maxFeedbackSize
	MaxReviewAsks   = maxReviewAsks
	MaxPlanSize     = maxPlanSize
	MaxSectionLen   = maxSectionLen
)

// DecodeConfig is the plugin's configuration decoder.
var DecodeConfig = decodeConfig

// HoldFold takes the lock the controller's fold of sess holds while it
// applies an event, as if an append's fold were in progress, until release
// is called. It returns false when the controller does not serve sess.
func HoldFold(c *Controller, sess host.Session) (release func(), ok bool) {
	r := c.run.Load()
	if r == nil {
		return nil, false
	}
	st, ok := r.lookup(sess)
	if !ok {
		return nil, false
	}
	st.vmu.Lock()
	return st.vmu.Unlock, true
}

// Unfolded returns how many events of sess come after the last one the
// controller's state counts as folded (what Get may scan), and false when
// the controller does not serve sess.
func Unfolded(c *Controller, sess host.Session) (int, bool) {
	r := c.run.Load()
	if r == nil {
		return 0, false
	}
	st, ok := r.lookup(sess)
	if !ok {
		return 0, false
	}
	return sess.Len() - int(st.folded.Load()), true
}

// MaxUnfolded bounds Unfolded.
const MaxUnfolded = maxUnfolded

// The plan review's question ID and its own options' labels, for the
// tests that answer reviews.
const (
	ReviewQuestionID   = reviewQuestionID
	ReviewApprove      = reviewApprove
	ReviewKeepPlanning = reviewKeepPlanning
	ReviewPurpose      = reviewPurpose
)
