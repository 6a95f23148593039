package bench_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// policy is the plan:policy text the benchmarks configure.
const policy = "You are in plan mode. Explore read-only, then present a plan with exit_plan_mode."

// size is one log length the benchmarks run at; name is the sub-benchmark
// label, so that benchstat can line up runs by it.
type size struct {
	name string
	n    int
}

var (
	size1k   = size{"log=1k", 1_000}
	size100k = size{"log=100k", 100_000}
	size1M   = size{"log=1M", 1_000_000}
)

// The synthetic log is made of blocks of blockLen events, three turns each:
//
//   - a short turn: turn/start, step/start, user/message, X, assistant/message
//     (text), step/end, turn/end, where X is a request/header in every
//     headerEvery-th block (the session was resumed) and a second queued
//     user/message otherwise;
//   - a tool turn: turn/start, step/start, user/message, assistant/message
//     with one tool call, tool/call, tool/result, step/end, step/start,
//     assistant/message (text), step/end, turn/end;
//   - a short turn as above whose X is the log's one plan/mode event (in the
//     block the shape names) or a second user/message.
//
// So every length that is a multiple of blockLen ends with a closed turn,
// about one event in four is of a type the plugin folds (turn/start,
// turn/end, request/header, plan/mode), and payloads are small, as in a
// real session of short tool calls.
const (
	blockLen    = 25
	headerEvery = 40 // a request/header every 1000 events
)

// noMode is the shape's mode block for a log without any plan/mode.
const noMode = -1

// shape selects a synthetic log: n events (a multiple of blockLen) whose
// only plan/mode event, {"active":true}, is in block mode (noMode for none).
type shape struct {
	n    int
	mode int
}

// modeFirst is the block of the plan/mode in the logs most benchmarks use:
// the first, so that the plan state was set at the start of the session and
// a fold that looks for it has to read the whole log.
const modeFirst = 0

// lastBlock returns the index of the last block of an n-event log.
func lastBlock(n int) int { return n/blockLen - 1 }

// Payloads that do not vary. They are compact JSON, as the stores keep it.
var (
	dataUser       = []byte(`{"content":[{"type":"text","text":"Look at store/dir.go and explain the replay."}]}`)
	dataUser2      = []byte(`{"content":[{"type":"text","text":"Also check its tests."}]}`)
	dataCall       = []byte(`{"text":"Reading it.","toolCalls":[{"id":"call_1","name":"read_file","input":{"path":"store/dir.go"}}]}`)
	dataToolCall   = []byte(`{"id":"call_1","name":"read_file","input":{"path":"store/dir.go"}}`)
	dataToolResult = []byte(`{"callId":"call_1","name":"read_file","output":"package store\n\n// Dir is a durable host.Store.\n"}`)
	dataAnswer     = []byte(`{"text":"It reads each line once and checks the sequence numbers."}`)
	dataModeActive = []byte(`{"active":true}`)
	dataHeaderPlan = []byte(`{"reason":"resume","sections":["base","plan:policy"],"systemDigest":"9f2c4e0a6b1d8c3f5e7a9b0c2d4e6f8091a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0","toolsDigest":"4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e0f2a4b6c8d1e3f5a7b9c0d2e"}`)
	dataHeaderBase = []byte(`{"reason":"initial","sections":["base"],"systemDigest":"1a3c5e7092b4d6f8a0c2e4f6b8d0a2c4e6f8b0d2a4c6e8f0b2d4a6c8e0f2a4b6","toolsDigest":"4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e0f2a4b6c8d1e3f5a7b9c0d2e"}`)
)

