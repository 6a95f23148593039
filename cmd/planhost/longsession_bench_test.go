package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
	"github.com/dshgo/planmode/store"
)

// BenchmarkLongSession measures what a user waits for with a realistic
// long session, side by side with the store's open of its file (open) and
// os.ReadFile of it (read-file), the floor: "planhost inspect -json" of it
// (inspect-json) and "planhost run -session" resuming it up to the first
// input, in the line console (resume). 100k events; 1M (190+ MB) with
// PLANMODE_BENCH_LARGE=1. cpu-ns/op is the process's CPU time, which a
// shared machine disturbs less than the wall time.
func BenchmarkLongSession(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("PLANMODE_BENCH_LARGE") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		path, size := inspectBenchFile(b, n)
		name := fmt.Sprintf("events=%dk", n/1_000)
		if n%1_000_000 == 0 {
			name = fmt.Sprintf("events=%dM", n/1_000_000)
		}
		run := func(what string, op func(b *testing.B)) {
			b.Run(name+"/"+what, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				done := benchcpu.Measure(b)
				for b.Loop() {
					op(b)
				}
				done()
			})
		}
		run("read-file", func(b *testing.B) {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		})
		run("open", func(b *testing.B) {
			d, err := store.OpenDir(filepath.Dir(path))
			if err != nil {
				b.Fatal(err)
			}
			s, err := d.Open(inspectBenchID)
			if err != nil {
				b.Fatal(err)
			}
			if s.Len() != n {
				b.Fatalf("Len = %d, want %d", s.Len(), n)
			}
			if err := d.Close(); err != nil {
				b.Fatal(err)
			}
		})
		run("inspect-json", func(b *testing.B) {
			p := newProgram(nil, io.Discard, io.Discard)
			p.terminal = func() bool { return false }
			if code := p.main([]string{"inspect", "-json", path}); code != exitOK {
				b.Fatalf("inspect -json exit code = %d", code)
			}
		})
		run("resume", func(b *testing.B) {
			dir := filepath.Dir(filepath.Dir(path))
			if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
				b.Fatal(err)
			}
			var errOut strings.Builder
			p := newProgram(strings.NewReader(""), io.Discard, &errOut)
			p.terminal = func() bool { return false }
			args := runArgs(dir, filepath.Join("testdata", "run", "script.yaml"), "-session", inspectBenchID)
			if code := p.main(args); code != exitOK {
				b.Fatalf("run -session exit code = %d\n%s", code, errOut.String())
			}
		})
	}
}

// inspectBenchID is the session of the inspect benchmark's file.
const inspectBenchID = "big"

// inspectBenchFile writes a session file of n events made of turns of
// eight: turn/start, a user message, step/start, an assistant message
// calling a tool, the call, its result, step/end and turn/end, whose texts
// hold escapes (\n, \t, \"); plan mode is entered at the start. It returns
// the file's path and size. The store writes it, as a host would.
func inspectBenchFile(b *testing.B, n int) (path string, size int64) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "sessions")
	d, err := store.OpenDir(dir, store.WithSyncPolicy(store.SyncNever))
	if err != nil {
		b.Fatal(err)
	}
	sess, err := d.Create(inspectBenchID)
	if err != nil {
		b.Fatal(err)
	}
	must := func(data []byte, err error) json.RawMessage {
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	src := &host.Source{Kind: host.SourceUser}
	user := must(json.Marshal(host.UserMessage{Content: []host.Block{host.TextBlock("please fix the \"parser\" bug in store/line.go\nthen run the tests again and tell me what failed")}}))
	input := json.RawMessage(`{"path":"store/dir.go"}`)
	reply := must(json.Marshal(host.AssistantMessage{
		Text:      "I read the file. The loop in \"scan\" stops early:\n\n\tfor i := 0; i < n; i++ {\n\nI will fix it and run \"go test ./store/...\" again.",
		ToolCalls: []host.ToolCall{{ID: "call_1", Name: "read_file", Input: input}},
	}))
	call := must(json.Marshal(host.ToolCall{ID: "call_1", Name: "read_file", Input: input}))
	result := must(json.Marshal(host.ToolResult{CallID: "call_1", Name: "read_file", Output: "package store\n\nimport (\n\t\"bufio\"\n\t\"bytes\"\n\t\"encoding/json\"\n)\n\n// Dir is a directory of sessions, one JSONL file each.\ntype Dir struct {\n\tpath string\n}\n"}))
	for i := range n {
		turn := i/8 + 1
		var e host.Event
		switch i % 8 {
		case 0:
			e = host.Event{Type: host.TypeTurnStart, Data: must(json.Marshal(host.TurnStart{Turn: turn}))}
			if i == 0 {
				e = host.Event{Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":true}`)}
			}
		case 1:
			e = host.Event{Type: host.TypeUserMessage, Source: src, Data: user}
		case 2:
			e = host.Event{Type: host.TypeStepStart, Data: must(json.Marshal(host.StepStart{Turn: turn, Step: 1, Attempt: 1}))}
		case 3:
			e = host.Event{Type: host.TypeAssistantMessage, Data: reply}
		case 4:
			e = host.Event{Type: host.TypeToolCall, Data: call}
		case 5:
			e = host.Event{Type: host.TypeToolResult, Data: result}
		case 6:
			e = host.Event{Type: host.TypeStepEnd, Data: must(json.Marshal(host.StepEnd{Turn: turn, Step: 1, Attempt: 1}))}
		case 7:
			e = host.Event{Type: host.TypeTurnEnd, Data: must(json.Marshal(host.TurnEnd{Turn: turn, Reason: host.TurnCompleted}))}
		}
		if _, err := sess.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	path = d.Path(inspectBenchID)
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, info.Size()
}
