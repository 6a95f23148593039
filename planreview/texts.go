package planreview

// Review options, as the user sees them.
const (
	// LabelApproveWithComments is the option that approves with the user's
	// comments (typed as the answer's custom text).
	LabelApproveWithComments = "Approve with comments"
	// LabelApproveAndClear is the option that approves and restarts the
	// model's context from the plan alone.
	LabelApproveAndClear = "Approve and clear"
	// LabelAbandon is the option that drops the plan and leaves plan mode.
	LabelAbandon = "Abandon"

	descApproveWithComments = "Approve, and give the model comments to follow (type them with this choice)."
	descApproveAndClear     = "Approve, and let the model start the work from the plan alone, with the earlier conversation cleared."
	descAbandon             = "Leave plan mode and drop this plan: nothing of it is carried out."
)

// Model-facing result messages and errors.
const (
	textApprovedWithComments = "The user approved the plan with comments. Carry out the plan and follow the " +
		"comments (in \"comments\"); where they differ from the plan, the comments win."
	textApprovedAndCleared = "The user approved the plan and cleared the conversation: your next request starts " +
		"from the plan alone. Carry it out."
	textAbandoned = "The user abandoned the plan and plan mode is off. Do none of the plan, and do not present a " +
		"plan again unless the user asks for one; wait for or follow the user's next instructions."
	textPolicyApproved = "No user was attached to review the plan, so the deployment's headless policy (\"approve\") " +
		"approved it. Carry it out."
	textPolicyKeepPlanning = "no user is attached to review the plan, and the deployment's headless policy is " +
		"\"keep-planning\": plan mode stays on. Do not change anything; finish with the plan as your answer, so a " +
		"user can review it later"
	textCommentsTooLarge = "the user approved with comments, but their comments are %d bytes, more than the %d-byte " +
		"(16 KiB) limit, so the approval does not count: ask the user to give shorter comments, and present the plan again"
	textAbandonWithWords = "the user chose Abandon but also wrote something, so the plan is not dropped: plan mode " +
		"stays on. Their words:\n\n%s"
	// clearSummaryIntro starts the summary the context restarts from.
	clearSummaryIntro = "The user approved the plan below and cleared the earlier conversation. Carry out the plan; " +
		"it is all the context you have.\n\n"
)

// Config problems and errors.
const (
	whatOptions     = "the extra review answers to offer: approve-with-comments, approve-and-clear, abandon"
	textNoCompactor = "approve-and-clear needs a host that can compact the transcript (host.Compactor), and this host has none"
	problemPolicy   = "want {\"policy\": \"headless\", \"decision\": \"approve\"}"
)

// Result property schemas.
const (
	schemaComments = `{"type":"string","description":"the user's comments on an approved plan; follow them"}`
	schemaCleared  = `{"type":"boolean","description":"true when the conversation restarts from the plan alone"}`
	schemaPolicy   = `{"type":"string","description":"the deployment policy that answered for an absent user"}`
	schemaMessage  = `{"type":"string","description":"what the outcome means for your next steps"}`
)
