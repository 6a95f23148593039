package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// TestLostResult: when a call's tool/result cannot be appended, the tool
// is told (host.ResultLossHandler: the exit tool withdraws its approval),
// the very next append is an is-error result for the call in the tool's
// words, plan mode stays on, and the next turn's model reads that result
// right after the call.
func TestLostResult(t *testing.T) {
	const refusal = "lost-result test: the disk is full"
	hostsWords := func(out string) bool { return out == refhost.TextResultLost }
	cases := []struct {
		name   string
		tool   string
		args   any
		roles  []host.Role
		hosted *lossyTool
		want   func(output string) bool // the written result's text
	}{
		{"an approved exit is withdrawn", planmode.ExitToolName, map[string]string{"plan": thePlan}, []host.Role{host.RoleApprove}, nil,
			func(out string) bool {
				return strings.HasPrefix(out, host.ToolErrorPrefix) && strings.Contains(out, refusal)
			}},
		{"the agent's own tool", "read_file", map[string]string{"path": "main.go"}, nil, nil, hostsWords},
		{"a hosted tool's handler gives no text", "note", map[string]string{}, nil, &lossyTool{}, hostsWords},
		{"a hosted tool's handler panics", "note", map[string]string{}, nil, &lossyTool{panics: true}, hostsWords},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st := store.NewMemory()
			var (
				mu      sync.Mutex
				refused bool
				after   []host.Event // the appends tried after the refusal
			)
			unregister, err := st.AddValidator("lost-result-test", func(e host.Event) error {
				mu.Lock()
				defer mu.Unlock()
				if refused {
					if !strings.HasPrefix(e.Type, "plan/") { // not the handler's own
						after = append(after, e)
					}
					return nil
				}
				var r host.ToolResult
				if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil && r.CallID == "c1" {
					refused = true
					return errors.New(refusal)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			defer unregister()
			m := &scripted{t: t, replies: []reply{
				call("c1", c.tool, c.args, inPlanMode(true)),
				answer("ok", func(t testing.TB, in []*schema.Message) {
					inPlanMode(true)(t, in)
					for i, msg := range in {
						if len(msg.ToolCalls) > 0 && (i+1 >= len(in) || in[i+1].ToolCallID != "c1" || !c.want(in[i+1].Content)) {
							t.Errorf("the call is not answered by the written result right after it: %v", in)
						}
					}
				}),
			}}
			var hosted []host.Tool
			if c.hosted != nil {
				hosted = append(hosted, c.hosted)
			}
			e := newEnv(t, st, m, &answers{roles: c.roles}, hosted...)
			sess, _ := st.Create("")
			a, err := e.h.NewAgent(sess)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.plan.Set(a, true); err != nil {
				t.Fatal(err)
			}
			if errs := run(t, ctx, a, e.ag, "Go."); len(errs) == 0 {
				t.Error("the run reported no error for the failed append")
			}
			mu.Lock()
			var next host.ToolResult
			if len(after) == 0 || after[0].Type != host.TypeToolResult || json.Unmarshal(after[0].Data, &next) != nil ||
				next.CallID != "c1" || !next.IsError || !c.want(next.Output) {
				t.Errorf("the append after the refused one is %+v, want the call's is-error result in the tool's words", after[:min(1, len(after))])
			}
			mu.Unlock()
			if r := results(sess); len(r) != 1 || r[0].CallID != "c1" || !r[0].IsError {
				t.Errorf("results = %+v, want the call's one is-error result", r)
			}
			if st := e.plan.Get(a); !st.Active || st.Pending != planmode.SelectionNone {
				t.Errorf("after the lost result Get = %+v, want plan mode on with nothing pending", st)
			}
			if errs := run(t, ctx, a, e.ag, "Go on."); len(errs) > 0 {
				t.Fatalf("next run: %v", errs)
			}
			if m.left() != 0 {
				t.Errorf("%d replies left", m.left())
			}
			if c.hosted != nil && c.hosted.told() != 1 {
				t.Errorf("the tool's handler was told %d times, want once", c.hosted.told())
			}
		})
	}
}

// lossyTool is a hosted tool that handles a lost result with no text, or
// panics there.
type lossyTool struct {
	panics bool
	mu     sync.Mutex
	n      int
}

func (*lossyTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "note", Description: "Note something.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (*lossyTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "noted", nil
}

func (l *lossyTool) ResultLost(context.Context, host.CallContext, error) string {
	l.mu.Lock()
	l.n++
	l.mu.Unlock()
	if l.panics {
		panic("lost-result test: the handler panics")
	}
	return ""
}

func (l *lossyTool) told() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}
