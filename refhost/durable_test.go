package refhost_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// syncSpy is a session that records how long the log was at its last Sync.
type syncSpy struct {
	host.Session
	mu     sync.Mutex
	synced int
	syncs  int
}

func (s *syncSpy) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.synced = s.Len()
	s.syncs++
	return nil
}

func (s *syncSpy) lastSync() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced
}

// TestDurabilityPoints checks that the loop makes the log durable
// (host.Syncer) before every model request, before tools run after a
// reply the user was shown, before a command's reply returns, and at the
// end of a turn.
func TestDurabilityPoints(t *testing.T) {
	var spy *syncSpy
	var atRequest, atTool [][2]int // {log length, synced length}
	record := func(to *[][2]int) {
		*to = append(*to, [2]int{spy.Len(), spy.lastSync()})
	}
	f := newFixture(t,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			record(&atRequest)
			return refhost.Response{Text: "Reading it.", ToolCalls: []host.ToolCall{call("c1", "probe", `{}`)}}, nil
		}},
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			record(&atRequest)
			return refhost.Response{Text: "Done."}, nil
		}},
	)
	if _, err := f.rt.AddTool(funcTool{name: "probe", fn: func(context.Context, host.CallContext, json.RawMessage) (string, error) {
		record(&atTool)
		return "ok", nil
	}}); err != nil {
		t.Fatal(err)
	}
	s, err := f.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	spy = &syncSpy{Session: s}
	a, err := f.rt.NewAgent("", spy)
	if err != nil {
		t.Fatal(err)
	}
	f.steer(a, "look")
	for i, r := range atRequest {
		if r[1] != r[0] {
			t.Errorf("request %d sent with %d events logged and %d synced", i+1, r[0], r[1])
		}
	}
	for i, r := range atTool {
		// The reply and the tool call are logged; the reply must be durable.
		if r[1] < r[0]-1 {
			t.Errorf("tool %d ran with %d events logged and %d synced", i+1, r[0], r[1])
		}
	}
	if len(atRequest) != 2 || len(atTool) != 1 {
		t.Fatalf("%d requests and %d tool runs, want 2 and 1", len(atRequest), len(atTool))
	}
	if got, want := spy.lastSync(), spy.Len(); got != want {
		t.Errorf("after the turn %d of %d events synced", got, want)
	}

	if _, err := f.rt.AddCommand(host.Command{Name: "ping", Run: func(context.Context, host.Invocation) (string, error) { return "pong", nil }}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.rt.Execute(ctxTimeout(t), a, "/ping", nil); err != nil {
		t.Fatal(err)
	}
	if got, want := spy.lastSync(), spy.Len(); got != want {
		t.Errorf("after a command %d of %d events synced", got, want)
	}
}
