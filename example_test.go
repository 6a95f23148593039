package planmode_test

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// deployYAML is the deployment file of the example; a program reads its own
// with deploy.Load.
const deployYAML = `plugins:
  plan-mode:
    section: |
      You are in plan mode. Explore read-only, then present a plan with exit_plan_mode.
`

// Example embeds the plugin in an fx application next to the reference
// host, with its configuration taken from a deployment file. The README
// shows the same program.
func Example() {
	// The deployment file enables plan-mode and configures it.
	d, err := deploy.Parse("deploy.yaml", []byte(deployYAML), planmode.DeployPlugin())
	if err != nil {
		fmt.Println(err)
		return
	}

	// A scripted model stands in for a real one.
	model := scripted.NewModel(scripted.Step{Text: "I will read the code first."})

	var (
		plan     *planmode.Controller
		runtime  *refhost.Runtime
		sessions host.Store
	)
	app := fx.New(
		fx.NopLogger,
		fx.Provide(
			func() host.Store { return store.NewMemory() },
			func() refhost.Model { return model },
		),
		refhost.Module, // the host: registries, agent loop, user questions
		d.Option(),     // the enabled plugins: plan-mode's Config and Module
		fx.Populate(&plan, &runtime, &sessions),
	)
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer app.Stop(ctx)

	sess, err := sessions.Create("demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	agent, err := runtime.NewAgent("", sess)
	if err != nil {
		fmt.Println(err)
		return
	}

	// The agent is idle, so the choice is committed to the log at once.
	outcome, err := plan.Set(agent, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("set:", outcome)

	// The next request carries the plan:policy section.
	if err := agent.Steer(host.Message{Content: []host.Block{host.TextBlock("Add a retry to the uploader.")}}); err != nil {
		fmt.Println(err)
		return
	}
	if err := agent.WaitIdle(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sections:", model.Requests()[0].Sections)
	fmt.Println("active:", plan.Get(agent).Active)
	// Output:
	// set: committed
	// sections: [plan:policy]
	// active: true
}
