package planmode_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

func set(t tb, c *planmode.Controller, a host.Agent, active bool) planmode.Outcome {
	t.Helper()
	got, err := c.Set(a, active)
	if err != nil {
		t.Fatalf("Set(%v): %v", active, err)
	}
	return got
}

func wantState(t tb, c *planmode.Controller, a host.Agent, want planmode.State) {
	t.Helper()
	if got := c.Get(a); got != want {
		t.Fatalf("Get = %+v, want %+v", got, want)
	}
}

// wantHeader checks the state the log's last request header described.
func wantHeader(t tb, a *fakeAgent, want planmode.HeaderMode) {
	t.Helper()
	if got := planmode.FoldHeaderMode(a.Session().Events(), a.Session().Len()); got != want {
		t.Fatalf("header mode = %v, want %v", got, want)
	}
}

// withHeader plays one turn with one accepted step, so that a request header
// describing the current state is on the log.
func withHeader(h *fakeHost, a *fakeAgent) {
	must(a.StartTurn())
	h.runStep(a, accepted)
	must(a.EndTurn())
}

// wantEnteredNotice checks that the decision d carries the entered notice
// and no other message.
func wantEnteredNotice(t tb, d host.Decision) {
	t.Helper()
	if len(d.Messages) != 1 || d.Messages[0].Content[0].Text != planmode.NoticeEntered {
		t.Fatalf("decision messages = %+v, want the entered notice", d.Messages)
	}
}

// openTurnAfterHeader is withHeader, then the next turn opened.
func openTurnAfterHeader(h *fakeHost, a *fakeAgent) {
	withHeader(h, a)
	must(a.StartTurn())
}

func TestSetCommitsBetweenTurns(t *testing.T) {
	_, c, a := startAgent(t)

	if got := set(t, c, a, true); got != planmode.Committed {
		t.Fatalf("Set(true) = %v, want committed", got)
	}
	wantState(t, c, a, planmode.State{Active: true})
	if got := modes(t, a.Session(), 0); !slices.Equal(got, []bool{true}) {
		t.Fatalf("plan/mode events = %v, want [true]", got)
	}
	if got := set(t, c, a, false); got != planmode.Committed {
		t.Fatalf("Set(false) = %v, want committed", got)
	}
	wantState(t, c, a, planmode.State{Active: false})
}

func TestCommitRecordsNoticeWhenHeaderDescribedOtherMode(t *testing.T) {
	h, c, a := startAgent(t)
	withHeader(h, a) // the header describes the default mode

	from := a.Session().Len()
	if got := set(t, c, a, true); got != planmode.Committed {
		t.Fatalf("Set(true) = %v, want committed", got)
	}
	if got, want := logTypes(a.Session(), from), []string{planmode.EventPlanMode, host.TypeUserMessage}; !slices.Equal(got, want) {
		t.Fatalf("appended %v, want %v", got, want)
	}
	if got := notices(t, a.Session(), from); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices = %q, want the entered notice", got)
	}

	withHeader(h, a) // now the header describes plan mode
	from = a.Session().Len()
	set(t, c, a, false)
	if got := notices(t, a.Session(), from); !slices.Equal(got, []string{planmode.NoticeLeft}) {
		t.Fatalf("notices = %q, want the left notice", got)
	}
}

func TestNoNoticeBeforeFirstHeader(t *testing.T) {
	h, c, a := startAgent(t)

	set(t, c, a, true)
	must(a.StartTurn())
	set(t, c, a, false)
	h.runStep(a, accepted)
	if got := notices(t, a.Session(), 0); len(got) != 0 {
		t.Fatalf("notices = %q, want none before the first header", got)
	}
}

func TestNoNoticeWhenHeaderAlreadyDescribedTheState(t *testing.T) {
	h, c, a := startAgent(t)
	withHeader(h, a) // default mode described

	set(t, c, a, true)  // notice: entered
	set(t, c, a, false) // back to what the header described: no notice
	if got := notices(t, a.Session(), 0); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices = %q, want only the entered notice", got)
	}
}

func TestOneNoticePerChange(t *testing.T) {
	h, c, a := startAgent(t)
	withHeader(h, a)

	// Flipping between turns without a request in between announces the
	// change to plan mode once.
	set(t, c, a, true)
	set(t, c, a, false)
	set(t, c, a, true)
	if got := notices(t, a.Session(), 0); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices = %q, want one entered notice", got)
	}
	// Steps after the change add no second notice, and the next header
	// describes plan mode.
	must(a.StartTurn())
	for range 3 {
		h.runStep(a, accepted)
	}
	must(a.EndTurn())
	if got := notices(t, a.Session(), 0); len(got) != 1 {
		t.Fatalf("notices = %q, want one", got)
	}
	wantHeader(t, a, planmode.HeaderActive)
}

