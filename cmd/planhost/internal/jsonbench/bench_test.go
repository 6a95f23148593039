package jsonbench_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	goccy "github.com/goccy/go-json"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// BenchmarkSessionLines reads a realistic session file (a quarter user
// messages, the rest assistant messages whose text holds \n, \t and \",
// about 190 bytes a line) of 100k events, or 1M (180+ MB) with
// PLANMODE_BENCH_LARGE=1, in several ways, each from os.ReadFile of the
// file on:
//
//   - read-file: os.ReadFile alone, the floor;
//   - store-open: store.Dir's Open, which checks every line (syntax,
//     UTF-8, unique names, depth) and builds the log;
//   - std-valid, std-decode: encoding/json's Valid, and Unmarshal into a
//     host.Event, per line (neither refuses invalid UTF-8 or duplicate
//     names);
//   - jsontext-valid, jsonv2-decode: go-json-experiment's strict
//     Value.IsValid, and json v2's Unmarshal into a host.Event (both
//     refuse invalid UTF-8 and duplicate names);
//   - goccy-valid, goccy-decode: goccy/go-json's Valid and Unmarshal
//     (neither refuses invalid UTF-8 or duplicate names).
//
// ns/op (and cpu-ns/op, the process's CPU time) over read-file's is the
// "× ReadFile" of docs/performance.md.
func BenchmarkSessionLines(b *testing.B) {
	n := 100_000
	if os.Getenv("PLANMODE_BENCH_LARGE") != "" {
		n = 1_000_000
	}
	dir, path, size := writeFile(b, n)
	perLine := func(f func(line []byte) error) func(b *testing.B) {
		return func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				buf, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				for line := range bytes.Lines(buf) {
					if err := f(line[:len(line)-1]); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	valid := func(ok bool) error {
		if !ok {
			return fmt.Errorf("invalid")
		}
		return nil
	}
	for _, c := range []struct {
		name string
		run  func(b *testing.B)
	}{
		{"read-file", perLine(func([]byte) error { return nil })},
		{"store-open", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				d, err := store.OpenDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				s, err := d.Open("big")
				if err != nil || s.Len() != n {
					b.Fatalf("Open: %v", err)
				}
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"std-valid", perLine(func(l []byte) error { return valid(json.Valid(l)) })},
		{"std-decode", perLine(func(l []byte) error { var e host.Event; return json.Unmarshal(l, &e) })},
		{"jsontext-valid", perLine(func(l []byte) error { return valid(jsontext.Value(l).IsValid()) })},
		{"jsonv2-decode", perLine(func(l []byte) error { var e host.Event; return jsonv2.Unmarshal(l, &e) })},
		{"goccy-valid", perLine(func(l []byte) error { return valid(goccy.Valid(l)) })},
		{"goccy-decode", perLine(func(l []byte) error { var e host.Event; return goccy.Unmarshal(l, &e) })},
	} {
		b.Run(fmt.Sprintf("events=%d/%s", n, c.name), c.run)
	}
}

// reportCPU reports the process's CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// writeFile writes the session file "big" of n events as the store
// writes them and returns its directory, path and size.
func writeFile(b *testing.B, n int) (dir, path string, size int64) {
	b.Helper()
	dir = filepath.Join(b.TempDir(), "sessions")
	if err := os.Mkdir(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	user := json.RawMessage(`{"content":[{"type":"text","text":"please fix the \"parser\" bug\nthen run the tests again"}]}`)
	reply, err := json.Marshal(host.AssistantMessage{Text: "I read the file. The loop in \"scan\" stops early:\n\n\tfor i := 0; i < n; i++ {\n\t\tif s[i] == '\"' {\n\nI will fix it."})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	src := &host.Source{Kind: host.SourceUser}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		e := host.Event{Type: host.TypeAssistantMessage, Data: reply}
		if i%4 == 0 {
			e = host.Event{Type: host.TypeUserMessage, Source: src, Data: user}
		}
		e.Seq, e.Time = uint64(i)+1, t0.Add(time.Duration(i)*time.Millisecond+time.Duration(i%1000)*time.Microsecond)
		if err := enc.Encode(e); err != nil {
			b.Fatal(err)
		}
	}
	path = filepath.Join(dir, "big"+store.FileExt)
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir, path, int64(buf.Len())
}
