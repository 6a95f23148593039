package reviewgate_test

import (
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
)

func TestGateRefusesInputTypedAhead(t *testing.T) {
	shown := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g := reviewgate.Open(shown, time.Time{})
	tests := []struct {
		name  string
		typed time.Time
		want  bool
	}{
		{"typed before the question", shown.Add(-time.Second), false},
		{"typed as it appeared", shown, false},
		{"within the quiet window", shown.Add(reviewgate.Quiet - time.Millisecond), false},
		{"after the quiet window", shown.Add(reviewgate.Quiet), true},
		{"not typed (a script)", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := g
			if got := g.Admit(tt.typed); got != tt.want {
				t.Errorf("Admit(%v) = %t, want %t", tt.typed, got, tt.want)
			}
		})
	}
	var zero reviewgate.Gate
	if !zero.Admit(shown) {
		t.Error("a zero gate refused input")
	}
}

// TestGateRefusesBursts types key sequences at several speeds, starting
// before the question appeared and going on after it: no key of a burst is
// admitted, however long the burst lasts; the first key after a quiet
// keyboard is, and the gate stays awake until Sleep.
func TestGateRefusesBursts(t *testing.T) {
	shown := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, gap := range []time.Duration{0, 30 * time.Millisecond, 120 * time.Millisecond, 450 * time.Millisecond} {
		for _, start := range []time.Duration{-time.Second, -200 * time.Millisecond, 0, 100 * time.Millisecond} {
			g := reviewgate.Open(shown, shown.Add(min(start, 0)))
			at := shown.Add(start)
			for i := range 20 {
				if at.Before(shown) { // typed into the chat before the question
					at = at.Add(gap)
					continue
				}
				if g.Admit(at) {
					t.Fatalf("gap %v, start %v: key %d at %v admitted", gap, start, i, at.Sub(shown))
				}
				at = at.Add(gap)
			}
			last := at.Add(-gap)
			if last.Before(shown) {
				last = shown
			}
			if g.Admit(last.Add(reviewgate.Quiet - time.Millisecond)) {
				t.Fatalf("gap %v, start %v: a key before the keyboard was quiet admitted", gap, start)
			}
			after := last.Add(2 * reviewgate.Quiet)
			if !g.Admit(after) {
				t.Fatalf("gap %v, start %v: a key after a quiet keyboard refused", gap, start)
			}
			if !g.Admit(after.Add(time.Millisecond)) {
				t.Fatalf("gap %v, start %v: an awake gate refused the next key", gap, start)
			}
			g.Sleep(after.Add(2 * time.Millisecond))
			if g.Admit(after.Add(3 * time.Millisecond)) {
				t.Fatalf("gap %v, start %v: a sleeping gate admitted a key", gap, start)
			}
		}
	}
}

func TestOpenWaitsForTheTypingBeforeTheQuestion(t *testing.T) {
	shown := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// The last key before the question came after it was shown (it was
	// handled late): the wait counts from that key.
	g := reviewgate.Open(shown, shown.Add(300*time.Millisecond))
	if g.Admit(shown.Add(reviewgate.Quiet + 100*time.Millisecond)) {
		t.Error("admitted a key 400 ms after the last one")
	}
}
