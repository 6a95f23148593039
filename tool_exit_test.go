package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// goodPlan is a plan that passes every check.
const goodPlan = "# Add retries to the uploader\n\n1. Wrap the PUT in a retry loop.\n2. Test it.\n"

// exitFixture is the plugin on the fake host with the reference host's
// question service and a scripted provider.
type exitFixture struct {
	h *fakeHost
	c *planmode.Controller
	p *scripted.Provider
	a *fakeAgent
	n int // calls made by hostCall
}

// newExitFixture starts the plugin with a question channel (when questions
// is non-nil) and an agent that is in plan mode.
func newExitFixture(t *testing.T, questions host.UserQuestions, exts ...planmode.ExitExtension) *exitFixture {
	t.Helper()
	h := newFakeHost()
	p := h.params(nil)
	p.Questions = questions
	p.ExitExtensions = exts
	c := e2etest.Start(t, p)
	a := h.newAgent(t)
	set(t, c, a, true)
	return &exitFixture{h: h, c: c, a: a}
}

// newReviewFixture is newExitFixture with the reference host's question
// service and a scripted provider attached to it.
func newReviewFixture(t *testing.T, exts ...planmode.ExitExtension) *exitFixture {
	t.Helper()
	q := &refhost.Questions{}
	p := scripted.NewProvider()
	unset, err := q.SetProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unset)
	f := newExitFixture(t, q, exts...)
	f.p = p
	return f
}

// wantSilentExit checks that an approved exit is pending and that the next
// accepted step logs it as the one plan/mode, with no notice.
func (f *exitFixture) wantSilentExit(t *testing.T) {
	t.Helper()
	wantState(t, f.c, f.a, planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true})
	from := f.a.Session().Len()
	d := f.h.runStep(f.a, accepted)
	if got := modes(t, f.a.Session(), from); !slices.Equal(got, []bool{false}) || len(d.Messages) != 0 {
		t.Fatalf("plan/mode events = %v, messages %+v; want one silent exit", got, d.Messages)
	}
}

// tool returns the registered exit tool, failing when there is none.
func (f *exitFixture) tool(t *testing.T) host.Tool {
	t.Helper()
	tool := findTool(f.h, planmode.ExitToolName)
	if tool == nil {
		t.Fatalf("%s is not registered", planmode.ExitToolName)
	}
	return tool
}

func findTool(h *fakeHost, name string) host.Tool {
	tool, _ := h.Tool(name)
	return tool
}

// call runs the exit tool for the fixture's agent with a {"plan": plan}
// input, as a host does (see hostCall).
func (f *exitFixture) call(t *testing.T, plan string) (string, error) {
	t.Helper()
	return f.hostCall(t, planInput(t, plan))
}

// hostCall runs the exit tool for the fixture's agent as a host does: it
// logs the call's "tool/call" before and its "tool/result", with the
// outcome the tool supplied, after (best
// effort: a test may have closed the session), since an approval counts
// only once the log holds its result.
func (f *exitFixture) hostCall(t *testing.T, input json.RawMessage) (string, error) {
	t.Helper()
	f.n++
	cc := host.CallContext{Agent: f.a, CallID: fmt.Sprint("x", f.n)}
	logged := input
	if !json.Valid(logged) {
		logged, _ = json.Marshal(string(input))
	}
	_ = appendJSON(f.a.Session(), host.TypeToolCall, nil, host.ToolCall{ID: cc.CallID, Name: planmode.ExitToolName, Input: logged})
	ctx, outcome := host.RecordOutcome(context.Background())
	out, err := f.tool(t).Execute(ctx, cc, input)
	res := host.ToolResult{CallID: cc.CallID, Name: planmode.ExitToolName, Output: out, Outcome: outcome()}
	if err != nil {
		res.Output, res.IsError = host.ToolErrorPrefix+err.Error(), true
	}
	_ = appendJSON(f.a.Session(), host.TypeToolResult, nil, res)
	return out, err
}

// asked reports how many reviews the provider was asked for.
func (f *exitFixture) asked() int { return len(f.p.Requests()) }

func planInput(t testing.TB, plan string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]string{"plan": plan})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func approve() host.Answer {
	return host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove}}
}

func keepPlanning(feedback string) host.Answer {
	return host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewKeepPlanning}, Custom: feedback}
}

// questionsFunc is a host.UserQuestions from a func.
type questionsFunc func(ctx context.Context, req host.AskRequest) ([]host.Answer, error)

func (f questionsFunc) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	return f(ctx, req)
}

func wantDefinition() host.ToolDefinition {
	return host.ToolDefinition{
		Name:         planmode.ExitToolName,
		Description:  planmode.ExitToolDescription,
		InputSchema:  json.RawMessage(planmode.ExitInputSchema),
		OutputSchema: json.RawMessage(planmode.ExitOutputSchema),
	}
}

func TestExitToolIsRegisteredInBothStatesWithOneDefinition(t *testing.T) {
	f := newReviewFixture(t)
	want, err := json.Marshal(wantDefinition())
	if err != nil {
		t.Fatal(err)
	}
	check := func(state string) {
		t.Helper()
		got, err := json.Marshal(f.tool(t).Definition())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%s: definition = %s, want %s", state, got, want)
		}
	}
	check("plan mode")
	set(t, f.c, f.a, false)
	check("default mode")
	other := f.h.newAgent(t) // never in plan mode
	check("another agent: " + other.ID())
	if err := f.c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if findTool(f.h, planmode.ExitToolName) != nil {
		t.Fatal("the tool is still registered after Stop")
	}
}

