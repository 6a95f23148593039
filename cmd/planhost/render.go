package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
)

// Markdown rendering: a fixed style and width keep the output the same on
// every machine; "notty" uses no escape sequences (pipes, the demo).
const (
	styleNoTTY    = mdview.StyleNoTTY
	styleTerminal = mdview.StyleDark
	markdownWidth = 80
)

// Bounds of what one transcript line shows of a value.
const (
	maxArgString = 60
	maxArgJSON   = 40
	maxResult    = 100
)

// newMarkdown returns a renderer with a fixed style and word wrap that
// shows every character of the text (see mdview): raw HTML, comments,
// link targets and reference definitions are shown, never dropped.
func newMarkdown(style string) (*mdview.Renderer, error) {
	return mdview.New(style, markdownWidth)
}

// printer turns session events into transcript lines. It keeps what it
// needs across events (tool call inputs for the result cards, the last card
// shown) and is used from one goroutine.
type printer struct {
	out        sink
	presenters *presenters
	// userWords shows the user plain words where the log holds text for
	// the model: plugin notices and the reasons a review did not happen
	// are left out (the terminal UI says what happened itself).
	userWords bool
	// plan says whether plan mode is composed (otherwise no mode lines).
	plan bool
	// calls maps a tool call ID to its call, for the result card.
	calls map[string]host.ToolCall
	// lastCard is the body of the card shown last, so that a review of
	// the same plan does not print it twice.
	lastCard string
	// holdPlanCards holds a plan card back until its review shows (the
	// console sets it): the review prints the plan it asks about, titled
	// by that plan, instead of the call's plan, which may be empty
	// (plan-file) or lack what a companion added (plan-steps). Anything
	// else printed first prints the held card.
	holdPlanCards bool
	held          *host.Card
	// pending is the switch last reported as pending.
	pending planmode.Selection
	// model is the model shown last (a step's "step/start" names it when
	// the host chooses among several).
	model string
	// companions draws the companion plugins' displays (companions.go).
	companions companionView
	// cat, in the terminal UI, gives the session's lines in the user's
	// language (nil: the line console's English); there the internal
	// lines (request headers, pending switches, exit_plan_mode's result
	// for the model) are shown only when verbose is set.
	cat     *tui.Catalog
	verbose bool
}

// quiet reports whether the internal lines are left out.
func (p *printer) quiet() bool { return p.cat != nil && !p.verbose }

func newPrinter(w io.Writer, md *mdview.Renderer, p *presenters, plan bool) *printer {
	return &printer{out: &writerSink{w: w, md: md}, presenters: p, plan: plan, calls: map[string]host.ToolCall{}}
}

// sink receives what the printer shows: lines of a kind, and Markdown.
type sink interface {
	line(kind tui.EntryKind, s string)
	markdown(s string)
}

// writerSink prints to a writer (pipes, the demo); Markdown is rendered at
// the fixed width. Every control and invisible formatting character of the
// text is made visible (see safetext): the transcript shows what the model,
// a tool or the log said, never what it would make the terminal do.
type writerSink struct {
	w  io.Writer
	md *mdview.Renderer
}

func (s *writerSink) line(_ tui.EntryKind, text string) { fmt.Fprintln(s.w, safetext.Escape(text)) }
func (s *writerSink) markdown(text string)              { fmt.Fprintln(s.w, renderMarkdown(s.md, text)) }

// entrySink collects entries for the terminal UI, which wraps and renders
// them at the terminal's width. Lines are escaped here; Markdown is escaped
// for the renderer by the UI (tui.Config.Markdown) before it renders it.
type entrySink struct {
	entries []tui.Entry
}

func (s *entrySink) line(kind tui.EntryKind, text string) {
	s.entries = append(s.entries, tui.Entry{Kind: kind, Text: safetext.Escape(text)})
}

// styledLine adds a line our own renderers styled (the companions' boxes,
// which escape the model's text themselves): their colours stay, every
// other control sequence is made visible.
func (s *entrySink) styledLine(text string) {
	s.entries = append(s.entries, tui.Entry{Kind: tui.KindLine, Text: safetext.EscapeExceptSGR(text)})
}

func (s *entrySink) markdown(text string) {
	s.entries = append(s.entries, tui.Entry{Kind: tui.KindMarkdown, Text: text})
}

func (s *entrySink) take() []tui.Entry {
	e := s.entries
	s.entries = nil
	return e
}

func (p *printer) println(s string) { p.printKind(tui.KindLine, s) }

