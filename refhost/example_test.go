package refhost_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// A scripted model asks for one tool call, then answers; the log shows the
// two steps of the turn.
func Example() {
	model := scripted.NewModel(
		scripted.Step{ToolCalls: []host.ToolCall{{ID: "c1", Name: "echo", Input: json.RawMessage(`{"text":"hello"}`)}}},
		scripted.Step{Text: "The tool said hello."},
	)
	st := store.NewMemory()
	rt, err := refhost.New(refhost.Options{Store: st, Model: model})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(context.Background())
	_, _ = rt.AddSection(host.Section{Name: "intro", Text: func(host.AssembleContext) string { return "You are terse." }})
	_, _ = rt.AddTool(echoTool{name: "echo"})

	s, _ := st.Create("demo")
	a, _ := rt.NewAgent("", s)
	_ = a.Steer(host.Message{Content: []host.Block{host.TextBlock("Say hello through the tool.")}})
	_ = a.WaitIdle(context.Background())

	for _, e := range s.Events().Slice() {
		fmt.Println(e.Seq, e.Type)
	}
	fmt.Printf("system prompt: %q\n", model.Requests()[0].System)
	// Output:
	// 1 turn/start
	// 2 step/start
	// 3 user/message
	// 4 request/header
	// 5 assistant/message
	// 6 tool/call
	// 7 tool/result
	// 8 step/end
	// 9 step/start
	// 10 assistant/message
	// 11 step/end
	// 12 turn/end
	// system prompt: "You are terse."
}
