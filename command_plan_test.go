package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// planCommand returns the registered /plan command.
func planCommand(t tb, h *fakeHost) host.Command {
	t.Helper()
	c, ok := h.Command(planmode.CommandName)
	if !ok {
		t.Fatalf("/%s is not registered", planmode.CommandName)
	}
	return c
}

// runPlan runs "/plan args" for agent a.
func runPlan(t tb, h *fakeHost, a host.Agent, args string, attachments ...host.Block) (string, error) {
	t.Helper()
	return planCommand(t, h).Run(context.Background(), host.Invocation{Agent: a, Args: args, Attachments: attachments})
}

func image(b byte) host.Block {
	return host.Block{Type: host.BlockImage, MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', b}}
}

func TestPlanCommandIsRegisteredOnlyWithCommandRegistry(t *testing.T) {
	t.Run("with a registry", func(t *testing.T) {
		h := newFakeHost()
		c := h.start(t, nil)
		cmd := planCommand(t, h)
		if cmd.Description != planmode.CommandDescription || cmd.Description == "" || strings.Contains(cmd.Description, "\n") {
			t.Fatalf("description = %q, want one line", cmd.Description)
		}
		if cmd.Hint != planmode.CommandHint || !cmd.AcceptsImages || cmd.Run == nil {
			t.Fatalf("command = %+v", cmd)
		}
		if err := c.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(h.Commands()) != 0 {
			t.Fatal("the command is still registered after Stop")
		}
	})
	t.Run("without a registry", func(t *testing.T) {
		h := newFakeHost()
		p := h.params(nil)
		p.Commands = nil
		e2etest.Start(t, p)
		if len(h.Commands()) != 0 {
			t.Fatal("a command was registered with no registry composed")
		}
		if findTool(h, planmode.ExitToolName) == nil {
			t.Fatal("the exit tool needs no command registry")
		}
	})
}

func TestPlanCommandRepliesPerOutcome(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, c *planmode.Controller, a *fakeAgent)
		args      string
		wantReply string
		wantState planmode.State
		wantSteer string // the steered text; "" for none
	}{
		{
			name: "bare /plan on an idle agent enters now", args: "",
			wantReply: planmode.ReplyEntered, wantState: planmode.State{Active: true},
		},
		{
			name: "/plan with only white space is bare", args: " \t ",
			wantReply: planmode.ReplyEntered, wantState: planmode.State{Active: true},
		},
		{
			name: "/plan during a turn enters from the next step", setup: openTurn, args: "",
			wantReply: planmode.ReplyEntering, wantState: planmode.State{Pending: planmode.SelectionActive},
		},
		{
			name: "/plan off on an idle agent leaves now", setup: enter, args: "off",
			wantReply: planmode.ReplyLeft, wantState: planmode.State{},
		},
		{
			name: "/plan off is trimmed", setup: enter, args: "  off\t\n",
			wantReply: planmode.ReplyLeft, wantState: planmode.State{},
		},
		{
			name: "/plan off during a turn leaves from the next step", setup: chain(enter, openTurn), args: "off",
			wantReply: planmode.ReplyLeaving, wantState: planmode.State{Active: true, Pending: planmode.SelectionInactive},
		},
		{
			name: "/plan off cancels an entry that has not landed", setup: chain(openTurn, enter), args: "off",
			wantReply: planmode.ReplyEntryCancelled, wantState: planmode.State{},
		},
		{
			name: "/plan cancels a leave that has not landed", setup: chain(enter, openTurn, leave), args: "",
			wantReply: planmode.ReplyExitCancelled, wantState: planmode.State{Active: true},
		},
		{
			name: "/plan off when already off", args: "off",
			wantReply: planmode.ReplyAlreadyInactive, wantState: planmode.State{},
		},
		{
			name: "/plan when already on", setup: enter, args: "",
			wantReply: planmode.ReplyAlreadyActive, wantState: planmode.State{Active: true},
		},
		{
			name: "/plan again while the entry is pending", setup: chain(openTurn, enter), args: "",
			wantReply: planmode.ReplyEntering, wantState: planmode.State{Pending: planmode.SelectionActive},
		},
		{
			name: "/plan off again while the leave is pending", setup: chain(enter, openTurn, leave), args: "off",
			wantReply: planmode.ReplyLeaving, wantState: planmode.State{Active: true, Pending: planmode.SelectionInactive},
		},
		{
			name: "OFF is a message, not off", args: "OFF",
			wantReply: planmode.ReplyEntered, wantState: planmode.State{Active: true}, wantSteer: "OFF",
		},
		{
			name: "off with more text is a message", setup: enter, args: " off we go ",
			wantReply: planmode.ReplyAlreadyActive, wantState: planmode.State{Active: true}, wantSteer: "off we go",
		},
		{
			name: "a message during a turn enters from the next step", setup: openTurn, args: "look at the cache",
			wantReply: planmode.ReplyEntering, wantState: planmode.State{Pending: planmode.SelectionActive}, wantSteer: "look at the cache",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			if tt.setup != nil {
				tt.setup(t, c, a)
			}
			reply, err := runPlan(t, h, a, tt.args)
			if err != nil || reply != tt.wantReply {
				t.Fatalf("/plan %q = %q, %v; want %q", tt.args, reply, err, tt.wantReply)
			}
			wantState(t, c, a, tt.wantState)
			var want []host.Message
			if tt.wantSteer != "" {
				want = []host.Message{{Content: []host.Block{host.TextBlock(tt.wantSteer)}}}
			}
			if got := a.Queued(); !equalMessages(got, want) {
				t.Fatalf("steered %+v, want %+v", got, want)
			}
		})
	}
}