func (p *printer) printKind(kind tui.EntryKind, s string) {
	p.flushCard()
	p.out.line(kind, s)
}

// flushCard prints the held plan card, if any.
func (p *printer) flushCard() {
	if c := p.held; c != nil {
		p.held = nil
		p.card(*c)
	}
}

// event prints e. events is the session's log snapshot holding e, for the
// pending-switch check.
func (p *printer) event(e host.Event, events func() host.Log) {
	p.flushCard()
	defer p.showCompanions(e, events)
	switch e.Type {
	case planmode.EventPlanMode:
		var m planmode.ModePayload
		if json.Unmarshal(e.Data, &m) != nil {
			return
		}
		p.pending = planmode.SelectionNone
		on, off := lineModeOn, lineModeOff
		if p.cat != nil {
			on, off = p.cat.ModeOnLine, p.cat.ModeOffLine
		}
		if m.Active {
			p.printKind(tui.KindMeta, on)
		} else {
			p.printKind(tui.KindMeta, off)
		}
	case host.TypeUserMessage:
		if e.Source == nil || e.Source.Kind != host.SourcePlugin {
			return // the user's own lines are on screen already
		}
		var m host.UserMessage
		if json.Unmarshal(e.Data, &m) != nil || p.userWords {
			return
		}
		p.println(indentText(fmt.Sprintf(lineNotice, e.Source.Plugin), blocksText(m.Content)))
	case host.TypeRequestHeader:
		var h host.RequestHeader
		if json.Unmarshal(e.Data, &h) != nil || p.quiet() {
			return
		}
		format := lineHeader
		if p.cat != nil {
			format = p.cat.HeaderLine
		}
		p.printKind(tui.KindMeta, fmt.Sprintf(format, h.Reason, sectionList(h.Sections)))
	case host.TypeAssistantMessage:
		var m host.AssistantMessage
		if json.Unmarshal(e.Data, &m) != nil {
			return
		}
		if strings.TrimSpace(m.Reasoning) != "" {
			p.reasoning(m.Reasoning)
		}
		if strings.TrimSpace(m.Text) != "" {
			label := lineAssistant
			if p.cat != nil {
				label = p.cat.AssistantLabel
			}
			p.printKind(tui.KindAssistant, indentText(label, m.Text))
		}
	case host.TypeToolCall:
		var c host.ToolCall
		if json.Unmarshal(e.Data, &c) != nil {
			return
		}
		p.calls[c.ID] = c
		p.toolCall(c)
	case host.TypeToolResult:
		var r host.ToolResult
		if json.Unmarshal(e.Data, &r) != nil {
			return
		}
		p.toolResult(r)
		delete(p.calls, r.CallID)
		p.checkPending(e, events)
	case host.TypeCommandDone:
		p.checkPending(e, events)
	case host.TypeTurnEnd:
		var t host.TurnEnd
		if json.Unmarshal(e.Data, &t) != nil {
			return
		}
		clear(p.calls)
		if t.Reason != host.TurnCompleted {
			reason, format := string(t.Reason), lineTurnEnd
			if p.cat != nil {
				reason, format = p.turnReason(t.Reason), p.cat.TurnEndLine
			}
			if t.Error != "" {
				reason += ": " + firstLine(t.Error)
			}
			p.printKind(tui.KindError, fmt.Sprintf(format, t.Turn, reason))
		}
	case host.TypeStepStart:
		p.stepModel(e)
	case host.TypeCompactionSummary:
		if p.cat != nil {
			p.println(p.cat.CompactedLine)
			return
		}
		p.println(lineCompacted)
	}
}

// stepModel shows which model answers from the step on, when the host
// chooses among several and the step's model is not the one shown last.
func (p *printer) stepModel(e host.Event) {
	var s host.StepStart
	if json.Unmarshal(e.Data, &s) != nil || s.Model == "" || s.Model == p.model {
		return
	}
	p.model = s.Model
	format := lineModel
	if p.cat != nil {
		format = p.cat.ModelLine
	}
	p.printKind(tui.KindMeta, fmt.Sprintf(format, s.Model))
}

