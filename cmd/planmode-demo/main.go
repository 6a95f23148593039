// Command planmode-demo plays a short plan-mode session and prints it: the
// user enters plan mode with a request, a scripted model reads a file and
// presents a plan, a scripted reviewer sends it back once with feedback and
// approves the revision, and the model carries it out in the default mode.
//
// It runs on the reference host (refhost) of the light root module, with
// an in-memory store and workspace, so that it builds in seconds on a fresh
// machine. "go run ./cmd/planhost demo" plays the full demo: the terminal
// renderer, more tools, a session file.
//
// Usage:
//
//	go run ./cmd/planmode-demo
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

//go:embed script.yaml
var script []byte

// What the demo's user types, and the guidance plan mode gives the model.
const (
	userLine = "/plan Add a Goodbye function next to Hello, with a test."
	feedback = "Also show Goodbye in the README's usage section."
	policy   = "You are in plan mode. Explore read-only, then present a plan with exit_plan_mode."
	// demoTimeout bounds the whole session.
	demoTimeout = time.Minute
)

// The demo's texts.
const (
	lineStart     = "planmode demo: a scripted plan-mode session on the reference host (in memory)"
	lineUser      = "user: %s"
	lineAssistant = "assistant: %s"
	lineModeOn    = "── plan mode on ──"
	lineModeOff   = "── plan mode off: default mode ──"
	lineCall      = "  → %s(%s)"
	linePlanCall  = "  → %s"
	lineResult    = "  ← %s"
	lineReview    = "┌─ %s"
	lineOption    = "│  %s"
	lineReviewEnd = "└─"
	lineChanged   = "  what changed since the plan sent back (- before, + now):"
	lineReviewer  = "reviewer: %s"
	lineFeedback  = "reviewer: %s: %s"
	lineEnd       = "The session ended in the default mode; %s now holds Goodbye. The full demo: go run ./cmd/planhost demo"
	errDemo       = "planmode-demo: %v\n"
)

// sample is the demo's workspace: one Go file, in memory.
var sample = map[string]string{
	"greeter.go": "// Package greeter builds greetings.\npackage greeter\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string { return \"Hello, \" + name + \"!\" }\n",
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, errDemo, err)
		os.Exit(1)
	}
}

// run plays the session and prints its transcript to w.
func run(ctx context.Context, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	model, err := scripted.NewModelYAML(script)
	if err != nil {
		return err
	}
	var (
		rt   *refhost.Runtime
		plan *planmode.Controller
	)
	app := fx.New(
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(store.NewMemory(), fx.As(new(host.Store))),
			fx.Annotate(model, fx.As(new(refhost.Model))),
			planmode.Config{Section: policy},
		),
		refhost.Module,
		planmode.Module,
		fx.Populate(&rt, &plan),
	)
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer app.Stop(context.Background())

	out := &transcript{w: w}
	ws := &workspace{files: maps.Clone(sample)}
	for _, t := range []host.Tool{readTool{ws}, writeTool{ws}} {
		if _, err := rt.AddTool(t); err != nil {
			return err
		}
	}
	unset, err := rt.Questions().SetProvider(&reviewer{out: out})
	if err != nil {
		return err
	}
	defer unset()
	sess, err := rt.Store().Create("")
	if err != nil {
		return err
	}
	agent, err := rt.NewAgent("", sess)
	if err != nil {
		return err
	}
	unsubscribe := sess.Subscribe(0, out.event)
	defer unsubscribe()

	out.println(lineStart)
	out.println("")
	out.println(fmt.Sprintf(lineUser, userLine))
	if _, _, err := rt.Execute(ctx, agent, userLine, nil); err != nil {
		return err
	}
	if err := agent.WaitIdle(ctx); err != nil {
		return err
	}
	if n := model.Remaining(); n != 0 {
		return fmt.Errorf("%d model steps unused", n)
	}
	if st := plan.Get(agent); st.Active {
		return errors.New("the session is still in plan mode")
	}
	if !strings.Contains(ws.get("greeter.go"), "func Goodbye") {
		return errors.New("greeter.go has no Goodbye")
	}
	out.println("")
	out.println(fmt.Sprintf(lineEnd, "greeter.go"))
	return nil
}

