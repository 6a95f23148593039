package host_test

import (
	"context"
	"testing"

	"github.com/dshgo/planmode/host"
)

// TestSetOutcomeOutsideAHostDoesNothing checks that a tool called with a
// context no host made for it can still report an outcome safely.
func TestSetOutcomeOutsideAHostDoesNothing(t *testing.T) {
	host.SetOutcome(context.Background(), "ignored")
	ctx, outcome := host.RecordOutcome(context.Background())
	if got := outcome(); got != "" {
		t.Fatalf("outcome before SetOutcome = %q, want none", got)
	}
	host.SetOutcome(ctx, "first")
	host.SetOutcome(context.WithoutCancel(ctx), "second")
	if got := outcome(); got != "second" {
		t.Fatalf("outcome = %q, want the last one set, through a derived context", got)
	}
}
