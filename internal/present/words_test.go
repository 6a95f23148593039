package present_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plansteps"
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

// TestAConsentClosedInTheUsersWords: a consent question of a companion's
// tool that ended without the user's answer (closed by Ctrl-C, dismissed)
// shows that once, in the catalog's words, from the call's logged outcome;
// the error the model reads is an internal line.
func TestAConsentClosedInTheUsersWords(t *testing.T) {
	const modelText = "Error: the question to the user failed; plan mode stays off: question aborted: context canceled"
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		entry, modify := cat.Review.Consents[planentry.Purpose], cat.Review.Consents[plansteps.ModifyPurpose]
		tests := []struct {
			name    string
			tool    string
			outcome string
			want    string
		}{
			{"plan entry closed", planentry.ToolName, planentry.OutcomeFailed, entry.Closed},
			{"plan entry dismissed", planentry.ToolName, planentry.OutcomeDismissed, entry.Dismissed},
			{"step change closed", plansteps.ModifyToolName, plansteps.ModifyFailed, modify.Closed},
			{"step change dismissed", plansteps.ModifyToolName, plansteps.ModifyDismissed, modify.Dismissed},
		}
		for _, tt := range tests {
			t.Run(cat.Lang+"/"+tt.name, func(t *testing.T) {
				got := shown(cat,
					event(t, host.TypeToolCall, host.ToolCall{ID: "c1", Name: tt.tool, Input: json.RawMessage(`{}`)}),
					event(t, host.TypeToolResult, host.ToolResult{CallID: "c1", Name: tt.tool, Output: modelText, IsError: true, Outcome: tt.outcome}),
					event(t, host.TypeTurnEnd, host.TurnEnd{Turn: 1, Reason: host.TurnCancelled}))
				ended := fmt.Sprintf(cat.Session.TurnEnded, 1, cat.Session.TurnCancelled)
				if tt.want == "" || strings.Count(got, tt.want) != 1 || strings.Contains(got, "context canceled") {
					t.Errorf("shows:\n%s\nwant %q once and not the model's error", got, tt.want)
				}
				if i, j := strings.Index(got, tt.want), strings.Index(got, ended); i < 0 || j < i {
					t.Errorf("shows:\n%s\nwant %q before %q", got, tt.want, ended)
				}
			})
		}
	}
}