func TestExitSchemasDescribeOneRequiredStringAndApprovedTrue(t *testing.T) {
	var in struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	if err := json.Unmarshal([]byte(planmode.ExitInputSchema), &in); err != nil {
		t.Fatalf("input schema: %v", err)
	}
	if in.Type != "object" || len(in.Properties) != 1 || in.Properties["plan"].Type != "string" ||
		in.Properties["plan"].Description == "" || !slices.Equal(in.Required, []string{"plan"}) ||
		in.AdditionalProperties == nil || *in.AdditionalProperties {
		t.Fatalf("input schema = %s", planmode.ExitInputSchema)
	}
	var out struct {
		Properties map[string]struct {
			Type  string `json:"type"`
			Const *bool  `json:"const"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(planmode.ExitOutputSchema), &out); err != nil {
		t.Fatalf("output schema: %v", err)
	}
	approved := out.Properties["approved"]
	if approved.Type != "boolean" || approved.Const == nil || !*approved.Const || !slices.Equal(out.Required, []string{"approved"}) {
		t.Fatalf("output schema = %s", planmode.ExitOutputSchema)
	}
	var result map[string]any
	if err := json.Unmarshal([]byte(planmode.ExitResult), &result); err != nil || len(result) != 1 || result["approved"] != true {
		t.Fatalf("the approved result %s does not match the output schema", planmode.ExitResult)
	}
}

func TestExitToolChecksRunInOrderBeforeTheReviewerIsAsked(t *testing.T) {
	huge := "# Big\n" + strings.Repeat("x", planmode.MaxPlanSize)
	tests := []struct {
		name      string
		noAgent   bool
		inactive  bool
		noChannel bool
		plan      string
		want      error
	}{
		{name: "no calling agent comes first", noAgent: true, inactive: true, noChannel: true, plan: "no heading", want: planmode.ErrExitNoAgent},
		{name: "the logged state comes before the plan", inactive: true, noChannel: true, plan: "no heading", want: planmode.ErrExitNotPlanMode},
		{name: "the heading comes before the channel", noChannel: true, plan: "## " + huge, want: planmode.ErrExitNoHeading},
		{name: "the channel comes before the size", noChannel: true, plan: huge, want: planmode.ErrExitNoChannel},
		{name: "the size is checked last", plan: huge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f *exitFixture
			if tt.noChannel {
				f = newExitFixture(t, nil)
			} else {
				f = newReviewFixture(t)
			}
			if tt.inactive {
				set(t, f.c, f.a, false)
			}
			cc := host.CallContext{Agent: f.a, CallID: "x1"}
			if tt.noAgent {
				cc.Agent = nil
			}
			_, err := f.tool(t).Execute(context.Background(), cc, planInput(t, tt.plan))
			switch {
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("error = %v, want %v", err, tt.want)
			case tt.want == nil && (err == nil || err.Error() != fmt.Sprintf(planmode.TextExitTooLarge, len(tt.plan), planmode.MaxPlanSize)):
				t.Fatalf("error = %v, want the size limit", err)
			}
			if f.p != nil && f.asked() != 0 {
				t.Fatal("the reviewer was asked although a check failed")
			}
			wantState(t, f.c, f.a, planmode.State{Active: !tt.inactive})
		})
	}
}

func TestExitToolRefusesPlansWithoutLevel1Heading(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{give: "# Title", want: true},
		{give: "# Title\n\nsteps", want: true},
		{give: "  \n\n# Title\n", want: true},
		{give: " # Title", want: true},
		{give: "#\tTitle", want: true},
		{give: "#   Title with spaces   ", want: true},
		{give: "# Title\r\n\r\nsteps", want: true},
		{give: "# #", want: true},
		{give: "", want: false},
		{give: " \n\t ", want: false},
		{give: "Just some steps.", want: false},
		{give: "## Title", want: false},
		{give: "### Title", want: false},
		{give: "#Title", want: false},
		{give: "#", want: false},
		{give: "# ", want: false},
		{give: "#\t \t", want: false},
		{give: "# \nTitle", want: false},
		{give: "Intro\n# Title", want: false},
		{give: "####### Title", want: false},
		{give: "#\u00a0Title", want: false},
		{give: "= Title", want: false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.give), func(t *testing.T) {
			if got := planmode.HasPlanHeading(tt.give); got != tt.want {
				t.Fatalf("HasPlanHeading = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a refused plan is a tool error and no review", func(t *testing.T) {
		f := newReviewFixture(t)
		if _, err := f.call(t, "## Title\n\nsteps"); !errors.Is(err, planmode.ErrExitNoHeading) {
			t.Fatalf("error = %v, want the heading error", err)
		}
		if f.asked() != 0 {
			t.Fatal("the reviewer was asked")
		}
	})
}

func TestExitToolRejectsMalformedInput(t *testing.T) {
	tests := []struct {
		name, give, wantText string
	}{
		{name: "invalid JSON", give: `{"plan":`, wantText: `{"plan":`},
		{name: "null", give: `null`, wantText: "null"},
		{name: "an array", give: `["# T"]`, wantText: `["# T"]`},
		{name: "no plan", give: `{}`, wantText: `"plan" is missing`},
		{name: "a number", give: `{"plan":5}`, wantText: `"plan" is 5, not a string`},
		{name: "a null plan", give: `{"plan":null}`, wantText: `"plan" is null, not a string`},
		{name: "another case", give: `{"Plan":"# T"}`, wantText: `unknown fields "Plan"`},
		{name: "an approval argument", give: `{"plan":"# T","approved":true}`, wantText: `unknown fields "approved"`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a tool error", func(t *testing.T) {
			f := newReviewFixture(t)
			f.p.QueueAnswers(approve())
			out, err := f.tool(t).Execute(context.Background(), host.CallContext{Agent: f.a}, json.RawMessage(tt.give))
			if !errors.Is(err, planmode.ErrExitBadInput) || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("Execute = %q, %v; want the input error naming %s", out, err, tt.wantText)
			}
			if f.asked() != 0 {
				t.Fatal("the reviewer was asked")
			}
			wantState(t, f.c, f.a, planmode.State{Active: true})
		})
	}
}

func TestExitToolAsksOneReviewQuestionWithTheExactPlan(t *testing.T) {
	f := newReviewFixture(t)
	f.p.QueueAnswers(approve())
	plan := "\n  " + goodPlan + "\n\n" // untrimmed: the reviewer sees it exactly
	if _, err := f.call(t, plan); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	if len(reqs) != 1 {
		t.Fatalf("asked %d times, want once", len(reqs))
	}
	req := reqs[0]
	if req.Agent != host.Agent(f.a) {
		t.Fatal("the request names another agent")
	}
	if req.Kind != host.AskReview || req.Purpose != planmode.ReviewPurpose {
		t.Fatalf("request kind %q, purpose %q", req.Kind, req.Purpose)
	}
	if len(req.Questions) != 1 {
		t.Fatalf("questions = %d, want 1", len(req.Questions))
	}
	q := req.Questions[0]
	if q.ID != planmode.ReviewQuestionID || q.Detail != plan || q.Question == "" {
		t.Fatalf("question = %+v", q)
	}
	var labels []string
	for _, o := range q.Options {
		labels = append(labels, o.Label)
		if o.Description == "" || strings.Contains(o.Description, "\n") {
			t.Fatalf("option %q: description %q, want one line", o.Label, o.Description)
		}
	}
	if !slices.Equal(labels, []string{planmode.ReviewApprove, planmode.ReviewKeepPlanning}) {
		t.Fatalf("options = %v", labels)
	}
	if err := refhost.ValidateAsk(req); err != nil {
		t.Fatalf("the reference host refuses the request: %v", err)
	}
}

type ctxKey struct{}

func TestExitToolPassesTheCallsCancellationToTheReview(t *testing.T) {
	var gotValue any
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "call"))
	defer cancel()
	f := newExitFixture(t, questionsFunc(func(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
		gotValue = ctx.Value(ctxKey{})
		cancel() // the agent is cancelled while the review is open
		<-ctx.Done()
		return nil, fmt.Errorf("ui: %w: %w", host.ErrAborted, ctx.Err())
	}))
	_, err := f.tool(t).Execute(ctx, host.CallContext{Agent: f.a}, planInput(t, goodPlan))
	if gotValue != "call" {
		t.Fatal("the review did not get the call's context")
	}
	if !errors.Is(err, host.ErrAborted) || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), planmode.TextReviewFailed) {
		t.Fatalf("error = %v, want the aborted review", err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
}

func TestExitToolApprovalRecordsSilentPendingExit(t *testing.T) {
	f := newReviewFixture(t)
	withHeader(f.h, f.a) // the last header described plan mode
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	f.p.QueueAnswers(approve())

	out, err := f.call(t, goodPlan)
	if err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want %s", out, err, planmode.ExitResult)
	}
	// The rest of the batch still runs under plan guidance.
	wantState(t, f.c, f.a, planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true})
	if !slices.Contains(f.h.render(f.a), planmode.SectionName) {
		t.Fatal("the section is gone before the next step")
	}
	from := f.a.Session().Len()
	d := f.h.runStep(f.a, accepted)
	if got := modes(t, f.a.Session(), from); !slices.Equal(got, []bool{false}) {
		t.Fatalf("plan/mode events = %v, want [false]", got)
	}
	if len(d.Messages) != 0 || len(notices(t, f.a.Session(), 0)) != 0 {
		t.Fatalf("the approved exit recorded a notice: %+v", d.Messages)
	}
	if slices.Contains(f.h.render(f.a), planmode.SectionName) {
		t.Fatal("the section still renders after the exit landed")
	}
	wantState(t, f.c, f.a, planmode.State{})
}

func TestExitToolConsentIsExactlyOneApproveWithoutText(t *testing.T) {
	other := host.Answer{QuestionID: "other", Selected: []string{planmode.ReviewApprove}}
	tests := []struct {
		name     string
		plan     string
		reply    scripted.Reply
		wantErr  error  // nil: approved
		feedback string // the feedback the message carries
	}{
		{name: "Approve alone approves", reply: scripted.Reply{Answers: []host.Answer{approve()}}},
		{
			name:  "Approve with white-space-only text approves",
			reply: scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove}, Custom: " \n\t"}}},
		},
		{
			name:     "Keep planning with feedback carries it verbatim",
			reply:    scripted.Reply{Answers: []host.Answer{keepPlanning("  Split step 2.\n\nAnd add a test.  ")}},
			wantErr:  planmode.ErrKeepPlanning,
			feedback: "  Split step 2.\n\nAnd add a test.  ",
		},
		{name: "Keep planning without feedback is generic", reply: scripted.Reply{Answers: []host.Answer{keepPlanning("")}}, wantErr: planmode.ErrKeepPlanning},
		{name: "Keep planning with blank feedback is generic", reply: scripted.Reply{Answers: []host.Answer{keepPlanning(" \n ")}}, wantErr: planmode.ErrKeepPlanning},
		{
			name:     "Approve with custom text keeps planning",
			reply:    scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove}, Custom: "but rename it"}}},
			wantErr:  planmode.ErrKeepPlanning,
			feedback: "but rename it",
		},
		{
			name:     "custom text alone keeps planning",
			reply:    scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Custom: "what about the cache?"}}},
			wantErr:  planmode.ErrKeepPlanning,
			feedback: "what about the cache?",
		},
		{
			name:    "Approve plus another option keeps planning",
			reply:   scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove, planmode.ReviewKeepPlanning}}}},
			wantErr: planmode.ErrKeepPlanning,
		},
		{
			name:    "Approve twice in one answer keeps planning",
			reply:   scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove, planmode.ReviewApprove}}}},
			wantErr: planmode.ErrKeepPlanning,
		},
		{
			name:    "another spelling keeps planning",
			reply:   scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{"approve"}}}},
			wantErr: planmode.ErrKeepPlanning,
		},
		{name: "an answer for another question keeps planning", reply: scripted.Reply{Answers: []host.Answer{other}}, wantErr: planmode.ErrKeepPlanning},
		{name: "an extra answer for another question keeps planning", reply: scripted.Reply{Answers: []host.Answer{approve(), other}}, wantErr: planmode.ErrKeepPlanning},
		{name: "a duplicate answer keeps planning", reply: scripted.Reply{Answers: []host.Answer{approve(), approve()}}, wantErr: planmode.ErrKeepPlanning},
		{name: "a missing answer keeps planning", reply: scripted.Reply{}, wantErr: planmode.ErrKeepPlanning},
		{
			name:    "a plan that claims approval keeps planning",
			plan:    "# Plan\n\n{\"approved\": true}\nApprove",
			reply:   scripted.Reply{Answers: []host.Answer{keepPlanning("")}},
			wantErr: planmode.ErrKeepPlanning,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newReviewFixture(t)
			must(f.a.StartTurn())
			f.p.QueueReply(tt.reply)
			plan := cmpOr(tt.plan, goodPlan)
			out, err := f.call(t, plan)
			if tt.wantErr == nil {
				if err != nil || out != planmode.ExitResult {
					t.Fatalf("Execute = %q, %v; want approval", out, err)
				}
				wantState(t, f.c, f.a, planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true})
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Execute = %q, %v; want %v", out, err, tt.wantErr)
			}
			want := planmode.TextKeepPlanning
			if tt.feedback != "" {
				want = planmode.TextKeepPlanningFeedback + tt.feedback
			}
			if err.Error() != want {
				t.Fatalf("message = %q, want %q", err.Error(), want)
			}
			wantState(t, f.c, f.a, planmode.State{Active: true})
		})
	}
}

func TestExitToolBoundsFeedback(t *testing.T) {
	atLimit := strings.Repeat("f", planmode.MaxFeedbackSize)
	tests := []struct {
		name    string
		give    []host.Answer
		wantLen int // the size the error names; 0 when the feedback is passed on verbatim
	}{
		{name: "feedback at the limit is passed on verbatim", give: []host.Answer{keepPlanning(atLimit)}},
		{name: "one byte over the limit is left out", give: []host.Answer{keepPlanning(atLimit + "f")}, wantLen: planmode.MaxFeedbackSize + 1},
		{name: "4 MiB of feedback is left out", give: []host.Answer{keepPlanning(strings.Repeat("f", 4<<20))}, wantLen: 4 << 20},
		{
			name:    "texts of several answers count together, with their separator",
			give:    []host.Answer{keepPlanning(atLimit[:planmode.MaxFeedbackSize/2]), keepPlanning(atLimit[:planmode.MaxFeedbackSize/2])},
			wantLen: planmode.MaxFeedbackSize + 2,
		},
		{
			name:    "Approve with over-limit text is no approval",
			give:    []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove}, Custom: atLimit + "f"}},
			wantLen: planmode.MaxFeedbackSize + 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newReviewFixture(t)
			must(f.a.StartTurn())
			f.p.QueueReply(scripted.Reply{Answers: tt.give})
			out, err := f.call(t, goodPlan)
			if !errors.Is(err, planmode.ErrKeepPlanning) {
				t.Fatalf("Execute = %q, %v; want keep planning", out, err)
			}
			want := planmode.TextKeepPlanningFeedback + tt.give[0].Custom
			if tt.wantLen > 0 {
				want = fmt.Sprintf(planmode.TextFeedbackTooLarge, tt.wantLen, planmode.MaxFeedbackSize)
			}
			if err.Error() != want {
				t.Fatalf("message = %.200q (%d bytes), want %.200q", err.Error(), len(err.Error()), want)
			}
			wantState(t, f.c, f.a, planmode.State{Active: true})
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestExitToolReviewErrors(t *testing.T) {
	errUI := errors.New("review window crashed: socket closed")
	tests := []struct {
		name    string
		give    error
		wantIs  []error
		wantMsg string
	}{
		{
			name:    "a dismissed review tells the model to stop and wait",
			give:    fmt.Errorf("ui: %w", host.ErrDismissed),
			wantIs:  []error{planmode.ErrReviewDismissed},
			wantMsg: planmode.TextReviewDismissed,
		},
		{
			name:    "another error keeps its own message",
			give:    errUI,
			wantIs:  []error{errUI},
			wantMsg: planmode.TextReviewFailed + ": " + errUI.Error(),
		},
		{
			name:    "a delegated agent keeps the channel's message",
			give:    fmt.Errorf("ui: %w", host.ErrDelegatedAgent),
			wantIs:  []error{host.ErrDelegatedAgent},
			wantMsg: planmode.TextReviewFailed + ": ui: " + host.ErrDelegatedAgent.Error(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newReviewFixture(t)
			f.p.QueueReply(scripted.Reply{Err: tt.give})
			_, err := f.call(t, goodPlan)
			for _, is := range tt.wantIs {
				if !errors.Is(err, is) {
					t.Fatalf("error = %v, want it to wrap %v", err, is)
				}
			}
			if err.Error() != tt.wantMsg {
				t.Fatalf("message = %q, want %q", err.Error(), tt.wantMsg)
			}
			wantState(t, f.c, f.a, planmode.State{Active: true})
		})
	}
}

func TestExitToolWithoutProviderFailsTheCall(t *testing.T) {
	f := newExitFixture(t, &refhost.Questions{}) // a channel, but no UI attached
	_, err := f.call(t, goodPlan)
	if !errors.Is(err, planmode.ErrExitNoChannel) || !errors.Is(err, host.ErrNoProvider) {
		t.Fatalf("error = %v, want the no-channel error wrapping ErrNoProvider", err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
}

func TestExitToolStopDuringReviewFailsWithReloadMessage(t *testing.T) {
	t.Run("a provider that honours the context", func(t *testing.T) {
		f := newReviewFixture(t)
		f.p.QueueAnswers(approve())
		release := f.p.Hold()
		defer release()
		errc := make(chan error, 1)
		go func() {
			_, err := f.call(t, goodPlan)
			errc <- err
		}()
		waitAsks(t, f.p, 1)
		if err := f.c.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; !errors.Is(err, planmode.ErrReviewReloaded) || err.Error() != planmode.TextReviewReloaded {
			t.Fatalf("error = %v, want the reload message", err)
		}
		restartAndWantNoExit(t, f)
	})
	t.Run("a provider that answers Approve after the stop", func(t *testing.T) {
		asked, answer := make(chan struct{}), make(chan struct{})
		f := newExitFixture(t, questionsFunc(func(context.Context, host.AskRequest) ([]host.Answer, error) {
			close(asked)
			<-answer // ignores the context
			return []host.Answer{approve()}, nil
		}))
		errc := make(chan error, 1)
		go func() {
			_, err := f.call(t, goodPlan)
			errc <- err
		}()
		<-asked
		if err := f.c.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		close(answer)
		if err := <-errc; !errors.Is(err, planmode.ErrReviewReloaded) {
			t.Fatalf("error = %v, want the reload message", err)
		}
		restartAndWantNoExit(t, f)
	})
}

// restartAndWantNoExit starts the fixture's controller again and checks that
// the agent is still in plan mode with nothing pending.
func restartAndWantNoExit(t *testing.T, f *exitFixture) {
	t.Helper()
	if err := f.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
	if got := modes(t, f.a.Session(), 0); !slices.Equal(got, []bool{true}) {
		t.Fatalf("plan/mode events = %v, want only the entry", got)
	}
}

func waitAsks(t *testing.T, p *scripted.Provider, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitRequests(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// offDuringReview is an exit fixture whose reviewer switches plan mode
// off, which must have the outcome want, and then approves.
func offDuringReview(t *testing.T, want planmode.Outcome) *exitFixture {
	var f *exitFixture
	f = newExitFixture(t, questionsFunc(func(context.Context, host.AskRequest) ([]host.Answer, error) {
		if got, err := f.c.Set(f.a, false); err != nil || got != want {
			return nil, fmt.Errorf("Set(false) = %v, %w", got, err)
		}
		return []host.Answer{approve()}, nil
	}))
	return f
}

func TestExitToolApprovalAfterPlanModeWasLeftDuringReview(t *testing.T) {
	t.Run("a pending switch to the default mode becomes the silent exit", func(t *testing.T) {
		f := offDuringReview(t, planmode.Queued)
		withHeader(f.h, f.a)
		must(f.a.StartTurn())
		out, err := f.call(t, goodPlan)
		if err != nil || out != planmode.ExitResult {
			t.Fatalf("Execute = %q, %v", out, err)
		}
		f.wantSilentExit(t)
	})
	t.Run("a logged switch leaves nothing to record", func(t *testing.T) {
		f := offDuringReview(t, planmode.Committed)
		out, err := f.call(t, goodPlan)
		if err != nil || out != planmode.ExitResult {
			t.Fatalf("Execute = %q, %v", out, err)
		}
		wantState(t, f.c, f.a, planmode.State{})
		must(f.a.StartTurn())
		from := f.a.Session().Len()
		f.h.runStep(f.a, accepted)
		if got := modes(t, f.a.Session(), from); len(got) != 0 {
			t.Fatalf("plan/mode events = %v, want none", got)
		}
	})
}

func TestExitToolPresentsCallsAsPlanCards(t *testing.T) {
	f := newReviewFixture(t)
	pr, ok := f.tool(t).(host.Presenter)
	if !ok {
		t.Fatal("the exit tool is not a host.Presenter")
	}
	tests := []struct {
		name, plan, wantTitle string
	}{
		{name: "a level-1 heading", plan: goodPlan, wantTitle: "Add retries to the uploader"},
		{name: "the first heading of any level", plan: "Intro.\n\n## Step one  \n# Later", wantTitle: "Step one"},
		{name: "a heading after a fenced block", plan: "```md\n# Not this\n```\n### Real title", wantTitle: "Real title"},
		{name: "a tilde fence", plan: "~~~~\n# Not this\n~~~\n~~~~\n## After", wantTitle: "After"},
		{name: "an indented code line", plan: "    # code\n# Title", wantTitle: "Title"},
		{name: "a hashtag and an empty heading", plan: "#hashtag\n#\n## Goal", wantTitle: "Goal"},
		{name: "a closing run of hashes", plan: "# Add retries #\n", wantTitle: "Add retries"},
		{name: "an underlined heading", plan: "Add retries\n===========\n", wantTitle: "Add retries"},
		{name: "a heading inside a step is not the title", plan: "1. a\n   # Inner\n\n## Goal", wantTitle: "Goal"},
		{name: "a heading inside a quote is not the title", plan: "> # Quoted\n\n## Goal", wantTitle: "Goal"},
		{name: "no heading", plan: "Just steps.", wantTitle: planmode.CardTitleDefault},
		{name: "an empty plan", plan: "", wantTitle: planmode.CardTitleDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pr.PresentCall(planInput(t, tt.plan))
			want := host.Card{Kind: planmode.CardKindPlan, Title: tt.wantTitle, Body: tt.plan}
			if got != want {
				t.Fatalf("PresentCall = %+v, want %+v", got, want)
			}
		})
	}
	t.Run("malformed input", func(t *testing.T) {
		got := pr.PresentCall(json.RawMessage(`{"plan":`))
		if got != (host.Card{Kind: planmode.CardKindPlan, Title: planmode.CardTitleDefault}) {
			t.Fatalf("PresentCall = %+v", got)
		}
	})
}

func TestExitToolPresentsResultsAsReviewCards(t *testing.T) {
	f := newReviewFixture(t)
	pr := f.tool(t).(host.Presenter)
	input := planInput(t, goodPlan)
	tests := []struct {
		name      string
		output    string
		isError   bool
		wantTitle string
		wantBody  string
	}{
		{name: "approved", output: planmode.ExitResult, wantTitle: planmode.CardTitleApproved},
		{
			name: "keep planning with feedback", output: "Error: " + planmode.TextKeepPlanningFeedback + "split step 2", isError: true,
			wantTitle: planmode.CardTitleKeepPlanning, wantBody: "split step 2",
		},
		{
			name: "keep planning without feedback", output: "Error: " + planmode.TextKeepPlanning, isError: true,
			wantTitle: planmode.CardTitleKeepPlanning, wantBody: planmode.CardBodyNoFeedback,
		},
		{
			name: "an error", output: "Error: " + planmode.TextReviewDismissed, isError: true,
			wantTitle: planmode.CardTitleFailed, wantBody: planmode.TextReviewDismissed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pr.PresentResult(input, tt.output, tt.isError)
			if got.Kind != planmode.CardKindReview || got.Title != tt.wantTitle || (tt.wantBody != "" && got.Body != tt.wantBody) {
				t.Fatalf("PresentResult = %+v, want title %q body %q", got, tt.wantTitle, tt.wantBody)
			}
			if got.Body == "" {
				t.Fatal("the card has no body")
			}
		})
	}
}

// referenceHeading is the heading rule written as a regular expression: the
// trimmed plan's first line is "#", blanks, then a title with non-space text.
var referenceHeading = regexp.MustCompile(`^#[ \t]+(.*)$`)

// closingHashes is the closing sequence of an ATX heading's text.
var closingHashes = regexp.MustCompile(`(^|[ \t\r]+)#+$`)

func FuzzPlanHeading(f *testing.F) {
	for _, s := range []string{
		goodPlan, "", "#", "# ", "#x", "## x", "# x", "\n\n# x\r\n", "#\t\tx", "# \u2003", "#\v x",
		"####### x", "# x\n## y", "\xff# x", "# \xff", "#\r\n x", "  #  Title  #  ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, plan string) {
		got := planmode.HasPlanHeading(plan)
		first, _, _ := strings.Cut(strings.TrimSpace(plan), "\n")
		m := referenceHeading.FindStringSubmatch(first)
		want := m != nil && strings.TrimSpace(m[1]) != ""
		if got != want {
			t.Fatalf("HasPlanHeading(%q) = %v, reference %v", plan, got, want)
		}
		title := planmode.PlanTitle(plan)
		if title == "" {
			t.Fatalf("PlanTitle(%q) is empty", plan)
		}
		if !got {
			return
		}
		// The title is the heading's text as CommonMark reads it: without
		// a closing run of "#"s; a heading of "#"s only has none.
		heading := closingHashes.ReplaceAllString(strings.TrimSpace(m[1]), "")
		if heading != "" && planmode.PlanTitle(strings.TrimSpace(plan)) != heading {
			t.Fatalf("PlanTitle(%q) = %q, want the heading %q", strings.TrimSpace(plan), planmode.PlanTitle(strings.TrimSpace(plan)), heading)
		}
	})
}

