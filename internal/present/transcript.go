package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/exitresult"
	"github.com/dshgo/planmode/internal/planmd"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// Bounds of what one line shows of a value.
const (
	maxArgString = 60
	maxArgJSON   = 40
	maxResult    = 100
)

// Transcript turns a session's events into the items a user sees, in log
// order. It keeps what it needs across events: the tool calls waiting for
// their results, the plan's steps so far, the questions waiting for their
// answers, the model shown last and the pending switch reported last. It
// is used from one goroutine.
type Transcript struct {
	cat     *Catalog
	verbose bool
	calls   map[string]host.ToolCall
	// commands are the commands run and not done yet, by run ID.
	commands map[string]string
	steps    plansteps.State
	asks     map[string]planask.AskPayload
	// boxed are the ask_user calls whose questions' box showed how they
	// ended, until their result.
	boxed   map[string]bool
	model   string
	pending planmode.Selection
}

// NewTranscript returns a transcript in cat's words. With verbose, the
// tools whose boxes show what they did are shown with their arguments,
// and the results written for the model are shown too (they are Internal
// items either way).
func NewTranscript(cat *Catalog, verbose bool) *Transcript {
	return &Transcript{cat: cat, verbose: verbose, calls: map[string]host.ToolCall{}, commands: map[string]string{},
		asks: map[string]planask.AskPayload{}, boxed: map[string]bool{}}
}

// Catalog returns the transcript's catalog.
func (t *Transcript) Catalog() *Catalog { return t.cat }

// Seed folds events that come before the first event Add is given (a
// resumed session's history) without showing them: the plan's steps and
// the model, so that the next box and model line are right.
func (t *Transcript) Seed(events host.Log) {
	t.steps = plansteps.Fold(events)
	for _, e := range events.Backward(events.Len()) {
		if e.Type != host.TypeStepStart {
			continue
		}
		var s host.StepStart
		if decode(e.Data, &s) == nil && s.Model != "" {
			t.model = s.Model
			break
		}
	}
}

// Model is the model shown last ("" for none).
func (t *Transcript) Model() string { return t.model }

