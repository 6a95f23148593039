package present

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/safetext"
)

// Plain prints items as plain lines, for output that is not a terminal:
// the line console, the demo. It writes no escape sequence of its own,
// and every character of the text it is given shows (control and
// invisible characters escaped, see safetext), so the reader sees what
// the model, a tool or the log said and the terminal never acts on it.
// Internal items print only with Verbose. It is used from one goroutine.
type Plain struct {
	W   io.Writer
	Cat *Catalog
	// Verbose prints the Internal items too.
	Verbose bool
	// Markdown renders a plan's Markdown as plain text (with no escape
	// sequences: a renderer's plain style); nil prints the Markdown as it
	// is.
	Markdown func(string) (string, error)

	// HoldPlans holds a plan back until what follows it shows: a review
	// then prints the plan it asks about (the plan file's, or the plan
	// with what a companion added) under the plan's heading, instead of
	// the plan the call carried; anything else prints the plan held.
	HoldPlans bool

	held  *Item
	shown string // the last plan printed
}

// Line prints one line of the front end's own (a prompt's echo, a reply).
func (p *Plain) Line(s string) {
	p.flush()
	fmt.Fprintln(p.W, safetext.Escape(s))
}

// Flush prints the plan held, if any.
func (p *Plain) Flush() { p.flush() }

func (p *Plain) flush() {
	if it := p.held; it != nil {
		p.held = nil
		p.plan(it.Title, it.Text)
	}
}

// Items prints items.
func (p *Plain) Items(items []Item) {
	for _, it := range items {
		p.Item(it)
	}
}

// Item prints one item.
func (p *Plain) Item(it Item) {
	if it.Internal && !p.Verbose {
		return
	}
	switch it.Kind {
	case Rule:
		p.Line(it.Text)
	case User:
		p.Line(indent("› ", it.Text))
	case Assistant:
		p.Line(indent(p.Cat.Session.Assistant, it.Text))
	case Reasoning:
		p.Line("  " + fmt.Sprintf(p.Cat.Session.Reasoning, clip(OneLine(it.Text), maxResult)))
	case Plan:
		if p.HoldPlans {
			p.flush()
			p.held = &it
			return
		}
		p.plan(it.Title, it.Text)
	case Diff:
		p.Line(it.Title + ":")
		p.Line(it.Text)
	case Box:
		p.box(it)
	default:
		p.Line(indent("  ", it.Text))
	}
}

// plan prints a plan's heading and its text.
func (p *Plain) plan(title, text string) {
	fmt.Fprintln(p.W, safetext.Escape("  ▍"+fmt.Sprintf(p.Cat.Session.PlanTitle, title)))
	p.planText(text)
}

// planText prints a plan's text, rendered when a renderer is set.
func (p *Plain) planText(text string) {
	p.shown = text
	if p.Markdown != nil {
		if out, err := p.Markdown(safetext.Markdown(text)); err == nil {
			fmt.Fprintln(p.W, trimBlank(safetext.EscapeExceptSGR(out)))
			return
		}
	}
	fmt.Fprintln(p.W, safetext.Escape(strings.TrimRight(text, "\n")))
}

// box prints a box as a list: its title, a row a line with its mark, the
// notes under them, and the footer.
func (p *Plain) box(it Item) {
	head := it.Title
	if it.Footer != "" {
		head += " — " + it.Footer
	}
	p.Line("  " + head)
	for _, r := range it.Rows {
		if mark := r.Status.Mark(); mark != "" {
			p.Line(indent("    "+mark+" ", r.Text))
		} else {
			p.Line(indent("    ", r.Text))
		}
		if r.Note != "" {
			p.Line(indent("        ", r.Note))
		}
	}
}

// Question prints a question being asked: the plan or the detail
// (unless it was just printed), what changed in the plan, the fields,
// then the menu with its keys.
func (p *Plain) Question(q Question) {
	if p.held != nil && q.Kind == host.AskReview {
		p.held = nil // the review prints the plan it asks about
		p.shown = ""
	}
	if d := strings.TrimSpace(q.Detail); d != "" && q.Detail != p.shown && q.Fields == nil {
		if q.Kind == host.AskReview {
			p.plan(q.PlanTitle, q.Detail)
		} else {
			p.planText(q.Detail)
		}
	}
	if q.Diff != "" {
		p.Item(Item{Kind: Diff, Title: q.DiffTitle, Text: q.Diff})
	}
	for _, f := range q.Fields {
		p.Line(indent("  ", f))
	}
	p.Menu(q)
}

// Menu prints a question's menu: its title and text, then one line per
// choice with its key.
func (p *Plain) Menu(q Question) {
	w := &p.Cat.Console
	p.Line(fmt.Sprintf(w.MenuHead, q.Title))
	p.Line(fmt.Sprintf(w.MenuText, q.Text))
	for _, c := range q.Menu {
		p.Line(strings.TrimRight(fmt.Sprintf(w.MenuOption, c.Key, c.Label, c.Description), " —"))
	}
	p.Line(w.MenuEnd)
}

// indent prefixes the first line of text with prefix and indents the
// rest to line up under it.
func indent(prefix, text string) string {
	pad := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i := range lines {
		switch {
		case i == 0:
			lines[i] = prefix + lines[i]
		case lines[i] != "":
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// trimBlank drops trailing spaces and the blank lines around text.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}