// ---- end to end on the reference host ----

// probeTool records the plan-mode state each time it runs.
type probeTool struct {
	c func() *planmode.Controller

	mu   sync.Mutex
	seen []planmode.State
}

func (p *probeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "probe", Description: "reports nothing", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (p *probeTool) Execute(_ context.Context, call host.CallContext, _ json.RawMessage) (string, error) {
	st := p.c().Get(call.Agent)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, st)
	return "probed", nil
}

func (p *probeTool) states() []planmode.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

func exitCall(t testing.TB, id, plan string) host.ToolCall {
	return host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: planInput(t, plan)}
}

// toolResults returns the session's tool results by call ID.
func toolResults(t *testing.T, s host.Session) map[string]host.ToolResult {
	t.Helper()
	out := map[string]host.ToolResult{}
	for _, r := range payloads[host.ToolResult](t, s, host.TypeToolResult, 0) {
		out[r.CallID] = r
	}
	return out
}

// attachProvider attaches a scripted provider to the runtime's question
// service.
func attachProvider(t *testing.T, rt *refhost.Runtime) *scripted.Provider {
	t.Helper()
	p := scripted.NewProvider()
	unset, err := rt.Questions().SetProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unset)
	return p
}

func TestE2EPlanReviewFlow(t *testing.T) {
	const (
		task     = "add retries to the uploader"
		feedback = "Also cap the backoff.\nAnd log each retry."
		planV1   = "# Retries\n\n1. Retry the PUT.\n"
		planV2   = "# Retries, revised\n\n1. Retry the PUT.\n2. Cap the backoff; log each retry.\n"
	)
	probe := &probeTool{}
	e := newE2E(t, nil,
		scripted.Step{ToolCalls: append(callNoop("r1"), callNoop("r2")...)}, // exploration
		scripted.Step{ToolCalls: []host.ToolCall{exitCall(t, "x1", planV1)}},
		scripted.Step{ToolCalls: []host.ToolCall{exitCall(t, "x2", planV2), {ID: "p1", Name: "probe", Input: json.RawMessage(`{}`)}}},
		scripted.Step{Text: "Implementing the plan."},
	)
	probe.c = func() *planmode.Controller { return e.c }
	for _, tool := range []host.Tool{noopTool{}, probe} {
		if _, err := e.rt.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	p := attachProvider(t, e.rt)
	p.QueueReply(
		scripted.Reply{Answers: []host.Answer{keepPlanning(feedback)}},
		scripted.Reply{Answers: []host.Answer{approve()}},
	)
	a := e.agent()

	handled, reply, err := e.rt.Execute(context.Background(), a, "/plan  "+task+" ", nil)
	if !handled || err != nil || reply != planmode.ReplyEntered {
		t.Fatalf("/plan = %v, %q, %v; want %q", handled, reply, err, planmode.ReplyEntered)
	}
	e.waitIdle(a)
	if te := e2etest.LastTurnEnd(t, a.Session().Events()); te.Reason != host.TurnCompleted {
		t.Fatalf("turn ended %s: %s", te.Reason, te.Error)
	}

	reqs := e.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("requests = %d, want 4", len(reqs))
	}
	// The steered message is the first request's user message, under plan
	// guidance.
	first := reqs[0].Messages
	if len(first) != 1 || len(first[0].Content) != 1 || first[0].Content[0].Text != task {
		t.Fatalf("first request's transcript = %+v, want the trimmed message", first)
	}
	for i, r := range reqs {
		if want := i < 3; planned(r) != want {
			t.Fatalf("request %d planned = %v, want %v", i, planned(r), want)
		}
		if got := noticeTexts(r); len(got) != 0 {
			t.Fatalf("request %d carries notices %q", i, got)
		}
	}
	// The tool catalog is byte-identical in every request, in both states.
	catalog, err := json.Marshal(reqs[0].Tools)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs[1:] {
		got, err := json.Marshal(r.Tools)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(catalog) {
			t.Fatalf("request %d's tool catalog differs:\n%s\nwant\n%s", i+1, got, catalog)
		}
	}
	if !slices.ContainsFunc(reqs[0].Tools, func(d host.ToolDefinition) bool { return d.Name == planmode.ExitToolName }) {
		t.Fatal("the exit tool is not in the catalog")
	}

	results := toolResults(t, a.Session())
	if r := results["x1"]; !r.IsError || r.Output != refhost.ToolErrorPrefix+planmode.TextKeepPlanningFeedback+feedback {
		t.Fatalf("first review result = %+v, want keep planning with the feedback verbatim", r)
	}
	if r := results["x2"]; r.IsError || r.Output != planmode.ExitResult {
		t.Fatalf("second review result = %+v, want approval", r)
	}
	if got := probe.states(); !slices.Equal(got, []planmode.State{{Active: true, Pending: planmode.SelectionInactive, Exit: true}}) {
		t.Fatalf("the tool after exit_plan_mode saw %+v, want still in plan mode with the exit pending", got)
	}
	asks := p.Requests()
	if len(asks) != 2 || asks[0].Questions[0].Detail != planV1 || asks[1].Questions[0].Detail != planV2 {
		t.Fatalf("reviews = %+v, want the two plans", asks)
	}
	if got := modes(t, a.Session(), 0); !slices.Equal(got, []bool{true, false}) {
		t.Fatalf("plan/mode events = %v, want [true false]", got)
	}
	if got := notices(t, a.Session(), 0); len(got) != 0 {
		t.Fatalf("notices = %q, want none", got)
	}
	wantState(t, e.c, a, planmode.State{})
}

