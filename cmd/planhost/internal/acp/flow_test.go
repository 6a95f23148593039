package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

const testPlan = "# Add Goodbye\n\n1. Add `Goodbye` to greeter.go.\n2. Test it."

func call(id, name string, input any) host.ToolCall {
	b, _ := json.Marshal(input)
	return host.ToolCall{ID: id, Name: name, Input: b}
}

// planSteps is a model that explores, presents testPlan and, once the
// call returns, carries on with the given steps.
func planSteps(after ...scripted.Step) *scripted.Model {
	steps := []scripted.Step{
		{Text: "Let me look.", ToolCalls: []host.ToolCall{
			call("c1", "read_file", map[string]string{"path": "greeter.go"}),
			call("c2", "search", map[string]string{"pattern": "Hello", "path": "."}),
		}},
		{Text: "Here is my plan.", ToolCalls: []host.ToolCall{call("c3", "exit_plan_mode", map[string]string{"plan": testPlan})}},
	}
	return scripted.NewModel(append(steps, after...)...)
}

func TestPlanReviewApproveLeavesPlanModeAndWorks(t *testing.T) {
	model := planSteps(
		scripted.Step{Text: "Approved; writing.", ToolCalls: []host.ToolCall{
			call("c4", "write_file", map[string]string{"path": "greeter.go", "content": "package greeter\n"}),
		}},
		scripted.Step{Text: "Done."},
	)
	k := connect(t, newHostParts(t, newStore(t), model))
	k.c.setAnswer(approve)
	init := k.initialize()
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image {
		t.Errorf("capabilities = %+v, want loadSession and image prompts", init.AgentCapabilities)
	}
	dir := workspaceDir(t)
	sess := k.newSession(dir)
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" || len(sess.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new modes = %+v, want default of [default plan]", sess.Modes)
	}
	if len(sess.ConfigOptions) != 1 || sess.ConfigOptions[0].Select == nil || sess.ConfigOptions[0].Select.CurrentValue != "default" {
		t.Errorf("session/new config options = %+v, want mode=default", sess.ConfigOptions)
	}
	k.setMode(sess.SessionId, "plan")
	k.c.waitUpdates(t, "current_mode_update plan", func(us []sdk.SessionNotification) bool {
		return slices.Equal(modeUpdates(us), []string{"plan"})
	})
	resp, err := k.prompt(sess.SessionId, "Add a Goodbye function.")
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason = %s, want end_turn", resp.StopReason)
	}
	us, asks := k.c.snapshot()
	if got := modeUpdates(us); !slices.Equal(got, []string{"plan", "default"}) {
		t.Errorf("mode updates = %v, want [plan default]", got)
	}
	if len(asks) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(asks))
	}
	ask := asks[0]
	if ask.ToolCall.ToolCallId != "c3" {
		t.Errorf("permission asked on tool call %q, want the exit_plan_mode call c3", ask.ToolCall.ToolCallId)
	}
	if !contentHas(ask.ToolCall.Content, "# Add Goodbye") {
		t.Errorf("permission request content does not hold the plan: %+v", ask.ToolCall.Content)
	}
	var kinds []string
	for _, o := range ask.Options {
		kinds = append(kinds, o.Name+"="+string(o.Kind))
	}
	w := &present.English.Review
	if want := []string{
		optionName(w.Options[host.RoleApprove]) + "=allow_once",
		keepPlanningName + "=reject_once",
		optionName(w.Dismiss) + "=reject_once",
	}; !slices.Equal(kinds, want) {
		t.Errorf("options = %v, want %v", kinds, want)
	}
	calls := map[string]*sdk.SessionUpdateToolCall{}
	results := map[string]*sdk.SessionToolCallUpdate{}
	for _, u := range us {
		if c := u.Update.ToolCall; c != nil {
			calls[string(c.ToolCallId)] = c
		}
		if r := u.Update.ToolCallUpdate; r != nil && r.Status != nil {
			results[string(r.ToolCallId)] = r
		}
	}
	for id, want := range map[string]sdk.ToolKind{"c1": "read", "c2": "search", "c3": "switch_mode", "c4": "edit"} {
		c, ok := calls[id]
		switch {
		case !ok:
			t.Errorf("no tool_call for %s", id)
		case c.Kind != want:
			t.Errorf("tool_call %s kind = %s, want %s", id, c.Kind, want)
		case results[id] == nil || *results[id].Status != sdk.ToolCallStatusCompleted:
			t.Errorf("tool_call %s did not complete: %+v", id, results[id])
		}
	}
	if c := calls["c1"]; c != nil && (len(c.Locations) != 1 || c.Locations[0].Path != filepath.Join(dir, "greeter.go")) {
		t.Errorf("read_file locations = %+v, want %s", c.Locations, filepath.Join(dir, "greeter.go"))
	}
	if c := calls["c4"]; c != nil {
		if len(c.Content) != 1 || c.Content[0].Diff == nil || c.Content[0].Diff.OldText == nil || !strings.Contains(*c.Content[0].Diff.OldText, "Hello") {
			t.Errorf("write_file content = %+v, want a diff from the old file", c.Content)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "greeter.go")); string(got) != "package greeter\n" {
		t.Errorf("greeter.go = %q, want the approved change written", got)
	}
	if text := agentText(us); !strings.Contains(text, "Here is my plan.") || !strings.Contains(text, "Done.") {
		t.Errorf("agent messages = %q", text)
	}
	// The mode update back to default comes after the review was
	// answered and before the write.
	order := describeUpdates(us)
	if i, j := strings.Index(order, "current_mode_update(default)"), strings.Index(order, "tool_call(edit)"); i < 0 || j < i {
		t.Errorf("update order %s: want the switch to default before the edit", order)
	}
	k.close()
	if n := checkTraffic(t, goSDKSchema(t), k.fromSide.all(), k.toSide.all()); n < 10 {
		t.Errorf("checked %d messages against the schema, want the whole exchange", n)
	}
}

