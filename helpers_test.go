package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/store"
)

// rapidChecks is how many sequences each rapid property runs by default, so
// that a plain "go test" (and CI) runs at least a thousand.
const rapidChecks = "1000"

func TestMain(m *testing.M) {
	flag.Parse()
	if _, env := os.LookupEnv("RAPID_CHECKS"); !env && flag.Lookup("rapid.checks") != nil && !flagSet("rapid.checks") {
		if err := flag.Set("rapid.checks", rapidChecks); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	goleak.VerifyTestMain(m)
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// tb is what the helpers need of a test: *testing.T, *testing.B and
// *rapid.T all have it.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// policy is the section text the tests configure.
const policy = "PLAN POLICY: explore read-only, then present a plan.\n"

// fakeHost is the shared fake host of package hosttest with the memory
// store it runs on and the helpers these tests use.
type fakeHost struct {
	*hosttest.Host
	store *store.Memory
}

func newFakeHost() *fakeHost {
	st := store.NewMemory()
	return &fakeHost{Host: hosttest.NewHost(st), store: st}
}

// registered counts what is registered with the host.
func (h *fakeHost) registered() (sections, listeners, types int) {
	s, _, _, l, ty := h.Registered()
	return s, l, ty
}

// params returns plugin params wired to the host.
func (h *fakeHost) params(logger *slog.Logger) planmode.Params {
	return planmode.Params{
		Config:     planmode.Config{Section: policy},
		Sections:   h,
		Tools:      h,
		PreStep:    h,
		Validators: h.store,
		EventTypes: h,
		Commands:   h,
		Logger:     logger,
	}
}

// start builds and starts a controller on the host, stopped at cleanup.
func (h *fakeHost) start(t testing.TB, logger *slog.Logger) *planmode.Controller {
	t.Helper()
	return e2etest.Start(t, h.params(logger))
}

// restart stops c and starts a fresh controller on the host, as a
// restarted process would.
func (h *fakeHost) restart(t testing.TB, c *planmode.Controller) *planmode.Controller {
	t.Helper()
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h.start(t, nil)
}

// startAgent starts a controller on a new fake host and returns them with
// an agent on a new session.
func startAgent(t testing.TB) (*fakeHost, *planmode.Controller, *fakeAgent) {
	t.Helper()
	h := newFakeHost()
	c := h.start(t, nil)
	return h, c, h.newAgent(t)
}

// fakeAgent is the driven agent of package hosttest.
type fakeAgent = hosttest.Agent

func (h *fakeHost) newAgent(t tb) *fakeAgent {
	t.Helper()
	return agentOn(h.newSession(t))
}

// newSession creates an empty session in the host's store.
func (h *fakeHost) newSession(t tb) host.Session {
	t.Helper()
	sess, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// agentOn returns an agent bound to an existing session, as after a restart
// or a fork: it knows nothing of earlier headers until it logs its own.
func agentOn(sess host.Session) *fakeAgent {
	return hosttest.NewAgent("agent-"+sess.ID()[:6], sess)
}

// verdict is how a driven step ends in the pre-step chain.
type verdict = hosttest.Verdict

const (
	accepted  = hosttest.Accepted
	rejected  = hosttest.Rejected
	cancelled = hosttest.Cancelled
)

// runStep runs one step through the host's pre-step chain (see
// hosttest.Host.RunStep) and returns the decision.
func (h *fakeHost) runStep(a *fakeAgent, v verdict) host.Decision { return h.RunStep(a, v) }

// runAttempt is runStep; retry makes it a retry of the previous step.
func (h *fakeHost) runAttempt(a *fakeAgent, v verdict, retry bool) host.Decision {
	if retry {
		return h.RetryStep(a, v)
	}
	return h.RunStep(a, v)
}

// render returns the names of the sections that render text for agent.
func (h *fakeHost) render(agent host.Agent) []string { return h.Render(agent) }

func appendJSON(s host.Session, typ string, src *host.Source, payload any) error {
	return hosttest.Append(s, typ, src, payload)
}

// turnOpen reports whether a turn is open after the first end events
// (e2etest.TurnOpen).
func turnOpen(log host.Log, end int) bool { return e2etest.TurnOpen(log, end) }

// must panics on a harness error; the harness's own appends never fail in
// these tests, so a panic is a broken test, not a finding.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// logTypes returns the event types of the session's log from index from.
func logTypes(s host.Session, from int) []string {
	var out []string
	for _, e := range s.Events().Slice()[from:] {
		out = append(out, e.Type)
	}
	return out
}

// payloads decodes the payloads of the events of type typ from index
// from.
func payloads[T any](t tb, s host.Session, typ string, from int) []T {
	t.Helper()
	var out []T
	for _, e := range s.Events().Slice()[from:] {
		if e.Type != typ {
			continue
		}
		var p T
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		out = append(out, p)
	}
	return out
}

// modes returns the states of the plan/mode events from index from.
func modes(t tb, s host.Session, from int) []bool {
	t.Helper()
	var out []bool
	for _, p := range payloads[planmode.ModePayload](t, s, planmode.EventPlanMode, from) {
		out = append(out, p.Active)
	}
	return out
}

// notices returns the texts of the plugin's notices from index from.
func notices(t tb, s host.Session, from int) []string {
	t.Helper()
	var out []string
	for _, e := range s.Events().Slice()[from:] {
		if e.Type != host.TypeUserMessage || e.Source == nil || e.Source.Kind != host.SourcePlugin {
			continue
		}
		if e.Source.Plugin != planmode.PluginName || e.Source.Form != planmode.NoticeForm {
			t.Fatalf("event %d: notice source %+v", e.Seq, *e.Source)
		}
		var m host.UserMessage
		if err := json.Unmarshal(e.Data, &m); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		for _, b := range m.Content {
			out = append(out, b.Text)
		}
	}
	return out
}

// rejectModes makes every plan/mode append fail until the returned func is
// called.
func rejectModes(t tb, h *fakeHost) (restore func()) {
	t.Helper()
	return rejectType(t, h, planmode.EventPlanMode)
}

// rejectType makes every append of events of type typ fail until the
// returned func is called.
func rejectType(t tb, h *fakeHost, typ string) (restore func()) {
	t.Helper()
	undo, err := h.store.AddValidator("test-reject-"+typ, func(e host.Event) error {
		if e.Type == typ {
			return errAppendRefused
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return undo
}

var errAppendRefused = errors.New("append refused by the test")

// warnCounter is a slog handler counting warnings.
type warnCounter struct {
	mu    sync.Mutex
	warns []string
}

func (w *warnCounter) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		w.mu.Lock()
		w.warns = append(w.warns, r.Message)
		w.mu.Unlock()
	}
	return nil
}
func (w *warnCounter) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnCounter) WithGroup(string) slog.Handler      { return w }
func (w *warnCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.warns)
}