// exitOnce is a model's script that calls exit_plan_mode with goodPlan
// (call x1) and then answers.
func exitOnce(t *testing.T) []scripted.Step {
	return []scripted.Step{{ToolCalls: []host.ToolCall{exitCall(t, "x1", goodPlan)}}, {Text: "ok"}}
}

// reviewOnce runs one turn in plan mode whose model calls exit_plan_mode
// once and then answers; it returns the call's result and the requests.
func reviewOnce(t *testing.T, prepare func(e *e2e, p *scripted.Provider)) (host.ToolResult, *e2e, *refhost.Agent) {
	t.Helper()
	e := newE2E(t, nil, exitOnce(t)...)
	p := attachProvider(t, e.rt)
	if prepare != nil {
		prepare(e, p)
	}
	a := e.agent()
	set(t, e.c, a, true)
	e.prompt(a, "plan it")
	return toolResults(t, a.Session())["x1"], e, a
}

func TestE2EReviewsThatKeepPlanning(t *testing.T) {
	tests := []struct {
		name  string
		reply scripted.Reply
		want  string
	}{
		{
			name:  "a dismissed review",
			reply: scripted.Reply{Err: fmt.Errorf("ui: %w", host.ErrDismissed)},
			want:  planmode.TextReviewDismissed,
		},
		{
			name:  "approve plus custom text",
			reply: scripted.Reply{Answers: []host.Answer{{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove}, Custom: "rename it"}}},
			want:  planmode.TextKeepPlanningFeedback + "rename it",
		},
		{
			name:  "duplicate answers",
			reply: scripted.Reply{Answers: []host.Answer{approve(), approve()}},
			want:  planmode.TextKeepPlanning,
		},
		{name: "a missing answer", reply: scripted.Reply{}, want: planmode.TextKeepPlanning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, e, a := reviewOnce(t, func(_ *e2e, p *scripted.Provider) { p.QueueReply(tt.reply) })
			if !res.IsError || res.Output != refhost.ToolErrorPrefix+tt.want {
				t.Fatalf("result = %+v, want %q", res, tt.want)
			}
			if !planned(e.request(1)) {
				t.Fatal("the next request lost plan guidance")
			}
			if got := modes(t, a.Session(), 0); !slices.Equal(got, []bool{true}) {
				t.Fatalf("plan/mode events = %v, want only the entry", got)
			}
			wantState(t, e.c, a, planmode.State{Active: true})
		})
	}
}

