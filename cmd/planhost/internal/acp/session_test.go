package acp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestAvailableCommandsAdvertisePlanAndSlashPromptsRunThem(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel(scripted.Step{Text: "Planning now."})))
	s.c.waitUpdates(t, "available_commands_update", func(us []sdk.SessionNotification) bool {
		for _, u := range us {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for _, c := range a.AvailableCommands {
					if c.Name == planmode.CommandName && c.Input != nil && c.Input.Unstructured != nil && c.Input.Unstructured.Hint == "[off|reopen [N]|message]" {
						return true
					}
				}
			}
		}
		return false
	})
	tests := []struct {
		prompt    string
		wantModes []string
		wantText  string
	}{
		{"/plan", []string{"plan"}, "plan mode"},
		{"/nope", []string{"plan"}, "Unknown command /nope"},
		{"/plan off", []string{"plan", "default"}, ""},
		{"/plan sketch the change", []string{"plan", "default", "plan"}, "Planning now."},
	}
	for _, tt := range tests {
		s.mustPrompt(tt.prompt)
		us, _ := s.c.snapshot()
		if got := modeUpdates(us); !slices.Equal(got, tt.wantModes) {
			t.Errorf("%s: mode updates = %v, want %v", tt.prompt, got, tt.wantModes)
		}
		if !strings.Contains(strings.ToLower(agentText(us)), strings.ToLower(tt.wantText)) {
			t.Errorf("%s: agent text %q does not contain %q", tt.prompt, agentText(us), tt.wantText)
		}
	}
}

func TestModeConfigOptionSetsTheMode(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()))
	k, sess := s.conn, s.id
	resp, err := k.cs.SetSessionConfigOption(ctxT(t), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sess, ConfigId: acp.ConfigMode, Value: acp.ModePlan,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ConfigOptions) != 1 || resp.ConfigOptions[0].Select.CurrentValue != acp.ModePlan {
		t.Errorf("config options = %+v, want mode=plan", resp.ConfigOptions)
	}
	k.c.waitUpdates(t, "config_option_update and current_mode_update", func(us []sdk.SessionNotification) bool {
		for _, u := range us {
			if c := u.Update.ConfigOptionUpdate; c != nil && c.ConfigOptions[0].Select.CurrentValue == acp.ModePlan {
				return slices.Equal(modeUpdates(us), []string{"plan"})
			}
		}
		return false
	})
	bad := []sdk.SetSessionConfigOptionRequest{
		{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: sess, ConfigId: "model", Value: "x"}},
		{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: sess, ConfigId: acp.ConfigMode, Value: "yolo"}},
		{Boolean: &sdk.SetSessionConfigOptionBoolean{SessionId: sess, ConfigId: acp.ConfigMode, Value: true}},
	}
	for _, req := range bad {
		if _, err := k.cs.SetSessionConfigOption(ctxT(t), req); err == nil || !strings.Contains(err.Error(), "-32602") {
			t.Errorf("set_config_option %+v: err = %v, want invalid params", req, err)
		}
	}
	if _, err := k.cs.SetSessionMode(ctxT(t), sdk.SetSessionModeRequest{SessionId: sess, ModeId: "yolo"}); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("set_mode yolo: err = %v, want unknown mode", err)
	}
}

func TestLoadReplaysTheHistoryAndContinues(t *testing.T) {
	model := planSteps(scripted.Step{Text: "Approved; done."}, scripted.Step{Text: "Still here."})
	first := openSession(t, newHostParts(t, newStore(t), model))
	first.planMode(approve)
	first.mustPrompt("Add a Goodbye function.")
	first.close()

	second := connect(t, first.h)
	second.initialize()
	resp := second.load(first.id, first.dir)
	if resp.Modes == nil || resp.Modes.CurrentModeId != "default" {
		t.Errorf("load modes = %+v, want current default (the plan was approved)", resp.Modes)
	}
	// The history arrived before the response.
	us, _ := second.c.snapshot()
	var users []string
	for _, u := range us {
		if m := u.Update.UserMessageChunk; m != nil && m.Content.Text != nil {
			users = append(users, m.Content.Text.Text)
		}
	}
	if !slices.Equal(users, []string{"Add a Goodbye function."}) {
		t.Errorf("replayed user messages = %q", users)
	}
	if text := agentText(us); !strings.Contains(text, "Here is my plan.") || !strings.Contains(text, "Approved; done.") {
		t.Errorf("replayed agent text = %q", text)
	}
	var kinds []string
	for _, u := range us {
		if c := u.Update.ToolCall; c != nil {
			kinds = append(kinds, string(c.Kind))
		}
	}
	if !slices.Equal(kinds, []string{"read", "search", "switch_mode"}) {
		t.Errorf("replayed tool calls = %v", kinds)
	}
	if len(modeUpdates(us)) != 0 {
		t.Errorf("replay sent mode updates %v; the response carries the mode", modeUpdates(us))
	}
	if r, err := second.prompt(first.id, "Are you there?"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after load = %v, %v", r.StopReason, err)
	}
	if !strings.Contains(agentText(mustSnapshot(second)), "Still here.") {
		t.Errorf("no answer after load")
	}
	second.close()
	checkTraffic(t, goSDKSchema(t), second.fromSide.all(), second.toSide.all())
}