func TestSetQueuesWhileTurnIsOpen(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)

	from := a.Session().Len()
	if got := set(t, c, a, true); got != planmode.Queued {
		t.Fatalf("Set(true) = %v, want queued", got)
	}
	wantState(t, c, a, planmode.State{Active: false, Pending: planmode.SelectionActive})
	if got := modes(t, a.Session(), from); len(got) != 0 {
		t.Fatalf("queued selection logged %v", got)
	}

	d := h.runStep(a, accepted)
	wantState(t, c, a, planmode.State{Active: true})
	// plan/mode lands before step/start, the notice rides in the decision
	// and the step's header already describes plan mode.
	want := []string{planmode.EventPlanMode, host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader, host.TypeStepEnd}
	if got := logTypes(a.Session(), from); !slices.Equal(got, want) {
		t.Fatalf("appended %v, want %v", got, want)
	}
	wantEnteredNotice(t, d)
	src := d.Messages[0].Source
	if src == nil || *src != (host.Source{Kind: host.SourcePlugin, Plugin: planmode.PluginName, Form: planmode.NoticeForm}) {
		t.Fatalf("notice source = %+v", src)
	}
	wantHeader(t, a, planmode.HeaderActive)
}

func TestNoticeComesBeforeTheStepsMessages(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)
	set(t, c, a, true)
	must(a.Inject(host.Message{Content: []host.Block{host.TextBlock("go on")}}))

	d := h.runStep(a, accepted)
	if len(d.Messages) != 2 || d.Messages[0].Source == nil || d.Messages[1].Content[0].Text != "go on" {
		t.Fatalf("decision messages = %+v, want the notice then the user's message", d.Messages)
	}
}

func TestSetOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		open     bool   // a turn is open during the Sets
		give     []bool // Set calls in order
		want     []planmode.Outcome
		wantLast planmode.State
	}{
		{
			name:     "setting the logged state between turns is a noop",
			give:     []bool{false},
			want:     []planmode.Outcome{planmode.Noop},
			wantLast: planmode.State{},
		},
		{
			name:     "setting the logged state in a turn is a noop",
			open:     true,
			give:     []bool{false},
			want:     []planmode.Outcome{planmode.Noop},
			wantLast: planmode.State{},
		},
		{
			name:     "setting the pending selection again is a noop",
			open:     true,
			give:     []bool{true, true},
			want:     []planmode.Outcome{planmode.Queued, planmode.Noop},
			wantLast: planmode.State{Pending: planmode.SelectionActive},
		},
		{
			name:     "the opposite of a pending selection cancels it",
			open:     true,
			give:     []bool{true, false},
			want:     []planmode.Outcome{planmode.Queued, planmode.Cancelled},
			wantLast: planmode.State{},
		},
		{
			name:     "a flip sequence nets out",
			open:     true,
			give:     []bool{true, false, true, false, true, false},
			want:     []planmode.Outcome{planmode.Queued, planmode.Cancelled, planmode.Queued, planmode.Cancelled, planmode.Queued, planmode.Cancelled},
			wantLast: planmode.State{},
		},
		{
			name:     "commits between turns alternate",
			give:     []bool{true, false, true},
			want:     []planmode.Outcome{planmode.Committed, planmode.Committed, planmode.Committed},
			wantLast: planmode.State{Active: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, a := startAgent(t)
			if tt.open {
				must(a.StartTurn())
			}
			var got []planmode.Outcome
			for _, v := range tt.give {
				got = append(got, set(t, c, a, v))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("outcomes = %v, want %v", got, tt.want)
			}
			wantState(t, c, a, tt.wantLast)
		})
	}
}

func TestFlipSequenceLogsNothing(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)
	from := a.Session().Len()
	for _, v := range []bool{true, false, true, false} {
		set(t, c, a, v)
	}
	d := h.runStep(a, accepted)
	if got := modes(t, a.Session(), from); len(got) != 0 {
		t.Fatalf("plan/mode events = %v, want none", got)
	}
	if len(d.Messages) != 0 || len(notices(t, a.Session(), from)) != 0 {
		t.Fatal("a flip sequence recorded a notice")
	}
}