// Add returns the items that show e.
func (t *Transcript) Add(e host.Event) []Item {
	var out []Item
	add := func(it Item) {
		it.Seq = e.Seq
		out = append(out, it)
	}
	w := &t.cat.Session
	switch e.Type {
	case planmode.EventPlanMode:
		var m planmode.ModePayload
		if decode(e.Data, &m) != nil {
			break
		}
		t.pending = planmode.SelectionNone
		if m.Active {
			add(Item{Kind: Rule, Text: w.ModeOn})
		} else {
			add(Item{Kind: Rule, Text: w.ModeOff})
		}
	case host.TypeUserMessage:
		var m host.UserMessage
		if decode(e.Data, &m) != nil {
			break
		}
		if e.Source != nil && e.Source.Kind == host.SourcePlugin {
			add(Item{Kind: Note, Internal: true, Text: fmt.Sprintf(w.Notice, e.Source.Plugin, t.blocksText(m.Content))})
			break
		}
		add(Item{Kind: User, Text: t.blocksText(m.Content)})
	case host.TypeRequestHeader:
		var h host.RequestHeader
		if decode(e.Data, &h) != nil {
			break
		}
		sections := w.NoSections
		if len(h.Sections) > 0 {
			sections = strings.Join(h.Sections, ", ")
		}
		add(Item{Kind: Note, Internal: true, Text: fmt.Sprintf(w.Header, h.Reason, sections)})
	case host.TypeAssistantMessage:
		var m host.AssistantMessage
		if decode(e.Data, &m) != nil {
			break
		}
		if strings.TrimSpace(m.Reasoning) != "" {
			add(Item{Kind: Reasoning, Text: m.Reasoning})
		}
		if strings.TrimSpace(m.Text) != "" {
			add(Item{Kind: Assistant, Text: m.Text})
		}
	case host.TypeToolCall:
		var c host.ToolCall
		if decode(e.Data, &c) != nil {
			break
		}
		t.calls[c.ID] = c
		for _, it := range t.toolCall(c) {
			add(it)
		}
	case host.TypeToolResult:
		var r host.ToolResult
		if decode(e.Data, &r) != nil {
			break
		}
		for _, it := range t.toolResult(r) {
			add(it)
		}
		delete(t.calls, r.CallID)
	case host.TypeTurnStart:
		var ts host.TurnStart
		if decode(e.Data, &ts) == nil {
			add(Item{Kind: Note, Internal: true, Text: fmt.Sprintf(w.TurnStarted, ts.Turn)})
		}
	case host.TypeCommandRun:
		// What the user typed: a front end that echoes its input leaves
		// these out.
		var c host.CommandRun
		if decode(e.Data, &c) == nil {
			t.commands[c.ID] = c.Name
			add(Item{Kind: User, Text: strings.TrimSpace("/" + c.Name + " " + strings.TrimSpace(c.Args))})
		}
	case host.TypeCommandDone:
		// The command's reply as logged: a front end that shows it as the
		// command returns leaves it out.
		var d host.CommandDone
		if decode(e.Data, &d) != nil {
			break
		}
		name := t.commands[d.ID]
		delete(t.commands, d.ID)
		switch {
		case !d.OK:
			add(Item{Kind: Reply, Internal: true, Text: fmt.Sprintf(w.CommandFailed, name, d.Text)})
		case d.Text != "":
			add(Item{Kind: Reply, Internal: true, Text: fmt.Sprintf(w.Reply, name, d.Text)})
		}
	case host.TypeTurnEnd:
		var te host.TurnEnd
		if decode(e.Data, &te) != nil {
			break
		}
		clear(t.calls)
		if te.Reason == host.TurnCompleted {
			add(Item{Kind: Note, Internal: true, Text: fmt.Sprintf(w.TurnEnded, te.Turn, w.TurnCompleted)})
			break
		}
		reason := string(te.Reason)
		switch te.Reason {
		case host.TurnCancelled:
			reason = w.TurnCancelled
		case host.TurnError:
			reason = w.TurnFailed
		case host.TurnBlocked:
			reason = w.TurnBlocked
		case host.TurnStepsExhausted:
			// Its error text is the host's, in English: the reason says it.
			add(Item{Kind: Error, Text: fmt.Sprintf(w.TurnEnded, te.Turn, w.TurnStepsExhausted)})
			return out
		}
		if te.Error != "" {
			reason += ": " + firstLine(te.Error)
		}
		add(Item{Kind: Error, Text: fmt.Sprintf(w.TurnEnded, te.Turn, reason)})
	case host.TypeStepStart:
		var s host.StepStart
		if decode(e.Data, &s) != nil || s.Model == "" || s.Model == t.model {
			break
		}
		t.model = s.Model
		add(Item{Kind: Rule, Text: fmt.Sprintf(w.Model, s.Model)})
	case planmode.EventPlanReopen:
		var p planmode.ReopenPayload
		if decode(e.Data, &p) == nil {
			add(Item{Kind: Note, Internal: true, Text: fmt.Sprintf(w.Reopen, p.Number, p.Title)})
		}
	case host.TypeCompactionSummary:
		add(Item{Kind: Note, Text: w.Compacted})
	case plansteps.EventSteps, plansteps.EventStepCompleted, plansteps.EventStepModified, plansteps.EventCompleted:
		t.steps = plansteps.Apply(t.steps, e)
		if t.steps.Plan != nil {
			add(t.cat.StepsBox(t.steps.Plan))
		}
	case planask.EventAsk:
		var p planask.AskPayload
		if decode(e.Data, &p) == nil {
			t.asks[p.CallID] = p
		}
	case planask.EventAnswer:
		var p planask.AnswerPayload
		if decode(e.Data, &p) != nil {
			break
		}
		if q, ok := t.asks[p.CallID]; ok {
			delete(t.asks, p.CallID)
			t.boxed[p.CallID] = true
			add(t.cat.AnswersBox(planask.Ask{Seq: e.Seq, Questions: q, Answer: &p}))
		}
	}
	return out
}

// Mode returns the line that reports a pending switch, when pending
// differs from the one reported last (an Internal item: the terminal UI's
// status line shows it anyway); nil otherwise.
func (t *Transcript) Mode(pending planmode.Selection) []Item {
	if pending == t.pending {
		return nil
	}
	t.pending = pending
	switch pending {
	case planmode.SelectionActive:
		return []Item{{Kind: Note, Internal: true, Text: fmt.Sprintf(t.cat.Session.Pending, t.cat.Session.ModePlan)}}
	case planmode.SelectionInactive:
		return []Item{{Kind: Note, Internal: true, Text: fmt.Sprintf(t.cat.Session.Pending, t.cat.Session.ModeDefault)}}
	}
	return nil
}

// boxed reports whether a tool's call is followed by a companion's box
// that shows what it did (the todo list, the steps); its arguments and
// its result, text for the model, show only with -verbose.
func boxed(name string) bool {
	switch name {
	case todo.WriteToolName, plansteps.StepCompleteToolName, plansteps.ModifyToolName, plansteps.CompleteToolName:
		return true
	}
	return false
}

// answered reports whether a tool's result is text for the model about
// what the user already saw or answered (the consent to plan, the
// questions, the plan file, whose review shows it).
func answered(name string) bool {
	switch name {
	case planentry.ToolName, planask.ToolName, planfile.WriteToolName:
		return true
	}
	return boxed(name)
}