func mustSnapshot(k *conn) []sdk.SessionNotification {
	us, _ := k.c.snapshot()
	return us
}

func TestImagePromptsReachTheModel(t *testing.T) {
	model := scripted.NewModel(scripted.Step{Text: "A red pixel."})
	s := openSession(t, newHostParts(t, newStore(t), model))
	k, sess := s.conn, s.id
	png := []byte("\x89PNG fake")
	_, err := k.cs.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sess, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("What is this?"),
		sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png"),
		sdk.ResourceLinkBlock("greeter.go", "file:///w/greeter.go"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := model.Requests()[0].Messages
	content := msgs[len(msgs)-1].Content
	if len(content) != 3 || content[0].Type != host.BlockImage || string(content[0].Data) != string(png) || content[0].MediaType != "image/png" ||
		content[1].Text != "What is this?" || !strings.Contains(content[2].Text, "file:///w/greeter.go") {
		t.Errorf("model got %+v, want the image first, then the text and the link", content)
	}
	_, err = k.cs.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sess, Prompt: []sdk.ContentBlock{sdk.ImageBlock("%%%", "image/png")}})
	if err == nil || !strings.Contains(err.Error(), "base64") {
		t.Errorf("bad image: err = %v, want invalid params naming base64", err)
	}
	_, err = k.cs.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sess, Prompt: []sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}})
	if err == nil || !strings.Contains(err.Error(), "audio") {
		t.Errorf("audio: err = %v, want invalid params naming audio", err)
	}
}

// chooseIndex answers a permission request with its option i.
func chooseIndex(i int) answerFunc {
	return func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected(req.Options[i].OptionId), nil
	}
}

// asker is a host.Agent for putting a question to a session from outside
// a tool call.
type asker struct{ s host.Session }

func (a asker) ID() string                { return a.s.ID() }
func (a asker) Session() host.Session     { return a.s }
func (a asker) Status() host.AgentStatus  { return host.StatusIdle }
func (a asker) Steer(host.Message) error  { return nil }
func (a asker) Inject(host.Message) error { return nil }

func TestQuestionsOutsideAToolCallGetTheirOwnToolCallAndExtraOptions(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()))
	k := s.conn
	k.c.setAnswer(chooseIndex(2))
	answers, err := s.h.rt.Questions().Ask(ctxT(t), host.AskRequest{
		Agent: asker{s.open()},
		Questions: []host.Question{{ID: "entry", Header: "Enter plan mode?", Question: "This task looks large. Plan first?", Options: []host.Option{
			{Label: "Plan first", Role: host.RoleApprove}, {Label: "Just do it", Role: host.RoleDecline}, {Label: "Plan, and track steps"},
		}}},
		Kind: host.AskConsent, Purpose: "plan-entry",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != 1 || answers[0].QuestionID != "entry" || !slices.Equal(answers[0].Selected, []string{"Plan, and track steps"}) {
		t.Errorf("answers = %+v, want the extra option's label", answers)
	}
	us, asks := k.c.snapshot()
	if len(asks) != 1 {
		t.Fatalf("asks = %d", len(asks))
	}
	var kinds []string
	for _, o := range asks[0].Options {
		kinds = append(kinds, string(o.Kind))
	}
	// The consent's options, then Dismiss.
	if !slices.Equal(kinds, []string{"allow_once", "reject_once", "reject_once", "reject_once"}) {
		t.Errorf("option kinds = %v", kinds)
	}
	// On the wire the question's tool call comes before the request (the
	// client SDK hands notifications and requests to different goroutines,
	// so the order the test client records them in may differ).
	callAt, askAt := -1, -1
	for i, l := range k.fromSide.all() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					ToolCallID    string `json:"toolCallId"`
					Title         string `json:"title"`
				} `json:"update"`
			} `json:"params"`
		}
		_ = json.Unmarshal(l, &m)
		switch {
		case m.Method == "session/update" && m.Params.Update.SessionUpdate == "tool_call" &&
			m.Params.Update.ToolCallID == string(asks[0].ToolCall.ToolCallId) && m.Params.Update.Title == "Enter plan mode?":
			callAt = i
		case m.Method == "session/request_permission" && askAt < 0:
			askAt = i
		}
	}
	if callAt < 0 || askAt < callAt {
		t.Errorf("the question's tool call %q (line %d) was not announced before the request (line %d): %s", asks[0].ToolCall.ToolCallId, callAt, askAt, describeUpdates(us))
	}
}

