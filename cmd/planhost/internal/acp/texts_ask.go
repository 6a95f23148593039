package acp

// Texts of the clarifying questions (the plan-ask companion's ask_user) as
// the client shows them.
const (
	// textSkipOption names the option that skips a clarifying question.
	textSkipOption = "Skip this question"
	// textClarifyOption lists one option with its description.
	textClarifyOption = "- **%s**: %s\n"
	// textClarifyOne says a question that takes several options takes one
	// over ACP.
	textClarifyOne = "\nSeveral may apply; choose the main one here and name the others in your next message.\n"
	// textClarifyOther says how to answer in one's own words over ACP.
	textClarifyOther = "\nTo answer in your own words, choose \"Skip this question\" and write your answer in your next message.\n"
)

// skipOptionID is the option ID of [textSkipOption].
const skipOptionID = "planhost-skip-question"
