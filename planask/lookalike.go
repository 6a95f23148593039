package planask

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// A question from the model must never read as the plan review: a user
// who sees "Plan review" and "Approve" may believe they approved a plan
// when the model says so, though nothing was approved. The review's
// words are compared after normalisation (case, full width forms,
// invisible characters, punctuation and spacing ignored):
//   - a header, question, label or description that is one of the
//     review's labels, headers or sentences (reviewLabels,
//     reviewSentences) is refused; so is one that ends with a sentence
//     ("Yes, leave plan mode and carry out the plan", and every ACP option
//     name, "label: description");
//   - a phrase with "%s" (the review's title, "Approve and execute with
//     %s") matches any text in its place.
//
// Ordinary questions pass: a label that merely holds a review word, such
// as "Approve the schema change" or "Keep planning the API", is not the
// review's own label. The lists are planask's own copy of the catalog's
// and the exit tool's words; a test in internal/present walks the
// catalogs so that they cannot drift apart.

// lookalike returns the review phrase text reads as, or "".
func lookalike(text string) string {
	n := normal(text)
	for _, p := range reviewLabels {
		if matches(n, p, false) {
			return p
		}
	}
	for _, p := range reviewSentences {
		if matches(n, p, true) {
			return p
		}
	}
	return ""
}

// checkLookalikes refuses questions worded as the plan review.
func checkLookalikes(qs []Question) error {
	for i, q := range qs {
		for _, f := range []struct{ key, text string }{{argHeader, q.Header}, {argQuestion, q.Question}} {
			if p := lookalike(f.text); p != "" {
				return fmt.Errorf(textQuestionN+": "+textLookalike, i+1, f.key, p)
			}
		}
		for j, o := range q.Options {
			for _, f := range []struct{ key, text string }{{argLabel, o.Label}, {argDescription, o.Description}} {
				if p := lookalike(f.text); p != "" {
					return fmt.Errorf(textQuestionN+": "+textOptionN+": "+textLookalike, i+1, j+1, f.key, p)
				}
			}
		}
	}
	return nil
}

// matches reports whether the normal text n is the phrase p, or, with
// tail, ends with it. A "%s" in p matches any text, or none.
func matches(n, p string, tail bool) bool {
	if before, after, ok := strings.Cut(p, "%s"); ok {
		before, after = normal(before), normal(after)
		rest, ok := strings.CutPrefix(n, before)
		if !ok || !joint(before, rest) {
			return false
		}
		mid, ok := strings.CutSuffix(rest, after)
		return ok && joint(mid, after)
	}
	p = normal(p)
	if n == p {
		return true
	}
	head, ok := strings.CutSuffix(n, p)
	return tail && ok && joint(head, p)
}

// joint reports whether a and b, one after the other, split at a word
// boundary: a space, or anything but two ASCII letters or digits (Chinese
// has no spaces between words).
func joint(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	return !asciiWord(a[len(a)-1]) || !asciiWord(b[0])
}

func asciiWord(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// normal folds s for comparing with the review's words: compatibility
// forms as their plain letters (NFKC: full width, circled and
// mathematical letters), case folded, invisible format characters and
// combining marks dropped, every other run of spaces, punctuation and
// symbols as one space, no space at the ends.
func normal(s string) string {
	var b strings.Builder
	space := false
	for _, r := range cases.Fold().String(norm.NFKC.String(s)) { // a Caser is not for sharing
		switch {
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}
