package planmode

import "github.com/dshgo/planmode/internal/planmd"

// Hooks for the external tests of the exit tool and the /plan command.
var (
	HasPlanHeading = planmd.HasTitle
	PlanTitle      = planTitle
	PlanArgs       = planArgs
)

// PlanAction is planAction, for the /plan argument tests.
type PlanAction = planAction

// The /plan actions.
const (
	PlanOn            = planOn
	PlanOnAndSteer    = planOnAndSteer
	PlanOff           = planOff
	PlanOffRefused    = planOffRefused
	PlanReopen        = planReopen
	PlanReopenRefused = planReopenRefused
)

// Texts the tests compare against.
const (
	ExitResult               = exitResult
	TextExitTooLarge         = textExitTooLarge
	TextKeepPlanning         = textKeepPlanning
	TextKeepPlanningFeedback = textKeepPlanningFeedback
	TextFeedbackTooLarge     = textFeedbackTooLarge
	TextReviewDismissed      = textReviewDismissed
	TextReviewReloaded       = textReviewReloaded
	TextReviewFailed         = textReviewFailed
	TextExitNoChannel        = textExitNoChannel

	CardTitleDefault      = cardTitleDefault
	CardTitleApproved     = cardTitleApproved
	CardTitleKeepPlanning = cardTitleKeepPlanning
	CardTitleFailed       = cardTitleFailed
	CardTitleAbandoned    = cardTitleAbandoned
	CardBodyNoFeedback    = cardBodyNoFeedback

	ReplyEntered         = replyEntered
	ReplyEntering        = replyEntering
	ReplyLeft            = replyLeft
	ReplyLeaving         = replyLeaving
	ReplyEntryCancelled  = replyEntryCancelled
	ReplyExitCancelled   = replyExitCancelled
	ReplyAlreadyInactive = replyAlreadyInactive
	ReplyAlreadyActive   = replyAlreadyActive
	ReplyReopened        = replyReopened
	ReplyReopening       = replyReopening
	NoticeReopened       = noticeReopened
	NoticeReopenedFile   = noticeReopenedFile
	ReopenForm           = reopenForm
)
