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
// HTML page show them (the rest are render.Words, in the user's language).
const (
	// lineAskAnswer is one question with its answer: header, question,
	// answer.
	lineAskAnswer = "  · %s — %s → %s"
	// lineAskOwnWords quotes the user's own words.
	lineAskOwnWords = "“%s”"
	// htmlQuestions heads the page's questions.
	htmlQuestions = "Questions asked"
)