func contentHas(content []sdk.ToolCallContent, s string) bool {
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, s) {
			return true
		}
	}
	return false
}

func TestPlanReviewKeepPlanningStaysInPlanModeAndTakesFeedbackAsNextPrompt(t *testing.T) {
	model := planSteps(
		scripted.Step{Text: "What should I change?"},
		scripted.Step{Text: "Revised.", ToolCalls: []host.ToolCall{call("c5", "exit_plan_mode", map[string]string{"plan": testPlan + "\n3. Update the README."})}},
		scripted.Step{Text: "Approved."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	s.planMode(keepPlanning)
	s.mustPrompt("Add a Goodbye function.")
	us, _ := s.c.snapshot()
	if got := exitStatus(us, "c3"); got != sdk.ToolCallStatusFailed {
		t.Fatalf("exit_plan_mode result = %q, want failed (keep planning)", got)
	}
	if got := modeUpdates(us); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("mode updates = %v, want only [plan]: keep planning stays in plan mode", got)
	}
	// The feedback is the next prompt; this time the plan is approved.
	s.c.setAnswer(approve)
	s.mustPrompt("Also update the README.")
	reqs := model.Requests()
	last := reqs[len(reqs)-2] // the request that produced the revised plan
	if !transcriptHas(last, "Also update the README.") {
		t.Errorf("the model did not get the feedback prompt")
	}
	if got := modeUpdates(mustSnapshot(s.conn)); !slices.Equal(got, []string{"plan", "default"}) {
		t.Errorf("mode updates = %v, want [plan default] after the second review", got)
	}
}

func transcriptHas(req refhost.Request, s string) bool {
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if strings.Contains(b.Text, s) {
				return true
			}
		}
	}
	return false
}

func TestPlanReviewCancelledRequestIsADismissal(t *testing.T) {
	model := planSteps(scripted.Step{Text: "Waiting for you."})
	s := openSession(t, newHostParts(t, newStore(t), model))
	// No answer func: the client answers every request "cancelled".
	s.planMode(nil)
	s.mustPrompt("Plan it.")
	reqs := model.Requests()
	msgs := reqs[len(reqs)-1].Messages
	result := msgs[len(msgs)-1]
	if result.Role != refhost.RoleTool || !result.IsError || !strings.Contains(strings.ToLower(result.Text), "dismiss") {
		t.Errorf("exit_plan_mode result = %+v, want the dismissal error", result)
	}
	if got := modeUpdates(mustSnapshot(s.conn)); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("mode updates = %v, want [plan]", got)
	}
}

