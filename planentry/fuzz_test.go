package planentry_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planentry"
)

// FuzzDecodeInput: the model's input never panics the decoder, and an
// accepted goal is non-blank and within the limit, and passes the payload
// check once logged.
func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{`{"goal":"g"}`, `{"goal":"g","scope":"s"}`, `{"goal":" "}`, `{}`, `null`, `{"goal":1}`, `{"goal":"g","x":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		g, err := planentry.DecodeInput(json.RawMessage(input))
		if err != nil {
			return
		}
		if strings.TrimSpace(g.Goal) == "" || len(g.Goal) > planentry.MaxGoalSize {
			t.Fatalf("accepted goal %q", g.Goal)
		}
		data, _ := json.Marshal(g)
		if err := planentry.CheckPayload(host.Event{Type: planentry.EventGoal, Data: data}); err != nil {
			t.Fatalf("accepted input %s gives a payload the check refuses: %v", input, err)
		}
	})
}
