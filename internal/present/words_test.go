package present_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// event is an event of type typ with data as its payload.
func event(t *testing.T, typ string, data any) host.Event {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return host.Event{Type: typ, Data: b}
}

// shown is what a transcript in cat's words shows of events, Internal
// items left out, one item a line.
func shown(cat *present.Catalog, events ...host.Event) string {
	tr := present.NewTranscript(cat, false)
	var lines []string
	for _, e := range events {
		for _, it := range tr.Add(e) {
			if !it.Internal {
				lines = append(lines, it.Text)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// TestAnExhaustedStepBudgetInTheUsersWords: a turn that reached the step
// limit ends in the catalog's words, without the host's English error.
func TestAnExhaustedStepBudgetInTheUsersWords(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		t.Run(cat.Lang, func(t *testing.T) {
			got := shown(cat, event(t, host.TypeTurnEnd, host.TurnEnd{Turn: 1, Reason: host.TurnStepsExhausted, Error: "step limit of the turn reached (3)"}))
			if want := fmt.Sprintf(cat.Session.TurnEnded, 1, cat.Session.TurnStepsExhausted); got != want {
				t.Errorf("shows %q, want %q", got, want)
			}
		})
	}
}
