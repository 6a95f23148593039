package planmode_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// TestLandPendingLogsASwitchQueuedAfterTheLastStep checks that a selection
// queued after a turn's last accepted step is logged once the turn has
// ended, with its notice, and that LandPending leaves a selection alone
// while a turn is open.
func TestLandPendingLogsASwitchQueuedAfterTheLastStep(t *testing.T) {
	tests := []struct {
		name       string
		give       bool // the selection queued during the turn
		endTurn    bool
		wantLanded bool
		wantState  planmode.State
		wantTypes  []string
	}{
		{"plan mode, after the turn", true, true, true, planmode.State{Active: true},
			[]string{planmode.EventPlanMode, host.TypeUserMessage}},
		{"plan mode, while the turn runs", true, false, false, planmode.State{Pending: planmode.SelectionActive}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			openTurnAfterHeader(h, a)
			h.runStep(a, accepted)
			if got := set(t, c, a, tt.give); got != planmode.Queued {
				t.Fatalf("Set = %v, want queued", got)
			}
			if tt.endTurn {
				must(a.EndTurn())
			}
			from := a.Session().Len()
			landed, err := c.LandPending(a)
			if err != nil || landed != tt.wantLanded {
				t.Fatalf("LandPending = %v, %v; want %v, nil", landed, err, tt.wantLanded)
			}
			wantState(t, c, a, tt.wantState)
			if got := logTypes(a.Session(), from); !slices.Equal(got, tt.wantTypes) {
				t.Fatalf("appended %v, want %v", got, tt.wantTypes)
			}
			if landed {
				if got := notices(t, a.Session(), from); !slices.Equal(got, []string{planmode.NoticeEntered}) {
					t.Fatalf("notices = %q, want the entered notice", got)
				}
			}
			// Nothing is left to land.
			if landed, err := c.LandPending(a); landed || err != nil {
				t.Fatalf("LandPending again = %v, %v; want false, nil", landed, err)
			}
		})
	}
}

func TestLandPendingRefusesANilAgent(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	if _, err := c.LandPending(nil); err == nil {
		t.Fatal("LandPending(nil) succeeded")
	}
}

// TestLandPendingKeepsTheSelectionWhenTheAppendFails checks that a failed
// append is returned and loses nothing: the selection stays pending and
// lands once appends work again.
func TestLandPendingKeepsTheSelectionWhenTheAppendFails(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)
	h.runStep(a, accepted)
	if got := set(t, c, a, true); got != planmode.Queued {
		t.Fatalf("Set = %v, want queued", got)
	}
	must(a.EndTurn())
	restore := rejectModes(t, h)
	if landed, err := c.LandPending(a); landed || !errors.Is(err, errAppendRefused) {
		t.Fatalf("LandPending with appends refused = %v, %v; want false and the append's error", landed, err)
	}
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	restore()
	if landed, err := c.LandPending(a); !landed || err != nil {
		t.Fatalf("LandPending = %v, %v; want true, nil", landed, err)
	}
	wantState(t, c, a, planmode.State{Active: true})
}
