package acp_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
)

// errDiskFull is the failure lossyStore injects.
var errDiskFull = errors.New("injected: no space left on device")

// lossyStore is a store whose sessions fail the first append of an
// exit_plan_mode result, as a full disk does once.
type lossyStore struct {
	host.Store
	mu     sync.Mutex
	failed bool
}

func (s *lossyStore) Create(id string) (host.Session, error) {
	sess, err := s.Store.Create(id)
	if err != nil {
		return nil, err
	}
	return &lossySession{Session: sess, st: s}, nil
}

func (s *lossyStore) Open(id string) (host.Session, error) {
	sess, err := s.Store.Open(id)
	if err != nil {
		return nil, err
	}
	return &lossySession{Session: sess, st: s}, nil
}

type lossySession struct {
	host.Session
	st *lossyStore
}

func (s *lossySession) Append(e host.Event) (host.Event, error) {
	if e.Type == host.TypeToolResult && strings.Contains(string(e.Data), `"exit_plan_mode"`) {
		s.st.mu.Lock()
		first := !s.st.failed
		s.st.failed = true
		s.st.mu.Unlock()
		if first {
			return host.Event{}, errDiskFull
		}
	}
	return s.Session.Append(e)
}

// TestLostApprovalIsReported approves a plan whose result cannot be
// written: the client sees the call fail with the reason, the prompt fails
// naming it, the session stays in plan mode, and the next prompt works.
func TestLostApprovalIsReported(t *testing.T) {
	st := &lossyStore{Store: newStore(t)}
	model := planSteps(scripted.Step{Text: "Still planning."})
	s := openSession(t, newHostParts(t, st, model))
	s.planMode(approve)
	// The turn fails (its result could not be written); the prompt's error
	// names the cause.
	if _, err := s.prompt(s.id, "Add a Goodbye function."); err == nil || !strings.Contains(err.Error(), errDiskFull.Error()) {
		t.Fatalf("prompt error = %v, want one naming %q", err, errDiskFull)
	}
	us, _ := s.c.snapshot()
	var failed *sdk.SessionToolCallUpdate
	for _, u := range us {
		if r := u.Update.ToolCallUpdate; r != nil && r.ToolCallId == "c3" && r.Status != nil {
			failed = r
		}
	}
	if failed == nil || *failed.Status != sdk.ToolCallStatusFailed || len(failed.Content) == 0 {
		t.Fatalf("exit_plan_mode result = %+v, want failed with a reason", failed)
	}
	text := failed.Content[0].Content.Content.Text.Text
	for _, want := range []string{"could not be recorded", errDiskFull.Error(), "not approved and plan mode stays on"} {
		if !strings.Contains(text, want) {
			t.Errorf("the client is told %q; want it to say %q", text, want)
		}
	}
	if got := modeUpdates(us); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("mode updates = %v, want only [plan]: the lost approval does not leave plan mode", got)
	}
	s.mustPrompt("Go on.")
}
