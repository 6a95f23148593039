package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/approvewith"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/cmd/planhost/internal/saveplan"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/planmd"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// maxInspectText bounds the texts a timeline line quotes.
const maxInspectText = 120

// Kinds of timeline entries.
const (
	entryTurnStart   = "turn/start"
	entryTurnEnd     = "turn/end"
	entryMode        = "plan/mode"
	entryNotice      = "notice"
	entryHeader      = "request/header"
	entryCommand     = "command"
	entryCommandDone = "command/done"
	entryReview      = "review"
	entryReopen      = "plan/reopen"
	// entryModel is a step answered by another model than the step before
	// (the host chooses among several); Text names it.
	entryModel = "model"
)

// inspection is the plan-mode timeline of one session, as inspect prints
// it (and as its JSON).
type inspection struct {
	Session    string          `json:"session"`
	Events     int             `json:"events"`
	Timeline   []timelineEntry `json:"timeline"`
	Projection projectionView  `json:"projection"`
	// Companions is the companion plugins' part (inspect_companions.go).
	Companions *companionInspection `json:"companions,omitempty"`
}

// timelineEntry is one event of the timeline. Only the fields of its kind
// are set.
type timelineEntry struct {
	Seq  uint64 `json:"seq"`
	Kind string `json:"kind"`
	// Turn numbers turn/start and turn/end.
	Turn int `json:"turn,omitempty"`
	// Active is the state a plan/mode event recorded.
	Active *bool `json:"active,omitempty"`
	// Reason is a header's or a turn end's reason.
	Reason string `json:"reason,omitempty"`
	// PlanPolicy says whether a request header carried plan:policy.
	PlanPolicy *bool    `json:"planPolicy,omitempty"`
	Sections   []string `json:"sections,omitempty"`
	// Args is a /plan command's argument text.
	Args *string `json:"args,omitempty"`
	// OK is a /plan command's success.
	OK *bool `json:"ok,omitempty"`
	// Title is the reviewed or reopened plan's title (its first heading).
	Title string `json:"title,omitempty"`
	// Plan is the number of the plan a plan/reopen reopened, as /plans
	// numbers the plans.
	Plan int `json:"plan,omitempty"`
	// Outcome is how a review ended, in the words the terminal UI uses
	// ("approved", "sent back with feedback", "dismissed", …).
	Outcome string `json:"outcome,omitempty"`
	// Text is a notice, a command reply, a review's message, a turn's
	// error or the model a step went to.
	Text string `json:"text,omitempty"`
	// From is the model of the steps before a model entry's ("" for the
	// first model).
	From string `json:"from,omitempty"`
	// ExecuteWith is the model a review's approval chose to carry the
	// plan out ("Approve and execute with MODEL").
	ExecuteWith string `json:"executeWith,omitempty"`
}

// projectionView is planmode.Projection for printing.
type projectionView struct {
	Active  bool   `json:"active"`
	Pending string `json:"pending"`
	Exit    bool   `json:"exit,omitempty"`
}

// inspect is "planhost inspect": print a session file's plan-mode timeline.
func (p *program) inspect(args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, flagJSONHelp)
	htmlFile := fs.String("html", "", flagHTMLHelp)
	storeValue := fs.String("store", storeFile, flagSourceStoreHelp)
	if code, done := p.parseFlags(fs, usageInspect, args); done {
		return code
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprint(p.stderr, errNeedFile)
		return exitUsage
	case 1:
	default:
		fmt.Fprintf(p.stderr, errExtraArgs, "inspect", fs.Args()[1:])
		return exitUsage
	}
	id, events, usage, err := p.loadSession("inspect", *storeValue, fs.Arg(0))
	switch {
	case usage:
		return p.usageError("inspect", err)
	case err != nil:
		return p.fail("inspect", err)
	}
	// The timeline and the companions read the same immutable log: on
	// two cores at once, a large log's inspection takes half as long.
	var ci companionInspection
	done := make(chan struct{})
	go func() {
		defer close(done)
		ci = inspectCompanions(events)
	}()
	ins := inspect(id, events)
	<-done
	if !ci.empty() {
		ins.Companions = &ci
	}
	if *htmlFile != "" {
		err := writeHTMLFile(*htmlFile, id, ci)
		switch {
		case errors.Is(err, errNotRegular):
			return p.usageError("inspect", err)
		case err != nil:
			return p.fail("inspect", err)
		}
	}
	if *asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ins); err != nil {
			return p.fail("inspect", err)
		}
		// Texts from the log keep their meaning but show safely.
		if _, err := p.stdout.Write(safetext.JSON(b.Bytes())); err != nil {
			return p.fail("inspect", err)
		}
		return exitOK
	}
	writeInspection(p.stdout, ins)
	if ins.Companions != nil {
		writeCompanions(p.stdout, *ins.Companions)
	}
	return exitOK
}

