package store_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestForeignMalformedLineIsRefused: another program writes, straight into
// a session file, a line that the checks of an append refuse. Opening the
// file fails naming the file, the line, the event and what is wrong; once
// the line is removed the session opens with every event it had.
func TestForeignMalformedLineIsRefused(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"malformed plan/mode", `{"seq":3,"type":"plan/mode","time":"2025-01-02T03:04:05Z","data":{"active":"yes"}}`, `:3: event 3 "plan/mode": validator "plan-mode"`},
		{"plan/mode with a duplicate key", `{"seq":3,"type":"plan/mode","time":"2025-01-02T03:04:05Z","data":{"active":true,"active":false}}`, `:3: corrupt session file: `},
		{"nested duplicate key", `{"seq":3,"type":"test/x","time":"2025-01-02T03:04:05Z","data":{"x":{"a":1,"a":2}}}`, `:3: corrupt session file: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			d := openDir(t, dir)
			s := mustCreate(t, d, "s")
			want := appendN(t, s, 2)
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			path := d.Path("s")
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(good, tt.line+"\n"...), 0o600); err != nil {
				t.Fatal(err)
			}
			d = openDir(t, dir)
			if _, err := d.AddValidator(planmode.PluginName, planmode.CheckPayload); err != nil {
				t.Fatal(err)
			}
			_, err = d.Open("s")
			if err == nil || !strings.Contains(err.Error(), path+tt.want) {
				t.Fatalf("Open = %v; want an error saying %q", err, path+tt.want)
			}
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, mustOpen(t, d, "s").Events().Slice(), want)
		})
	}
}

// TestAppendRefusesWhatNoStoreKeeps appends data that every store refuses,
// to each of this package's stores.
func TestAppendRefusesWhatNoStoreKeeps(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "s")
			for _, give := range []string{`{"a":1,"a":2}`, `{"x":{"a":1,"\u0061":2}}`, `{"t":"\ud800"}`, "\"\xff\"", `{"a":`, `1 2`} {
				_, err := s.Append(host.Event{Type: "test/bad", Data: json.RawMessage(give)})
				wantErrIs(t, err, store.ErrBadEvent)
			}
			if s.Len() != 0 {
				t.Fatalf("%d refused events were kept", s.Len())
			}
		})
	}
}
