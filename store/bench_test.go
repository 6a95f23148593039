package store_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
	"github.com/dshgo/planmode/store"
)

// benchEvent is a typical small transcript event (about 190 bytes as a line).
func benchEvent(b *testing.B) host.Event {
	data, err := json.Marshal(host.AssistantMessage{Text: "I will read the file and then summarise what the function does for you."})
	if err != nil {
		b.Fatal(err)
	}
	return host.Event{Type: host.TypeAssistantMessage, Data: data}
}

// sessionLen is how many events an append benchmark puts in one session
// before it starts the next, so that the numbers show the cost of an
// append to a session of realistic length, not of growing one huge log.
const sessionLen = 4096

func BenchmarkAppendMemory(b *testing.B) {
	m := store.NewMemory()
	var s host.Session
	e := benchEvent(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%sessionLen == 0 {
			s = mustCreate(b, m, "")
		}
		if _, err := s.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendFile(b *testing.B) {
	for _, bc := range []struct {
		name   string
		policy store.SyncPolicy
	}{
		{"fsync=on", store.SyncEveryAppend},
		{"fsync=off", store.SyncNever},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := openDir(b, sessionsDir(b), store.WithSyncPolicy(bc.policy))
			var s host.Session
			e := benchEvent(b)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%sessionLen == 0 {
					if s != nil {
						if err := d.CloseSession(s.ID()); err != nil {
							b.Fatal(err)
						}
					}
					s = mustCreate(b, d, "")
				}
				if _, err := s.Append(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen opens a session file of typical events in a new Dir (which
// reads, decodes and checks every line) side by side with reading the same
// file (read-file), the floor an open can approach. 100k events always;
// 1M with PLANMODE_BENCH_LARGE=1. SetBytes makes MB/s the read rate.
func BenchmarkOpen(b *testing.B) {
	sizes := []int{100_000}
	if largeBench() {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		dir, path, size := openBenchFile(b, n)
		b.Run(fmt.Sprintf("events=%s/read-file", count(n)), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			done := benchcpu.Measure(b)
			for b.Loop() {
				if _, err := os.ReadFile(path); err != nil {
					b.Fatal(err)
				}
			}
			done()
		})
		b.Run(fmt.Sprintf("events=%s/open", count(n)), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			done := benchcpu.Measure(b)
			for b.Loop() {
				d, err := store.OpenDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				s, err := d.Open("big")
				if err != nil {
					b.Fatal(err)
				}
				if s.Len() != n {
					b.Fatalf("Len = %d, want %d", s.Len(), n)
				}
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
			}
			done()
		})
	}
}

// openBenchFile writes a session file of n realistic events, a quarter
// user messages and the rest assistant messages whose text holds escapes
// (\n, \t, \"), about 190 bytes a line (1M events: 180+ MB), and returns
// its directory, path and size.
func openBenchFile(b *testing.B, n int) (dir, path string, size int64) {
	b.Helper()
	dir = sessionsDir(b)
	d := openDir(b, dir)
	mustCreate(b, d, "big")
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	// Write the file directly: n appends would dominate a -benchtime=1x run.
	var buf bytes.Buffer
	src := &host.Source{Kind: host.SourceUser}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	user := json.RawMessage(`{"content":[{"type":"text","text":"please fix the \"parser\" bug\nthen run the tests again"}]}`)
	reply, err := json.Marshal(host.AssistantMessage{Text: "I read the file. The loop in \"scan\" stops early:\n\n\tfor i := 0; i < n; i++ {\n\t\tif s[i] == '\"' {\n\nI will fix it."})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		e := host.Event{Type: host.TypeAssistantMessage, Data: reply}
		if i%4 == 0 {
			e = host.Event{Type: host.TypeUserMessage, Source: src, Data: user}
		}
		e.Seq, e.Time = uint64(i)+1, t0.Add(time.Duration(i)*time.Millisecond+time.Duration(i%1000)*time.Microsecond)
		line, err := store.EncodeLine(e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
	}
	path = d.Path("big")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir, path, int64(buf.Len())
}

// largeBench reports whether the large benchmark sizes run; CI runs every
// benchmark once and keeps to the small sizes.
func largeBench() bool { return os.Getenv("PLANMODE_BENCH_LARGE") != "" }

// BenchmarkAppendLatency grows a memory session from one size to another
// and reports the distribution of single-append times: p50, p99 and p100
// (the longest append of the run) in wall time, and p99 and p100 in the
// appending thread's own CPU time (cpu-p99-ns, cpu-p100-ns; Linux), which
// leaves out the time the thread waited for a CPU that other processes
// held. A log that copies itself under the append lock when it grows shows
// it in both p100s. over-1ms counts the appends that took longer than 1 ms
// of wall time.
//
// impl=clock is the machine's floor, run for as long as the appends ran:
// the longest gap between two consecutive readings of the clocks by a loop
// that does nothing else, in wall time (p100-ns, and over-1ms the gaps
// longer than 1 ms) and in the thread's CPU
// time (cpu-p100-ns: interrupts and, in a virtual machine, time the host
// took are charged to whatever thread was running). No append can be
// shorter than the longest time the machine takes from a running thread.
//
// The 1M to 10M run needs PLANMODE_BENCH_LARGE=1 (and about 3 GB of
// memory).
func BenchmarkAppendLatency(b *testing.B) {
	sizes := []struct{ from, to int }{{0, 1_000}, {0, 100_000}}
	if largeBench() {
		sizes = append(sizes, struct{ from, to int }{1_000_000, 10_000_000})
	}
	for _, sz := range sizes {
		name := fmt.Sprintf("from=%s/to=%s", count(sz.from), count(sz.to))
		var ran time.Duration // how long the appends took, for the floor
		b.Run(name+"/impl=append", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			e := benchEvent(b)
			n := sz.to - sz.from
			wall := make([]time.Duration, 0, n)
			cpu := make([]time.Duration, 0, n)
			var allWall, allCPU []time.Duration
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				s := mustCreate(b, store.NewMemory(), "")
				for range sz.from {
					if _, err := s.Append(e); err != nil {
						b.Fatal(err)
					}
				}
				wall, cpu = wall[:0], cpu[:0]
				// The collection the benchmark's own arrays started is
				// not the store's.
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				for range n {
					// The wall window holds only the append; the CPU
					// window holds it and the reading of the clock.
					c0, cpuOK := threadCPUTime()
					t0 := time.Now()
					if _, err := s.Append(e); err != nil {
						b.Fatal(err)
					}
					w := time.Since(t0)
					c1, ok := threadCPUTime()
					wall = append(wall, w)
					if ok && cpuOK {
						cpu = append(cpu, c1-c0)
					}
				}
				ran = time.Since(start)
				allWall = append(allWall, wall...)
				allCPU = append(allCPU, cpu...)
			}
			over := 0
			for _, d := range allWall {
				if d > time.Millisecond {
					over++
				}
			}
			reportPercentiles(b, allWall)
			if len(allCPU) == len(allWall) {
				slices.Sort(allCPU)
				b.ReportMetric(float64(percentile(allCPU, 0.99).Nanoseconds()), "cpu-p99-ns")
				b.ReportMetric(float64(allCPU[len(allCPU)-1].Nanoseconds()), "cpu-p100-ns")
			}
			b.ReportMetric(float64(over), "over-1ms")
		})
		b.Run(name+"/impl=clock", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var longest, longestCPU time.Duration
			cpuOK, over := true, 0
			for range b.N {
				end := time.Now().Add(ran)
				prev := time.Now()
				prevCPU, ok := threadCPUTime()
				cpuOK = cpuOK && ok
				for prev.Before(end) {
					t := time.Now()
					c, _ := threadCPUTime()
					if gap := t.Sub(prev); gap > time.Millisecond {
						over++
					}
					longest = max(longest, t.Sub(prev))
					longestCPU = max(longestCPU, c-prevCPU)
					prev, prevCPU = t, c
				}
			}
			b.ReportMetric(float64(longest.Nanoseconds()), "p100-ns")
			b.ReportMetric(float64(over), "over-1ms")
			if cpuOK {
				b.ReportMetric(float64(longestCPU.Nanoseconds()), "cpu-p100-ns")
			}
		})
	}
}

// percentile returns the p-quantile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// reportPercentiles sorts d and reports its p50, p99 and p100 in ns.
func reportPercentiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(percentile(d, 0.50).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(percentile(d, 0.99).Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(d[len(d)-1].Nanoseconds()), "p100-ns")
}

// count formats n as 1k, 1M and so on.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// BenchmarkDurableStep appends a realistic step of six events (step/start,
// request/header, assistant/message with a tool call, tool/call,
// tool/result, step/end) to a file session, each one durable per policy:
// every-append syncs each event; group syncs once, at the step's one
// visible point (the next model request), as refhost does. It reports
// durable events per second.
func BenchmarkDurableStep(b *testing.B) {
	step := []host.Event{
		{Type: host.TypeStepStart, Data: json.RawMessage(`{"turn":1,"step":1,"attempt":1}`)},
		{Type: host.TypeRequestHeader, Data: json.RawMessage(`{"reason":"change","sections":["plan:policy"],"systemDigest":"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0","toolsDigest":"a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"}`)},
		{Type: host.TypeAssistantMessage, Data: json.RawMessage(`{"toolCalls":[{"id":"call_1","name":"read_file","input":{"path":"store/dir.go"}}]}`)},
		{Type: host.TypeToolCall, Data: json.RawMessage(`{"id":"call_1","name":"read_file","input":{"path":"store/dir.go"}}`)},
		{Type: host.TypeToolResult, Data: json.RawMessage(`{"callId":"call_1","name":"read_file","output":"package store\n\nimport (\n\t\"bufio\"\n\t\"bytes\"\n)\n"}`)},
		{Type: host.TypeStepEnd, Data: json.RawMessage(`{"turn":1,"step":1,"attempt":1}`)},
	}
	for _, bc := range []struct {
		name   string
		policy store.SyncPolicy
	}{
		{"policy=every-append", store.SyncEveryAppend},
		{"policy=group", store.SyncGroup},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := openDir(b, sessionsDir(b), store.WithSyncPolicy(bc.policy))
			s := mustCreate(b, d, "")
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				for _, e := range step {
					if _, err := s.Append(e); err != nil {
						b.Fatal(err)
					}
				}
				if err := host.Sync(s); err != nil {
					b.Fatal(err)
				}
				events += len(step)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
