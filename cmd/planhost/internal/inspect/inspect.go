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
	"fmt"
	"io"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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
	Items []present.Item `json:"items"`
	// State is the plan-mode state the log alone shows at its end.
	State State `json:"state"`
}

// State is planmode.State for printing.
type State struct {
	Active  bool   `json:"active"`
	Pending string `json:"pending"`
	Exit    bool   `json:"exit,omitzero"`
}

// Inspect reads session id's log.
func Inspect(id string, events host.Log, cat *present.Catalog) Inspection {
	ins := Inspection{Session: id, Events: events.Len(), Items: make([]present.Item, 0, events.Len())}
	tr := present.NewTranscript(cat, true)
	for _, e := range events.All() {
		ins.Items = append(ins.Items, tr.Add(e)...)
	}
	st := planmode.Project(events)
	ins.State = State{Active: st.Active, Pending: st.Pending.String(), Exit: st.Exit}
	return ins
}

// WriteJSON writes the inspection as indented JSON: texts from the log
// keep their meaning but show safely (invisible characters escaped).
func WriteJSON(w io.Writer, ins Inspection) error {
	var b bytes.Buffer
	if err := jsonv2.MarshalWrite(&b, ins, jsontext.Multiline(true), jsontext.WithIndent("  ")); err != nil {
		return err
	}
	b.WriteByte('\n')
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
	for _, it := range ins.Items {
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
