// Package planreview is the plan-review companion of the plan-mode plugin:
// richer answers to the plan review of exit_plan_mode, and an explicit
// policy for runs with no user attached.
//
// The review then offers Approve, the configured extras and Keep planning:
//
//   - Approve with comments: an approval carrying the user's comments (the
//     answer's custom text, non-blank, at most 16 KiB), which the result
//     passes to the model. Without text it reads as Keep planning.
//   - Approve and clear: an approval after which the model works from the
//     plan alone: before its next request the host compacts the transcript
//     to a "compaction/summary" holding the approved plan
//     ([host.Compactor]).
//   - Abandon: plan mode is left silently at the next accepted pre-step, as
//     after an approval, and the result tells the model to do none of it.
//
// Consent stays strict: exactly one answer with exactly one selection.
//
// With headless set, a review that finds no user attached
// ([host.ErrNoProvider]) is answered by the policy instead of failing:
// "approve" approves, and the result and a log-only [EventPolicy] event
// say that the deployment's policy did; "keep-planning" returns a fixed
// keep-planning error. An attached user always answers in person; the
// model can never select the policy.
//
// # States
//
// The plan-mode states a review workflow speaks of map onto the core's
// logged state and pending selection:
//
//	Inactive    = logged off, nothing pending
//	Pending     = plan mode selected, not yet applied (a pending entry)
//	Active      = logged on
//	ExitPending = the default mode selected while a turn runs (a pending exit)
//	GateArmed   = logged on (the plan-gate companion's rule)
//	Durable     = the log: resume, fork and compaction restore the state
package planreview

import (
	"encoding/json"
	"errors"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its key under plugins and its fx module.
	PluginName = "plan-review"
	// EventPolicy is the log-only event that records a deployment policy
	// answering a review for an absent user; its payload is
	// [PolicyPayload].
	EventPolicy = "plan/policy"
	// MaxCommentsSize is the largest comments text accepted, in bytes.
	MaxCommentsSize = 16 << 10
	// ExitOrder places the plugin's exit extension after plan-file's, so its
	// Finish sees the plan as approved.
	ExitOrder = 20
	// ResultComments holds, in the result of an approval with comments,
	// the user's comments.
	ResultComments = "comments"
	// ResultCleared is true in the result of an approval that clears the
	// model's context.
	ResultCleared = "cleared"
)

// Config values.
const (
	// OptionApproveWithComments offers Approve with comments.
	OptionApproveWithComments = "approve-with-comments"
	// OptionApproveAndClear offers Approve and clear.
	OptionApproveAndClear = "approve-and-clear"
	// OptionAbandon offers Abandon.
	OptionAbandon = "abandon"
	// HeadlessApprove approves a review no user can answer.
	HeadlessApprove = "approve"
	// HeadlessKeepPlanning keeps planning when no user can answer.
	HeadlessKeepPlanning = "keep-planning"
)

// PolicyPayload is the payload of [EventPolicy].
type PolicyPayload struct {
	// Policy names the configuration key that answered: "headless".
	Policy string `json:"policy"`
	// Decision is the configured answer: "approve".
	Decision string `json:"decision"`
}

// ErrNoCompactor means approve-and-clear is configured on a host without
// a compaction seam.
var ErrNoCompactor = errors.New(textNoCompactor)

// CheckPayload is the plugin's payload check for plan/policy; other events
// pass.
func CheckPayload(e host.Event) error {
	if e.Type != EventPolicy {
		return nil
	}
	var p PolicyPayload
	if err := json.Unmarshal(e.Data, &p); err != nil || p.Policy != keyHeadless || p.Decision != HeadlessApprove {
		return companion.BadPayload(PluginName, e, errors.New(problemPolicy))
	}
	return nil
}

// labels maps config values to the options offered, with their roles.
var labels = map[string]host.Option{
	OptionApproveWithComments: {Label: LabelApproveWithComments, Description: descApproveWithComments, Role: host.RoleApproveWithComments},
	OptionApproveAndClear:     {Label: LabelApproveAndClear, Description: descApproveAndClear, Role: host.RoleApproveAndClear},
	OptionAbandon:             {Label: LabelAbandon, Description: descAbandon, Role: host.RoleAbandon},
}

// allOptions are the option values in canonical order.
var allOptions = []string{OptionApproveWithComments, OptionApproveAndClear, OptionAbandon}