// todoFeed is a PlanFeed over "test/todo" events whose data is the entries.
type todoFeed struct{}

func (todoFeed) Follow(string) func(host.Event) ([]sdk.PlanEntry, bool) {
	return func(e host.Event) ([]sdk.PlanEntry, bool) {
		if e.Type != "test/todo" {
			return nil, false
		}
		var entries []sdk.PlanEntry
		if json.Unmarshal(e.Data, &entries) != nil {
			return nil, false
		}
		return entries, true
	}
}

func TestPlanFeedSendsPlanUpdatesLiveAndOnLoad(t *testing.T) {
	withFeed := func(c *acp.Config) { c.Plans = todoFeed{} }
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()), withFeed)
	hs := s.open()
	entries := []sdk.PlanEntry{{Content: "Add Goodbye", Priority: "high", Status: "in_progress"}, {Content: "Test it", Priority: "medium", Status: "pending"}}
	if _, err := hs.Append(host.Event{Type: "test/todo", Data: mustJSON(t, entries)}); err != nil {
		t.Fatal(err)
	}
	s.c.waitUpdates(t, "plan update", func(us []sdk.SessionNotification) bool {
		for _, u := range us {
			if p := u.Update.Plan; p != nil && len(p.Entries) == 2 && p.Entries[0].Status == "in_progress" {
				return true
			}
		}
		return false
	})
	s.close()
	checkTraffic(t, goSDKSchema(t), s.fromSide.all(), s.toSide.all())

	again := connect(t, s.h, withFeed)
	again.initialize()
	again.load(s.id, s.dir)
	var plans int
	for _, u := range mustSnapshot(again) {
		if u.Update.Plan != nil {
			plans++
		}
	}
	if plans != 1 {
		t.Errorf("plan updates on load = %d, want 1", plans)
	}
}

func TestReasoningIsSentAsThoughtChunks(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()))
	// A thinking model's answer as the host logs it.
	data := mustJSON(t, map[string]any{"text": "The answer.", "reasoning": "Think about greeter.go first."})
	if _, err := s.open().Append(host.Event{Type: host.TypeAssistantMessage, Data: data}); err != nil {
		t.Fatal(err)
	}
	s.c.waitUpdates(t, "thought then message", func(us []sdk.SessionNotification) bool {
		order := describeUpdates(us)
		return strings.Contains(order, "agent_thought_chunk, agent_message_chunk")
	})
	for _, u := range mustSnapshot(s.conn) {
		if th := u.Update.AgentThoughtChunk; th != nil && th.Content.Text.Text != "Think about greeter.go first." {
			t.Errorf("thought = %q", th.Content.Text.Text)
		}
	}
}

// TestAReviewAskedAgainShowsWhatChangedAndEchoesTheDigest: a plan review
// asked again because the plan changed carries the diff from the text
// shown before in its content, and the answer echoes the digest of the
// text the client was shown.
func TestAReviewAskedAgainShowsWhatChangedAndEchoesTheDigest(t *testing.T) {
	s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()))
	s.c.setAnswer(chooseIndex(0))
	const before, after = "# Tests\n\n1. Add TestHello.\n", "# Tests\n\n1. Run the installer script.\n"
	answers, err := s.h.rt.Questions().Ask(ctxT(t), host.AskRequest{
		Agent: asker{s.open()},
		Questions: []host.Question{{ID: e2etest.ReviewQuestionID, Header: "Plan review", Question: "The plan changed.",
			Detail: after, DetailDigest: host.DigestDetail(after), Previous: before,
			Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}}},
		Kind: host.AskReview,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != 1 || answers[0].DetailDigest != host.DigestDetail(after) {
		t.Errorf("answers = %+v; want the digest of the text shown echoed", answers)
	}
	_, asks := s.c.snapshot()
	if len(asks) != 1 {
		t.Fatalf("asks = %d", len(asks))
	}
	var text string
	for _, c := range asks[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			text += c.Content.Content.Text.Text + "\n"
		}
	}
	for _, want := range []string{present.English.Review.DiffChanged, "-1. Add TestHello.", "+1. Run the installer script.", after} {
		if !strings.Contains(text, want) {
			t.Errorf("the request's content lacks %q:\n%s", want, text)
		}
	}
}
