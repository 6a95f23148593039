package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/planmd"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// companionInspection is what inspect shows of the companion plugins: the
// approved plans, each plan's steps and the todo list as of the session's
// last todo_write.
type companionInspection struct {
	// Plans are the plans the user approved, in log order.
	Plans []approvedPlan `json:"plans,omitempty"`
	// Steps are the executions plan-steps logged, in log order.
	Steps []*plansteps.Execution `json:"steps,omitempty"`
	// Todo is the list the last successful todo_write stored; nil when the
	// session wrote none.
	Todo []todo.Item `json:"todo,omitempty"`
	// Questions are the ask_user calls (plan-ask), each with its answer.
	Questions []planask.Ask `json:"questions,omitempty"`
	// Title names the session on the HTML page: the title of its first
	// plan, else its first user message (clipped); "" when it has
	// neither.
	Title string `json:"-"`
	// Models are the runs of steps whose step/start names their model, in
	// log order, for the HTML page (the timeline lists the switches).
	Models []modelRun `json:"-"`
}

// modelRun is a run of steps of one turn that went to one model in one
// mode.
type modelRun struct {
	Model string
	// From is the model of the run before, when it differs ("" otherwise).
	From        string
	Turn        int
	First, Last int // the steps' numbers
	PlanMode    bool
}

// approvedPlan is one approved exit_plan_mode call.
type approvedPlan struct {
	Seq   uint64 `json:"seq"`
	Title string `json:"title"`
	Plan  string `json:"plan"`
	// Reopened marks the plan reopened last ("/plan reopen").
	Reopened bool `json:"reopened,omitempty"`
	// ExecuteWith is the model the approval chose to carry the plan out
	// ("Approve and execute with MODEL").
	ExecuteWith string `json:"executeWith,omitempty"`
}

// empty reports whether no companion plugin left anything in the log (the
// approved plans alone are plan-mode's, which the timeline shows).
func (c companionInspection) empty() bool {
	return len(c.Steps) == 0 && c.Todo == nil && len(c.Questions) == 0
}

// inspectCompanions reads the companions' part of a session's log.
func inspectCompanions(events host.Log) companionInspection {
	var ci companionInspection
	var s plansteps.State
	var firstMessage string
	planMode := false
	for _, e := range events.All() {
		if e.Type == plansteps.EventSteps && s.Plan != nil {
			ci.Steps = append(ci.Steps, s.Plan)
		}
		s = plansteps.Apply(s, e)
		switch e.Type {
		case planmode.EventPlanMode:
			var m planmode.ModePayload
			if unmarshal(e.Data, &m) == nil {
				planMode = m.Active
			}
		case host.TypeStepStart:
			var st host.StepStart
			if !bytes.Contains(e.Data, []byte(`"model"`)) || unmarshal(e.Data, &st) != nil || st.Model == "" {
				continue
			}
			ci.Models = addStep(ci.Models, st, planMode)
		case host.TypeUserMessage:
			var m host.UserMessage
			if firstMessage != "" || e.Source != nil && e.Source.Kind == host.SourcePlugin || unmarshal(e.Data, &m) != nil {
				continue
			}
			firstMessage = clipText(firstLine(strings.TrimSpace(blocksText(m.Content))), maxPageTitle)
		case host.TypeToolResult:
			if !mentionsTool(e.Data, todo.WriteToolName) {
				continue
			}
			var r host.ToolResult
			if unmarshal(e.Data, &r) != nil || r.IsError || r.Name != todo.WriteToolName {
				continue
			}
			if l, err := todo.ParseList([]byte(r.Output)); err == nil {
				ci.Todo = l.Todos
			}
		}
	}
	if s.Plan != nil {
		ci.Steps = append(ci.Steps, s.Plan)
	}
	for _, p := range planmode.Plans(events) {
		if ci.Title == "" {
			ci.Title = p.Title
		}
		var out struct {
			Approved    bool   `json:"approved"`
			ExecuteWith string `json:"executeWith"`
		}
		if p.IsError || unmarshal([]byte(p.Output), &out) != nil || !out.Approved {
			continue
		}
		ci.Plans = append(ci.Plans, approvedPlan{Seq: p.ResultSeq, Title: planmd.Title(p.Plan), Plan: p.Plan, Reopened: p.Reopened, ExecuteWith: out.ExecuteWith})
	}
	ci.Questions = planask.Asks(events)
	if ci.Title == "" {
		ci.Title = firstMessage
	}
	return ci
}