// readSession reads a session file for cmd (inspect, export) through the durable store, on a private
// copy so that the file itself is never changed (the store repairs a torn
// tail and tightens file modes when it opens a session). The plan-mode
// payload check runs on every event.
func readSession(file, cmd string, stderr io.Writer) (id string, events host.Log, err error) {
	base := filepath.Base(file)
	id, ok := strings.CutSuffix(base, store.FileExt)
	if !ok {
		return "", host.Log{}, fmt.Errorf("%s: %w", file, errNotJSONL)
	}
	if err := store.ValidateID(id); err != nil {
		return "", host.Log{}, fmt.Errorf("%s: %w", file, err)
	}
	tmp, err := os.MkdirTemp("", "planhost-inspect-")
	if err != nil {
		return "", host.Log{}, err
	}
	defer os.RemoveAll(tmp)
	copyDir := filepath.Join(tmp, sessionsDirName)
	copyPath := filepath.Join(copyDir, id+store.FileExt)
	// A repair of the copy is shown, naming the user's file.
	repairs := newRepairLogger(stderr, cmd, fmt.Sprintf(noteInspectRepair, cmd), func(p string) string {
		return strings.ReplaceAll(p, copyPath, file)
	})
	dir, err := store.OpenDir(copyDir, store.WithLogger(repairs))
	if err != nil {
		return "", host.Log{}, err
	}
	defer dir.Close()
	if err := copyFile(file, dir.Path(id)); err != nil {
		return "", host.Log{}, err
	}
	if _, err := dir.AddValidator(planmode.PluginName, planmode.CheckPayload); err != nil {
		return "", host.Log{}, err
	}
	if _, err := dir.AddValidator(plansteps.PluginName, plansteps.CheckPayload); err != nil {
		return "", host.Log{}, err
	}
	sess, err := dir.Open(id)
	if err != nil {
		// Name the file the user gave, not the private copy.
		return "", host.Log{}, errors.New(strings.ReplaceAll(err.Error(), dir.Path(id), file))
	}
	return id, sess.Events(), nil
}

// copyFile copies the regular file src to a new file dst (mode 0600). src
// is opened once, without blocking, and must be a regular file (a FIFO
// would hang the copy, a link to /dev/zero would never end it); only the
// size its Stat gave is read, even if it grows meanwhile.
func copyFile(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", src, errNotRegular, info.Mode().Type())
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, info.Size())); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// inspect builds the timeline of events. The entries that need no other
// event (turns, modes, notices, headers, reopens) and those that follow
// earlier ones (models, /plan runs, reviews) are read on two goroutines,
// beside the projection, and merged in log order.
func inspect(id string, events host.Log) inspection {
	ins := inspection{Session: id, Events: events.Len()}
	var (
		plain []timelineEntry
		proj  planmode.Projection
		wg    sync.WaitGroup
	)
	// Each half of the log's plain entries on its own goroutine: they are
	// most of the work.
	var plain2 []timelineEntry
	half := events.Len() / 2
	wg.Go(func() { plain = plainEntries(events, 0, half) })
	wg.Go(func() { plain2 = plainEntries(events, half, events.Len()) })
	wg.Go(func() { proj = planmode.Project(events) })
	linked := linkedEntries(events)
	wg.Wait()
	plain = append(plain, plain2...)
	ins.Timeline = make([]timelineEntry, 0, len(plain)+len(linked))
	for len(plain) > 0 || len(linked) > 0 {
		if len(linked) == 0 || len(plain) > 0 && plain[0].Seq < linked[0].Seq {
			ins.Timeline, plain = append(ins.Timeline, plain[0]), plain[1:]
		} else {
			ins.Timeline, linked = append(ins.Timeline, linked[0]), linked[1:]
		}
	}
	ins.Projection = projectionView{Active: proj.Active, Pending: proj.Pending.String(), Exit: proj.Exit}
	return ins
}

