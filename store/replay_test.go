package store_test

import (
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// opened is what opening a file leaves: the events, the error (with the
// directory left out), the file's bytes and what was logged.
type opened struct {
	events []host.Event
	err    string
	file   string
	logs   string
}

// openContent opens a session file holding content in a new directory.
func openContent(t *testing.T, content []byte) opened {
	t.Helper()
	dir := sessionsDir(t)
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	d := openDir(t, dir, store.WithLogger(log), store.WithSyncPolicy(store.SyncNever), store.WithMaxLineSize(200))
	path := d.Path("f")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	var got opened
	if s, err := d.Open("f"); err != nil {
		got.err = strings.ReplaceAll(err.Error(), dir, "DIR")
	} else {
		got.events = s.Events().Slice()
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got.file, got.logs = string(file), strings.ReplaceAll(logs.String(), dir, "DIR")
	return got
}

// chunkSeed is a file of n lines in the store's form with line bad (from
// 1) replaced, and tail after the last newline.
func chunkSeed(n, bad int, give, tail string) []byte {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == bad {
			b.WriteString(give + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"seq":%d,"type":"t","time":"2025-01-02T03:04:05Z","data":{"text":"line\n%d"}}`+"\n", i, i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// FuzzOpenInChunks checks that decoding a file's lines on several
// goroutines, in chunks as small as one line, gives what one chunk gives:
// the same events, the same first error, the same repair.
func FuzzOpenInChunks(f *testing.F) {
	bad := `{"seq":5,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":1,"a":2}}`
	for _, seed := range [][]byte{
		chunkSeed(40, 0, "", ""),
		chunkSeed(40, 5, bad, ""),
		chunkSeed(40, 5, bad, `{"seq":41`),
		chunkSeed(40, 31, "", ""),
		chunkSeed(40, 12, `{"seq":99,"type":"t","time":"2025-01-02T03:04:05Z"}`, ""),
		chunkSeed(40, 20, `{"seq":20,"type":"t","time":"2025-01-02T03:04:05Z","data":"`+strings.Repeat("x", 300)+`"}`, ""),
		chunkSeed(40, 0, "", `{"seq":41`),
		chunkSeed(40, 0, "", `{"seq":41,"type":"t","time":"2025-01-02T03:04:05Z"}`),
		chunkSeed(40, 0, "", `{"seq":41,"type":"t","time":"2025-01-02T03:04:05Z","data":"\ud800"}`),
		chunkSeed(40, 40, `{"seq":40,"type":"t","time":"2025-01-02T03:04:05Z","data":"\udc00 \u00e9"}`, ""),
		[]byte("\n\n"), []byte("x"),
	} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(37))
	}
	f.Fuzz(func(t *testing.T, content []byte, chunk uint8) {
		whole := openContent(t, content)
		defer store.SetReplayChunk(int(chunk%64) + 1)()
		parts := openContent(t, content)
		if parts.err != whole.err || parts.logs != whole.logs || parts.file != whole.file {
			t.Fatalf("in chunks of %d bytes: error %q, logged %q; in one: error %q, logged %q (same file after: %v)",
				chunk%64+1, parts.err, parts.logs, whole.err, whole.logs, parts.file == whole.file)
		}
		if !reflect.DeepEqual(parts.events, whole.events) {
			t.Fatalf("in chunks of %d bytes:\n%s\nin one:\n%s", chunk%64+1, fmtEvents(parts.events), fmtEvents(whole.events))
		}
	})
}