// transcript prints lines; it is safe for concurrent use.
type transcript struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *transcript) println(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.w, strings.TrimRight(s, " "))
}

// event prints one session event the transcript shows.
func (t *transcript) event(e host.Event) {
	switch e.Type {
	case planmode.EventPlanMode:
		var m planmode.ModePayload
		if json.Unmarshal(e.Data, &m) == nil {
			t.println(map[bool]string{true: lineModeOn, false: lineModeOff}[m.Active])
		}
	case host.TypeAssistantMessage:
		var m host.AssistantMessage
		if json.Unmarshal(e.Data, &m) == nil && strings.TrimSpace(m.Text) != "" {
			t.println(fmt.Sprintf(lineAssistant, visible(m.Text)))
		}
	case host.TypeToolCall:
		var c host.ToolCall
		if json.Unmarshal(e.Data, &c) != nil {
			return
		}
		if c.Name == planmode.ExitToolName {
			t.println(fmt.Sprintf(linePlanCall, c.Name))
			return
		}
		var args map[string]any
		_ = json.Unmarshal(c.Input, &args)
		t.println(fmt.Sprintf(lineCall, c.Name, visible(fmt.Sprint(args["path"]))))
	case host.TypeToolResult:
		var r host.ToolResult
		if json.Unmarshal(e.Data, &r) != nil {
			return
		}
		first, _, _ := strings.Cut(strings.TrimSpace(r.Output), "\n")
		t.println(fmt.Sprintf(lineResult, visible(clip(first, 100))))
	}
}

// reviewer is the scripted user: it prints each plan review and sends the
// first plan back with feedback, then approves.
type reviewer struct {
	out     *transcript
	reviews int
	// sentBack is the plan sent back, for the diff of its revision.
	sentBack string
}

// Ask implements refhost.Provider.
func (r *reviewer) Ask(_ context.Context, req host.AskRequest) ([]host.Answer, error) {
	if req.Kind != host.AskReview || len(req.Questions) != 1 {
		return nil, fmt.Errorf("the demo answers plan reviews only: %w", host.ErrDismissed)
	}
	q := req.Questions[0]
	for _, l := range strings.Split(strings.TrimRight(q.Detail, "\n"), "\n") {
		r.out.println("  " + visible(l))
	}
	if r.sentBack != "" {
		r.out.println(lineChanged)
		for _, l := range diff(r.sentBack, q.Detail) {
			r.out.println("  " + visible(l))
		}
	}
	r.out.println(fmt.Sprintf(lineReview, visible(q.Question)))
	for _, o := range q.Options {
		r.out.println(fmt.Sprintf(lineOption, visible(o.Label)))
	}
	r.out.println(lineReviewEnd)
	r.reviews++
	a := host.Answer{QuestionID: q.ID, DetailDigest: q.DetailDigest}
	role := host.RoleApprove
	if r.reviews == 1 {
		role, a.Custom = host.RoleKeepPlanning, feedback
		r.sentBack = q.Detail
	}
	for _, o := range q.Options {
		if o.Role == role {
			a.Selected = []string{o.Label}
			break
		}
	}
	if a.Custom != "" {
		r.out.println(fmt.Sprintf(lineFeedback, a.Selected[0], feedback))
	} else {
		r.out.println(fmt.Sprintf(lineReviewer, a.Selected[0]))
	}
	return []host.Answer{a}, nil
}

// diff is a unified diff of two plans, without file headers, a line each.
func diff(before, after string) []string {
	d := plandiff.Unified(before, after)
	if d == "" {
		return nil
	}
	return strings.Split(d, "\n")
}

// visible makes control and invisible formatting characters (zero-width,
// bidi) visible as \uXXXX escapes: model text never acts on the terminal.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (unicode.IsControl(r) && r != '\t') || unicode.Is(unicode.Cf, r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