// logEpoch is the time of the first event; each later event is a
// millisecond after the one before.
var logEpoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// buildLog returns the events of s with Seq and Time set, as a store holds
// them.
func buildLog(s shape) []host.Event {
	if s.n <= 0 || s.n%blockLen != 0 {
		panic(fmt.Sprintf("bench: log length %d: want a positive multiple of %d", s.n, blockLen))
	}
	events := make([]host.Event, 0, s.n)
	// The payloads that carry turn and step numbers are cut from one
	// pointer-free buffer, so that building a long log makes a few large
	// allocations instead of a million small ones, and the collector has
	// little to do meanwhile.
	p := payloads{buf: make([]byte, 0, s.n/blockLen*blockPayloadBytes)}
	add := func(typ string, data []byte) {
		seq := len(events) + 1
		events = append(events, host.Event{
			Seq:  uint64(seq),
			Type: typ,
			Time: logEpoch.Add(time.Duration(seq) * time.Millisecond),
			Data: data,
		})
	}
	turn := 0
	active := false
	short := func(x string, xdata []byte) {
		turn++
		step := p.step(turn, 1)
		add(host.TypeTurnStart, p.turn(turn))
		add(host.TypeStepStart, step)
		add(host.TypeUserMessage, dataUser)
		add(x, xdata)
		add(host.TypeAssistantMessage, dataAnswer)
		add(host.TypeStepEnd, step)
		add(host.TypeTurnEnd, p.turnEnd(turn))
	}
	for b := range s.n / blockLen {
		switch {
		case b%headerEvery != 0:
			short(host.TypeUserMessage, dataUser2)
		case active:
			short(host.TypeRequestHeader, dataHeaderPlan)
		default:
			short(host.TypeRequestHeader, dataHeaderBase)
		}

		turn++
		step1, step2 := p.step(turn, 1), p.step(turn, 2)
		add(host.TypeTurnStart, p.turn(turn))
		add(host.TypeStepStart, step1)
		add(host.TypeUserMessage, dataUser)
		add(host.TypeAssistantMessage, dataCall)
		add(host.TypeToolCall, dataToolCall)
		add(host.TypeToolResult, dataToolResult)
		add(host.TypeStepEnd, step1)
		add(host.TypeStepStart, step2)
		add(host.TypeAssistantMessage, dataAnswer)
		add(host.TypeStepEnd, step2)
		add(host.TypeTurnEnd, p.turnEnd(turn))

		if b == s.mode {
			short(planmode.EventPlanMode, dataModeActive)
			active = true
		} else {
			short(host.TypeUserMessage, dataUser2)
		}
	}
	return events
}

// blockPayloadBytes is room for the numbered payloads of one block (three
// turn/start and turn/end pairs and four step payloads) with turn numbers
// of up to seven digits.
const blockPayloadBytes = 3*(len(`{"turn":}`)+len(`{"turn":,"reason":"completed"}`)+2*7) +
	4*(len(`{"turn":,"step":1,"attempt":1}`)+7)

// payloads writes numbered payloads into one buffer; each result is a
// clipped slice of it. Should the buffer fill up, append moves on to a new
// one, and the slices already handed out keep the old one.
type payloads struct{ buf []byte }

func (p *payloads) cut(start int) []byte { return p.buf[start:len(p.buf):len(p.buf)] }

func (p *payloads) turn(turn int) []byte {
	start := len(p.buf)
	p.buf = append(p.buf, `{"turn":`...)
	p.buf = strconv.AppendInt(p.buf, int64(turn), 10)
	p.buf = append(p.buf, '}')
	return p.cut(start)
}

func (p *payloads) turnEnd(turn int) []byte {
	start := len(p.buf)
	p.buf = append(p.buf, `{"turn":`...)
	p.buf = strconv.AppendInt(p.buf, int64(turn), 10)
	p.buf = append(p.buf, `,"reason":"completed"}`...)
	return p.cut(start)
}

func (p *payloads) step(turn, step int) []byte {
	start := len(p.buf)
	p.buf = append(p.buf, `{"turn":`...)
	p.buf = strconv.AppendInt(p.buf, int64(turn), 10)
	p.buf = append(p.buf, `,"step":`...)
	p.buf = strconv.AppendInt(p.buf, int64(step), 10)
	p.buf = append(p.buf, `,"attempt":1}`...)
	return p.cut(start)
}

// logs caches buildLog by shape, so that each long log is built once per
// test binary however often the benchmarks run. The events are shared and
// read-only.
var logs sync.Map // shape → func() []host.Event

// logOf returns the (cached) events of s.
func logOf(s shape) []host.Event {
	f, _ := logs.LoadOrStore(s, sync.OnceValue(func() []host.Event { return buildLog(s) }))
	return f.(func() []host.Event)()
}

// fill appends events to sess in order, keeping their times; the session
// assigns the same sequence numbers again.
func fill(sess host.Session, events []host.Event) error {
	for _, e := range events {
		e.Seq = 0
		if _, err := sess.Append(e); err != nil {
			return err
		}
	}
	return nil
}

// newMemorySession returns a session of st holding events.
func newMemorySession(st *store.Memory, events []host.Event) (host.Session, error) {
	sess, err := st.Create("")
	if err != nil {
		return nil, err
	}
	return sess, fill(sess, events)
}

// memoryLog is a memory store with one session holding a synthetic log.
type memoryLog struct {
	st   *store.Memory
	sess host.Session
}

// memoryLogs caches filled memory sessions by purpose and length: filling
// a million events through Append takes seconds.
var memoryLogs sync.Map // memoryKey → func() (memoryLog, error)

