package store_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// logBuffer returns a logger writing JSON records into the returned buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewJSONHandler(&b, nil)), &b
}

// richEvents are events that exercise every field and awkward text.
func richEvents(t testing.TB) []host.Event {
	return []host.Event{
		{Type: host.TypeSessionCreated},
		ev(t, host.TypeTurnStart, host.TurnStart{Turn: 1}),
		{
			Type:   host.TypeUserMessage,
			Time:   time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("CET", 3600)),
			Source: &host.Source{Kind: host.SourceUser},
			Data:   json.RawMessage(`{"content": [{"type":"text","text":"héllo 世界 <b>&amp;</b>\nline2\u2028 \"q\""}]}`),
		},
		{
			Type:   host.TypeUserMessage,
			Source: &host.Source{Kind: host.SourcePlugin, Plugin: "plan-mode", Form: "notice"},
			Data:   json.RawMessage(`{"content":[{"type":"image","mediaType":"image/png","data":"iVBORw0KGgo="}]}`),
		},
		ev(t, host.TypeToolResult, host.ToolResult{CallID: "c1", Name: "read", Output: "tab\there", IsError: true}),
		{Type: "plan/mode", Data: json.RawMessage(`null`)},
		ev(t, host.TypeTurnEnd, host.TurnEnd{Turn: 1, Reason: host.TurnCompleted}),
	}
}

func TestDirRoundTrip(t *testing.T) {
	dir := sessionsDir(t)
	d := openDir(t, dir)
	s := mustCreate(t, d, "rt")
	var appended []host.Event
	for _, e := range richEvents(t) {
		appended = append(appended, mustAppend(t, s, e))
	}
	wantEvents(t, s.Events().Slice(), appended)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	lines := readLines(t, filepath.Join(dir, "rt.jsonl"))
	if last := lines[len(lines)-1]; last != "" {
		t.Fatalf("file does not end in a newline: %q", last)
	}
	if len(lines)-1 != len(appended) {
		t.Fatalf("file has %d lines, want %d", len(lines)-1, len(appended))
	}
	wantLine := `{"seq":3,"type":"user/message","time":"2025-01-02T02:04:05.000000006Z","source":{"kind":"user"},` +
		`"data":{"content":[{"type":"text","text":"héllo 世界 <b>&amp;</b>\nline2\u2028 \"q\""}]}}` + "\n"
	if lines[2] != wantLine {
		t.Errorf("line 3:\ngot:  %s\nwant: %s", lines[2], wantLine)
	}
	if !strings.HasPrefix(lines[0], `{"seq":1,"type":"session/created","time":"`) || strings.Contains(lines[0], "data") || strings.Contains(lines[0], "source") {
		t.Errorf("line 1 = %s: want seq, type and time only", lines[0])
	}

	d2 := openDir(t, dir)
	wantEvents(t, mustOpen(t, d2, "rt").Events().Slice(), appended)
}

func TestDirTornTail(t *testing.T) {
	dir := sessionsDir(t)
	d := openDir(t, dir)
	s := mustCreate(t, d, "torn")
	complete := appendN(t, s, 3)
	mustAppend(t, s, host.Event{Type: host.TypeUserMessage, Data: json.RawMessage(`{"text":"ab€cd"}`)})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	path := d.Path("torn")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lastStart := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	euro := bytes.Index(full, []byte("€"))

	tests := []struct {
		name     string
		giveCut  int    // bytes kept of the last line
		giveTail string // then appended
	}{
		{"one byte", 1, ""},
		{"mid key", 5, ""},
		{"mid UTF-8 sequence", euro - lastStart + 1, ""},
		{"just before the rune's last byte", euro - lastStart + utf8.RuneLen('€') - 1, ""},
		{"half", (len(full) - lastStart) / 2, ""},
		{"all but the closing brace", len(full) - lastStart - 2, ""},
		{"zeros after a partial line", 7, "\x00\x00\x00\x00"},
		{"zeros only", 0, "\x00\x00\x00\x00\x00\x00\x00\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			torn := append(bytes.Clone(full[:lastStart+tt.giveCut]), tt.giveTail...)
			if err := os.WriteFile(path, torn, 0o600); err != nil {
				t.Fatal(err)
			}
			log, logs := logBuffer()
			d := openDir(t, dir, store.WithLogger(log))
			s := mustOpen(t, d, "torn")
			wantEvents(t, s.Events().Slice(), complete)
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, full[:lastStart]) {
				t.Fatalf("file after open = %q (%v), want the complete lines only", got, err)
			}
			if !strings.Contains(logs.String(), store.LogTornLine) || !strings.Contains(logs.String(), `"line":4`) {
				t.Errorf("log = %s, want %q for line 4", logs, store.LogTornLine)
			}
			if e := mustAppend(t, s, host.Event{Type: "after"}); e.Seq != 4 {
				t.Errorf("next append seq = %d, want 4", e.Seq)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if n := len(mustOpen(t, openDir(t, dir), "torn").Events().Slice()); n != 4 {
				t.Errorf("reopened Len = %d, want 4", n)
			}
		})
	}

	t.Run("only line", func(t *testing.T) {
		if err := os.WriteFile(path, []byte(`{"seq":1,"ty`), 0o600); err != nil {
			t.Fatal(err)
		}
		if s := mustOpen(t, openDir(t, dir), "torn"); s.Len() != 0 {
			t.Errorf("Len = %d, want 0", s.Len())
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Errorf("file not cut to 0 bytes: %v %v", fi.Size(), err)
		}
	})
}

