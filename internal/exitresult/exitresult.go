// Package exitresult names the fields that exit extensions add to a
// successful exit_plan_mode result, so that the core, which reads a
// session's plans back from its log, and the companions that write them
// agree on them.
package exitresult

// Fields of a successful exit_plan_mode result.
const (
	// Plan holds the plan's text when the call's "plan" argument does not:
	// the text an extension presented for a call without "plan" (a plan
	// file's), or the user's edit of it. It is read as the plan; EditedPlan
	// still comes first.
	Plan = "plan"
	// EditedByUser is true when the user edited the plan in the review.
	EditedByUser = "editedByUser"
	// EditedPlan holds the plan as the user edited it.
	EditedPlan = "editedPlan"
)