func openTurn(t *testing.T, _ *planmode.Controller, a *fakeAgent) { must(a.StartTurn()) }
func enter(t *testing.T, c *planmode.Controller, a *fakeAgent)    { set(t, c, a, true) }
func leave(t *testing.T, c *planmode.Controller, a *fakeAgent)    { set(t, c, a, false) }

func chain(fs ...func(*testing.T, *planmode.Controller, *fakeAgent)) func(*testing.T, *planmode.Controller, *fakeAgent) {
	return func(t *testing.T, c *planmode.Controller, a *fakeAgent) {
		for _, f := range fs {
			f(t, c, a)
		}
	}
}

func equalMessages(x, y []host.Message) bool {
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return len(x) == len(y) && string(bx) == string(by)
}

func TestPlanCommandRepliesAreDistinct(t *testing.T) {
	replies := []string{
		planmode.ReplyEntered, planmode.ReplyEntering, planmode.ReplyLeft, planmode.ReplyLeaving,
		planmode.ReplyEntryCancelled, planmode.ReplyExitCancelled, planmode.ReplyAlreadyInactive, planmode.ReplyAlreadyActive,
	}
	seen := map[string]bool{}
	for _, r := range replies {
		if r == "" || seen[r] {
			t.Fatalf("reply %q is empty or repeated", r)
		}
		seen[r] = true
	}
}

func TestPlanCommandSteersAttachmentsThenTrimmedText(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		attachments []host.Block
		want        []host.Block
	}{
		{
			name: "images and text", args: "  what is wrong here?\n", attachments: []host.Block{image(1), image(2)},
			want: []host.Block{image(1), image(2), host.TextBlock("what is wrong here?")},
		},
		{
			name: "images alone", args: " ", attachments: []host.Block{image(1)},
			want: []host.Block{image(1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			if _, err := runPlan(t, h, a, tt.args, tt.attachments...); err != nil {
				t.Fatal(err)
			}
			want := []host.Message{{Content: tt.want}}
			if got := a.Queued(); !equalMessages(got, want) {
				t.Fatalf("steered %+v, want %+v", got, want)
			}
			// Plan mode was selected before the message was steered: the
			// idle agent committed it, then the steer opened the turn.
			wantState(t, c, a, planmode.State{Active: true})
			types := logTypes(a.Session(), 0)
			if i, j := slices.Index(types, planmode.EventPlanMode), slices.Index(types, host.TypeTurnStart); i < 0 || j < 0 || i > j {
				t.Fatalf("log = %v, want plan/mode before turn/start", types)
			}
		})
	}
}

func TestPlanCommandRefusesOffWithImagesBeforeAnyChange(t *testing.T) {
	h, c, a := startAgent(t)
	must(a.StartTurn())
	set(t, c, a, true) // an entry waiting for the next step
	from := a.Session().Len()
	_, err := runPlan(t, h, a, "off", image(1))
	if !errors.Is(err, planmode.ErrOffWithImages) {
		t.Fatalf("error = %v, want the off-with-images refusal", err)
	}
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	if a.Session().Len() != from || len(a.Queued()) != 0 {
		t.Fatalf("the refused command changed something: log %v, steered %+v", logTypes(a.Session(), from), a.Queued())
	}
}

func TestPlanCommandReturnsSetErrors(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	cmd := planCommand(t, h)
	if _, err := cmd.Run(context.Background(), host.Invocation{Args: "look"}); !errors.Is(err, planmode.ErrNoAgent) {
		t.Fatalf("no agent: error = %v, want ErrNoAgent", err)
	}
	a := h.newAgent(t)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Run(context.Background(), host.Invocation{Agent: a, Args: "look"}); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("stopped: error = %v, want ErrNotRunning", err)
	}
	if len(a.Queued()) != 0 {
		t.Fatal("a failed selection still steered the message")
	}
}

// refusingAgent is an agent whose Steer fails.
type refusingAgent struct{ *fakeAgent }

var errSteerRefused = errors.New("agent is shutting down")

func (refusingAgent) Steer(host.Message) error { return errSteerRefused }