// checkPending reports a mode switch that the log shows as pending after e
// (an approved plan, or a /plan that landed inside a turn).
func (p *printer) checkPending(e host.Event, events func() host.Log) {
	if !p.plan {
		return
	}
	log := events()
	end := min(int(e.Seq), log.Len())
	proj := planmode.Project(log.Prefix(end))
	if proj.Pending == p.pending {
		return
	}
	p.pending = proj.Pending
	if p.quiet() {
		return // the status line shows the switch waiting
	}
	format, plan, def := linePending, modePlan, modeDefault
	if p.cat != nil {
		format, plan, def = p.cat.PendingLine, p.cat.ModePlan, p.cat.ModeDefault
	}
	switch proj.Pending {
	case planmode.SelectionActive:
		p.printKind(tui.KindMeta, fmt.Sprintf(format, plan))
	case planmode.SelectionInactive:
		p.printKind(tui.KindMeta, fmt.Sprintf(format, def))
	}
}

// turnReason is the catalog's word for why a turn ended.
func (p *printer) turnReason(r host.TurnEndReason) string {
	switch r {
	case host.TurnCancelled:
		return p.cat.TurnCancelled
	case host.TurnError:
		return p.cat.TurnFailed
	case host.TurnBlocked:
		return p.cat.TurnBlocked
	}
	return string(r)
}

func (p *printer) toolCall(c host.ToolCall) {
	if pr, ok := p.presenters.lookup(c.Name); ok {
		card := pr.PresentCall(c.Input)
		p.println(fmt.Sprintf(lineToolCall, c.Name))
		if p.holdPlanCards && card.Kind == planmode.CardKindPlan {
			p.held = &card
			return
		}
		p.card(card)
		return
	}
	if p.quiet() && boxedTool(c.Name) {
		// The companion's box that follows shows what the call did.
		p.println(fmt.Sprintf(lineToolCall, c.Name))
		return
	}
	p.println(fmt.Sprintf(lineToolCall, c.Name+"("+argSummary(c.Input)+")"))
}

func (p *printer) toolResult(r host.ToolResult) {
	if p.quiet() && r.Name == planmode.ExitToolName {
		// The result is the model's text; the UI said how the review
		// ended in its own words (a refusal never reached the review).
		if planmode.ExitOutcome(r.Outcome) == planmode.ExitRefused {
			p.printKind(tui.KindMeta, p.cat.ReviewRefused)
		}
		return
	}
	if p.quiet() && !r.IsError && answeredTool(r.Name) {
		return // the result is the model's text; the companion's display said it
	}
	if pr, ok := p.presenters.lookup(r.Name); ok {
		in := p.calls[r.CallID].Input
		card := pr.PresentResult(in, r.Output, r.IsError)
		p.println(fmt.Sprintf(lineToolResult, card.Title))
		if p.userWords && r.IsError && r.Name == planmode.ExitToolName {
			switch planmode.ExitOutcome(r.Outcome) {
			case planmode.ExitDismissed, planmode.ExitReviewFailed, planmode.ExitReloaded:
				return // the body is for the model; the UI says how the review ended in its own words
			}
		}
		if body := strings.TrimSpace(card.Body); body != "" {
			p.println(indentText("    ", body))
		}
		return
	}
	p.println(fmt.Sprintf(lineToolResult, resultSummary(r.Output, r.IsError)))
}

// card prints a card's kind and title, and its body as Markdown.
func (p *printer) card(c host.Card) {
	if p.cat != nil {
		p.println(fmt.Sprintf(p.cat.CardLine, p.cat.CardKind(c.Kind), c.Title))
	} else {
		p.println(fmt.Sprintf(lineCard, c.Kind, c.Title))
	}
	if strings.TrimSpace(c.Body) != "" {
		p.out.markdown(c.Body)
		p.lastCard = c.Body
	}
}

// reasoning shows the model's reasoning: in the terminal UI as a dimmed,
// collapsible entry; in a transcript on one line, clipped.
func (p *printer) reasoning(text string) {
	if es, ok := p.out.(*entrySink); ok {
		es.entries = append(es.entries, tui.Entry{Kind: tui.KindReasoning, Text: safetext.Escape(text)})
		return
	}
	p.println(fmt.Sprintf(lineReasoning, clipText(oneLine(text), maxResult)))
}

