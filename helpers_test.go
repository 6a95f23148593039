package planmode_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
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

// fakeHost is a minimal agent host for unit tests: registries, a memory
// store, and a step driver with which a test plays turns and steps by hand.
type fakeHost struct {
	store *store.Memory

	mu        sync.Mutex
	sections  []host.Section
	tools     []host.Tool
	commands  []host.Command
	listeners []namedListener // outermost first
	types     map[string]host.EventKind
}

type namedListener struct {
	name string
	l    host.PreStepListener
}

func newFakeHost() *fakeHost {
	return &fakeHost{store: store.NewMemory(), types: map[string]host.EventKind{}}
}

func (h *fakeHost) AddSection(s host.Section) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.sections {
		if x.Name == s.Name {
			return nil, host.ErrDuplicate
		}
	}
	h.sections = append(h.sections, s)
	return h.remover(func() {
		h.sections = slices.DeleteFunc(h.sections, func(x host.Section) bool { return x.Name == s.Name })
	}), nil
}

func (h *fakeHost) AddTool(t host.Tool) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	name := t.Definition().Name
	h.tools = append(h.tools, t)
	return h.remover(func() {
		h.tools = slices.DeleteFunc(h.tools, func(x host.Tool) bool { return x.Definition().Name == name })
	}), nil
}

func (h *fakeHost) AddCommand(c host.Command) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.commands = append(h.commands, c)
	return h.remover(func() {
		h.commands = slices.DeleteFunc(h.commands, func(x host.Command) bool { return x.Name == c.Name })
	}), nil
}

func (h *fakeHost) AddPreStep(name string, l host.PreStepListener, prepend bool) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.listeners {
		if x.name == name {
			return nil, host.ErrDuplicate
		}
	}
	nl := namedListener{name, l}
	if prepend {
		h.listeners = slices.Insert(h.listeners, 0, nl)
	} else {
		h.listeners = append(h.listeners, nl)
	}
	return h.remover(func() {
		h.listeners = slices.DeleteFunc(h.listeners, func(x namedListener) bool { return x.name == name })
	}), nil
}

func (h *fakeHost) DeclareEventType(t host.EventType) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.types[t.Name]; ok {
		return nil, host.ErrDuplicate
	}
	h.types[t.Name] = t.Kind
	return h.remover(func() { delete(h.types, t.Name) }), nil
}

func (h *fakeHost) EventKind(name string) (host.EventKind, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k, ok := h.types[name]
	return k, ok
}

func (h *fakeHost) remover(f func()) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			f()
		})
	}
}

// registered counts what is registered with the host.
func (h *fakeHost) registered() (sections, listeners, types int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sections), len(h.listeners), len(h.types)
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
func (h *fakeHost) start(t tb, logger *slog.Logger) *planmode.Controller {
	t.Helper()
	res, err := planmode.New(h.params(logger))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Controller
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

// fakeAgent is an agent whose turns and steps the test drives.
type fakeAgent struct {
	id   string
	sess host.Session

	mu       sync.Mutex
	queue    []host.Message
	turn     int
	step     int
	open     bool
	sections []string // sections of the last logged header; nil before the first
}

func (h *fakeHost) newAgent(t tb) *fakeAgent {
	t.Helper()
	sess, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	return &fakeAgent{id: "agent-" + sess.ID()[:6], sess: sess}
}

// agentOn returns an agent bound to an existing session, as after a restart
// or a fork: it knows nothing of earlier headers until it logs its own.
func agentOn(sess host.Session) *fakeAgent {
	return &fakeAgent{id: "agent-" + sess.ID()[:6], sess: sess, open: planmode.FoldTurnOpen(sess.Events(), sess.Len())}
}

func (a *fakeAgent) ID() string            { return a.id }
func (a *fakeAgent) Session() host.Session { return a.sess }
func (a *fakeAgent) Status() host.AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open {
		return host.StatusRunning
	}
	return host.StatusIdle
}
func (a *fakeAgent) Steer(m host.Message) error {
	a.mu.Lock()
	a.queue = append(a.queue, m)
	idle := !a.open
	a.mu.Unlock()
	if idle {
		return a.startTurn()
	}
	return nil
}
func (a *fakeAgent) Inject(m host.Message) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, m)
	return nil
}

