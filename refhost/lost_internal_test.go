package refhost

import (
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode/host"
)

func TestStringField(t *testing.T) {
	tests := []struct {
		data, key, want string
		ok              bool
	}{
		{`{"callId":"c1","name":"x","output":"long"}`, "callId", "c1", true},
		{`{"name":"x","output":{"nested":["a",1]},"callId":"c2"}`, "callId", "c2", true},
		{`{"callid":"c1"}`, "callId", "", false},
		{`{"callId":1}`, "callId", "", false},
		{`{"callId":null}`, "callId", "", false},
		{`["callId","c1"]`, "callId", "", false},
		{`{"name":`, "callId", "", false},
		{``, "callId", "", false},
		{`{"id":"a\u00e9\"b"}`, "id", "aé\"b", true},
	}
	for _, tt := range tests {
		got, ok := stringField([]byte(tt.data), tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("stringField(%s, %q) = %q, %v; want %q, %v", tt.data, tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzStringField checks that stringField never panics, and that on a
// tool result the loop writes it finds the call ID that encoding/json
// decodes.
func FuzzStringField(f *testing.F) {
	f.Add([]byte(`{"callId":"c1","name":"x","output":"o"}`), "c1", "out")
	f.Add([]byte(`{"x":[1,{"y":"z"}],"callId":"c2"}`), "c\u2028", "\x00")
	f.Fuzz(func(t *testing.T, data []byte, id, output string) {
		stringField(data, "callId") // must not panic
		enc, err := json.Marshal(host.ToolResult{CallID: id, Name: "n", Output: output})
		if err != nil {
			t.Skip()
		}
		var want host.ToolResult
		if err := json.Unmarshal(enc, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := stringField(enc, "callId"); !ok || got != want.CallID {
			t.Fatalf("stringField(%s) = %q, %v; want %q", enc, got, ok, want.CallID)
		}
	})
}
