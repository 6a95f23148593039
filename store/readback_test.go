package store_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// nested returns a JSON array nested depth deep: [[[...]]].
func nested(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", depth) + strings.Repeat("]", depth))
}

// TestAppendNeverWritesALineItCannotReadBack appends data the writer's
// checks used to pass (valid JSON by json.Valid) but the reader refuses or
// changes, and checks that each is refused at append, and that what is
// accepted reads back.
func TestAppendNeverWritesALineItCannotReadBack(t *testing.T) {
	tests := []struct {
		name    string
		give    json.RawMessage
		wantErr string // empty: accepted
	}{
		{"nesting at MaxDataDepth", nested(store.MaxDataDepth), ""},
		{"nesting one over MaxDataDepth", nested(store.MaxDataDepth + 1), "nested deeper than 1000"},
		{"nesting just under the reader's limit", nested(9999), "nested deeper than 1000"},
		{"invalid UTF-8 in a string", json.RawMessage("{\"text\":\"a\xffb\"}"), "invalid UTF-8 within \"/text\""},
		{"invalid UTF-8 in a key", json.RawMessage("{\"a\xc3\":1}"), "invalid UTF-8"},
		{"duplicate key", json.RawMessage(`{"approved":false,"approved":true}`), `duplicate object member name "approved"`},
		{"duplicate key spelt with an escape", json.RawMessage(`{"plan":"a","\u0070lan":"b"}`), `duplicate object member name "plan"`},
		{"duplicate key in a nested object", json.RawMessage(`[{"a":{"b":1,"b":2}}]`), `duplicate object member name "b" within "/0/a"`},
		{"equal keys in sibling objects", json.RawMessage(`[{"a":1},{"a":2}]`), ""},
		{"many keys", manyKeys(100, false), ""},
		{"many keys, one repeated", manyKeys(100, true), `duplicate object member name "k7"`},
		{"escaped lone surrogate", json.RawMessage(`{"s":"\ud800"}`), "invalid surrogate pair"},
	}
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, reopen := k.open(t)
			s := mustCreate(t, st, "readback")
			var kept []host.Event
			for _, tt := range tests {
				got, err := s.Append(host.Event{Type: "test/data", Data: tt.give})
				if tt.wantErr == "" {
					if err != nil {
						t.Fatalf("%s: Append: %v", tt.name, err)
					}
					kept = append(kept, got)
					continue
				}
				wantErrIs(t, err, store.ErrBadEvent)
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("%s: error %q does not say %q", tt.name, err, tt.wantErr)
				}
			}
			wantEvents(t, s.Events().Slice(), kept)
			if reopen != nil {
				st = reopen(t)
				wantEvents(t, mustOpen(t, st, "readback").Events().Slice(), kept)
			}
		})
	}
}

func manyKeys(n int, repeat bool) json.RawMessage {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		k := i
		if repeat && i == n-1 {
			k = 7
		}
		b.WriteString(`"k` + itoa(k) + `":0`)
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestOpenRefusesInvalidUTF8AndDuplicateKeys writes lines that
// encoding/json would silently repair (invalid UTF-8 replaced, the last of
// two keys kept) and checks that Open refuses each with FILE:LINE.
func TestOpenRefusesInvalidUTF8AndDuplicateKeys(t *testing.T) {
	const good = `{"seq":1,"type":"test/a","time":"2025-01-01T00:00:00Z"}` + "\n"
	tests := []struct {
		name    string
		give    string // line 2
		wantErr string
	}{
		{"invalid UTF-8 in the type", "{\"seq\":2,\"type\":\"plan/mo\xffde\",\"time\":\"2025-01-01T00:00:00Z\"}", `invalid UTF-8 within "/type"`},
		{"invalid UTF-8 in the data", "{\"seq\":2,\"type\":\"t\",\"time\":\"2025-01-01T00:00:00Z\",\"data\":{\"text\":\"\xe2\x28\xa1\"}}", `invalid UTF-8 within "/data/text"`},
		{"duplicate seq", `{"seq":2,"seq":3,"type":"t","time":"2025-01-01T00:00:00Z"}`, `duplicate object member name "seq"`},
		{"duplicate type", `{"seq":2,"type":"plan/mode","type":"t","time":"2025-01-01T00:00:00Z"}`, `duplicate object member name "type"`},
		{"duplicate key in the data", `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","data":{"active":true,"active":false}}`, `duplicate object member name "active" within "/data"`},
		{"duplicate key in the source", `{"seq":2,"type":"t","time":"2025-01-01T00:00:00Z","source":{"kind":"plugin","kind":"user"}}`, `duplicate object member name "kind" within "/source"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			d := openDir(t, dir)
			path := d.Path("s")
			if err := os.WriteFile(path, []byte(good+tt.give+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := d.Open("s")
			wantErrIs(t, err, store.ErrCorrupt)
			if want := path + ":2: "; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want it to name %q and say %q", err, want, tt.wantErr)
			}
		})
	}
}
