package present

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
	"github.com/dshgo/planmode/internal/planmd"
)

// Action says what choosing a menu entry does.
type Action uint8

// The actions of menu entries.
const (
	// Answer selects the entry's option.
	Answer Action = iota
	// Edit opens the plan under review in the user's editor.
	Edit
	// Dismiss closes the question so that the user speaks instead.
	Dismiss
)

// Choice is one entry of a question's menu.
type Choice struct {
	// Key is the key the entry answers to: a letter for a plan review's
	// roles, a number otherwise.
	Key string
	// Label and Description are in the user's words.
	Label, Description string
	Action             Action
	// Option is the option an Answer selects: its Label goes in the
	// answer, its Role says what the answer means.
	Option host.Option
}

// TakesText reports whether choosing the entry asks the user for text
// (feedback, comments, a reason) before it answers.
func (c Choice) TakesText() bool { return c.Action == Answer && c.Option.Role.TakesText() }

// NeedsText reports whether the entry answers only with non-blank text.
func (c Choice) NeedsText() bool { return c.Action == Answer && c.Option.Role.NeedsText() }

// Approves reports whether choosing the entry approves.
func (c Choice) Approves() bool { return c.Action == Answer && c.Option.Role.Approves() }

// Keys of a plan review's entries, one per role, so that the companions'
// extra answers never push the menu onto numbers; DiffKey shows or hides
// what changed, so no entry takes it.
const (
	KeyApprove   = "a"
	KeyKeep      = "k"
	KeyComments  = "w"
	KeyClear     = "c"
	KeyAbandon   = "x"
	KeySave      = "s"
	KeyWithModel = "m"
	KeyEdit      = "e"
	KeyDismiss   = "d"
	DiffKey      = "v"
)

// roleKeys are the review keys by role.
var roleKeys = map[host.Role]string{
	host.RoleApprove:             KeyApprove,
	host.RoleKeepPlanning:        KeyKeep,
	host.RoleApproveWithComments: KeyComments,
	host.RoleApproveAndClear:     KeyClear,
	host.RoleAbandon:             KeyAbandon,
	host.RoleSave:                KeySave,
	host.RoleApproveWithModel:    KeyWithModel,
}

