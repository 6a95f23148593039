// Package inspect shows a session's log as "planhost inspect" does: every
// item of its transcript with the position of the event it shows (the
// internal lines included), the plan-mode state the log ends with, as text
// or as JSON; and a self-contained HTML page of its approved plans, the
// models its steps went to, its steps, its todo list and the questions the
// model asked. Both read the one presentation of a session (package
// present), in the user's language.
package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
)

// Inspection is a session as inspect shows it, and its JSON.
type Inspection struct {
	Session string `json:"session"`
	Events  int    `json:"events"`
	// Items are the transcript's items, the internal ones included.
	Items []Item `json:"items"`
	// State is the plan-mode state the log alone shows at its end.
	State State `json:"state"`

	shown []present.Item // the items as present gives them
}

// Item is one item of the transcript.
type Item struct {
	Seq    uint64 `json:"seq"`
	Kind   string `json:"kind"`
	Title  string `json:"title,omitempty"`
	Text   string `json:"text,omitempty"`
	Rows   []Row  `json:"rows,omitempty"`
	Footer string `json:"footer,omitempty"`
	// Internal marks a line the terminal shows only with -verbose.
	Internal bool `json:"internal,omitempty"`
}

// Row is one row of a box.
type Row struct {
	Status string `json:"status"`
	Text   string `json:"text"`
	Note   string `json:"note,omitempty"`
}

// State is planmode.State for printing.
type State struct {
	Active  bool   `json:"active"`
	Pending string `json:"pending"`
	Exit    bool   `json:"exit,omitempty"`
}

// kinds name the item kinds in the JSON.
var kinds = map[present.Kind]string{
	present.Note: "note", present.Rule: "rule", present.User: "user", present.Assistant: "assistant",
	present.Reasoning: "reasoning", present.Tool: "tool", present.Plan: "plan", present.Diff: "diff",
	present.Box: "box", present.Error: "error",
}

// statuses name the row statuses in the JSON.
var statuses = map[present.Status]string{
	present.Pending: "pending", present.InProgress: "in_progress", present.Completed: "completed", present.Unmarked: "none",
}

// Inspect reads session id's log.
func Inspect(id string, events host.Log, cat *present.Catalog) Inspection {
	ins := Inspection{Session: id, Events: events.Len(), Items: []Item{}}
	tr := present.NewTranscript(cat, true)
	for _, e := range events.All() {
		for _, it := range tr.Add(e) {
			ins.shown = append(ins.shown, it)
			item := Item{Seq: it.Seq, Kind: kinds[it.Kind], Title: it.Title, Text: it.Text, Footer: it.Footer, Internal: it.Internal}
			for _, r := range it.Rows {
				item.Rows = append(item.Rows, Row{Status: statuses[r.Status], Text: r.Text, Note: r.Note})
			}
			ins.Items = append(ins.Items, item)
		}
	}
	st := planmode.Project(events)
	ins.State = State{Active: st.Active, Pending: st.Pending.String(), Exit: st.Exit}
	return ins
}

// WriteJSON writes the inspection as JSON: texts from the log keep their
// meaning but show safely (invisible characters escaped).
func WriteJSON(w io.Writer, ins Inspection) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ins); err != nil {
		return err
	}
	_, err := w.Write(safetext.JSON(b.Bytes()))
	return err
}

// WriteText writes the inspection as text: the session, every item with
// its event's position before its first line, and the state.
func WriteText(w io.Writer, ins Inspection, cat *present.Catalog) {
	var b bytes.Buffer
	item := &present.Plain{W: &b, Cat: cat, Verbose: true}
	out := &present.Plain{W: w, Cat: cat}
	out.Line(fmt.Sprintf(cat.Page.Session, ins.Session, ins.Events))
	for _, it := range ins.shown {
		b.Reset()
		item.Item(it)
		fmt.Fprintf(w, "#%d %s", it.Seq, strings.TrimLeft(b.String(), " "))
	}
	mode := cat.Session.ModeDefault
	if ins.State.Active {
		mode = cat.Session.ModePlan
	}
	out.Line(fmt.Sprintf(cat.Page.State, mode, ins.State.Pending))
}