func TestPlanCommandReportsSteerFailure(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	a := refusingAgent{h.newAgent(t)}
	_, err := runPlan(t, h, a, "look")
	if !errors.Is(err, planmode.ErrSteerFailed) || !errors.Is(err, errSteerRefused) {
		t.Fatalf("error = %v, want the steer failure", err)
	}
	wantState(t, c, a, planmode.State{Active: true})
}

func FuzzPlanArgs(f *testing.F) {
	for _, s := range []string{"", " ", "off", " off ", "OFF", "Off", "off now", "\toff\n", "of f", "\u00a0off\u00a0", "\xffoff", "message",
		"reopen", " reopen 2 ", "reopen x y", "reopen 1 2", "reopen 1 and more", "Reopen", "reopening"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, args string, attachments bool) {
		action, text := planmode.PlanArgs(args, attachments)
		f := strings.Fields(args)
		isReopen := len(f) > 0 && f[0] == "reopen"
		wantText := strings.TrimSpace(args)
		if isReopen {
			wantText = strings.Join(f[1:], " ")
		}
		if text != wantText {
			t.Fatalf("text = %q, want %q", text, wantText)
		}
		// A simple reference, spelled out.
		var want planmode.PlanAction
		switch isOff := strings.TrimSpace(args) == "off"; {
		case isOff && attachments:
			want = planmode.PlanOffRefused
		case isOff:
			want = planmode.PlanOff
		case isReopen && attachments:
			want = planmode.PlanReopenRefused
		case isReopen:
			want = planmode.PlanReopen
		case strings.TrimSpace(args) == "" && !attachments:
			want = planmode.PlanOn
		default:
			want = planmode.PlanOnAndSteer
		}
		if action != want {
			t.Fatalf("PlanArgs(%q, %v) = %v, want %v", args, attachments, action, want)
		}
		// The log reads the same selection back (a completed /plan is
		// rebuilt from its command/run).
		off := action == planmode.PlanOff || action == planmode.PlanOffRefused
		if got := planmode.SelectionForArgs(args) == planmode.SelectionInactive; got != off {
			t.Fatalf("SelectionForArgs(%q) says off=%v, the command off=%v", args, got, off)
		}
	})
}

// ---- end to end on the reference host ----

func TestE2EPlanCommandIdleCommitsAndDuringTurnQueues(t *testing.T) {
	var (
		a     *refhost.Agent
		e     *e2e
		reply string
	)
	e = newE2E(t, nil,
		scripted.Step{Respond: func(ctx context.Context, _ refhost.Request) (refhost.Response, error) {
			_, r, err := e.rt.Execute(ctx, a, "/plan check the cache first", nil)
			reply = r
			if err != nil {
				return refhost.Response{}, err
			}
			return refhost.Response{ToolCalls: callNoop("c1")}, nil
		}},
		scripted.Step{Text: "planning"},
		scripted.Step{Text: "still planning"},
	)
	if _, err := e.rt.AddTool(noopTool{}); err != nil {
		t.Fatal(err)
	}
	a = e.agent()
	e.prompt(a, "hi")
	if reply != planmode.ReplyEntering {
		t.Fatalf("/plan during a turn = %q, want %q", reply, planmode.ReplyEntering)
	}
	r := e.request(1)
	if planned(e.request(0)) || !planned(r) {
		t.Fatal("want plan guidance from the step after the command")
	}
	if !slices.ContainsFunc(r.Messages, func(m refhost.Message) bool {
		return m.Role == refhost.RoleUser && len(m.Content) == 1 && m.Content[0].Text == "check the cache first"
	}) {
		t.Fatalf("the steered message is not in the next request: %+v", r.Messages)
	}

	// Idle again: leaving commits at once.
	_, reply, err := e.rt.Execute(context.Background(), a, "/plan off", nil)
	if err != nil || reply != planmode.ReplyLeft {
		t.Fatalf("/plan off on an idle agent = %q, %v; want %q", reply, err, planmode.ReplyLeft)
	}
	wantState(t, e.c, a, planmode.State{})
	if got := modes(t, a.Session(), 0); !slices.Equal(got, []bool{true, false}) {
		t.Fatalf("plan/mode events = %v, want [true false]", got)
	}
}

func TestE2EPlanOffWithImagesIsRefused(t *testing.T) {
	e := newE2E(t, nil)
	a := e.agent()
	set(t, e.c, a, true)
	handled, _, err := e.rt.Execute(context.Background(), a, "/plan off", []host.Block{image(1)})
	if !handled || !errors.Is(err, planmode.ErrOffWithImages) {
		t.Fatalf("/plan off with an image = %v, %v; want the refusal", handled, err)
	}
	wantState(t, e.c, a, planmode.State{Active: true})
	if p := planmode.Project(a.Session().Events()); p != (planmode.State{Active: true}) {
		t.Fatalf("projection = %+v, want plan mode with nothing pending", p)
	}
}
