package hostkit_test

import (
	"testing"
	"time"

	"github.com/dshgo/planmode/host/hostkit"
)

// TestCloseFuncs checks AfterClose's contract on CloseFuncs: a func runs
// once after Close (at once when registered after it), and stop keeps it
// from running only while Close has not started it.
func TestCloseFuncs(t *testing.T) {
	tests := []struct {
		name       string
		closeFirst bool // Close before AfterClose
		stopBefore bool // stop before Close
		wantRun    bool
		wantStop   bool // what stop reports
	}{
		{name: "runs after Close", wantRun: true},
		{name: "registered after Close runs at once", closeFirst: true, wantRun: true},
		{name: "stopped before Close never runs", stopBefore: true, wantStop: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l hostkit.CloseFuncs
			if tt.closeFirst {
				l.Close()
			}
			ran := make(chan struct{}, 2)
			other := make(chan struct{}, 1)
			stop := l.AfterClose(func() { ran <- struct{}{} })
			l.AfterClose(func() { other <- struct{}{} })
			stopped := false
			if tt.stopBefore {
				stopped = stop()
			}
			l.Close()
			l.Close() // idempotent
			if !tt.stopBefore {
				stopped = stop()
			}
			if stopped != tt.wantStop {
				t.Errorf("stop() = %v, want %v", stopped, tt.wantStop)
			}
			<-other // every other func still runs
			wait := 5 * time.Second
			if !tt.wantRun {
				wait = 20 * time.Millisecond
			}
			select {
			case <-ran:
				if !tt.wantRun {
					t.Fatal("a stopped func ran")
				}
			case <-time.After(wait):
				if tt.wantRun {
					t.Fatalf("the func did not run within %v of Close", wait)
				}
			}
			select {
			case <-ran:
				t.Fatal("the func ran twice")
			case <-time.After(10 * time.Millisecond):
			}
		})
	}
}
