// Package approval reads a user's answers to an approval question, the one
// rule the exit tool and the companions that ask for consent share.
package approval

import (
	"strings"

	"github.com/dshgo/planmode/host"
)

// Read reads the answers to the question q. approved is true only for
// exactly one answer, to q, selecting exactly one option of
// [host.RoleApprove], with no custom text (white space alone is none).
// words is the custom text of the answers to q, verbatim, joined by a
// blank line when there are several; text that is only white space is
// left out.
func Read(q host.Question, answers []host.Answer) (approved bool, words string) {
	var texts []string
	for _, a := range answers {
		if a.QuestionID == q.ID && strings.TrimSpace(a.Custom) != "" {
			texts = append(texts, a.Custom)
		}
	}
	words = strings.Join(texts, "\n\n")
	if len(answers) != 1 || answers[0].QuestionID != q.ID {
		return false, words
	}
	o, ok := q.Chosen(answers[0])
	return ok && o.Role == host.RoleApprove && strings.TrimSpace(answers[0].Custom) == "", words
}