// addStep adds a step that went to a named model to runs: to the last run
// when it is of the same turn, model and mode, else as a new run.
func addStep(runs []modelRun, st host.StepStart, planMode bool) []modelRun {
	if n := len(runs); n > 0 {
		last := &runs[n-1]
		if last.Model == st.Model && last.Turn == st.Turn && last.PlanMode == planMode && st.Step >= last.Last {
			last.Last = st.Step
			return runs
		}
	}
	r := modelRun{Model: st.Model, Turn: st.Turn, First: st.Step, Last: st.Step, PlanMode: planMode}
	if n := len(runs); n > 0 && runs[n-1].Model != st.Model {
		r.From = runs[n-1].Model
	}
	return append(runs, r)
}

// modelsHTML is the page's list of the models the steps went to: a line
// per run of steps, and "model: X → Y" where the model changes. It is ""
// when no step named its model (one model, or a log from before models
// were recorded).
func modelsHTML(runs []modelRun) string {
	if len(runs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<h2>" + htmlModels + "</h2>\n<ul class=\"models\">\n")
	for _, r := range runs {
		if r.From != "" {
			fmt.Fprintf(&b, "<li class=\"model-switch\">%s</li>\n", fmt.Sprintf(htmlModelSwitch, modelHTML(r.From), modelHTML(r.Model)))
		}
		steps := fmt.Sprintf(htmlModelStep, r.Turn, r.First)
		if r.Last != r.First {
			steps = fmt.Sprintf(htmlModelSteps, r.Turn, r.First, r.Last)
		}
		mode := htmlModeDefault
		if r.PlanMode {
			mode = htmlModePlan
		}
		fmt.Fprintf(&b, "<li class=\"model-run\">%s (%s): %s</li>\n", steps, mode, modelHTML(r.Model))
	}
	b.WriteString("</ul>\n")
	return b.String()
}

// modelHTML is a model's name as the page shows it: escaped, in a code
// element.
func modelHTML(model string) string {
	return "<code class=\"model\">" + html.EscapeString(safetext.Escape(model)) + "</code>"
}

// maxPageTitle bounds a first message used as the page's title, in runes.
const maxPageTitle = 80

// writeCompanions prints the companions' part as text boxes.
func writeCompanions(w io.Writer, ci companionInspection) {
	for _, p := range ci.Plans {
		fmt.Fprintf(w, inspectPlanApproved+"\n", p.Seq, oneLine(p.Title))
	}
	for _, x := range ci.Steps {
		fmt.Fprint(w, render.Plain(render.StepsANSI(shownSteps(x), companionWidth)))
	}
	if ci.Todo != nil {
		fmt.Fprint(w, render.Plain(render.TodoANSI(ci.Todo, companionWidth)))
	}
	for _, a := range ci.Questions {
		fmt.Fprintln(w, safetext.Escape(strings.Join(askLines(a, render.English), "\n")))
	}
}

