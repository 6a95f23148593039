package bench_test

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// baseSection is the host's own system-prompt section in the step
// benchmarks, present with and without the plugin.
const baseSection = "You are a coding agent. Read before you write."

// answerModel answers every request at once, with text and no tool calls,
// so that a step costs only the host and its plugins. It notes whether the
// last request carried plan:policy.
type answerModel struct{ planned atomic.Bool }

func (m *answerModel) Generate(_ context.Context, req refhost.Request) (refhost.Response, error) {
	m.planned.Store(slices.Contains(req.Sections, planmode.SectionName))
	return refhost.Response{Text: "ok"}, nil
}

// readTool fills the tool catalog; the model never calls it.
type readTool struct{}

func (readTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name:        "read_file",
		Description: "Reads a file of the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}
}

func (readTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "", nil
}

// stepHost is a reference host with one agent on a memory session, with or
// without the plugin composed.
type stepHost struct {
	model *answerModel
	rt    *refhost.Runtime
	agent *refhost.Agent
	c     *planmode.Controller // nil without the plugin
}

// userMessage is what the step benchmarks steer.
var userMessage = host.Message{Content: []host.Block{host.TextBlock("Go on.")}}

// newStepHost builds the host around the session open returns; st is the
// store that session lives in, which receives the plugin's payload check.
// It then runs warmUp steps, so that the agent has folded the log (and the
// plugin, when composed, serves the session) before anything is measured.
func newStepHost(withPlugin bool, st *store.Memory, warmUp int, open func() (host.Session, error)) (_ *stepHost, err error) {
	h := &stepHost{model: &answerModel{}}
	if h.rt, err = refhost.New(refhost.Options{Store: st, Model: h.model}); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if _, err := h.rt.AddSection(host.Section{Name: "base", Order: 10, Text: func(host.AssembleContext) string { return baseSection }}); err != nil {
		return nil, err
	}
	if _, err := h.rt.AddTool(readTool{}); err != nil {
		return nil, err
	}
	if withPlugin {
		res, err := planmode.New(planmode.Params{
			Config:     planmode.Config{Section: policy},
			Sections:   h.rt,
			Tools:      h.rt,
			PreStep:    h.rt,
			Validators: st,
			EventTypes: h.rt,
		})
		if err != nil {
			return nil, err
		}
		if err := res.Controller.Start(context.Background()); err != nil {
			return nil, err
		}
		h.c = res.Controller
	}
	sess, err := open()
	if err != nil {
		return nil, err
	}
	if h.agent, err = h.rt.NewAgent("", sess); err != nil {
		return nil, err
	}
	for range warmUp {
		if err := h.step(); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// forkWarmUp is how many steps a host on a forked log runs before it is
// measured. A fork's storage is exactly as large as the log, so the first
// appends copy all of it into a larger array (at 1M events, 80 MB); a
// filled log has grown by appending and has room left. After forkWarmUp
// steps the copy is behind, in both variants alike.
const forkWarmUp = 40

// stepHosts keeps the step benchmark's hosts from one run to the next: a
// 1M host takes seconds to build (forking the log is quick, but the agent's
// first step folds the whole transcript). The benchmarks run one at a time,
// so one host per key is taken and put back.
var stepHosts struct {
	mu    sync.Mutex
	hosts map[stepKey]*stepHost
}

type stepKey struct {
	plugin bool
	n      int
}

// takeStepHost returns the kept host of k, or builds one.
func takeStepHost(k stepKey) (*stepHost, error) {
	stepHosts.mu.Lock()
	h := stepHosts.hosts[k]
	delete(stepHosts.hosts, k)
	stepHosts.mu.Unlock()
	if h != nil {
		return h, nil
	}
	return buildStepHost(k)
}

// putStepHost keeps h for the next run of k.
func putStepHost(k stepKey, h *stepHost) {
	stepHosts.mu.Lock()
	defer stepHosts.mu.Unlock()
	if stepHosts.hosts == nil {
		stepHosts.hosts = map[stepKey]*stepHost{}
	}
	stepHosts.hosts[k] = h
}

// buildStepHost builds a host for k on the n-event modeFirst log. A short
// log is filled into a new store. A long one is forked from a cached base in
// a store of its own per variant (the fork copies only the event headers),
// so both variants start from logs made the same way and only the plugin's
// store ever carries its payload check.
func buildStepHost(k stepKey) (*stepHost, error) {
	if k.n < size1M.n {
		st := store.NewMemory()
		return newStepHost(k.plugin, st, 1, func() (host.Session, error) {
			return newMemorySession(st, logOf(shape{k.n, modeFirst}))
		})
	}
	purpose := purposeShared
	if k.plugin {
		purpose = purposePlugin
	}
	base, err := memoryLogOf(purpose, k.n)
	if err != nil {
		return nil, err
	}
	return newStepHost(k.plugin, base.st, forkWarmUp, func() (host.Session, error) { return base.sess.Fork(base.sess.Len()) })
}

// step runs one turn of one step: Steer, then wait for the agent to be idle.
func (h *stepHost) step() error {
	if err := h.agent.Steer(userMessage); err != nil {
		return err
	}
	return h.agent.WaitIdle(context.Background())
}

// close stops the agent and the plugin.
func (h *stepHost) close() {
	_ = h.rt.Stop(context.Background())
	if h.c != nil {
		_ = h.c.Stop(context.Background())
	}
}

// BenchmarkHostStep measures one full step on the reference host, with the
// plugin composed (plugin=on) and without it (plugin=off); the difference is
// what the plugin costs a step. The model answers at once, so the step is
// the host's work: Steer, turn/start, the pre-step chain, step/start,
// user/message, assembling the prompt, deriving the request, the model call,
// assistant/message, step/end, turn/end, and waking the waiter. With the
// plugin it also runs the plugin's pre-step listener, renders plan:policy,
// checks every append's payload and folds every appended event.
//
// Both hosts of a log length are built before either is measured, so that
// the two variants run with the same live heap (a collection's cost grows
// with it). Every step appends six events, so the log grows as the
// benchmark runs. Once it has grown by half, the host is rebuilt with the
// timer stopped and its CPU time left out of cpu-ns/op: at log=1k the log
// stays between 1k and 1.5k events, at log=1M between 1M and 1.5M. Hosts
// are kept from one run (-count) to the next.
func BenchmarkHostStep(b *testing.B) {
	variants := []struct {
		name   string
		plugin bool
	}{{"plugin=off", false}, {"plugin=on", true}}
	for _, sz := range []size{size1k, size1M} {
		b.Run(sz.name, func(b *testing.B) {
			for _, variant := range variants {
				k := stepKey{plugin: variant.plugin, n: sz.n}
				h, err := takeStepHost(k)
				if err != nil {
					b.Fatal(err)
				}
				putStepHost(k, h)
			}
			for _, variant := range variants {
				b.Run(variant.name, func(b *testing.B) {
					k := stepKey{plugin: variant.plugin, n: sz.n}
					h, err := takeStepHost(k)
					if err != nil {
						b.Fatal(err)
					}
					defer func() { putStepHost(k, h) }()
					rebuildAt := sz.n + sz.n/2
					b.ReportAllocs()
					// The collection the build started is not the steps'.
					runtime.GC()
					cpu := cpuTime()
					for b.Loop() {
						if h.agent.Session().Len() > rebuildAt {
							b.StopTimer()
							rebuild := cpuTime()
							h.close()
							if h, err = buildStepHost(k); err != nil {
								b.Fatal(err)
							}
							// The rebuild's CPU time is not the steps'.
							cpu += cpuTime() - rebuild
							b.StartTimer()
						}
						if err := h.step(); err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu, b.N)
					if got := h.model.planned.Load(); got != variant.plugin {
						b.Fatalf("last request carried plan:policy = %v, want %v", got, variant.plugin)
					}
				})
			}
		})
	}
}

// BenchmarkHostStepPaired measures the plugin's share of a step with the
// two variants interleaved: every iteration runs one step on the host
// without the plugin and one on the host with it, in alternating order,
// and times each. Whatever the machine does meanwhile (a collection of
// the large heap, another process) falls on either variant at random, so
// the mean difference is the plugin's cost even where a run of one
// variant after the other cannot resolve it. It reports the wall time of
// each variant's step and the plugin's share, (on − off) / off, in percent.
func BenchmarkHostStepPaired(b *testing.B) {
	for _, sz := range []size{size1k, size1M} {
		b.Run(sz.name, func(b *testing.B) {
			keys := [2]stepKey{{plugin: false, n: sz.n}, {plugin: true, n: sz.n}}
			var hosts [2]*stepHost
			for i, k := range keys {
				h, err := takeStepHost(k)
				if err != nil {
					b.Fatal(err)
				}
				hosts[i] = h
			}
			defer func() {
				for i, k := range keys {
					putStepHost(k, hosts[i])
				}
			}()
			rebuildAt := sz.n + sz.n/2
			var spent [2]time.Duration
			runtime.GC()
			i := 0
			for b.Loop() {
				for v, h := range hosts {
					if h.agent.Session().Len() > rebuildAt {
						b.StopTimer()
						h.close()
						var err error
						if hosts[v], err = buildStepHost(keys[v]); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
				}
				for j := range 2 {
					v := (i + j) % 2 // off first on even iterations, on first on odd ones
					start := time.Now()
					if err := hosts[v].step(); err != nil {
						b.Fatal(err)
					}
					spent[v] += time.Since(start)
				}
				i++
			}
			off, on := float64(spent[0])/float64(b.N), float64(spent[1])/float64(b.N)
			b.ReportMetric(off, "off-ns/step")
			b.ReportMetric(on, "on-ns/step")
			b.ReportMetric(100*(on-off)/off, "plugin-%")
			if !hosts[1].model.planned.Load() || hosts[0].model.planned.Load() {
				b.Fatal("plan:policy went to the wrong variant's requests")
			}
		})
	}
}
