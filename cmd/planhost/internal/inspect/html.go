package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// ErrNotRegular means something other than a regular file (a symbolic
// link, a FIFO, a device, a directory) is where the page is to be written.
var ErrNotRegular = errors.New("not a regular file")

// maxTitle bounds a first message used as the page's title, in runes.
const maxTitle = 80

// WriteHTML writes the session's page to path (mode 0600). It writes a
// new file beside path and renames it over path once complete, so that
// nothing at path is ever opened: path must be missing or a regular file,
// and anything else there is refused (ErrNotRegular).
func WriteHTML(path, id string, events host.Log, cat *present.Catalog) error {
	info, err := os.Lstat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return fmt.Errorf("-html %s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	page := Page(id, events, cat)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.WriteString(page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Page is a self-contained HTML page (no scripts, no external resources,
// no links) of the session's approved plans, the models its steps went to,
// its steps, its todo list and the questions from the model, titled by its
// first plan or message. Every text from the log is escaped, invisible
// characters made visible; a plan is rendered as Markdown that hides none
// of its text (see mdview.HTML).
func Page(id string, events host.Log, cat *present.Catalog) string {
	w := &cat.Page
	p := &page{cat: cat}
	session := esc(fmt.Sprintf(w.Title, id))
	title := session
	if t := strings.TrimSpace(pageTitle(events)); t != "" {
		title = esc(t)
	}
	b := &p.b
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", cat.Lang)
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	b.WriteString("<title>" + title + "</title>\n<style>\n" + stylesheet + "</style>\n</head>\n<body>\n")
	b.WriteString("<h1>" + title + "</h1>\n")
	if title != session {
		b.WriteString("<p class=\"session\">" + session + "</p>\n")
	}
	p.plans(events)
	p.models(events)
	p.steps(events)
	p.todo(events)
	p.questions(events)
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

type page struct {
	cat *present.Catalog
	b   bytes.Buffer
}

// esc is text from the log as the page shows it.
func esc(s string) string { return html.EscapeString(safetext.Escape(s)) }

// section heads a part of the page, and says so when it is empty.
func (p *page) section(heading, empty string, n int) {
	p.b.WriteString("<h2>" + esc(heading) + "</h2>\n")
	if n == 0 {
		p.b.WriteString("<p class=\"empty\">" + esc(empty) + "</p>\n")
	}
}

// plans are the approved plans, each rendered, with the model chosen to
// carry it out.
func (p *page) plans(events host.Log) {
	w := &p.cat.Page
	var approved []planmode.PresentedPlan
	for _, pl := range planmode.Plans(events) {
		if pl.Outcome == planmode.ExitApproved {
			approved = append(approved, pl)
		}
	}
	p.section(w.Plans, w.NoPlans, len(approved))
	for _, pl := range approved {
		p.b.WriteString("<section class=\"plan\">\n")
		if pl.Reopened {
			p.b.WriteString("<p class=\"reopened\">" + esc(w.Reopened) + "</p>\n")
		}
		if pl.Title == "" || !strings.HasPrefix(strings.TrimSpace(pl.Plan), "#") {
			title := pl.Title
			if title == "" {
				title = p.cat.Session.Untitled
			}
			p.b.WriteString("<h3>" + esc(title) + "</h3>\n")
		}
		if body, err := mdview.HTML(safetext.Markdown(pl.Plan)); err == nil {
			p.b.WriteString(body)
		} else {
			p.b.WriteString("<pre>" + esc(pl.Plan) + "</pre>\n")
		}
		var res map[string]any
		if json.Unmarshal([]byte(pl.Output), &res) == nil {
			if m, ok := res[approvewith.ResultModel].(string); ok && m != "" {
				p.b.WriteString("<p class=\"execute-with\">" + fmt.Sprintf(esc(w.ExecuteWith), model(m)) + "</p>\n")
			}
		}
		p.b.WriteString("</section>\n")
	}
}

// model is a model's name as the page shows it.
func model(name string) string { return "<code class=\"model\">" + esc(name) + "</code>" }

// run is a run of steps of one turn that went to one model in one mode.
type run struct {
	model, from       string
	turn, first, last int
	planMode          bool
}

// models lists the models the steps went to: a line per run of steps, and
// a line where the model changes. Nothing when no step named its model.
func (p *page) models(events host.Log) {
	var runs []run
	planMode := false
	for _, e := range events.All() {
		switch e.Type {
		case planmode.EventPlanMode:
			var m planmode.ModePayload
			if json.Unmarshal(e.Data, &m) == nil {
				planMode = m.Active
			}
		case host.TypeStepStart:
			var st host.StepStart
			if json.Unmarshal(e.Data, &st) != nil || st.Model == "" {
				continue
			}
			if n := len(runs); n > 0 {
				last := &runs[n-1]
				if last.model == st.Model && last.turn == st.Turn && last.planMode == planMode && st.Step >= last.last {
					last.last = st.Step
					continue
				}
			}
			r := run{model: st.Model, turn: st.Turn, first: st.Step, last: st.Step, planMode: planMode}
			if n := len(runs); n > 0 && runs[n-1].model != st.Model {
				r.from = runs[n-1].model
			}
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	w := &p.cat.Page
	p.b.WriteString("<h2>" + esc(w.Models) + "</h2>\n<ul class=\"models\">\n")
	for _, r := range runs {
		if r.from != "" {
			p.b.WriteString("<li class=\"model-switch\">" + fmt.Sprintf(esc(w.ModelSwitch), model(r.from), model(r.model)) + "</li>\n")
		}
		steps := fmt.Sprintf(w.ModelStep, r.turn, r.first)
		if r.last != r.first {
			steps = fmt.Sprintf(w.ModelSteps, r.turn, r.first, r.last)
		}
		mode := w.InDefault
		if r.planMode {
			mode = w.InPlan
		}
		p.b.WriteString("<li class=\"model-run\">" + esc(steps+" ("+mode+"): ") + model(r.model) + "</li>\n")
	}
	p.b.WriteString("</ul>\n")
}

// steps are the executions of approved plans, each as its box's list,
// with its summary and deviations once completed.
func (p *page) steps(events host.Log) {
	w := &p.cat.Page
	var execs []*plansteps.Execution
	var s plansteps.State
	for _, e := range events.All() {
		if e.Type == plansteps.EventSteps && s.Plan != nil {
			execs = append(execs, s.Plan)
		}
		s = plansteps.Apply(s, e)
	}
	if s.Plan != nil {
		execs = append(execs, s.Plan)
	}
	p.section(w.Steps, w.NoSteps, len(execs))
	for _, x := range execs {
		p.list(p.cat.StepsBox(x), "pm-steps", true)
		if !x.Done {
			continue
		}
		p.b.WriteString("<p class=\"summary\"><strong>" + esc(w.Summary) + "</strong> " + esc(x.Summary) + "</p>\n")
		if len(x.Deviations) == 0 {
			continue
		}
		p.b.WriteString("<ul class=\"deviations\">\n")
		for _, d := range x.Deviations {
			label := w.Deviation
			if d.StepID > 0 {
				label = fmt.Sprintf(w.DeviationStep, d.StepID)
			}
			p.b.WriteString("<li><strong>" + esc(label) + "</strong> " + esc(d.Description) + "</li>\n")
		}
		p.b.WriteString("</ul>\n")
	}
}

// todo is the list the session's last successful todo_write stored.
func (p *page) todo(events host.Log) {
	w := &p.cat.Page
	var items []todo.Item
	found := false
	for _, e := range events.All() {
		var r host.ToolResult
		if e.Type != host.TypeToolResult || json.Unmarshal(e.Data, &r) != nil || r.IsError || r.Name != todo.WriteToolName {
			continue
		}
		if l, err := todo.ParseList([]byte(r.Output)); err == nil {
			items, found = l.Todos, true
		}
	}
	n := 0
	if found {
		n = 1
	}
	p.section(w.Todo, w.NoTodo, n)
	if found {
		p.list(p.cat.TodoBox(items), "pm-todo", false)
	}
}

// questions are the questions from the model, each call with its
// answers.
func (p *page) questions(events host.Log) {
	asks := planask.Asks(events)
	if len(asks) == 0 {
		return
	}
	p.b.WriteString("<h2>" + esc(p.cat.Page.Questions) + "</h2>\n")
	for _, a := range asks {
		p.list(p.cat.AnswersBox(a), "questions", false)
	}
}

// list renders a box as a list with one CSS class per status: the title
// and footer above it, each row with its mark and note.
func (p *page) list(box present.Item, class string, ordered bool) {
	tag := "ul"
	if ordered {
		tag = "ol"
	}
	head := box.Title
	if box.Footer != "" {
		head += " — " + box.Footer
	}
	b := &p.b
	b.WriteString("<div class=\"pm-list " + class + "\">\n<p class=\"pm-title\">" + esc(head) + "</p>\n")
	b.WriteString("<" + tag + " style=\"list-style:none;margin:0;padding:0\">\n")
	for _, r := range box.Rows {
		fmt.Fprintf(b, "<li class=\"pm-item %s\"><span class=\"pm-icon\">%s</span><span class=\"pm-text\">%s</span>",
			statusClass[r.Status], r.Status.Mark(), esc(r.Text))
		if r.Note != "" {
			b.WriteString("<span class=\"pm-note\">" + esc(r.Note) + "</span>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</" + tag + ">\n</div>\n")
}

// statusClass is a row's CSS class by status.
var statusClass = map[present.Status]string{
	present.Pending: "pm-pending", present.InProgress: "pm-in-progress", present.Completed: "pm-completed", present.Unmarked: "pm-plain",
}

// pageTitle names the page: the title of the session's first plan, else
// its first message (clipped); "" when it has neither.
func pageTitle(events host.Log) string {
	if plans := planmode.Plans(events); len(plans) > 0 && plans[0].Title != "" {
		return plans[0].Title
	}
	for _, e := range events.All() {
		if e.Type != host.TypeUserMessage || e.Source != nil && e.Source.Kind == host.SourcePlugin {
			continue
		}
		var m host.UserMessage
		if json.Unmarshal(e.Data, &m) != nil {
			continue
		}
		for _, b := range m.Content {
			if b.Type == host.BlockText && strings.TrimSpace(b.Text) != "" {
				line, _, _ := strings.Cut(strings.TrimSpace(b.Text), "\n")
				if r := []rune(line); len(r) > maxTitle {
					line = string(r[:maxTitle-1]) + "…"
				}
				return line
			}
		}
	}
	return ""
}

// stylesheet styles the page and its lists: pending items plain, the item
// in progress bold, completed items struck through and dimmed.
const stylesheet = `body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#24292f}
pre{white-space:pre-wrap;background:#f6f8fa;padding:.75em;border-radius:6px}
code{background:#f6f8fa;padding:0 .2em;border-radius:4px;overflow-wrap:anywhere}
.plan{border-left:3px solid #d0d7de;padding-left:1em;margin:1em 0}
.plan h1{font-size:1.5em}.plan h2{font-size:1.25em}
.session{color:#57606a}
.empty{color:#57606a;font-style:italic}
.models .model-switch{font-weight:600;list-style:none}
.execute-with{color:#57606a}
.pm-list{list-style:none;margin:.5em 0;padding:.5em 1em;border:1px solid #bbb;border-radius:6px}
.pm-title{font-weight:600;margin:0 0 .25em}
.pm-item{margin:.2em 0}
.pm-icon{display:inline-block;width:1.4em}
.pm-pending{color:#333}
.pm-in-progress{font-weight:bold;color:#0550ae}
.pm-completed{color:#6e7781}
.pm-completed .pm-text{text-decoration:line-through}
.pm-note{display:block;margin-left:1.4em;font-size:.9em;color:#57606a}
`