// writeHTMLFile writes the page to path (mode 0600). It writes a new file beside path
// and renames it over path once complete, so that nothing at path is ever
// opened: path must be missing or a regular file, and a symbolic link, a
// FIFO, a device or a directory there is refused (errNotRegular).
func writeHTMLFile(path, session string, ci companionInspection) error {
	info, err := os.Lstat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return fmt.Errorf("-html %s: %w (%s)", path, errNotRegular, info.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	var page bytes.Buffer
	writeHTMLPage(&page, session, ci)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(page.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeHTMLPage writes a self-contained HTML page (no scripts, no external
// resources, no links) of the session's approved plans, steps and todo
// list, titled by the session's title (its ID when it has none). Every
// text from the log is escaped. A plan is rendered as Markdown that hides
// none of its text (see mdview.HTML: raw HTML and comments shown as code,
// links as text with their targets), after its invisible characters
// (zero-width, bidi) were made visible (see safetext).
func writeHTMLPage(w io.Writer, session string, ci companionInspection) {
	sessionLine := html.EscapeString(safetext.Escape(fmt.Sprintf(htmlTitle, session)))
	title := sessionLine
	if t := strings.TrimSpace(ci.Title); t != "" {
		title = html.EscapeString(safetext.Escape(t))
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	b.WriteString("<title>" + title + "</title>\n<style>\n" + htmlPageStyle + render.Stylesheet + "</style>\n</head>\n<body>\n")
	b.WriteString("<h1>" + title + "</h1>\n")
	if title != sessionLine {
		b.WriteString("<p class=\"session\">" + sessionLine + "</p>\n")
	}
	b.WriteString("<h2>" + htmlPlans + "</h2>\n")
	if len(ci.Plans) == 0 {
		b.WriteString("<p class=\"empty\">" + htmlNoPlans + "</p>\n")
	}
	for _, p := range ci.Plans {
		b.WriteString("<section class=\"plan\">\n")
		if p.Reopened {
			b.WriteString("<p class=\"reopened\">" + htmlPlanReopened + "</p>\n")
		}
		if p.Title == "" || !strings.HasPrefix(strings.TrimSpace(p.Plan), "#") {
			fmt.Fprintf(&b, "<h3>%s</h3>\n", html.EscapeString(safetext.Escape(cmp.Or(p.Title, htmlPlanUntitled))))
		}
		if body, err := mdview.HTML(safetext.Markdown(p.Plan)); err == nil {
			b.WriteString(body)
		} else {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", html.EscapeString(safetext.Escape(p.Plan)))
		}
		if p.ExecuteWith != "" {
			fmt.Fprintf(&b, "<p class=\"execute-with\">%s</p>\n", fmt.Sprintf(htmlExecuteWith, modelHTML(p.ExecuteWith)))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString(modelsHTML(ci.Models))
	b.WriteString("<h2>" + htmlSteps + "</h2>\n")
	if len(ci.Steps) == 0 {
		b.WriteString("<p class=\"empty\">" + htmlNoSteps + "</p>\n")
	}
	for _, x := range ci.Steps {
		b.WriteString(render.StepsHTML(shownSteps(x)))
		if !x.Done {
			continue
		}
		fmt.Fprintf(&b, "<p class=\"summary\"><strong>%s</strong> %s</p>\n", htmlSummary, html.EscapeString(safetext.Escape(x.Summary)))
		if len(x.Deviations) > 0 {
			b.WriteString("<ul class=\"deviations\">\n")
			for _, d := range x.Deviations {
				label := htmlDeviation
				if d.StepID > 0 {
					label = fmt.Sprintf(htmlDeviationStep, d.StepID)
				}
				fmt.Fprintf(&b, "<li><strong>%s</strong> %s</li>\n", label, html.EscapeString(safetext.Escape(d.Description)))
			}
			b.WriteString("</ul>\n")
		}
	}
	b.WriteString("<h2>" + htmlTodo + "</h2>\n")
	if ci.Todo == nil {
		b.WriteString("<p class=\"empty\">" + htmlNoTodo + "</p>\n")
	} else {
		b.WriteString(render.TodoHTML(ci.Todo))
	}
	b.WriteString(questionsHTML(ci.Questions))
	b.WriteString("</body>\n</html>\n")
	io.WriteString(w, b.String())
}
