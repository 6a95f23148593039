package reviewgate_test

import (
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
)

func TestGateRefusesInputTypedAhead(t *testing.T) {
	shown := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g := reviewgate.Open(shown)
	tests := []struct {
		name  string
		typed time.Time
		want  bool
	}{
		{"typed before the question", shown.Add(-time.Second), false},
		{"typed as it appeared", shown, false},
		{"within the grace", shown.Add(reviewgate.Grace - time.Millisecond), false},
		{"after the grace", shown.Add(reviewgate.Grace), true},
		{"not typed (a script)", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.Accepts(tt.typed); got != tt.want {
				t.Errorf("Accepts(%v) = %t, want %t", tt.typed, got, tt.want)
			}
		})
	}
	if !(reviewgate.Gate{}).Accepts(shown) {
		t.Error("a zero gate refused input")
	}
}
