package main

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
)

// askOutcome says how an ask_user call ended, in w's words (an outcome
// it does not know as logged).
func askOutcome(a planask.Ask, w *render.Words) string {
	switch {
	case a.Answer == nil:
		return w.AskOpen
	case a.Answer.Outcome == planask.OutcomePolicy:
		return fmt.Sprintf(w.AskPolicy, a.Answer.Policy)
	case a.Answer.Outcome == planask.OutcomeFailed:
		return fmt.Sprintf(w.AskFailed, a.Answer.Error)
	case a.Answer.Outcome == planask.OutcomeAnswered:
		return w.AskAnswered
	case a.Answer.Outcome == planask.OutcomeDeclined:
		return w.AskDeclined
	}
	return a.Answer.Outcome
}

// askAnswers pairs each question of a call with its answer as text: the
// labels chosen, the user's own words quoted, or w's "skipped".
func askAnswers(a planask.Ask, w *render.Words) [][3]string {
	byID := map[string]planask.Answer{}
	if a.Answer != nil {
		for _, ans := range a.Answer.Answers {
			byID[ans.ID] = ans
		}
	}
	var out [][3]string
	for _, q := range a.Questions.Questions {
		ans, ok := byID[q.ID]
		parts := append([]string(nil), ans.Selected...)
		if ans.Other != "" {
			parts = append(parts, fmt.Sprintf(lineAskOwnWords, ans.Other))
		}
		text := strings.Join(parts, ", ")
		if ok && text == "" {
			text = w.AskSkipped
		}
		out = append(out, [3]string{q.Header, q.Question, text})
	}
	return out
}

// askLines are the text lines of one call; the printer or the caller
// escapes them; w gives the words.
func askLines(a planask.Ask, w *render.Words) []string {
	lines := []string{fmt.Sprintf(w.AskAsked, a.Seq, askOutcome(a, w))}
	for _, qa := range askAnswers(a, w) {
		lines = append(lines, fmt.Sprintf(lineAskAnswer, oneLine(qa[0]), oneLine(qa[1]), oneLine(qa[2])))
	}
	return lines
}

// showAsk keeps the questions of a plan/ask event and, at the matching
// plan/answer, returns the lines that show the answers; "" otherwise.
func (v *companionView) showAsk(e host.Event) string {
	switch e.Type {
	case planask.EventAsk:
		var p planask.AskPayload
		if json.Unmarshal(e.Data, &p) == nil {
			if v.asks == nil {
				v.asks = map[string]planask.Ask{}
			}
			v.asks[p.CallID] = planask.Ask{Seq: e.Seq, Questions: p}
		}
	case planask.EventAnswer:
		var p planask.AnswerPayload
		if json.Unmarshal(e.Data, &p) != nil {
			return ""
		}
		a, ok := v.asks[p.CallID]
		if !ok {
			return ""
		}
		delete(v.asks, p.CallID)
		a.Answer = &p
		return safetext.Escape(strings.Join(askLines(a, v.wordsOf()), "\n"))
	}
	return ""
}

// questionsHTML is the page's section of questions and answers; every
// text from the log is escaped, invisible characters made visible.
func questionsHTML(asks []planask.Ask) string {
	if len(asks) == 0 {
		return ""
	}
	esc := func(s string) string { return html.EscapeString(safetext.Escape(s)) }
	var b strings.Builder
	b.WriteString("<h2>" + htmlQuestions + "</h2>\n")
	for _, a := range asks {
		fmt.Fprintf(&b, "<section class=\"questions\">\n<p>%s</p>\n<ul>\n", esc(fmt.Sprintf(render.English.AskAsked, a.Seq, askOutcome(a, render.English))))
		for _, qa := range askAnswers(a, render.English) {
			fmt.Fprintf(&b, "<li><strong>%s</strong> %s → %s</li>\n", esc(qa[0]), esc(qa[1]), esc(qa[2]))
		}
		b.WriteString("</ul>\n</section>\n")
	}
	return b.String()
}

// askedQuestions are the answered clarifying questions of a session's log,
// for the terminal UI's /plans.
func askedQuestions(l host.Log) []tui.AskedQuestion {
	var out []tui.AskedQuestion
	for _, a := range planask.Asks(l) {
		if a.Answer == nil || a.Answer.Outcome == planask.OutcomeFailed {
			continue
		}
		byID := map[string]planask.Answer{}
		for _, ans := range a.Answer.Answers {
			byID[ans.ID] = ans
		}
		for _, q := range a.Questions.Questions {
			ans := byID[q.ID]
			out = append(out, tui.AskedQuestion{Header: q.Header, Question: q.Question, Selected: ans.Selected, Other: ans.Other})
		}
	}
	return out
}
