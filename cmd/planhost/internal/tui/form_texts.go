package tui

// formTexts are the words of the clarifying-question form (the plan-ask
// companion's ask_user), in one language.
type formTexts struct {
	// Head is "question N of M · header".
	Head string
	// Other labels the row of the user's own answer.
	Other string
	// OtherEmpty stands for an empty own answer.
	OtherEmpty string
	// Hint lists the keys of a single-choice question.
	Hint string
	// HintMulti lists the keys of a question that takes several options.
	HintMulti string
	// ChooseFirst asks for a choice, text or Esc before Enter.
	ChooseFirst string
	// KeysIgnored says keys typed as the form appeared were ignored.
	KeysIgnored string
	// Answered reports the form's end: answered and skipped counts.
	Answered string
	// Cancelled reports a form the agent withdrew.
	Cancelled string
	// AskedHeader heads the questions /plans lists.
	AskedHeader string
	// AskedLine is one question /plans lists: header, question, answer.
	AskedLine string
	// AskedSkipped stands for a skipped question.
	AskedSkipped string
	// AskedOwnWords quotes the user's own words.
	AskedOwnWords string
}

// formCatalogs are the form's words by catalog language.
var formCatalogs = map[string]formTexts{
	"en": {
		Head:          "Question %d of %d · %s",
		Other:         "Other:",
		OtherEmpty:    "(type your own answer)",
		Hint:          "↑/↓ move · space or 1-9 choose · enter next · esc skip",
		HintMulti:     "↑/↓ move · space or 1-9 toggle (several may apply) · enter next · esc skip",
		ChooseFirst:   "choose an option or type your own answer first, or press esc to skip",
		KeysIgnored:   "keys typed as the questions appeared were ignored: read them, then answer",
		Answered:      "questions: %d answered, %d skipped",
		Cancelled:     "the questions were withdrawn",
		AskedHeader:   "Questions asked in this session:",
		AskedLine:     "  %s — %s → %s",
		AskedSkipped:  "skipped",
		AskedOwnWords: "“%s”",
	},
	"zh": {
		Head:          "第 %d 个问题，共 %d 个 · %s",
		Other:         "其他：",
		OtherEmpty:    "（输入你自己的回答）",
		Hint:          "↑/↓ 移动 · 空格或 1-9 选择 · 回车 下一个 · esc 跳过",
		HintMulti:     "↑/↓ 移动 · 空格或 1-9 勾选（可多选） · 回车 下一个 · esc 跳过",
		ChooseFirst:   "请先选择一个选项或输入你自己的回答，或按 esc 跳过",
		KeysIgnored:   "问题出现时按下的键已被忽略：请先阅读问题，再回答",
		Answered:      "问题：已回答 %d 个，跳过 %d 个",
		Cancelled:     "问题已被撤回",
		AskedHeader:   "本会话中提出的问题：",
		AskedLine:     "  %s — %s → %s",
		AskedSkipped:  "已跳过",
		AskedOwnWords: "“%s”",
	},
}

// formTexts returns the form's words in the catalog's language (English
// when it has none).
func (c *Catalog) formTexts() formTexts {
	if t, ok := formCatalogs[c.Lang]; ok {
		return t
	}
	return formCatalogs["en"]
}