func TestRejectedAndCancelledStepsLeaveSelectionPending(t *testing.T) {
	for _, v := range []verdict{rejected, cancelled} {
		name := map[verdict]string{rejected: "a rejected step", cancelled: "a cancelled step"}[v]
		t.Run(name+" appends nothing", func(t *testing.T) {
			h, c, a := startAgent(t)
			must(a.StartTurn())
			set(t, c, a, true)
			from := a.Session().Len()
			h.runStep(a, v)
			if got := a.Session().Len(); got != from {
				t.Fatalf("log grew by %v", logTypes(a.Session(), from))
			}
			wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
			h.runStep(a, accepted)
			wantState(t, c, a, planmode.State{Active: true})
		})
	}
}

func TestRetryPicksUpSelectionMadeAtErrorSettlement(t *testing.T) {
	h, c, a := startAgent(t)
	must(a.StartTurn())
	h.runStep(a, accepted) // the request of this step fails...
	set(t, c, a, true)     // ...and the user selects plan mode while it settles
	from := a.Session().Len()
	h.runAttempt(a, accepted, true) // the retry passes through pre-step
	if got := modes(t, a.Session(), from); !slices.Equal(got, []bool{true}) {
		t.Fatalf("plan/mode events at the retry = %v, want [true]", got)
	}
	if got := h.render(a); !slices.Contains(got, planmode.SectionName) {
		t.Fatalf("retry sections = %v, want %s", got, planmode.SectionName)
	}
}

func TestAppendFailureIsContainedThenConverges(t *testing.T) {
	h := newFakeHost()
	warns := &warnCounter{}
	c := h.start(t, slog.New(warns))
	a := h.newAgent(t)
	openTurnAfterHeader(h, a)
	set(t, c, a, true)

	restore := rejectModes(t, h)
	for range 3 {
		d := h.runStep(a, accepted)
		if !d.Accepted {
			t.Fatal("an append failure failed the step")
		}
		wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	}
	if got := warns.count(); got != 1 {
		t.Fatalf("warnings = %d, want 1 for the one pending selection", got)
	}
	// A new selection that also fails is warned about once more.
	set(t, c, a, false)
	set(t, c, a, true)
	h.runStep(a, accepted)
	h.runStep(a, accepted)
	if got := warns.count(); got != 2 {
		t.Fatalf("warnings = %d, want 2", got)
	}

	restore()
	d := h.runStep(a, accepted)
	wantState(t, c, a, planmode.State{Active: true})
	wantEnteredNotice(t, d)
}

func TestCommitAppendFailureReturnsErrorAndChangesNothing(t *testing.T) {
	h, c, a := startAgent(t)
	restore := rejectModes(t, h)
	defer restore()

	from := a.Session().Len()
	got, err := c.Set(a, true)
	if !errors.Is(err, errAppendRefused) || got != 0 {
		t.Fatalf("Set = %v, %v; want the append error", got, err)
	}
	wantState(t, c, a, planmode.State{})
	if a.Session().Len() != from {
		t.Fatalf("log grew by %v", logTypes(a.Session(), from))
	}
}

func TestApprovedExitRecordsNoNotice(t *testing.T) {
	h, c, a := startAgent(t)
	set(t, c, a, true)
	withHeader(h, a) // plan mode described
	must(a.StartTurn())
	h.runStep(a, accepted)

	if err := planmode.QueueExit(c, a); err != nil {
		t.Fatal(err)
	}
	wantState(t, c, a, planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true})
	if got := h.render(a); !slices.Contains(got, planmode.SectionName) {
		t.Fatal("the approved exit removed the guidance before the next step")
	}
	// The host logs the approved result before the next step.
	must(appendJSON(a.Session(), host.TypeToolResult, nil, host.ToolResult{CallID: "x1", Name: planmode.ExitToolName, Output: planmode.ExitResult}))
	from := a.Session().Len()
	d := h.runStep(a, accepted)
	wantState(t, c, a, planmode.State{})
	if got := modes(t, a.Session(), from); !slices.Equal(got, []bool{false}) {
		t.Fatalf("plan/mode events = %v, want [false]", got)
	}
	if len(d.Messages) != 0 || len(notices(t, a.Session(), 0)) != 0 {
		t.Fatalf("the approved exit recorded a notice: %+v", d.Messages)
	}
}

func TestSetUserSelectionReplacesApprovedExit(t *testing.T) {
	_, c, a := startAgent(t)
	set(t, c, a, true)
	must(a.StartTurn())
	if err := planmode.QueueExit(c, a); err != nil {
		t.Fatal(err)
	}
	if got := set(t, c, a, true); got != planmode.Cancelled {
		t.Fatalf("Set(true) over a pending exit = %v, want cancelled", got)
	}
	wantState(t, c, a, planmode.State{Active: true})
}