func (t *Transcript) toolCall(c host.ToolCall) []Item {
	w := &t.cat.Session
	switch {
	case c.Name == planmode.ExitToolName:
		out := []Item{{Kind: Tool, Text: fmt.Sprintf(w.ToolCall, c.Name)}}
		if plan := inputPlan(c.Input); strings.TrimSpace(plan) != "" {
			out = append(out, t.planItem(plan))
		}
		return out
	case boxed(c.Name) && !t.verbose:
		return []Item{{Kind: Tool, Text: fmt.Sprintf(w.ToolCall, c.Name)}}
	}
	return []Item{{Kind: Tool, Text: fmt.Sprintf(w.ToolCall, c.Name+"("+t.argSummary(c.Input)+")")}}
}

// planItem is a plan as every front end shows it.
func (t *Transcript) planItem(plan string) Item {
	title := planmd.Title(plan)
	if title == "" {
		title = t.cat.Session.Untitled
	}
	return Item{Kind: Plan, Title: title, Text: plan}
}

func (t *Transcript) toolResult(r host.ToolResult) []Item {
	w := &t.cat.Session
	line := Item{Kind: Tool, Text: fmt.Sprintf(w.ToolResult, t.resultSummary(r.Output, r.IsError))}
	end := t.consentEnd(r)
	switch {
	case r.Name == planmode.ExitToolName:
		return t.review(r, line)
	case r.Name == todo.WriteToolName && !r.IsError:
		out := []Item{{Kind: Tool, Internal: true, Text: line.Text}}
		if l, err := todo.ParseList([]byte(r.Output)); err == nil {
			out = append(out, t.cat.TodoBox(l.Todos))
		}
		return out
	case answered(r.Name) && !r.IsError, t.boxed[r.CallID]:
		// A failure the questions' box showed is the model's text.
		line.Internal = true
	case end != "":
		// How the user's consent ended, in their words; why is the
		// model's text.
		line.Internal = true
		return []Item{line, {Kind: Note, Text: end}}
	}
	delete(t.boxed, r.CallID)
	return []Item{line}
}

// consentEnd is how a consent question of a companion's tool ended without
// the user's answer (closed, dismissed), from the call's logged outcome;
// "" for any other end.
func (t *Transcript) consentEnd(r host.ToolResult) string {
	var purpose string
	var closed, dismissed bool
	switch r.Name {
	case planentry.ToolName:
		purpose, closed, dismissed = planentry.Purpose, r.Outcome == planentry.OutcomeFailed, r.Outcome == planentry.OutcomeDismissed
	case plansteps.ModifyToolName:
		purpose, closed, dismissed = plansteps.ModifyPurpose, r.Outcome == plansteps.ModifyFailed, r.Outcome == plansteps.ModifyDismissed
	}
	switch w := t.cat.Review.Consents[purpose]; {
	case closed:
		return w.Closed
	case dismissed:
		return w.Dismissed
	}
	return ""
}

// review shows how an exit_plan_mode call ended, from its logged outcome
// and its result's fields: a refusal, or the review's outcome, then the
// plan as the user edited it when that is what was approved; the result
// itself, text for the model, is an Internal item.
func (t *Transcript) review(r host.ToolResult, line Item) []Item {
	// The whole result: it carries the user's feedback to the model.
	line.Internal = true
	line.Text = fmt.Sprintf(t.cat.Session.ToolResult, OneLine(r.Output))
	out := []Item{line}
	var res map[string]any
	if !r.IsError {
		_ = decode([]byte(r.Output), &res)
	}
	if text, ok := res[resultPlan].(string); ok && text != "" && inputPlan(t.calls[r.CallID].Input) == "" {
		// A plan presented without "plan" (a plan file's) shows now.
		out = append(out, t.planItem(text))
	}
	outcome := planmode.ExitOutcome(r.Outcome)
	switch {
	case outcome == planmode.ExitRefused:
		return append(out, Item{Kind: Note, Text: t.cat.Session.Refused})
	case outcome == "" && r.IsError:
		// No outcome logged (a result the host wrote for a lost one, or a
		// log from before outcomes were): its text says why.
		return append(out, Item{Kind: Note, Text: fmt.Sprintf(t.cat.Session.NotApproved, strings.TrimPrefix(r.Output, host.ToolErrorPrefix))})
	}
	out = append(out, Item{Kind: Note, Text: fmt.Sprintf(t.cat.Session.Outcome, t.cat.Outcome(outcome, res))})
	if edited, ok := res[exitresult.EditedPlan].(string); ok && edited != "" && outcome == planmode.ExitApproved {
		// The plan approved is the user's edit, not the one shown before.
		out = append(out, t.planItem(edited))
	}
	if outcome == planmode.ExitApproved || outcome == planmode.ExitAbandoned {
		// Plan mode ends at the next step.
		out = append(out, t.Mode(planmode.SelectionInactive)...)
	}
	return out
}