// blockedTurn opens a session whose model blocks in its first request and
// answers next to the one after, and prompts it with text; it returns
// once the model request runs.
func blockedTurn(t *testing.T, text, next string) (*testSession, <-chan promptResult) {
	t.Helper()
	model := scripted.NewModel(scripted.Step{Block: true}, scripted.Step{Text: next})
	s := openSession(t, newHostParts(t, newStore(t), model))
	done := s.startPrompt(text)
	if err := model.WaitCalls(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	return s, done
}

func TestCancelMidTurnEndsThePromptCancelled(t *testing.T) {
	s, done := blockedTurn(t, "Do something slow.", "After.")
	s.cancel()
	if r := <-done; r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %v, %v; want cancelled", r.resp.StopReason, r.err)
	}
	// The session goes on.
	s.mustPrompt("Again.")
}

func TestModeChangeMidTurnIsSentWhenLogged(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	model := scripted.NewModel(
		held(entered, release, refhost.Response{Text: "Reading.", ToolCalls: []host.ToolCall{call("r1", "read_file", map[string]string{"path": "greeter.go"})}}),
		scripted.Step{Text: "Done."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	done := s.startPrompt("Go.")
	<-entered
	s.setMode(s.id, "plan")
	if us, _ := s.c.snapshot(); len(modeUpdates(us)) != 0 {
		t.Fatalf("mode update sent while the turn is open: %v; want it when the next step logs it", modeUpdates(us))
	}
	close(release)
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	us, _ := s.c.snapshot()
	order := describeUpdates(us)
	if i, j := strings.Index(order, "tool_call(read)"), strings.Index(order, "current_mode_update(plan)"); i < 0 || j < i {
		t.Errorf("updates %s: want the plan mode update after the tool call, at the next step", order)
	}
	// At idle the change is logged at once.
	s.setMode(s.id, "default")
	s.c.waitUpdates(t, "current_mode_update default", func(us []sdk.SessionNotification) bool {
		return slices.Equal(modeUpdates(us), []string{"plan", "default"})
	})
}

// held is a model step that signals entered, then answers with resp once
// release is closed (or fails when its turn is cancelled).
func held(entered, release chan struct{}, resp refhost.Response) scripted.Step {
	return scripted.Step{Respond: func(ctx context.Context, _ refhost.Request) (refhost.Response, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return refhost.Response{}, ctx.Err()
		}
		return resp, nil
	}}
}

func TestCancelDuringThePlanReviewAbortsIt(t *testing.T) {
	model := planSteps(scripted.Step{Text: "unused"})
	s := openSession(t, newHostParts(t, newStore(t), model))
	asked := make(chan struct{})
	// The client holds the request until the agent withdraws it
	// ($/cancel_request cancels the handler's context).
	s.planMode(func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-ctx.Done()
		return cancelled, nil
	})
	done := s.startPrompt("Plan it.")
	<-asked
	s.cancel()
	if r := <-done; r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("prompt = %v, %v; want cancelled", r.resp.StopReason, r.err)
	}
	if got := modeUpdates(mustSnapshot(s.conn)); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("mode updates = %v, want [plan]: a cancelled review approves nothing", got)
	}
	if s.h.plan.Get(asker{s.open()}).Active != true {
		t.Error("plan mode was left without approval")
	}
}

func TestANewPromptCancelsTheRunningOneAndRunsAfterIt(t *testing.T) {
	s, first := blockedTurn(t, "First.", "Second answer.")
	s.mustPrompt("Second.")
	if r := <-first; r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("first prompt = %v, %v; want cancelled", r.resp.StopReason, r.err)
	}
	if !strings.Contains(agentText(mustSnapshot(s.conn)), "Second answer.") {
		t.Errorf("no answer to the second prompt")
	}
}

func TestLoadingAnOpenSessionReplaysItAgain(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel(scripted.Step{Text: "Hi there."})))
	s.mustPrompt("Hello.")
	before := len(mustSnapshot(s.conn))
	s.load(s.id, s.dir)
	var users []string
	for _, u := range mustSnapshot(s.conn)[before:] {
		if m := u.Update.UserMessageChunk; m != nil {
			users = append(users, m.Content.Text.Text)
		}
	}
	if !slices.Equal(users, []string{"Hello."}) {
		t.Errorf("replayed user messages = %q", users)
	}
}

