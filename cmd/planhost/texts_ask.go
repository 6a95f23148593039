package main

// Texts of the line console's clarifying questions (the plan-ask
// companion's ask_user).
const (
	// promptAsk is the prompt of a clarifying question: the option keys.
	promptAsk = "answer [%s, your own words, or empty to skip] › "
	// promptAskMulti is the prompt of a question that takes several options.
	promptAskMulti = "answer [%s, several like 1,3, your own words, or empty to skip] › "
	// lineAskHead heads a clarifying question: its number, the count, the
	// header and the question.
	lineAskHead = "┌─ question %d of %d · %s: %s"
	// lineAskMulti says a question takes several options.
	lineAskMulti = "│  several may apply: type their numbers, like 1,3"
	// lineAskOther says how to answer in one's own words or skip.
	lineAskOther = "│  or type your own answer; an empty line skips the question"
	// lineAskOne refuses several numbers for a single-choice question.
	lineAskOne = "  this question takes one option: type one number, or your own answer"
	// lineAskRange refuses a number that is no option.
	lineAskRange = "  there is no option %s: type a number from 1 to %d, or your own answer"
)

// Texts of the questions and answers as the transcript, inspect and the
// HTML page show them.
const (
	// lineAskAsked heads the answers of one ask_user call: the log
	// position and the outcome.
	lineAskAsked = "#%d questions (%s):"
	// lineAskPolicy is the outcome of a headless policy's answer.
	lineAskPolicy = "no user attached; the headless policy %s answered"
	// lineAskOpen is the outcome of questions with no logged answer.
	lineAskOpen = "not answered"
	// lineAskFailed is the outcome of questions that could not be put.
	lineAskFailed = "failed: %s"
	// lineAskAnswer is one question with its answer: header, question,
	// answer.
	lineAskAnswer = "  · %s — %s → %s"
	// lineAskSkipped stands for a skipped question.
	lineAskSkipped = "skipped"
	// lineAskOwnWords quotes the user's own words.
	lineAskOwnWords = "“%s”"
	// htmlQuestions heads the page's questions.
	htmlQuestions = "Questions asked"
)
