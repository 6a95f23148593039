package hosttest_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

func TestHostRegistriesRefuseDuplicatesAndUndoOnce(t *testing.T) {
	h := hosttest.NewHost(store.NewMemory())
	text := func(host.AssembleContext) string { return "x" }
	undo, err := h.AddSection(host.Section{Name: "s", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddSection(host.Section{Name: "s", Text: text}); !errors.Is(err, host.ErrDuplicate) {
		t.Fatalf("second section = %v, want ErrDuplicate", err)
	}
	if _, err := h.DeclareEventType(host.EventType{Name: "x/y"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.DeclareEventType(host.EventType{Name: "x/y"}); !errors.Is(err, host.ErrDuplicate) {
		t.Fatalf("second event type = %v, want ErrDuplicate", err)
	}
	undo()
	undo()
	if s, _, _, _, types := h.Registered(); s != 0 || types != 1 {
		t.Fatalf("registered sections=%d types=%d, want 0 and 1", s, types)
	}
}

func TestHostRunsTheChainOutermostFirstAndLogsAcceptedSteps(t *testing.T) {
	h := hosttest.NewHost(store.NewMemory())
	var order []string
	listener := func(name string) host.PreStepListener {
		return func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
			order = append(order, name)
			return next(ctx, s)
		}
	}
	for _, l := range []struct {
		name    string
		prepend bool
	}{{"inner", false}, {"outer", true}} {
		if _, err := h.AddPreStep(l.name, listener(l.name), l.prepend); err != nil {
			t.Fatal(err)
		}
	}
	a := h.NewAgent(t)
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	if d := h.RunStep(a, hosttest.Rejected); d.Accepted || len(a.Queued()) != 1 {
		t.Fatalf("a rejected step = %+v, queue %d; want the message back in the queue", d, len(a.Queued()))
	}
	if d := h.RunStep(a, hosttest.Accepted); !d.Accepted {
		t.Fatal("the step was not accepted")
	}
	if want := []string{"outer", "inner", "outer", "inner"}; !slices.Equal(order, want) {
		t.Fatalf("chain order = %v, want %v", order, want)
	}
	var types []string
	for _, e := range a.Session().Events().Slice() {
		types = append(types, e.Type)
	}
	want := []string{host.TypeTurnStart, host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader, host.TypeStepEnd}
	if !slices.Equal(types, want) {
		t.Fatalf("log = %v, want %v", types, want)
	}
}

type echoTool struct{}

func (echoTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (echoTool) Execute(_ context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if string(input) == `{}` {
		return "", errors.New("nothing to echo")
	}
	return string(input), nil
}

func TestHostLogsCommandsAndToolCallsAsAHostDoes(t *testing.T) {
	h := hosttest.NewHost(store.NewMemory())
	if _, err := h.AddTool(echoTool{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddCommand(host.Command{Name: "hi", Run: func(_ context.Context, inv host.Invocation) (string, error) {
		return "hello " + inv.Args, nil
	}}); err != nil {
		t.Fatal(err)
	}
	a := h.NewAgent(t)
	ctx := context.Background()
	if reply, err := h.RunCommand(ctx, a, "hi", " you "); err != nil || reply != "hello  you " {
		t.Fatalf("RunCommand = %q, %v", reply, err)
	}
	if _, err := h.RunCommand(ctx, a, "nope", ""); err == nil {
		t.Fatal("an unknown command ran")
	}
	if out, isErr := h.CallTool(ctx, a, "c1", "echo", json.RawMessage(`{"a":1}`)); isErr || out != `{"a":1}` {
		t.Fatalf("CallTool = %q, %v", out, isErr)
	}
	if out, isErr := h.CallTool(ctx, a, "c2", "echo", json.RawMessage(`{}`)); !isErr || out != host.ToolErrorPrefix+"nothing to echo" {
		t.Fatalf("failing CallTool = %q, %v", out, isErr)
	}
	var got []string
	for _, e := range a.Session().Events().Slice() {
		got = append(got, e.Type)
	}
	want := []string{host.TypeCommandRun, host.TypeCommandDone, host.TypeToolCall, host.TypeToolResult, host.TypeToolCall, host.TypeToolResult}
	if !slices.Equal(got, want) {
		t.Fatalf("log = %v, want %v", got, want)
	}
	var run host.CommandRun
	if err := json.Unmarshal(a.Session().Events().Slice()[0].Data, &run); err != nil || run.Args != " you " {
		t.Fatalf("command/run = %+v, %v; want the raw argument text", run, err)
	}
}

func TestQuestionsAnswerInOrderThenReportNoUser(t *testing.T) {
	q := &hosttest.Questions{}
	q.Answer(host.Answer{QuestionID: "q", Selected: []string{"A"}})
	q.Fail(host.ErrDismissed)
	q.Reply(func(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
		return []host.Answer{{QuestionID: req.Questions[0].ID}}, nil
	})
	ctx := context.Background()
	if got, err := q.Ask(ctx, host.AskRequest{}); err != nil || len(got) != 1 || got[0].Selected[0] != "A" {
		t.Fatalf("first Ask = %v, %v", got, err)
	}
	if _, err := q.Ask(ctx, host.AskRequest{}); !errors.Is(err, host.ErrDismissed) {
		t.Fatalf("second Ask = %v, want ErrDismissed", err)
	}
	if got, err := q.Ask(ctx, host.AskRequest{Questions: []host.Question{{ID: "r"}}}); err != nil || len(got) != 1 || got[0].QuestionID != "r" {
		t.Fatalf("third Ask = %v, %v; want an answer to question r", got, err)
	}
	if _, err := q.Ask(ctx, host.AskRequest{}); !errors.Is(err, host.ErrNoProvider) {
		t.Fatalf("fourth Ask = %v, want ErrNoProvider", err)
	}
	if n := len(q.Requests()); n != 4 {
		t.Fatalf("requests = %d, want 4", n)
	}
}

func TestHostGuardsToolCalls(t *testing.T) {
	refuse := func(context.Context, host.CallContext, string, json.RawMessage) error { return errors.New("refused") }
	allow := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
	tests := []struct {
		name    string
		guards  []host.ToolGuard
		tool    string
		want    string
		wantErr bool
	}{
		{name: "a call no guard refuses runs the tool", guards: []host.ToolGuard{allow}, tool: "echo", want: `{"a":1}`},
		{name: "the first refusal wins and the tool does not run", guards: []host.ToolGuard{allow, refuse}, tool: "echo",
			want: host.ToolErrorPrefix + "refused", wantErr: true},
		{name: "guards see calls to unknown tools too", guards: []host.ToolGuard{refuse}, tool: "nope",
			want: host.ToolErrorPrefix + "refused", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hosttest.NewHost(store.NewMemory())
			if _, err := h.AddTool(echoTool{}); err != nil {
				t.Fatal(err)
			}
			for i, g := range tt.guards {
				if _, err := h.AddToolGuard(host.Guard{Name: string(rune('a' + i)), Check: g}); err != nil {
					t.Fatal(err)
				}
			}
			out, isErr := h.CallTool(context.Background(), h.NewAgent(t), "c1", tt.tool, json.RawMessage(`{"a":1}`))
			if out != tt.want || isErr != tt.wantErr {
				t.Errorf("CallTool = %q, %v; want %q, %v", out, isErr, tt.want, tt.wantErr)
			}
		})
	}
}