func TestSectionRendersPolicyVerbatimOnlyWhileActive(t *testing.T) {
	h, c, a := startAgent(t)
	text := func(agent host.Agent) string {
		t.Helper()
		for _, s := range h.Sections() {
			if s.Name == planmode.SectionName {
				if s.Order != planmode.SectionOrder {
					t.Fatalf("order = %d, want %d", s.Order, planmode.SectionOrder)
				}
				return s.Text(host.AssembleContext{Agent: agent})
			}
		}
		t.Fatal("section not registered")
		return ""
	}
	if got := text(a); got != "" {
		t.Fatalf("inactive text = %q, want empty", got)
	}
	set(t, c, a, true)
	if got := text(a); got != policy {
		t.Fatalf("active text = %q, want the configured text verbatim", got)
	}
	if got := text(nil); got != "" {
		t.Fatalf("agent-less text = %q, want empty", got)
	}
	must(a.StartTurn())
	set(t, c, a, false) // queued: the logged state still rules
	if got := text(a); got != policy {
		t.Fatalf("text with a pending exit = %q, want the policy", got)
	}
}

func TestForkInheritsLoggedState(t *testing.T) {
	h, c, a := startAgent(t)
	set(t, c, a, true)
	mark := a.Session().Len()
	set(t, c, a, false)

	atActive, err := a.Session().Fork(mark)
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, c, agentOn(atActive), planmode.State{Active: true})
	atEnd, err := a.Session().Fork(a.Session().Len())
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, c, agentOn(atEnd), planmode.State{})
	fresh := h.newAgent(t)
	wantState(t, c, fresh, planmode.State{})
}

func TestReopenAndRestartRestoreState(t *testing.T) {
	h, c, a := startAgent(t)
	set(t, c, a, true)
	c2 := h.restart(t, c)
	sess, err := h.store.Open(a.Session().ID())
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, c2, agentOn(sess), planmode.State{Active: true})
}

func TestCompactionKeepsState(t *testing.T) {
	h, c, a := startAgent(t)
	set(t, c, a, true)
	withHeader(h, a)
	must(appendJSON(a.Session(), host.TypeCompactionSummary, nil, host.CompactionSummary{Summary: "earlier work"}))
	withHeader(h, a)
	wantState(t, c, a, planmode.State{Active: true})
	if !planmode.FoldPlanMode(a.Session().Events(), a.Session().Len()) {
		t.Fatal("the fold lost the state after compaction")
	}
}

func TestRestartSeedsPendingFromCompletedPlanCommand(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)
	// "/plan" runs while the turn is open: the selection is queued and the
	// command completes, then the process dies before the next step.
	must(appendJSON(a.Session(), host.TypeCommandRun, nil, host.CommandRun{ID: "r1", Name: planmode.CommandName}))
	set(t, c, a, true)
	must(appendJSON(a.Session(), host.TypeCommandDone, nil, host.CommandDone{ID: "r1", OK: true}))
	c2 := h.restart(t, c)
	wantState(t, c2, a, planmode.State{Pending: planmode.SelectionActive})
	d := h.runStep(a, accepted)
	wantState(t, c2, a, planmode.State{Active: true})
	wantEnteredNotice(t, d)
}

func TestStopDropsSetPendingButNotPlanCommand(t *testing.T) {
	h, c, a := startAgent(t)
	must(a.StartTurn())
	set(t, c, a, true) // a direct Set leaves no trace in the log
	c2 := h.restart(t, c)
	wantState(t, c2, a, planmode.State{})
}

// planRun plays "/plan args" as a host runs it: command/run, the handler
// and, unless open, command/done. It returns a func that logs the
// completion of an open run.
func planRun(t *testing.T, h *fakeHost, a *fakeAgent, id, args string, open bool) (complete func()) {
	t.Helper()
	must(appendJSON(a.Session(), host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: planmode.CommandName, Args: args}))
	if _, err := runPlan(t, h, a, args); err != nil {
		t.Fatalf("/plan %s: %v", args, err)
	}
	complete = func() { must(appendJSON(a.Session(), host.TypeCommandDone, nil, host.CommandDone{ID: id, OK: true})) }
	if !open {
		complete()
		complete = func() {}
	}
	return complete
}