// Result fields the review's outcome reads.
const (
	resultPlan     = exitresult.Plan
	resultEdited   = exitresult.EditedByUser
	resultComments = planreview.ResultComments
	// plan-file's fields: the plan file's path, and whether the user
	// edited the file during the review.
	resultPlanFile       = planfile.ResultPath
	resultPlanFileEdited = planfile.ResultEdited
	resultCleared        = planreview.ResultCleared
)

// Outcome is how an exit_plan_mode review ended, in the catalog's words:
// from the logged outcome code and the fields of a successful result
// (res, nil for none), which tell an edited plan, comments, a cleared
// context, another model and a saved plan apart.
func (c *Catalog) Outcome(o planmode.ExitOutcome, res map[string]any) string {
	w := &c.Plans
	switch o {
	case planmode.ExitApproved:
		_, planFile := res[resultPlanFile].(string)
		switch {
		case res[resultEdited] == true, planFile && res[resultPlanFileEdited] == true:
			return w.Edited
		case res[resultComments] != nil:
			return w.ApprovedComments
		case res[resultCleared] == true:
			return w.ApprovedCleared
		}
		if m, ok := res[approvewith.ResultModel].(string); ok && m != "" {
			return fmt.Sprintf(w.ApprovedWith, m)
		}
		return w.Approved
	case planmode.ExitAbandoned:
		if res[saveplan.ResultSaved] == true {
			return w.Saved
		}
		return w.Abandoned
	case planmode.ExitKeepPlanning:
		return w.KeepPlanning
	case planmode.ExitDismissed:
		return w.Dismissed
	case planmode.ExitReloaded:
		return w.Reloaded
	case planmode.ExitReviewFailed:
		return w.Cancelled
	case planmode.ExitRefused:
		return w.Refused
	}
	return w.Unknown
}

// inputPlan is the "plan" string of an exit_plan_mode input, "" when
// there is none.
func inputPlan(input json.RawMessage) string {
	var in struct {
		Plan string `json:"plan"`
	}
	_ = decode(input, &in)
	return in.Plan
}

// argSummary shows a tool call's arguments on one line: keys in order,
// short strings quoted, long or multi-line strings as their size.
func (t *Transcript) argSummary(input json.RawMessage) string {
	var fields map[string]json.RawMessage
	if decode(input, &fields) != nil {
		return clip(compactJSON(input), maxArgJSON)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range fields {
			if !yield(k) {
				return
			}
		}
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		raw := fields[k]
		var s string
		if decode(raw, &s) == nil {
			if len(s) > maxArgString || strings.Contains(s, "\n") {
				parts = append(parts, k+": "+fmt.Sprintf(t.cat.Session.InputBytes, len(s)))
			} else {
				parts = append(parts, k+": "+strconv.Quote(s))
			}
			continue
		}
		parts = append(parts, k+": "+clip(compactJSON(raw), maxArgJSON))
	}
	return strings.Join(parts, ", ")
}

// resultSummary shows a tool result on one line.
func (t *Transcript) resultSummary(output string, isError bool) string {
	w := &t.cat.Session
	if isError {
		return fmt.Sprintf(w.ResultError, clip(firstLine(strings.TrimPrefix(output, host.ToolErrorPrefix)), maxResult))
	}
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	first := clip(lines[0], maxResult)
	if len(lines) == 1 {
		return first
	}
	return fmt.Sprintf(w.ResultMore, first, len(lines)-1)
}

// blocksText joins the text blocks of a message; images show as a marker.
func (t *Transcript) blocksText(blocks []host.Block) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case host.BlockText:
			parts = append(parts, b.Text)
		case host.BlockImage:
			parts = append(parts, fmt.Sprintf(t.cat.Session.Image, b.MediaType))
		}
	}
	return strings.Join(parts, "\n")
}

// compactJSON returns raw on one line: compacted when it is JSON, its
// words joined by spaces otherwise.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return OneLine(string(raw))
}

// OneLine joins the lines of s with spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// maxRecap bounds a message in a recap, in runes.
const maxRecap = 200

// Recap is the last n exchanges of a resumed session: the user's messages
// and the model's answers, one line each.
func Recap(cat *Catalog, log host.Log, n int) []Item {
	t := NewTranscript(cat, false)
	var out []Item
	for _, e := range log.All() {
		if e.Type != host.TypeUserMessage && e.Type != host.TypeAssistantMessage {
			continue
		}
		for _, it := range t.Add(e) {
			if it.Kind == User || it.Kind == Assistant {
				it.Text = clip(OneLine(it.Text), maxRecap)
				out = append(out, it)
			}
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// decode reads a payload of the log into v with json v2, which reads it in
// one pass; an event the store took is valid UTF-8 with unique names.
func decode(data []byte, v any) error { return jsonv2.Unmarshal(data, v) }