// Menu is the menu of question q of req, in the catalog's words, decided
// from the options' roles. A plan review offers its options by role, each
// with its own key, then Edit (when edit is set: the front end has an
// editor) and Dismiss; a consent offers its options numbered, then
// Dismiss; questions from the model offer their options numbered, as the
// model wrote them (the user's own answer and skipping are the front
// end's). Keys that would clash fall back to numbers.
func (c *Catalog) Menu(req host.AskRequest, q int, edit bool) []Choice {
	question := req.Questions[q]
	var out []Choice
	for i, o := range question.Options {
		ch := Choice{Key: strconv.Itoa(i + 1), Label: o.Label, Description: o.Description, Option: o}
		switch req.Kind {
		case host.AskReview:
			if k, ok := roleKeys[o.Role]; ok {
				ch.Key = k
			} else {
				ch.Key = strings.ToLower(firstRune(o.Label))
			}
			if w, ok := c.Review.Options[o.Role]; ok {
				ch.Label, ch.Description = w.Label, w.Description
			}
			if o.Role == host.RoleApproveWithModel {
				ch.Label, ch.Description = fmt.Sprintf(c.Review.ApproveWith, o.Model), c.Review.ApproveWithDesc
			}
		case host.AskConsent:
			if w, ok := c.Review.Consents[req.Purpose].Options[o.Role]; ok {
				ch.Label, ch.Description = w.Label, w.Description
			}
		}
		out = append(out, ch)
	}
	if req.Kind == host.AskReview {
		if edit {
			out = append(out, Choice{Key: KeyEdit, Label: c.Review.Edit.Label, Description: c.Review.Edit.Description, Action: Edit})
		}
		seen := map[string]bool{DiffKey: true, KeyDismiss: true}
		for _, ch := range out {
			if seen[ch.Key] || ch.Key == "" {
				for i := range out[:len(question.Options)] {
					out[i].Key = strconv.Itoa(i + 1)
				}
				break
			}
			seen[ch.Key] = true
		}
	}
	if req.Kind != host.AskClarify {
		out = append(out, Choice{Key: KeyDismiss, Label: c.Review.Dismiss.Label, Description: c.Review.Dismiss.Description, Action: Dismiss})
	}
	return out
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

// Question is what a front end shows of one question being asked, in the
// user's words.
type Question struct {
	Kind host.AskKind
	// Title heads the question: a plan review's names the plan; a
	// consent's and a clarifying question's is the asker's header.
	Title string
	// PlanTitle is the title of a plan under review (its first heading,
	// or the catalog's word for a plan without one).
	PlanTitle string
	// Text is the question: a plan review's and a known consent's in the
	// catalog's words, the asker's otherwise (for a clarifying question,
	// the model's text: untrusted).
	Text string
	// Fields are the question's labelled values in the user's words, one
	// line each; nil when the catalog lacks a label, and Detail shows
	// instead.
	Fields []string
	// Detail is the plan under review, or the question's longer text
	// (Markdown, untrusted).
	Detail string
	// DiffTitle and Diff are what changed in the plan, when there is
	// something to compare it with: the text shown before it changed
	// during the review, the plan the user reopened (named by its
	// number), or the plan the user sent back last. A plan the same as
	// the one it is compared with has no diff, and Text says so.
	DiffTitle, Diff string
	// Menu is the question's menu.
	Menu []Choice
}

// Question is question q of req as a front end shows it. log is the
// session's log, which tells the plan the user sent back last; edit says
// whether the front end offers an editor.
func (c *Catalog) Question(req host.AskRequest, q int, log host.Log, edit bool) Question {
	question := req.Questions[q]
	out := Question{Kind: req.Kind, Title: question.Header, Text: question.Question, Detail: question.Detail,
		Menu: c.Menu(req, q, edit)}
	if out.Title == "" {
		out.Title = question.ID
	}
	switch req.Kind {
	case host.AskReview:
		out.Title, out.PlanTitle = c.PlanHeading(question.Detail), planmd.Title(question.Detail)
		if out.PlanTitle == "" {
			out.PlanTitle = c.Session.Untitled
		}
		out.Text = c.Review.Question
		var base, unchanged string
		switch {
		case question.Previous != "":
			out.Text = c.Review.Changed
			base, out.DiffTitle = question.Previous, c.Review.DiffChanged
		case question.Reopened != "":
			n := Reopened(log, 0)
			base, out.DiffTitle = question.Reopened, fmt.Sprintf(c.Review.DiffReopened, n)
			unchanged = fmt.Sprintf(c.Review.UnchangedReopened, n)
		default:
			base, out.DiffTitle, unchanged = sentBack(log), c.Review.DiffRevised, c.Review.UnchangedRevised
		}
		out.Diff = Changes(base, question.Detail)
		if out.Diff == "" {
			out.DiffTitle = ""
			if strings.TrimSpace(base) != "" && unchanged != "" {
				out.Text = sentences(unchanged, out.Text)
			}
		}
	case host.AskConsent:
		w := c.Review.Consents[req.Purpose]
		if w.Question != "" {
			out.Text = w.Question
		}
		out.Fields = c.fields(w, question)
	}
	return out
}

// sentences joins two sentences: with a space after one that ends in
// ASCII (English), directly after one that does not (Chinese).
func sentences(a, b string) string {
	if a != "" && a[len(a)-1] < 0x80 {
		return a + " " + b
	}
	return a + b
}

// fields are the question's fields in the catalog's words; nil when one
// lacks a label.
func (c *Catalog) fields(w ConsentWords, q host.Question) []string {
	if len(q.Fields) == 0 {
		return nil
	}
	lines := make([]string, 0, len(q.Fields))
	for _, f := range q.Fields {
		label, ok := w.Fields[f.Key]
		if !ok {
			return nil
		}
		lines = append(lines, fmt.Sprintf(c.Review.Field, label, f.Value))
	}
	return lines
}

// PlanHeading heads a plan under review: "Plan review: " and its title
// (the first heading), or no title for a plan without one.
func (c *Catalog) PlanHeading(plan string) string {
	if t := planmd.Title(plan); t != "" {
		return fmt.Sprintf(c.Review.Title, t)
	}
	return strings.TrimRight(fmt.Sprintf(c.Review.Title, ""), " :：")
}

// sentBack is the plan the user sent back in the last review the log
// holds an answer to, when that answer sent it back; "" otherwise.
func sentBack(log host.Log) string {
	plans := planmode.Plans(log)
	for i := len(plans) - 1; i >= 0; i-- {
		p := plans[i]
		if p.Outcome == "" {
			continue // the review under way
		}
		if p.Outcome == planmode.ExitKeepPlanning {
			return p.Plan
		}
		return ""
	}
	return ""
}

// Changes is what changed from before to after, as every front end
// shows it: a unified diff with one line of context and without file headers;
// "" when before is empty or the two differ only in white space at their
// ends.
func Changes(before, after string) string {
	if strings.TrimSpace(before) == "" || strings.TrimSpace(before) == strings.TrimSpace(after) {
		return ""
	}
	return plandiff.Unified(before, after)
}