// cancels returns the plan/cancel events of the log from index from.
func cancels(t *testing.T, s host.Session, from int) []planmode.CancelPayload {
	t.Helper()
	return payloads[planmode.CancelPayload](t, s, planmode.EventPlanCancel, from)
}

func TestCancelIsLoggedOnlyForSelectionsTheLogRecords(t *testing.T) {
	cancelled := func(sel planmode.Selection) []planmode.CancelPayload {
		return []planmode.CancelPayload{{Cancelled: sel.String()}}
	}
	tests := []struct {
		name string
		// setup leaves a pending selection opposite to active and returns
		// what completes a command still running (or nil).
		setup  func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func()
		active bool // the cancelling Set
		want   []planmode.CancelPayload
	}{
		{
			name: "a queued Set lives in memory: nothing is logged",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				must(a.StartTurn())
				set(t, c, a, true)
				return nil
			},
		},
		{
			name: "a completed /plan is withdrawn by a marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				must(a.StartTurn())
				return planRun(t, h, a, "r1", "", false)
			},
			want: cancelled(planmode.SelectionActive),
		},
		{
			name: "a /plan still running is withdrawn by a marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				must(a.StartTurn())
				return planRun(t, h, a, "r1", "look at the cache", true)
			},
			want: cancelled(planmode.SelectionActive),
		},
		{
			name: "a completed /plan off is withdrawn by a marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				set(t, c, a, true)
				must(a.StartTurn())
				return planRun(t, h, a, "r1", "off", false)
			},
			active: true,
			want:   cancelled(planmode.SelectionInactive),
		},
		{
			name: "an approved exit is withdrawn by a marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				set(t, c, a, true)
				must(a.StartTurn())
				if err := planmode.QueueExit(c, a); err != nil {
					t.Fatal(err)
				}
				must(appendJSON(a.Session(), host.TypeToolResult, nil, host.ToolResult{CallID: "x1", Name: planmode.ExitToolName, Output: planmode.ExitResult}))
				return nil
			},
			active: true,
			want:   cancelled(planmode.SelectionInactive),
		},
		{
			name: "a queued Set that a running /plan repeated is withdrawn by a marker",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				must(a.StartTurn())
				set(t, c, a, true)
				return planRun(t, h, a, "r1", "", true)
			},
			want: cancelled(planmode.SelectionActive),
		},
		{
			name: "a later /plan queued after a marker is recorded again",
			setup: func(t *testing.T, h *fakeHost, c *planmode.Controller, a *fakeAgent) func() {
				must(a.StartTurn())
				planRun(t, h, a, "r1", "", false)
				set(t, c, a, false)
				return planRun(t, h, a, "r2", "", false)
			},
			want: append(cancelled(planmode.SelectionActive), cancelled(planmode.SelectionActive)...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			complete := tt.setup(t, h, c, a)
			if got := set(t, c, a, tt.active); got != planmode.Cancelled {
				t.Fatalf("Set(%v) = %v, want cancelled", tt.active, got)
			}
			if complete != nil {
				complete()
			}
			if got := cancels(t, a.Session(), 0); !slices.Equal(got, tt.want) {
				t.Fatalf("plan/cancel events = %+v, want %+v", got, tt.want)
			}
			want := planmode.State{Active: tt.active}
			wantState(t, c, a, want)
			if p := planmode.Project(a.Session().Events()); p != (planmode.State{Active: tt.active}) {
				t.Fatalf("Project = %+v, want the logged state with nothing pending", p)
			}
			if len(modes(t, a.Session(), 0)) != map[bool]int{false: 0, true: 1}[tt.active] {
				t.Fatalf("plan/mode events = %v: the cancel changed the logged state", modes(t, a.Session(), 0))
			}
			c2 := h.restart(t, c)
			wantState(t, c2, agentOn(a.Session()), want)
			h.runStep(agentOn(a.Session()), accepted)
			wantState(t, c2, a, want)
		})
	}
}

func TestCancelMarkerAppendFailureReturnsErrorAndChangesNothing(t *testing.T) {
	h, c, a := startAgent(t)
	must(a.StartTurn())
	planRun(t, h, a, "r1", "", false)
	restore := rejectType(t, h, planmode.EventPlanCancel)
	from := a.Session().Len()
	got, err := c.Set(a, false)
	if !errors.Is(err, errAppendRefused) || got != 0 || !strings.Contains(err.Error(), planmode.EventPlanCancel) {
		t.Fatalf("Set = %v, %v; want the plan/cancel append error", got, err)
	}
	if a.Session().Len() != from {
		t.Fatalf("log grew by %v", logTypes(a.Session(), from))
	}
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	restore()
	if got := set(t, c, a, false); got != planmode.Cancelled {
		t.Fatalf("Set after the store recovered = %v, want cancelled", got)
	}
	wantState(t, c, a, planmode.State{})
}

