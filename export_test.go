package planmode

import "github.com/dshgo/planmode/host"

// QueueExit records an approved exit for the agent, as the exit tool does.
func QueueExit(c *Controller, agent host.Agent) error {
	st, err := c.state(agent)
	if err != nil {
		return err
	}
	return st.queueExit()
}

// SelectionForArgs is what "/plan" selects for its raw argument text.
var SelectionForArgs = selectionForArgs

// FoldHeaderMode returns the state described by the last "request/header"
// in the first end events, as the controller's fold keeps it: active when
// its sections include SectionName. A header whose payload does not decode
// is skipped.
func FoldHeaderMode(events host.Log, end int) HeaderMode {
	for _, e := range events.Backward(end) {
		if e.Type != host.TypeRequestHeader {
			continue
		}
		if h, ok := decodeHeader(e.Data); ok {
			return h
		}
	}
	return SelectionNone
}

// HeaderMode is what a request header described: the state it showed,
// SelectionNone for no header.
type HeaderMode = Selection

// The header modes.
const (
	HeaderUnknown  = SelectionNone
	HeaderActive   = SelectionActive
	HeaderInactive = SelectionInactive
)

// ServedSessions counts the sessions the running controller keeps state
// for; 0 when it is stopped.
func ServedSessions(c *Controller) int {
	r := c.current()
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions)
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

// The plan review's question ID and its own options' labels, for the
// tests that answer reviews.
const (
	ReviewQuestionID   = reviewQuestionID
	ReviewApprove      = reviewApprove
	ReviewKeepPlanning = reviewKeepPlanning
	ReviewPurpose      = reviewPurpose
)

// The errors the plugin keeps to itself, under the names the tests use;
// the *Error targets match by code.
var (
	ErrExitNoAgent       = errExitNoAgent
	ErrExitNotPlanMode   = errExitNotPlanMode
	ErrExitBadInput      = badInput("")
	ErrExitNoHeading     = errExitNoHeading
	ErrExitNoChannel     = errExitNoChannel
	ErrExitTooLarge      = &Error{Code: "too-large"}
	ErrExitDecided       = errExitDecided
	ErrExitReviewOpen    = errExitReviewOpen
	ErrReviewReloaded    = errReviewReloaded
	ErrReviewFailed      = &Error{Code: "review-failed"}
	ErrPlanChanging      = errPlanChanging
	ErrEditNotTaken      = errEditNotTaken
	ErrOffWithImages     = errOffWithImages
	ErrSteerFailed       = &Error{Code: "steer-failed"}
	ErrNoSuchPlan        = noSuchPlan("", 0)
	ErrPlanNotLogged     = planNotLogged(0, 0)
	ErrNoApprovedPlan    = errNoApprovedPlan
	ErrReopenWithImages  = errReopenWithImages
	ErrReopenFailed      = &Error{Code: "reopen-failed"}
	ErrAlreadyRunning    = errAlreadyRunning
	ErrMissingDependency = errMissingDependency
	ErrBadExtension      = errBadExtension
)

// Texts, schemas and names the plugin keeps to itself, for the tests.
const (
	ExitToolDescription = exitToolDescription
	CommandDescription  = commandDescription
	CommandHint         = commandHint
	CommandArgOff       = commandArgOff
	ExitInputSchema     = exitInputSchema
	ExitOutputSchema    = exitOutputSchema
	CardKindPlan        = cardKindPlan
	CardKindReview      = cardKindReview
)

// ModuleWith is the plugin's fx module with cfg supplied privately.
var ModuleWith = moduleWith