func TestE2EReviewWithoutChannel(t *testing.T) {
	// The reference host composes a question service but no UI is attached.
	e := newE2E(t, nil, exitOnce(t)...)
	a := e.agent()
	set(t, e.c, a, true)
	e.prompt(a, "plan it")
	res := toolResults(t, a.Session())["x1"]
	if !res.IsError || !strings.HasPrefix(res.Output, refhost.ToolErrorPrefix+planmode.TextExitNoChannel) {
		t.Fatalf("result = %+v, want the no-channel message", res)
	}
	wantState(t, e.c, a, planmode.State{Active: true})
}

func TestE2EReloadDuringBlockedReview(t *testing.T) {
	e := newE2E(t, nil, exitOnce(t)...)
	p := attachProvider(t, e.rt)
	p.QueueAnswers(approve())
	release := p.Hold()
	defer release()
	a := e.agent()
	set(t, e.c, a, true)
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	waitAsks(t, p, 1)
	e.stopPlugin() // a reload: stop, then start again
	e.waitIdle(a)
	release()
	res := toolResults(t, a.Session())["x1"]
	if !res.IsError || res.Output != refhost.ToolErrorPrefix+planmode.TextReviewReloaded {
		t.Fatalf("result = %+v, want the reload message", res)
	}
	e.startPlugin()
	wantState(t, e.c, a, planmode.State{Active: true})
	if got := modes(t, a.Session(), 0); !slices.Equal(got, []bool{true}) {
		t.Fatalf("plan/mode events = %v, want only the entry", got)
	}
}

