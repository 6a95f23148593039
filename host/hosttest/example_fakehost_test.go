package hosttest_test

import (
	"context"
	"fmt"

	"github.com/dshgo/planmode/internal/e2etest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

// A plugin test drives the fake host by hand: here the plan-mode plugin,
// a "/plan" typed during a turn, the step that lands it, and a review the
// user approves.
func ExampleHost() {
	h := hosttest.NewHost(store.NewMemory())
	questions := &hosttest.Questions{}
	res, err := planmode.New(planmode.Params{
		Config:     planmode.Config{Section: "Plan first."},
		Sections:   h,
		Tools:      h,
		PreStep:    h,
		Validators: h,
		EventTypes: h,
		Commands:   h,
		Questions:  questions,
	})
	if err != nil {
		panic(err)
	}
	c := res.Controller
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	defer c.Stop(ctx)

	sess, _ := h.Store().Create("s1")
	a := hosttest.NewAgent("a1", sess)
	_ = a.StartTurn()
	reply, _ := h.RunCommand(ctx, a, planmode.CommandName, "")
	fmt.Println(reply)
	h.RunStep(a, hosttest.Accepted) // the selection lands before the request
	fmt.Println(h.Render(a))

	questions.Answer(host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewApprove}})
	out, isError := h.CallTool(ctx, a, "call-1", planmode.ExitToolName, []byte(`{"plan":"# Plan\n1. Do it."}`))
	fmt.Println(out, isError)
	h.RunStep(a, hosttest.Accepted)
	fmt.Println(h.Render(a), c.Get(a).Active)
	// Output:
	// Plan mode is on from the next step of the running turn.
	// [plan:policy]
	// {"approved":true} false
	// [] false
}
