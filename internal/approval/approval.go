// Package approval reads a user's answers to an approval question, the one
// rule the exit tool and the companions that ask for consent share.
package approval

import (
	"slices"
	"strings"

	"github.com/dshgo/planmode/host"
)

// Read reads the answers to the question questionID. approved is true only
// for exactly one answer, to that question, selecting exactly option, with
// no custom text (white space alone is none). words is the custom text of
// the answers to the question, verbatim, joined by a blank line when there
// are several; text that is only white space is left out.
func Read(answers []host.Answer, questionID, option string) (approved bool, words string) {
	var texts []string
	for _, a := range answers {
		if a.QuestionID == questionID && strings.TrimSpace(a.Custom) != "" {
			texts = append(texts, a.Custom)
		}
	}
	words = strings.Join(texts, "\n\n")
	if len(answers) != 1 {
		return false, words
	}
	a := answers[0]
	approved = a.QuestionID == questionID &&
		slices.Equal(a.Selected, []string{option}) &&
		strings.TrimSpace(a.Custom) == ""
	return approved, words
}