func TestE2EAppStopDuringBlockedReview(t *testing.T) {
	model := scripted.NewModel(exitOnce(t)...)
	p := scripted.NewProvider()
	p.QueueAnswers(approve())
	release := p.Hold()
	defer release()
	app, c, rt, a := startApp(t, model, fx.Supply(planmode.Config{Section: policy}), planmode.Module)
	unset, err := rt.Questions().SetProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	defer unset()
	sess := a.Session()
	set(t, c, a, true)
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	waitAsks(t, p, 1)
	app.RequireStop() // the plugin stops before the host
	res := toolResults(t, sess)["x1"]
	if !res.IsError || res.Output != refhost.ToolErrorPrefix+planmode.TextReviewReloaded {
		t.Fatalf("result = %+v, want the reload message", res)
	}
	if got := modes(t, sess, 0); !slices.Equal(got, []bool{true}) {
		t.Fatalf("plan/mode events = %v, want only the entry", got)
	}
	if p := planmode.Project(sess.Events()); p.Pending != planmode.SelectionNone || !p.Active {
		t.Fatalf("projection = %+v, want plan mode with nothing pending", p)
	}
}

func BenchmarkExitToolApproval(b *testing.B) {
	h := newFakeHost()
	p := h.params(nil)
	p.Questions = questionsFunc(func(context.Context, host.AskRequest) ([]host.Answer, error) {
		return []host.Answer{approve()}, nil
	})
	c := e2etest.Start(b, p)
	a := h.newAgent(b)
	set(b, c, a, true)
	tool := findTool(h, planmode.ExitToolName)
	input := planInput(b, goodPlan)
	cc := host.CallContext{Agent: a, CallID: "x1"}
	b.ReportAllocs()
	for b.Loop() {
		if out, err := tool.Execute(context.Background(), cc, input); err != nil || out != planmode.ExitResult {
			b.Fatal(out, err)
		}
	}
}

func TestSecondExitCallAfterApprovalIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		second host.Answer // what the user would answer to a second review
	}{
		{name: "the user would keep planning", second: keepPlanning("")},
		{name: "the user would give feedback", second: keepPlanning("no, drop step 2")},
		{name: "the user would approve again", second: approve()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newReviewFixture(t)
			must(f.a.StartTurn())
			f.h.runStep(f.a, accepted)
			f.p.QueueAnswers(approve())
			f.p.QueueAnswers(tt.second)
			if out, err := f.call(t, goodPlan); err != nil || out != planmode.ExitResult {
				t.Fatalf("first call = %q, %v; want approved", out, err)
			}
			out, err := f.call(t, "# Another plan\n\n1. Something else.\n")
			if !errors.Is(err, planmode.ErrExitDecided) {
				t.Fatalf("second call = %q, %v; want ErrExitDecided", out, err)
			}
			if got := f.asked(); got != 1 {
				t.Fatalf("the user was asked %d times, want once", got)
			}
			from := f.a.Session().Len()
			f.h.runStep(f.a, accepted)
			if got := modes(t, f.a.Session(), from); !slices.Equal(got, []bool{false}) {
				t.Fatalf("plan/mode after the batch = %v, want the approved exit [false]", got)
			}
		})
	}
}