func (a *fakeAgent) startTurn() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn++
	a.step = 0
	a.open = true
	return appendJSON(a.sess, host.TypeTurnStart, nil, host.TurnStart{Turn: a.turn})
}

func (a *fakeAgent) endTurn() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open = false
	return appendJSON(a.sess, host.TypeTurnEnd, nil, host.TurnEnd{Turn: a.turn, Reason: host.TurnCompleted})
}

// verdict is how a driven step ends in the pre-step chain.
type verdict int

const (
	accepted verdict = iota
	rejected
	cancelled
)

// runStep runs one step through the host's pre-step chain; when the step is
// accepted (and not cancelled) it logs what a host logs: step/start, the
// decision's messages, a request header when the sections changed, and
// step/end. It returns the decision.
func (h *fakeHost) runStep(a *fakeAgent, v verdict) host.Decision {
	return h.runAttempt(a, v, false)
}

// runAttempt is runStep; retry makes it a retry of the previous step.
func (h *fakeHost) runAttempt(a *fakeAgent, v verdict, retry bool) host.Decision {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if v == cancelled {
		cancel()
	}
	a.mu.Lock()
	if !retry {
		a.step++
	}
	msgs := a.queue
	a.queue = nil
	s := host.Step{Agent: a, Turn: a.turn, Step: a.step, Attempt: 1, Messages: msgs}
	a.mu.Unlock()

	h.mu.Lock()
	ls := slices.Clone(h.listeners)
	h.mu.Unlock()
	next := host.PreStepNext(func(_ context.Context, s host.Step) host.Decision {
		if v == rejected {
			return host.Reject("rejected by the test")
		}
		return host.Accept(s.Messages)
	})
	for _, nl := range slices.Backward(ls) {
		inner := next
		next = func(ctx context.Context, s host.Step) host.Decision { return nl.l(ctx, s, inner) }
	}
	d := next(ctx, s)
	if !d.Accepted || ctx.Err() != nil {
		a.mu.Lock()
		a.queue = append(msgs, a.queue...)
		a.mu.Unlock()
		return d
	}
	must(appendJSON(a.sess, host.TypeStepStart, nil, host.StepStart{Turn: s.Turn, Step: s.Step, Attempt: 1}))
	for _, m := range d.Messages {
		must(appendJSON(a.sess, host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content}))
	}
	h.logHeader(a)
	must(appendJSON(a.sess, host.TypeStepEnd, nil, host.StepEnd{Turn: s.Turn, Step: s.Step, Attempt: 1}))
	return d
}

// logHeader derives the prompt sections and logs a header when they differ
// from the last one the agent logged.
func (h *fakeHost) logHeader(a *fakeAgent) {
	names := h.render(a)
	a.mu.Lock()
	defer a.mu.Unlock()
	reason := host.HeaderChange
	if a.sections == nil {
		reason = host.HeaderInitial
	} else if slices.Equal(a.sections, names) {
		return
	}
	a.sections = names
	must(appendJSON(a.sess, host.TypeRequestHeader, nil, host.RequestHeader{Reason: reason, Sections: names}))
}

// render returns the names of the sections that render text for ac.
func (h *fakeHost) render(agent host.Agent) []string {
	h.mu.Lock()
	ss := slices.Clone(h.sections)
	h.mu.Unlock()
	slices.SortFunc(ss, func(x, y host.Section) int {
		return cmp.Or(cmp.Compare(x.Order, y.Order), cmp.Compare(x.Name, y.Name))
	})
	names := []string{}
	for _, s := range ss {
		if s.Text(host.AssembleContext{Agent: agent}) != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

func appendJSON(s host.Session, typ string, src *host.Source, payload any) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = s.Append(host.Event{Type: typ, Source: src, Data: data})
	return err
}

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
	for _, e := range s.Events()[from:] {
		out = append(out, e.Type)
	}
	return out
}

// modes returns the payloads of the plan/mode events from index from.
func modes(t tb, s host.Session, from int) []bool {
	t.Helper()
	var out []bool
	for _, e := range s.Events()[from:] {
		if e.Type != planmode.EventPlanMode {
			continue
		}
		var p planmode.ModePayload
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		out = append(out, p.Active)
	}
	return out
}

// notices returns the texts of the plugin's notices from index from.
func notices(t tb, s host.Session, from int) []string {
	t.Helper()
	var out []string
	for _, e := range s.Events()[from:] {
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