func TestSetFailsWithoutAgentOrWhenStopped(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	if _, err := c.Set(nil, true); !errors.Is(err, planmode.ErrNoAgent) {
		t.Fatalf("Set(nil) error = %v, want ErrNoAgent", err)
	}
	if got := c.Get(nil); got != (planmode.State{}) {
		t.Fatalf("Get(nil) = %+v", got)
	}
	a := h.newAgent(t)
	set(t, c, a, true)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(a, false); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("Set after Stop error = %v, want ErrNotRunning", err)
	}
	wantState(t, c, a, planmode.State{Active: true}) // folded from the log
}

func TestConcurrentSetAndGetWhileTurnsRun(t *testing.T) {
	h, c, a := startAgent(t)
	withHeader(h, a)

	stop := make(chan struct{})
	var loop sync.WaitGroup
	loop.Add(1)
	go func() { // the agent loop: turns of three steps each
		defer loop.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			must(a.StartTurn())
			for range 3 {
				h.runStep(a, accepted)
			}
			must(a.EndTurn())
		}
	}()
	var setters sync.WaitGroup
	for g := range 4 {
		setters.Add(1)
		go func() {
			defer setters.Done()
			for i := range 200 {
				if _, err := c.Set(a, (i+g)%2 == 0); err != nil {
					t.Error(err)
					return
				}
				if st := c.Get(a); st.Pending != planmode.SelectionNone && (st.Pending == planmode.SelectionActive) == st.Active {
					t.Errorf("Get = %+v: the pending selection equals the logged state", st)
				}
			}
		}()
	}
	setters.Wait()
	close(stop)
	loop.Wait()

	// Whatever is still pending lands at the next accepted step; afterwards
	// the logged state is the target of the last Set, and every landed
	// selection changed the state (none was applied twice).
	final := c.Get(a)
	target := final.Active
	if final.Pending != planmode.SelectionNone {
		target = final.Pending == planmode.SelectionActive
	}
	must(a.StartTurn())
	h.runStep(a, accepted)
	must(a.EndTurn())
	if got := c.Get(a); got != (planmode.State{Active: target}) {
		t.Fatalf("after the last step Get = %+v, want active=%v with nothing pending", got, target)
	}
	ms := modes(t, a.Session(), 0)
	for i := 1; i < len(ms); i++ {
		if ms[i] == ms[i-1] {
			t.Fatalf("plan/mode %d repeats the state %v: a selection was applied twice", i, ms[i])
		}
	}
	if len(ms) > 0 && ms[len(ms)-1] != target {
		t.Fatalf("last plan/mode = %v, want %v", ms[len(ms)-1], target)
	}
}

func TestGetInsideSubscriberOfUnseenSessionDoesNotDeadlock(t *testing.T) {
	_, c, a := startAgent(t)
	var seen []planmode.State
	unsubscribe := a.Session().Subscribe(0, func(host.Event) { seen = append(seen, c.Get(a)) })
	defer unsubscribe()

	done := make(chan struct{})
	go func() {
		defer close(done)
		must(appendJSON(a.Session(), host.TypeSessionCreated, nil, host.SessionCreated{}))
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Get inside a subscriber deadlocked")
	}
	if len(seen) != 1 || seen[0] != (planmode.State{}) {
		t.Fatalf("states seen = %+v", seen)
	}
	// Served sessions answer from kept state, also inside a subscriber.
	set(t, c, a, true)
	if got := seen[len(seen)-1]; got != (planmode.State{Active: true}) {
		t.Fatalf("subscriber saw %+v after the commit, want active", got)
	}
}

func TestStateIsKeptPerSession(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	agents := []*fakeAgent{h.newAgent(t), h.newAgent(t), h.newAgent(t)}
	must(agents[1].StartTurn())
	set(t, c, agents[0], true) // committed
	set(t, c, agents[1], true) // queued
	want := []planmode.State{{Active: true}, {Pending: planmode.SelectionActive}, {}}
	for range 3 { // alternate so that no lookup is answered by the last one
		for i, a := range agents {
			wantState(t, c, a, want[i])
		}
		for i := len(agents) - 1; i >= 0; i-- {
			wantState(t, c, agents[i], want[i])
		}
	}
}