func TestDirKeepsCompleteEventMissingItsNewline(t *testing.T) {
	dir := sessionsDir(t)
	d := openDir(t, dir)
	want := appendN(t, mustCreate(t, d, "nl"), 2)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	path := d.Path("nl")
	full, _ := os.ReadFile(path)
	if err := os.WriteFile(path, full[:len(full)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	log, logs := logBuffer()
	s := mustOpen(t, openDir(t, dir, store.WithLogger(log)), "nl")
	wantEvents(t, s.Events().Slice(), want)
	if !strings.Contains(logs.String(), store.LogMissingNewline) {
		t.Errorf("log = %s, want %q", logs, store.LogMissingNewline)
	}
	mustAppend(t, s, host.Event{Type: "after"})
	if lines := readLines(t, path); len(lines) != 4 || !strings.HasPrefix(lines[2], `{"seq":3,`) {
		t.Errorf("file lines = %q, want 3 complete lines", lines)
	}
}

// writeLog writes a session file holding three good events with line
// lineNo (1-based) replaced by give.
func writeLog(t *testing.T, dir, id string, lineNo int, give string) string {
	t.Helper()
	d := openDir(t, dir)
	appendN(t, mustCreate(t, d, id), 3)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	path := d.Path(id)
	lines := readLines(t, path)
	lines[lineNo-1] = give
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDirCorruptLines(t *testing.T) {
	good2 := `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z"}`
	tests := []struct {
		name     string
		giveLine int
		give     string
		wantErr  error
		wantText string
	}{
		{"truncated JSON in the middle", 2, `{"seq":2,"type":"t"` + "\n", store.ErrCorrupt, "incomplete JSON value"},
		{"garbage in the middle", 2, "not json\n", store.ErrCorrupt, "invalid character"},
		{"empty line", 2, "\n", store.ErrCorrupt, "empty line"},
		{"blank line", 2, " \t\n", store.ErrCorrupt, "empty line"},
		{"two values on a line", 2, good2 + good2 + "\n", store.ErrCorrupt, "invalid character '{' after top-level value"},
		{"trailing garbage", 2, good2 + " x\n", store.ErrCorrupt, "invalid character 'x' after top-level value"},
		{"not an object", 2, "[2]\n", store.ErrCorrupt, "unmarshal JSON array"},
		{"seq missing", 2, `{"type":"t","time":"2025-01-01T00:00:00Z"}` + "\n", store.ErrCorrupt, "seq is missing"},
		{"seq spelt in another case", 2, `{"Seq":2,"type":"t","time":"2025-01-01T00:00:00Z"}` + "\n", store.ErrCorrupt, "seq is missing"},
		{"type missing", 2, `{"seq":2,"time":"2025-01-01T00:00:00Z"}` + "\n", store.ErrCorrupt, "type is missing"},
		{"time missing", 2, `{"seq":2,"type":"t"}` + "\n", store.ErrCorrupt, "time is missing"},
		{"bad time", 2, `{"seq":2,"type":"t","time":"yesterday"}` + "\n", store.ErrCorrupt, "yesterday"},
		{"data not JSON-shaped", 2, `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","data":}` + "\n", store.ErrCorrupt, `invalid character '}' at start of value within "/data"`},
		{"seq gap", 2, `{"seq":3,"type":"t","time":"2025-01-01T00:00:00Z"}` + "\n", store.ErrCorrupt, "seq 3, want 2"},
		{"seq repeated", 3, good2 + "\n", store.ErrCorrupt, "seq 2, want 3"},
		{"first seq not 1", 1, `{"seq":0,"type":"t","time":"2025-01-01T00:00:00Z"}` + "\n", store.ErrCorrupt, "seq is missing or 0"},
		{"terminated bad last line is not torn", 3, `{"seq":3,"ty` + "\n", store.ErrCorrupt, "incomplete JSON value"},
		{"complete but wrong last line is not torn", 3, `{"seq":9,"type":"t","time":"2025-01-01T00:00:00Z"}`, store.ErrCorrupt, "seq 9, want 3"},
		{"complete value of the wrong shape at the end is not torn", 3, `{"seq":"3"}`, store.ErrCorrupt, `unmarshal JSON string into Go uint64 within "/seq"`},
		{"complete value then junk at the end is not torn", 3, `{"seq":3,"type":"t","time":"2025-01-01T00:00:00Z"} x`, store.ErrCorrupt, "invalid character 'x' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			path := writeLog(t, dir, "bad", tt.giveLine, tt.give)
			before, _ := os.ReadFile(path)
			_, err := openDir(t, dir).Open("bad")
			wantErrIs(t, err, tt.wantErr)
			if want := fmt.Sprintf("%s:%d: ", path, tt.giveLine); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not say %q", err, tt.wantText)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("a failed open changed the file")
			}
		})
	}
}

func TestDirReadsLooseJSON(t *testing.T) {
	long := strings.Repeat("y", 3000)
	tests := []struct {
		name     string
		give     string
		wantData string
	}{
		{"spaces and an offset time", ` { "seq" : 2, "type":"t", "time":"2025-01-01T01:00:00+01:00", "data" : { "a" : 1 } }  `, `{"a":1}`},
		{"a long line with a long blank tail", `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","data":{"s": "` + long + `"}}` + strings.Repeat(" \t", 2000), `{"s":"` + long + `"}`},
		{"unknown keys", `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","data":[1],"future":{"x":1}}`, `[1]`},
		{"an escaped half surrogate pair, as earlier versions wrote", `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","data":{"s":"\ud800"}}`, `{"s":"\ud800"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			writeLog(t, dir, "loose", 2, tt.give+"\n")
			s := mustOpen(t, openDir(t, dir), "loose")
			e := s.Events().Slice()[1]
			if string(e.Data) != tt.wantData || !e.Time.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) || e.Time.Location() != time.UTC {
				t.Errorf("event 2 = %s, want data %s and UTC time", fmtEvents([]host.Event{e}), tt.wantData)
			}
			if s.Len() != 3 || s.Events().Slice()[2].Seq != 3 {
				t.Errorf("Len = %d, want 3", s.Len())
			}
		})
	}
}

func TestDirLineSizeLimit(t *testing.T) {
	const limit = 200
	big := ev(t, "t/big", map[string]string{"s": strings.Repeat("x", limit)})

	t.Run("append refuses a long line and stores nothing", func(t *testing.T) {
		dir := sessionsDir(t)
		d := openDir(t, dir, store.WithMaxLineSize(limit))
		s := mustCreate(t, d, "lim")
		appendN(t, s, 1)
		before, _ := os.ReadFile(d.Path("lim"))
		_, err := s.Append(big)
		wantErrIs(t, err, store.ErrLineTooLong)
		if after, _ := os.ReadFile(d.Path("lim")); !bytes.Equal(before, after) || s.Len() != 1 {
			t.Fatalf("a refused append changed the log: Len %d, file %q", s.Len(), after)
		}
		if e := mustAppend(t, s, host.Event{Type: "small"}); e.Seq != 2 {
			t.Errorf("next seq = %d, want 2", e.Seq)
		}
	})

	for _, tt := range []struct {
		name     string
		giveLine int
		torn     bool
	}{
		{"open refuses a long line in the middle", 2, false},
		{"open refuses a long last line", 3, false},
		{"open refuses a long unterminated tail", 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			d := openDir(t, dir)
			s := mustCreate(t, d, "lim")
			for i := 1; i <= 3; i++ {
				if i == tt.giveLine {
					mustAppend(t, s, big)
				} else {
					mustAppend(t, s, host.Event{Type: "small"})
				}
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if tt.torn {
				full, _ := os.ReadFile(d.Path("lim"))
				if err := os.WriteFile(d.Path("lim"), full[:len(full)-2], 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := openDir(t, dir, store.WithMaxLineSize(limit)).Open("lim")
			wantErrIs(t, err, store.ErrLineTooLong)
			if want := fmt.Sprintf("%s:%d: ", d.Path("lim"), tt.giveLine); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		})
	}

	t.Run("a line of exactly the limit is fine", func(t *testing.T) {
		dir := sessionsDir(t)
		line, err := store.EncodeLine(host.Event{Seq: 1, Type: "t", Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		n := len(line) - 1
		d := openDir(t, dir, store.WithMaxLineSize(n))
		s := mustCreate(t, d, "exact")
		mustAppend(t, s, host.Event{Type: "t", Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		_, err = s.Append(host.Event{Type: "tt", Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		wantErrIs(t, err, store.ErrLineTooLong)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if s := mustOpen(t, openDir(t, dir, store.WithMaxLineSize(n)), "exact"); s.Len() != 1 {
			t.Errorf("Len = %d, want 1", s.Len())
		}
	})
}

func TestDirPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "a", "sessions")
	d := openDir(t, dir)
	s := mustCreate(t, d, "p")
	f, err := s.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	wantMode := func(path string, want os.FileMode) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %#o, want %#o", path, got, want)
		}
	}
	wantMode(dir, 0o700)
	wantMode(filepath.Join(root, "a"), 0o700)
	wantMode(d.Path("p"), 0o600)
	wantMode(d.Path(f.ID()), 0o600)

	t.Run("open tightens a broad file mode", func(t *testing.T) {
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d.Path("p"), 0o644); err != nil {
			t.Fatal(err)
		}
		log, logs := logBuffer()
		mustOpen(t, openDir(t, dir, store.WithLogger(log)), "p")
		wantMode(d.Path("p"), 0o600)
		if !strings.Contains(logs.String(), store.LogModeTightened) || !strings.Contains(logs.String(), `"mode":"0644"`) {
			t.Errorf("log = %s, want %q with the old mode", logs, store.LogModeTightened)
		}
	})

	t.Run("a directory open to others is refused", func(t *testing.T) {
		open := filepath.Join(root, "open")
		if err := os.Mkdir(open, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(open, 0o755); err != nil { // beat the umask
			t.Fatal(err)
		}
		_, err := store.OpenDir(open)
		wantErrIs(t, err, store.ErrInsecureDir)
		if !strings.Contains(err.Error(), "0755") || !strings.Contains(err.Error(), open) {
			t.Errorf("error %q does not name the directory and its mode", err)
		}
		if !strings.Contains(err.Error(), "chmod 700 "+open) || !strings.Contains(err.Error(), "does not exist yet") {
			t.Errorf("error %q does not say what to do", err)
		}
		wantMode(open, 0o755)
	})

	t.Run("a file as directory is refused", func(t *testing.T) {
		file := filepath.Join(root, "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := store.OpenDir(file); err == nil {
			t.Error("OpenDir(a regular file) succeeded")
		}
	})
}

func TestDirBadIDsTouchNothing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sessions")
	d := openDir(t, dir)
	for _, id := range badIDs() {
		if id == "" {
			continue
		}
		_, err := d.Create(id)
		wantErrIs(t, err, host.ErrBadSessionID)
		_, err = d.Open(id)
		wantErrIs(t, err, host.ErrBadSessionID)
	}
	for _, p := range []string{root, dir} {
		entries, err := os.ReadDir(p)
		if err != nil {
			t.Fatal(err)
		}
		if p == root && len(entries) != 1 || p == dir && len(entries) != 0 {
			t.Errorf("%s holds %v after bad ids", p, entries)
		}
	}
}

func TestDirRefusesSymlinks(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sessions")
	d := openDir(t, dir)
	target := filepath.Join(root, "outside.jsonl")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.Path("evil")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	_, err := d.Open("evil")
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open(symlink) = %v, want a not-a-regular-file error", err)
	}
	_, err = d.Create("evil")
	wantErrIs(t, err, host.ErrSessionExists)
}

func TestDirSharing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	dir := sessionsDir(t)
	d := openDir(t, dir)
	appendN(t, mustCreate(t, d, "shared"), 2)
	other := openDir(t, dir)
	_, err := other.Open("shared")
	wantErrIs(t, err, store.ErrLocked)
	if err := d.CloseSession("shared"); err != nil {
		t.Fatal(err)
	}
	if s := mustOpen(t, other, "shared"); s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}
}

func TestDirCloseSession(t *testing.T) {
	dir := sessionsDir(t)
	d := openDir(t, dir)
	s := mustCreate(t, d, "cs")
	want := appendN(t, s, 2)
	if err := d.CloseSession("cs"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Append(host.Event{Type: "late"})
	wantErrIs(t, err, host.ErrClosed)
	err = d.CloseSession("cs")
	wantErrIs(t, err, host.ErrSessionNotFound)
	again := mustOpen(t, d, "cs")
	if again == s {
		t.Error("Open after CloseSession returned the closed object")
	}
	wantEvents(t, again.Events().Slice(), want)
	// Reading a closed session still works.
	wantEvents(t, s.Events().Slice(), want)
}

func TestDirClose(t *testing.T) {
	dir := sessionsDir(t)
	d, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, d, "c")
	appendN(t, s, 1)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	_, err = s.Append(host.Event{Type: "late"})
	wantErrIs(t, err, host.ErrClosed)
	_, err = s.Fork(1)
	wantErrIs(t, err, host.ErrClosed)
	_, err = d.Create("new")
	wantErrIs(t, err, host.ErrClosed)
	_, err = d.Open("c")
	wantErrIs(t, err, host.ErrClosed)
}

func TestDirForkFile(t *testing.T) {
	dir := sessionsDir(t)
	d := openDir(t, dir)
	parent := mustCreate(t, d, "parent")
	for _, e := range richEvents(t) {
		mustAppend(t, parent, e)
	}
	lines := readLines(t, d.Path("parent"))
	for _, end := range []int{0, 1, 4, len(lines) - 1} {
		f, err := parent.Fork(end)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(d.Path(f.ID()))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(lines[:end], ""); string(got) != want {
			t.Errorf("fork at %d: file\n%s\nwant the parent's first %d lines\n%s", end, got, end, want)
		}
	}
}

func TestDirSyncPolicies(t *testing.T) {
	for _, p := range []store.SyncPolicy{store.SyncEveryAppend, store.SyncTurnEnd, store.SyncNever} {
		t.Run(p.String(), func(t *testing.T) {
			dir := sessionsDir(t)
			d := openDir(t, dir, store.WithSyncPolicy(p))
			s := mustCreate(t, d, "sync")
			var want []host.Event
			for _, e := range richEvents(t) {
				want = append(want, mustAppend(t, s, e))
			}
			f, err := s.Fork(3)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			d2 := openDir(t, dir, store.WithSyncPolicy(p))
			wantEvents(t, mustOpen(t, d2, "sync").Events().Slice(), want)
			wantEvents(t, mustOpen(t, d2, f.ID()).Events().Slice(), want[:3])
		})
	}
	if got := store.SyncPolicy(7).String(); got != "SyncPolicy(7)" {
		t.Errorf("String of an unknown policy = %q", got)
	}
}

func TestOpenDirRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		give store.Option
	}{
		{"unknown sync policy", store.WithSyncPolicy(store.SyncPolicy(-1))},
		{"zero max line size", store.WithMaxLineSize(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x")
			_, err := store.OpenDir(dir, tt.give)
			wantErrIs(t, err, store.ErrBadOption)
			if _, serr := os.Stat(dir); serr == nil {
				t.Error("OpenDir with a bad option created the directory")
			}
		})
	}
	// A nil logger is allowed and discards.
	d := openDir(t, sessionsDir(t), store.WithLogger(nil))
	mustCreate(t, d, "x")
}