// plainEntries returns the timeline entries that each come from one event
// alone, of the events from to to-1, in log order.
func plainEntries(events host.Log, from, to int) []timelineEntry {
	var entries []timelineEntry
	for _, e := range events.Range(from, to) {
		entry := timelineEntry{Seq: e.Seq}
		switch e.Type {
		case host.TypeTurnStart:
			var t host.TurnStart
			if unmarshal(e.Data, &t) != nil {
				continue
			}
			entry.Kind, entry.Turn = entryTurnStart, t.Turn
		case host.TypeTurnEnd:
			var t host.TurnEnd
			if unmarshal(e.Data, &t) != nil {
				continue
			}
			entry.Kind, entry.Turn, entry.Reason = entryTurnEnd, t.Turn, string(t.Reason)
			entry.Text = clipText(firstLine(t.Error), maxInspectText)
		case planmode.EventPlanReopen:
			var p planmode.ReopenPayload
			if unmarshal(e.Data, &p) != nil {
				continue
			}
			entry.Kind, entry.Plan, entry.Title = entryReopen, p.Number, p.Title
		case planmode.EventPlanMode:
			var m planmode.ModePayload
			if unmarshal(e.Data, &m) != nil {
				continue
			}
			entry.Kind, entry.Active = entryMode, &m.Active
		case host.TypeUserMessage:
			if e.Source == nil || e.Source.Kind != host.SourcePlugin || e.Source.Plugin != planmode.PluginName {
				continue
			}
			var m host.UserMessage
			if unmarshal(e.Data, &m) != nil {
				continue
			}
			entry.Kind, entry.Text = entryNotice, blocksText(m.Content)
		case host.TypeRequestHeader:
			var h host.RequestHeader
			if unmarshal(e.Data, &h) != nil {
				continue
			}
			policy := slices.Contains(h.Sections, planmode.SectionName)
			entry.Kind, entry.Reason, entry.PlanPolicy, entry.Sections = entryHeader, string(h.Reason), &policy, h.Sections
		default:
			continue
		}
		entries = append(entries, entry)
	}
	return entries
}

// linkedEntries returns the timeline entries that follow earlier events:
// a step's model when it changes, /plan runs and their results, reviews
// with the title of the plan their call presented; in log order.
func linkedEntries(events host.Log) []timelineEntry {
	var entries []timelineEntry
	planRuns := map[string]bool{} // command/run IDs of /plan
	titles := map[string]string{} // exit_plan_mode call ID → plan title
	model := ""                   // the model of the last step that named one
	for _, e := range events.All() {
		entry := timelineEntry{Seq: e.Seq}
		switch e.Type {
		case host.TypeToolCall:
			if !mentionsTool(e.Data, planmode.ExitToolName) {
				continue
			}
			var c host.ToolCall
			var in struct {
				Plan string `json:"plan"`
			}
			if unmarshal(e.Data, &c) == nil && c.Name == planmode.ExitToolName && unmarshal(c.Input, &in) == nil {
				titles[c.ID] = planmd.Title(in.Plan)
			}
			continue
		case host.TypeStepStart:
			var s host.StepStart
			if !bytes.Contains(e.Data, []byte(`"model"`)) || unmarshal(e.Data, &s) != nil || s.Model == "" || s.Model == model {
				continue
			}
			entry.Kind, entry.Text, entry.From = entryModel, s.Model, model
			model = s.Model
		case host.TypeCommandRun:
			var c host.CommandRun
			if unmarshal(e.Data, &c) != nil || c.Name != planmode.CommandName {
				continue
			}
			planRuns[c.ID] = true
			entry.Kind, entry.Args = entryCommand, &c.Args
		case host.TypeCommandDone:
			var c host.CommandDone
			if unmarshal(e.Data, &c) != nil || !planRuns[c.ID] {
				continue
			}
			entry.Kind, entry.OK, entry.Text = entryCommandDone, &c.OK, clipText(firstLine(c.Text), maxInspectText)
		case host.TypeToolResult:
			if !mentionsTool(e.Data, planmode.ExitToolName) {
				continue
			}
			var r host.ToolResult
			if unmarshal(e.Data, &r) != nil || r.Name != planmode.ExitToolName {
				continue
			}
			entry.Kind, entry.Title = entryReview, titles[r.CallID]
			var res map[string]any
			decoded := !r.IsError && unmarshal([]byte(r.Output), &res) == nil
			edited := decoded && userEdited(res)
			if text, ok := res[planmode.ResultPlan].(string); decoded && ok && text != "" {
				// A plan presented without "plan" (a plan file's).
				entry.Title = planmd.Title(text)
			}
			if m, ok := res[approvewith.ResultModel].(string); decoded && ok {
				entry.ExecuteWith = m
			}
			entry.Outcome = tui.English.ExitOutcome(planmode.ExitOutcome(r.Outcome), edited)
			if !r.IsError && saveplan.Saved(r.Output) {
				entry.Outcome = tui.English.OutcomeSaved
			}
			if r.IsError {
				// The whole message, as the log has it: a keep-planning
				// result ends with the user's feedback.
				entry.Text = oneLine(strings.TrimPrefix(r.Output, refhost.ToolErrorPrefix))
			}
		default:
			continue
		}
		entries = append(entries, entry)
	}
	return entries
}

