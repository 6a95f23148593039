package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
)

// isClarifying reports whether req holds questions from the model: a
// form to fill in, never an approval.
func isClarifying(req host.AskRequest) bool {
	return req.Kind == host.AskClarify
}

// clarifyingPrompt is the prompt while a clarifying question waits.
func clarifyingPrompt(st *askState) string {
	q := st.a.req.Questions[st.q]
	keys := "1-" + strconv.Itoa(len(q.Options))
	if q.MultiSelect {
		return fmt.Sprintf(promptAskMulti, keys)
	}
	return fmt.Sprintf(promptAsk, keys)
}

// showClarifying shows the current clarifying question with its options
// numbered from 1. The printer escapes the model's text.
func (c *console) showClarifying(st *askState) {
	qs := st.a.req.Questions
	q := qs[st.q]
	st.keys = st.keys[:0]
	header := q.Header
	if header == "" {
		header = q.ID
	}
	c.view.println(fmt.Sprintf(lineAskHead, st.q+1, len(qs), header, q.Question))
	for i, o := range q.Options {
		k := strconv.Itoa(i + 1)
		st.keys = append(st.keys, k)
		c.view.println(strings.TrimRight(fmt.Sprintf(lineReviewOpt, k, o.Label, o.Description), " —"))
	}
	if q.MultiSelect {
		c.view.println(lineAskMulti)
	}
	c.view.println(lineAskOther)
	c.view.println(lineReviewEnd)
	st.gate = reviewgate.Open(time.Now(), c.lastLine)
}

// answerClarifying takes one line for the current clarifying question: option
// numbers ("2", or "1,3" when several may apply), an empty line to skip,
// anything else as the user's own answer. It reports whether the request
// is settled.
func (c *console) answerClarifying(st *askState, line string, at time.Time) (done bool) {
	q := st.a.req.Questions[st.q]
	text := strings.TrimSpace(line)
	a := host.Answer{QuestionID: q.ID}
	picks, numbers, bad := parsePicks(text, len(q.Options))
	switch {
	case text == "":
	case numbers && bad != "":
		c.view.println(fmt.Sprintf(lineAskRange, bad, len(q.Options)))
		st.gate.Sleep(at)
		return false
	case numbers && len(picks) > 1 && !q.MultiSelect:
		c.view.println(lineAskOne)
		st.gate.Sleep(at)
		return false
	case numbers:
		for _, i := range picks {
			a.Selected = append(a.Selected, q.Options[i].Label)
		}
	default:
		a.Custom = text
	}
	st.answers = append(st.answers, a)
	return c.nextQuestion(st)
}

// parsePicks reads "2" or "1, 3" as option indexes (0-based, each once, in
// the order typed). numbers reports whether text is such a list at all; bad
// is the first number that is no option of n.
func parsePicks(text string, n int) (picks []int, numbers bool, bad string) {
	if text == "" {
		return nil, false, ""
	}
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return nil, false, ""
		}
		i, err := strconv.Atoi(part)
		switch {
		case bad != "":
		case err != nil || i < 1 || i > n:
			bad = part
		default:
			if !slices.Contains(picks, i-1) {
				picks = append(picks, i-1)
			}
		}
	}
	return picks, true, bad
}
