// Command example runs a whole plan-mode session in a CloudWeGo Eino
// agent: /plan enters plan mode, the agent explores with its own tool,
// presents a plan with exit_plan_mode, the user approves it in the
// program's UI, and the agent carries it out in the default mode. The
// chat model is Eino's OpenAI component; by default it talks to a local
// fake endpoint with scripted replies (-base-url and OPENAI_API_KEY point
// it at a real one). The session log is a file store.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"

	"github.com/dshgo/planmode"
	planeino "github.com/dshgo/planmode/adapters/eino"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/store"
)

// Model-facing texts of the example.
const (
	policy      = "You are in plan mode: read and explore, change nothing, and present your plan with exit_plan_mode."
	instruction = "You are a careful Go programmer."
	prompt      = "Add a --verbose flag to the CLI."
	examplePlan = "# Add --verbose\n\n1. Add the flag in main.go.\n2. Log each step when it is set.\n3. Test it."
	// The fake endpoint's last replies: done, or (a bug) still planning.
	replyDone          = "Done: --verbose is added and tested."
	replyStillPlanning = "I am still in plan mode."
)

func main() {
	baseURL := flag.String("base-url", "", "an OpenAI-compatible endpoint (default: a local fake one)")
	model := flag.String("model", "fake-model", "the model name")
	sessions := flag.String("sessions", "", "the sessions directory (default: a new temporary one)")
	lang := flag.String("lang", "", "the language of the output: en or zh (default: from the environment)")
	flag.Parse()
	cat := present.For(*lang, os.Getenv("LC_ALL"), os.Getenv("LC_MESSAGES"), os.Getenv("LANG"))
	if err := run(context.Background(), os.Stdout, cat, *baseURL, *model, *sessions); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, cat *present.Catalog, baseURL, model, sessions string) error {
	if baseURL == "" {
		srv := fakeOpenAI()
		defer srv.Close()
		baseURL = srv.URL
	}
	if sessions == "" {
		tmp, err := os.MkdirTemp("", "eino-plan-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		sessions = filepath.Join(tmp, "sessions")
	}
	st, err := store.OpenDir(sessions)
	if err != nil {
		return err
	}
	defer st.Close()
	ui := &console{out: &present.Plain{W: w, Cat: cat, HoldPlans: true}}

	// The lines an Eino program adds for plan mode: a host on a store,
	// plan mode registered into it, and its middleware in the agent.
	h, err := planeino.New(planeino.Options{Store: st, Questions: ui})
	if err != nil {
		return err
	}
	res, err := planmode.New(planmode.Params{Config: planmode.Config{Section: policy},
		Sections: h, Tools: h, PreStep: h, Validators: h.Validators(), EventTypes: h, Commands: h, Questions: h})
	if err != nil {
		return err
	}
	plan := res.Controller
	if err := plan.Start(ctx); err != nil {
		return err
	}
	defer plan.Stop(ctx)
	mw, err := h.Middleware()
	if err != nil {
		return err
	}

	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: baseURL, Model: model, APIKey: os.Getenv("OPENAI_API_KEY")})
	if err != nil {
		return err
	}
	listFiles, err := utils.InferTool("list_files", "List the files of the project.",
		func(context.Context, struct{}) (string, error) { return "main.go\nmain_test.go", nil })
	if err != nil {
		return err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "Writes Go code.", Instruction: instruction, Model: cm,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools: []tool.BaseTool{listFiles}, UnknownToolsHandler: h.UnknownTool,
		}},
		Middlewares: []adk.AgentMiddleware{mw},
	})
	if err != nil {
		return err
	}

	sess, err := st.Create("")
	if err != nil {
		return err
	}
	a, err := h.NewAgent(sess)
	if err != nil {
		return err
	}
	ui.watch(sess)
	handled, reply, err := a.Execute(ctx, "/plan")
	ui.items(cat.CommandReply("plan", handled, reply, err, plan.Get(a), true, 0))
	if err != nil {
		return err
	}
	var errs []error
	events := a.Run(ctx, agent, prompt)
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			errs = append(errs, ev.Err)
		}
	}
	ui.flush()
	if plan.Get(a).Active {
		errs = append(errs, errors.New("plan mode is still on"))
	}
	return errors.Join(errs...)
}

// console is the program's UI: it prints the session as it is logged, in
// the catalog's words with the model's text escaped, and its user approves
// every plan.
type console struct {
	mu  sync.Mutex
	out *present.Plain
	tr  *present.Transcript
}

func (c *console) watch(s host.Session) {
	c.tr = present.NewTranscript(c.out.Cat, false)
	s.Subscribe(s.Len(), func(e host.Event) { c.items(c.tr.Add(e)) })
}

func (c *console) items(items []present.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Items(items)
}

func (c *console) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Flush()
}

func (c *console) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var answers []host.Answer
	for i, q := range req.Questions {
		shown := c.out.Cat.Question(req, i, req.Agent.Session().Events(), false)
		c.out.Question(shown)
		for _, ch := range shown.Menu {
			if ch.Approves() && !ch.TakesText() {
				c.out.Line("> " + ch.Key)
				answers = append(answers, host.Answer{QuestionID: q.ID, Selected: []string{ch.Option.Label}})
				break
			}
		}
	}
	if len(answers) != len(req.Questions) {
		return nil, host.ErrDismissed
	}
	return answers, nil
}