func TestStopReasonsFollowTheTurnsEnd(t *testing.T) {
	loop := scripted.Step{Text: "Again.", ToolCalls: []host.ToolCall{call("", "read_file", map[string]string{"path": "greeter.go"})}}
	tests := []struct {
		name    string
		steps   []scripted.Step
		opts    []fx.Option
		want    sdk.StopReason
		wantErr string
	}{
		{"completed", []scripted.Step{{Text: "Done."}}, nil, sdk.StopReasonEndTurn, ""},
		{"step limit", []scripted.Step{loop, loop, loop}, []fx.Option{fx.Supply(&refhost.Settings{MaxSteps: 2})}, sdk.StopReasonMaxTurnRequests, ""},
		{"blocked by a pre-step listener", nil, []fx.Option{fx.Invoke(func(chain host.PreStepChain) {
			_, _ = chain.AddPreStep("test-gate", func(context.Context, host.Step, host.PreStepNext) host.Decision {
				return host.Reject("the gate is closed")
			}, true)
		})}, sdk.StopReasonRefusal, ""},
		{"model failed", []scripted.Step{{Err: errors.New("the model is down")}}, nil, "", "the model is down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel(tt.steps...), tt.opts...))
			resp, err := s.prompt(s.id, "Go.")
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("prompt = %v, %v; want an error naming %q", resp.StopReason, err, tt.wantErr)
				}
			case err != nil || resp.StopReason != tt.want:
				t.Errorf("prompt = %v, %v; want %s", resp.StopReason, err, tt.want)
			}
		})
	}
}

// TestStopReasonReadsTheLoggedReason: the prompt's stop reason follows the
// logged turn end's reason, never its error text; a log written before
// the reason steps-exhausted existed still ends at the step limit.
func TestStopReasonReadsTheLoggedReason(t *testing.T) {
	exhausted := refhost.ErrStepsExhausted.Error() + " (3)"
	tests := []struct {
		name    string
		give    host.TurnEnd
		want    sdk.StopReason
		wantErr bool
	}{
		{"the step limit", host.TurnEnd{Turn: 1, Reason: host.TurnStepsExhausted, Error: exhausted}, sdk.StopReasonMaxTurnRequests, false},
		{"the step limit with no text", host.TurnEnd{Turn: 1, Reason: host.TurnStepsExhausted}, sdk.StopReasonMaxTurnRequests, false},
		{"the step limit in an old log", host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: exhausted}, sdk.StopReasonMaxTurnRequests, false},
		{"a model error quoting the step limit", host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: "provider said: " + exhausted}, "", true},
		{"a model error ending in the step limit's words", host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: exhausted + ": tool loop"}, "", true},
		{"a model error", host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: "down"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.give)
			if err != nil {
				t.Fatal(err)
			}
			log := host.LogOf([]host.Event{{Type: host.TypeTurnStart}, {Type: host.TypeTurnEnd, Data: data}})
			resp, err := acp.StopReason(log, 0)
			if (err != nil) != tt.wantErr || resp.StopReason != tt.want {
				t.Errorf("stop reason = %q, %v; want %q (error %v)", resp.StopReason, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestModeChangeAfterTheLastStepIsSentWhenTheTurnEnds sets the mode while
// the turn's last model request runs: no step follows to log it, so it is
// logged when the turn ends and its current_mode_update reaches the client
// before the prompt's response.
func TestModeChangeAfterTheLastStepIsSentWhenTheTurnEnds(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	model := scripted.NewModel(held(entered, release, refhost.Response{Text: "Done."}), scripted.Step{Text: "Planning now."})
	s := openSession(t, newHostParts(t, newStore(t), model))
	done := s.startPrompt("Go.")
	<-entered
	s.setMode(s.id, "plan")
	close(release)
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	if st := s.h.plan.Get(asker{s.open()}); !st.Active || st.Pending != 0 {
		t.Errorf("state after the turn = %+v, want plan mode logged", st)
	}
	// On the wire: the update, then the prompt's response (the recorder
	// has every line once the connection is closed).
	s.close()
	update, response := -1, -1
	for i, l := range s.fromSide.all() {
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Result *struct {
				StopReason string `json:"stopReason"`
			} `json:"result"`
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					CurrentModeID string `json:"currentModeId"`
				} `json:"update"`
			} `json:"params"`
		}
		_ = json.Unmarshal(l, &m)
		switch {
		case m.Params.Update.SessionUpdate == "current_mode_update" && m.Params.Update.CurrentModeID == "plan" && update < 0:
			update = i
		case m.ID != nil && m.Result != nil && m.Result.StopReason != "" && response < 0:
			response = i
		}
	}
	if update < 0 || response < 0 || update > response {
		t.Errorf("current_mode_update(plan) at line %d, prompt response at line %d: want the update before the response", update, response)
	}
}
