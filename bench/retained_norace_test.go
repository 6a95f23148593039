//go:build !race

package bench_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// maxRetainedPerSession is the most the plugin may keep per session it
// serves: its state, its map entry, the subscription and the close
// notification of the store's session.
const maxRetainedPerSession = 400

// TestRetainedStatePerSession serves sessions of the memory store, whose
// sessions notify their closing, and checks what the plugin keeps for
// each against maxRetainedPerSession. (The race detector's own memory
// would skew it, hence the build tag.)
func TestRetainedStatePerSession(t *testing.T) {
	const sessions = 512
	st := store.NewMemory()
	agents := make([]host.Agent, sessions)
	for i := range agents {
		s, err := st.Create("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(host.Event{Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":true}`)}); err != nil {
			t.Fatal(err)
		}
		agents[i] = &benchAgent{sess: s}
	}
	p := newPlugin(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, a := range agents {
		if text := p.SectionText(host.AssembleContext{Agent: a}); text != policy {
			t.Fatalf("section = %q, want the policy", text)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(agents)
	runtime.KeepAlive(p)
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / sessions
	t.Logf("%.0f B per served session", per)
	if per > maxRetainedPerSession {
		t.Errorf("the plugin keeps %.0f B per served session, want at most %d", per, maxRetainedPerSession)
	}
}
