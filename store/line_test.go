package store_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// FuzzDecodeLine checks that the JSONL line decoder never panics, that
// every error it returns is ErrCorrupt, and that any line it accepts
// re-encodes to one line that decodes to the same event and re-encodes to
// the same bytes.
func FuzzDecodeLine(f *testing.F) {
	for _, seed := range []string{
		`{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}`,
		`{"seq":3,"type":"user/message","time":"2025-01-02T02:04:05.000000006Z","source":{"kind":"user"},"data":{"content":[{"type":"text","text":"héllo"}]}}`,
		`{"seq":2,"type":"t","time":"2025-01-02T03:04:05+01:00","data": { "a" : [1, 2] , "s":"a b" }}`,
		`{"seq":2,"type":"t","time":"0000-01-01T00:30:00+01:00"}`,
		`{"seq":2,"type":"t\xff","time":"2025-01-02T03:04:05Z","source":{"kind":"plugin","plugin":"p","form":"notice"},"data":"\xfe"}`,
		`{"seq":2,"type":"t","time":"2025-01-02T03:04:05Z","data":null,"extra":1,"SEQ":7}`,
		`{"seq":1,"ty`,
		`[]`, `null`, ``, `{}`, `{"seq":-1}`, `{"seq":1,"type":"t","time":"2025-01-02T03:04:05Z","data":"\u2028<&>"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := store.DecodeLine(line)
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if e.Seq == 0 || e.Type == "" || e.Time.IsZero() || e.Time.Location() != time.UTC {
			t.Fatalf("accepted event %+v lacks seq, type or UTC time", e)
		}
		enc, err := store.EncodeLine(e)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode %+v: %v", line, e, err)
		}
		if bytes.IndexByte(enc, '\n') != len(enc)-1 {
			t.Fatalf("encoding %q is not one line", enc)
		}
		e2, err := store.DecodeLine(enc[:len(enc)-1])
		if err != nil {
			t.Fatalf("cannot decode own encoding %q: %v", enc, err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", e, e2)
		}
		enc2, err := store.EncodeLine(e2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encoding differs:\n%s\n%s (%v)", enc, enc2, err)
		}
	})
}

func TestEncodeLineFormat(t *testing.T) {
	tests := []struct {
		name string
		give host.Event
		want string
	}{
		{
			"minimal event",
			host.Event{Seq: 1, Type: "t", Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
			`{"seq":1,"type":"t","time":"2025-01-02T03:04:05Z"}` + "\n",
		},
		{
			"every field, no HTML escaping",
			host.Event{
				Seq: 12, Type: "user/message", Time: time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC),
				Source: &host.Source{Kind: host.SourcePlugin, Plugin: "plan-mode", Form: "notice"},
				Data:   []byte(`{"t":"<a&b>"}`),
			},
			`{"seq":12,"type":"user/message","time":"2025-01-02T03:04:05.0000006Z","source":{"kind":"plugin","plugin":"plan-mode","form":"notice"},"data":{"t":"<a&b>"}}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.EncodeLine(tt.give)
			if err != nil || string(got) != tt.want {
				t.Fatalf("EncodeLine = %s (%v), want %s", got, err, tt.want)
			}
			e, err := store.DecodeLine(got[:len(got)-1])
			if err != nil || !reflect.DeepEqual(e, tt.give) {
				t.Fatalf("DecodeLine = %+v (%v), want %+v", e, err, tt.give)
			}
		})
	}
}

// FuzzOpen feeds arbitrary file contents to Dir.Open: it never panics,
// errors name the file and a line, and a file that opens (after any
// repair) opens again to the same events with no further repair.
func FuzzOpen(f *testing.F) {
	good := `{"seq":1,"type":"a","time":"2025-01-02T03:04:05Z"}` + "\n" + `{"seq":2,"type":"b","time":"2025-01-02T03:04:05Z","data":{"x":1}}` + "\n"
	for _, seed := range []string{
		"", good, good[:len(good)-1], good[:len(good)-5], good + "\n", good + `{"seq":3`, good + `{"seq":3,"type":"c","time":"2025-01-02T03:04:05Z"} {}`,
		`{"seq":1,"type":"a","time":"2025-01-02T03:04:05Z"} ` + "\n" + ` {"seq":2,"type":"a","time":"2025-01-02T03:04:05Z"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := sessionsDir(t)
		d := openDir(t, dir, store.WithSyncPolicy(store.SyncNever))
		path := d.Path("f")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := d.Open("f")
		if err != nil {
			if !strings.Contains(err.Error(), path+":") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		want := s.Events().Slice()
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		log, logs := logBuffer()
		s2 := mustOpen(t, openDir(t, dir, store.WithLogger(log), store.WithSyncPolicy(store.SyncNever)), "f")
		wantEvents(t, s2.Events().Slice(), want)
		if logs.Len() > 0 {
			t.Fatalf("second open repaired again: %s", logs)
		}
	})
}