// renderMarkdown renders text for the terminal, without trailing spaces or
// surrounding blank lines; text that does not render is shown as it is.
// The text is escaped before it is rendered (so the renderer never sees a
// control character, nor a character reference that decodes to one), and
// what the renderer made is checked again: only its colour sequences pass.
func renderMarkdown(md *mdview.Renderer, text string) string {
	out, err := md.Render(safetext.Markdown(text))
	if err != nil {
		out = safetext.Escape(text)
	}
	out = safetext.EscapeExceptSGR(out)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// question prints one question of an ask: what changed in a plan asked
// again, its detail (unless it is the card just shown), the question and
// the options with their keys.
func (p *printer) question(q host.Question, keys []string) {
	p.review(q, keys, "")
}

// review is question for a plan review that may follow a plan sent back
// for a revision (revised; "" for none): what changed from it is shown
// after the plan. A held plan card is shown with the plan under review.
func (p *printer) review(q host.Question, keys []string, revised string) {
	if c := p.held; c != nil {
		p.held = nil
		if strings.TrimSpace(q.Detail) == "" {
			p.card(*c)
		} else {
			p.println(fmt.Sprintf(lineCard, c.Kind, p.planTitle(q.Detail, c.Title)))
			p.lastCard = ""
		}
	}
	if d := plandiff.Unified(q.Previous, q.Detail); d != "" {
		p.println(lineReviewChanged)
		p.println(d)
	}
	if d := strings.TrimSpace(q.Detail); d != "" && q.Detail != p.lastCard {
		p.out.markdown(q.Detail)
		p.lastCard = q.Detail
	}
	if q.Reopened != "" && q.Previous == "" {
		if d := plandiff.Unified(q.Reopened, q.Detail); d != "" {
			p.println(lineReviewReopened)
			p.println(d)
		}
	} else if revised != "" && q.Previous == "" {
		if d := plandiff.Unified(revised, q.Detail); d != "" {
			p.println(lineReviewRevised)
			p.println(d)
		}
	}
	p.menu(q, keys)
}

// planTitle is the title plan mode's card gives plan (its first heading),
// or fallback when the exit tool has no presenter.
func (p *printer) planTitle(plan, fallback string) string {
	pr, ok := p.presenters.lookup(planmode.ExitToolName)
	if !ok {
		return fallback
	}
	in, err := json.Marshal(map[string]string{"plan": plan})
	if err != nil {
		return fallback
	}
	return pr.PresentCall(in).Title
}

// menu prints the question and the options with their keys: one per
// option, then edit's when keys has one more (a plan review), then
// dismiss's.
func (p *printer) menu(q host.Question, keys []string) {
	header := q.Header
	if header == "" {
		header = q.ID
	}
	p.println(fmt.Sprintf(lineReviewHead, header, q.Question))
	for i, o := range q.Options {
		p.println(strings.TrimRight(fmt.Sprintf(lineReviewOpt, keys[i], o.Label, o.Description), " —"))
	}
	if len(keys) > len(q.Options)+1 {
		p.println(fmt.Sprintf(lineReviewOpt, keys[len(q.Options)], optionEdit, optionEditHelp))
	}
	p.println(fmt.Sprintf(lineReviewOpt, keys[len(keys)-1], optionDismiss, optionDismissHelp))
	p.println(lineReviewEnd)
}

// argSummary shows a tool call's arguments on one line: keys in order,
// short strings quoted, long or multi-line strings as their size.
func argSummary(input json.RawMessage) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return clipText(compactJSON(input), maxArgJSON)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		raw := fields[k]
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if len(s) > maxArgString || strings.Contains(s, "\n") {
				parts = append(parts, k+": "+fmt.Sprintf(inputBytes, len(s)))
			} else {
				parts = append(parts, k+": "+strconv.Quote(s))
			}
			continue
		}
		parts = append(parts, k+": "+clipText(compactJSON(raw), maxArgJSON))
	}
	return strings.Join(parts, ", ")
}

// compactJSON returns raw on one line: compacted when it is JSON, its
// words joined by spaces otherwise.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return oneLine(string(raw))
}

// resultSummary shows a tool result on one line.
func resultSummary(output string, isError bool) string {
	if isError {
		return fmt.Sprintf(resultError, clipText(firstLine(strings.TrimPrefix(output, host.ToolErrorPrefix)), maxResult))
	}
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	first := clipText(lines[0], maxResult)
	if len(lines) == 1 {
		return first
	}
	return fmt.Sprintf(resultLines, first, len(lines)-1)
}

// sectionList names the sections of a request header.
func sectionList(sections []string) string {
	if len(sections) == 0 {
		return "(none)"
	}
	return strings.Join(sections, ", ")
}

// blocksText joins the text blocks of a message; images show as a marker.
func blocksText(blocks []host.Block) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case host.BlockText:
			parts = append(parts, b.Text)
		case host.BlockImage:
			parts = append(parts, "[image "+b.MediaType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// indentText prefixes the first line of text with prefix and indents the
// rest to line up under it.
func indentText(prefix, text string) string {
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

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// clipText shortens s to at most n runes, marking the cut with an ellipsis.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