type memoryKey struct {
	purpose string
	n       int
}

// purposeShared is the read-only session the controller benchmarks share.
// Each purpose of a cached memory log has its own store, so that a plugin
// registering its payload check on one store affects no other.
const purposeShared = "shared"

// memoryLogOf returns the cached memory session of purpose holding the n-event
// modeFirst log. Nobody appends to it; benchmarks that append fork it.
func memoryLogOf(purpose string, n int) (memoryLog, error) {
	f, _ := memoryLogs.LoadOrStore(memoryKey{purpose, n}, sync.OnceValues(func() (memoryLog, error) {
		st := store.NewMemory()
		sess, err := newMemorySession(st, logOf(shape{n, modeFirst}))
		return memoryLog{st: st, sess: sess}, err
	}))
	return f.(func() (memoryLog, error))()
}

// sharedSession returns the cached read-only session of n events.
func sharedSession(tb testing.TB, n int) host.Session {
	tb.Helper()
	ml, err := memoryLogOf(purposeShared, n)
	if err != nil {
		tb.Fatalf("session of %d events: %v", n, err)
	}
	return ml.sess
}

// benchAgent is a host.Agent that only names its session: the controller
// benchmarks call the plugin directly, with no loop running.
type benchAgent struct{ sess host.Session }

func (a *benchAgent) ID() string               { return a.sess.ID() }
func (a *benchAgent) Session() host.Session    { return a.sess }
func (a *benchAgent) Status() host.AgentStatus { return host.StatusIdle }
func (a *benchAgent) Steer(host.Message) error { return errNoLoop }
func (a *benchAgent) Inject(host.Message) error {
	return errNoLoop
}

var errNoLoop = errors.New("bench: this agent runs no turns")

// registries is a minimal host for the plugin: it keeps what the plugin
// registers so that the benchmarks can call the section and the pre-step
// listener directly.
type registries struct {
	mu         sync.Mutex
	sections   map[string]host.Section
	preSteps   map[string]host.PreStepListener
	tools      map[string]host.Tool
	validators map[string]host.Validator
	types      map[string]host.EventKind
}

func newRegistries() *registries {
	return &registries{
		sections:   map[string]host.Section{},
		preSteps:   map[string]host.PreStepListener{},
		tools:      map[string]host.Tool{},
		validators: map[string]host.Validator{},
		types:      map[string]host.EventKind{},
	}
}

// register adds v under name to m, refusing a taken name.
func register[V any](mu *sync.Mutex, m map[string]V, name string, v V) (func(), error) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := m[name]; ok {
		return nil, fmt.Errorf("bench: %q: %w", name, host.ErrDuplicate)
	}
	m[name] = v
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(m, name)
	}, nil
}

func (r *registries) AddSection(s host.Section) (func(), error) {
	return register(&r.mu, r.sections, s.Name, s)
}

func (r *registries) AddPreStep(name string, l host.PreStepListener, _ bool) (func(), error) {
	return register(&r.mu, r.preSteps, name, l)
}

func (r *registries) AddTool(t host.Tool) (func(), error) {
	return register(&r.mu, r.tools, t.Definition().Name, t)
}

func (r *registries) AddValidator(name string, v host.Validator) (func(), error) {
	return register(&r.mu, r.validators, name, v)
}

func (r *registries) DeclareEventType(t host.EventType) (func(), error) {
	return register(&r.mu, r.types, t.Name, t.Kind)
}

func (r *registries) EventKind(name string) (host.EventKind, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.types[name]
	return k, ok
}

// newController starts a plan-mode controller on reg; validators receives
// the payload check. The caller stops it.
func newController(reg *registries, validators host.Validators) (*planmode.Controller, error) {
	res, err := planmode.New(planmode.Params{
		Config:     planmode.Config{Section: policy},
		Sections:   reg,
		Tools:      reg,
		PreStep:    reg,
		Validators: validators,
		EventTypes: reg,
	})
	if err != nil {
		return nil, err
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		return nil, err
	}
	return res.Controller, nil
}

// startPlugin is newController for a benchmark or test: the controller is
// stopped when tb ends.
func startPlugin(tb testing.TB, reg *registries, validators host.Validators) *planmode.Controller {
	tb.Helper()
	c, err := newController(reg, validators)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

var (
	_ host.Agent        = (*benchAgent)(nil)
	_ host.Sections     = (*registries)(nil)
	_ host.PreStepChain = (*registries)(nil)
	_ host.Tools        = (*registries)(nil)
	_ host.Validators   = (*registries)(nil)
	_ host.EventTypes   = (*registries)(nil)
)