// unmarshal decodes data as encoding/json does: it is json v2 with the v1
// options (encoding/json's own code under GOEXPERIMENT=jsonv2), which
// takes a third of encoding/json's time on a timeline's small payloads.
func unmarshal(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, jsonv1.DefaultOptionsV1())
}

// writeInspection prints the timeline as text, one line per entry.
func writeInspection(w io.Writer, ins inspection) {
	fmt.Fprintf(w, inspectSession+"\n", ins.Session, ins.Events)
	for _, e := range ins.Timeline {
		var line string
		switch e.Kind {
		case entryTurnStart:
			line = fmt.Sprintf(inspectTurnStart, e.Seq, e.Turn)
		case entryTurnEnd:
			line = fmt.Sprintf(inspectTurnEnd, e.Seq, e.Turn, e.Reason)
			if e.Text != "" {
				line += ": " + e.Text
			}
		case entryMode:
			line = fmt.Sprintf(inspectMode, e.Seq, *e.Active)
		case entryNotice:
			line = fmt.Sprintf(inspectNotice, e.Seq, e.Text)
		case entryModel:
			line = fmt.Sprintf(inspectModel, e.Seq, e.Text)
			if e.From != "" {
				line = fmt.Sprintf(inspectModelSwitch, e.Seq, e.From, e.Text)
			}
		case entryHeader:
			carried := inspectNo
			if *e.PlanPolicy {
				carried = inspectYes
			}
			line = fmt.Sprintf(inspectHeader, e.Seq, e.Reason, carried, sectionList(e.Sections))
		case entryCommand:
			line = fmt.Sprintf(inspectCommand, e.Seq, strings.TrimSpace(*e.Args))
		case entryCommandDone:
			line = fmt.Sprintf(inspectCommandRes, e.Seq, *e.OK, e.Text)
		case entryReopen:
			line = fmt.Sprintf(inspectReopen, e.Seq, e.Plan, e.Title)
		case entryReview:
			line = fmt.Sprintf(inspectReview, e.Seq, e.Title, e.Outcome)
			if e.ExecuteWith != "" {
				line += fmt.Sprintf(inspectExecuteWith, e.ExecuteWith)
			}
			if e.Text != "" {
				line += ": " + e.Text
			}
		}
		// Texts from the log show every control character escaped.
		fmt.Fprintln(w, safetext.Escape(strings.TrimRight(line, " ")))
	}
	fmt.Fprintf(w, inspectProjection+"\n", ins.Projection.Active, ins.Projection.Pending)
}

// mentionsTool reports whether a tool call's or result's data may be one
// of the named tool: whether it holds the name as a JSON string. Every
// writer planmode reads encodes the plain ASCII of a tool name verbatim,
// and planmode's own fold skips the calls and results without it, so
// inspect decodes only those it would show.
func mentionsTool(data []byte, name string) bool {
	return bytes.Contains(data, []byte(`"`+name+`"`))
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
