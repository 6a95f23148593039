package refhost_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// flipModel alternates between a tool call and a plain answer, and fails
// with the context's error when cancelled.
type flipModel struct{ n atomic.Int64 }

func (m *flipModel) Generate(ctx context.Context, _ refhost.Request) (refhost.Response, error) {
	if err := ctx.Err(); err != nil {
		return refhost.Response{}, err
	}
	if m.n.Add(1)%2 == 1 {
		return refhost.Response{ToolCalls: []host.ToolCall{{ID: "c", Name: "echo", Input: json.RawMessage(`{"text":"x"}`)}}}, nil
	}
	return refhost.Response{Text: "ok"}, nil
}

// Steers, injects and cancels race each other; afterwards the log must be
// well formed and hold every message exactly once.
func TestSteerCancelRace(t *testing.T) {
	st := store.NewMemory()
	rt, err := refhost.New(refhost.Options{Store: st, Model: &flipModel{}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rt.Stop(ctxTimeout(t)); err != nil {
			t.Error(err)
		}
	}()
	must[func()](t)(rt.AddTool(echoTool{name: "echo"}))
	a := must[*refhost.Agent](t)(rt.NewAgent("", must[host.Session](t)(st.Create(""))))

	const goroutines, each = 6, 30
	concurrently(goroutines, each, func(i int, msg host.Message) {
		switch i % 5 {
		case 0:
			a.Cancel()
			fallthrough
		case 1, 2:
			if err := a.Steer(msg); err != nil {
				t.Error(err)
			}
		default:
			if err := a.Inject(msg); err != nil {
				t.Error(err)
			}
		}
	})
	f := &fixture{t: t}
	f.steer(a, "last")

	seen := map[string]int{}
	open := map[string]int{}
	for _, e := range a.Session().Events().Slice() {
		switch e.Type {
		case host.TypeUserMessage:
			var m host.UserMessage
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			seen[m.Content[0].Text]++
		case host.TypeTurnStart, host.TypeStepStart, host.TypeToolCall:
			open[e.Type]++
		case host.TypeTurnEnd:
			open[host.TypeTurnStart]--
		case host.TypeStepEnd:
			open[host.TypeStepStart]--
		case host.TypeToolResult:
			open[host.TypeToolCall]--
		}
	}
	for typ, n := range open {
		if n != 0 {
			t.Errorf("%s: %d without their closing event", typ, n)
		}
	}
	if want := goroutines*each + 1; len(seen) != want {
		t.Errorf("%d distinct messages logged, want %d (%d still queued, turn ends %+v)",
			len(seen), want, len(a.Pending()), payloads[host.TurnEnd](t, a.Session(), host.TypeTurnEnd))
	}
	for text, n := range seen {
		if n != 1 {
			t.Errorf("%q logged %d times", text, n)
		}
	}
}