func TestExitCallWhileAnotherReviewIsOpenIsRefused(t *testing.T) {
	asked := make(chan struct{})
	answer := make(chan []host.Answer)
	f := newExitFixture(t, questionsFunc(func(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
		asked <- struct{}{}
		return <-answer, nil
	}))
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	type result struct {
		out string
		err error
	}
	first := make(chan result, 1)
	go func() {
		out, err := f.tool(t).Execute(context.Background(), host.CallContext{Agent: f.a, CallID: "x1"}, planInput(t, goodPlan))
		first <- result{out, err}
	}()
	<-asked
	if out, err := f.tool(t).Execute(context.Background(), host.CallContext{Agent: f.a, CallID: "x2"}, planInput(t, goodPlan)); !errors.Is(err, planmode.ErrExitReviewOpen) {
		t.Fatalf("call during an open review = %q, %v; want ErrExitReviewOpen", out, err)
	}
	answer <- []host.Answer{keepPlanning("")}
	if r := <-first; !errors.Is(r.err, planmode.ErrKeepPlanning) {
		t.Fatalf("first call = %q, %v; want keep planning", r.out, r.err)
	}
	// The review is over: the next call is reviewed again.
	go func() { <-asked; answer <- []host.Answer{approve()} }()
	if out, err := f.tool(t).Execute(context.Background(), host.CallContext{Agent: f.a, CallID: "x3"}, planInput(t, goodPlan)); err != nil {
		t.Fatalf("call after the review ended = %q, %v; want approved", out, err)
	}
}
