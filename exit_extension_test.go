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
	"github.com/dshgo/planmode/refhost"
)

// exec runs the fixture's exit tool with a raw input.
func (f *exitFixture) exec(t *testing.T, input string) (string, error) {
	t.Helper()
	return f.hostCall(t, json.RawMessage(input))
}

const abandonLabel = "Abandon"

// abandonExtension offers an extra option that abandons the plan.
func abandonExtension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:    "abandon",
		Options: []host.Option{{Label: abandonLabel}},
		Decide: func(_ *planmode.ExitCall, answers []host.Answer) (planmode.ExitVerdict, bool) {
			if len(answers) == 1 && slices.Equal(answers[0].Selected, []string{abandonLabel}) {
				return planmode.ExitVerdict{Kind: planmode.VerdictAbandon, Option: abandonLabel}, true
			}
			return planmode.ExitVerdict{}, false
		},
	}
}

func TestExitExtensionsAddInputAndResultPropertiesToTheSchemas(t *testing.T) {
	f := newReviewFixture(t, planmode.ExitExtension{
		Name:             "steps",
		Properties:       map[string]json.RawMessage{"steps": json.RawMessage(`{"type":"array"}`)},
		ResultProperties: map[string]json.RawMessage{"steps": json.RawMessage(`{"type":"integer"}`)},
	})
	def := f.tool(t).Definition()
	var in, out struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(def.InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(def.OutputSchema, &out); err != nil {
		t.Fatal(err)
	}
	if in.Properties["plan"] == nil || in.Properties["steps"] == nil || !slices.Equal(in.Required, []string{"plan"}) {
		t.Fatalf("input schema = %s", def.InputSchema)
	}
	if out.Properties["approved"] == nil || out.Properties["steps"] == nil {
		t.Fatalf("output schema = %s", def.OutputSchema)
	}
	if !slices.Equal(def.InputSchema, f.tool(t).Definition().InputSchema) {
		t.Fatal("the definition changed between calls")
	}
}

func TestExitExtensionPropertiesAreAcceptedAndUnknownFieldsStillRefused(t *testing.T) {
	var seen json.RawMessage
	f := newReviewFixture(t, planmode.ExitExtension{
		Name:       "steps",
		Properties: map[string]json.RawMessage{"steps": json.RawMessage(`{"type":"array"}`)},
		Prepare: func(_ context.Context, x *planmode.ExitCall) error {
			seen = x.Input["steps"]
			return nil
		},
		Finish: func(_ context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
			x.Result["steps"] = 2
			return nil
		},
	})
	_, err := f.exec(t, `{"plan":"# T\n","steps":[1,2],"bogus":1}`)
	if err == nil || !strings.Contains(err.Error(), `unknown fields "bogus"`) || f.asked() != 0 {
		t.Fatalf("Execute with an unknown field = %v (asked %d), want the unknown field named before review", err, f.asked())
	}
	f.p.QueueAnswers(approve())
	out, err := f.exec(t, `{"plan":"# T\n","steps":[1,2]}`)
	if err != nil || string(seen) != "[1,2]" {
		t.Fatalf("Execute = %q, %v; Prepare saw %s", out, err, seen)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["approved"] != true || res["steps"] != float64(2) {
		t.Fatalf("result = %s, want approved with the extension's field", out)
	}
}

func TestExitExtensionSuppliesAnOmittedPlanAndTheHeadingCheckStillApplies(t *testing.T) {
	var file string
	f := newReviewFixture(t, planmode.ExitExtension{
		Name:         "file",
		PlanOptional: true,
		Prepare: func(_ context.Context, x *planmode.ExitCall) error {
			if x.PlanGiven {
				file = x.Plan
			}
			x.Plan = file
			return nil
		},
	})
	if _, err := f.exec(t, `{}`); !errors.Is(err, planmode.ErrExitNoHeading) {
		t.Fatalf("Execute with an empty plan file = %v, want the heading error", err)
	}
	if _, err := f.exec(t, `{"plan":null}`); err == nil || f.asked() != 0 {
		t.Fatalf("Execute with a null plan = %v, want a bad-input error", err)
	}
	f.p.QueueAnswers(keepPlanning("shorter"))
	if _, err := f.exec(t, `{"plan":"# From the model\n"}`); err == nil {
		t.Fatal("keep planning succeeded")
	}
	f.p.QueueAnswers(approve())
	if out, err := f.exec(t, `{}`); err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute from the file = %q, %v", out, err)
	}
	reqs := f.p.Requests()
	if got := reqs[len(reqs)-1].Questions[0].Detail; got != "# From the model\n" {
		t.Fatalf("the review showed %q, want the file's plan", got)
	}
}

func TestExitExtensionOptionsAreOfferedBetweenApproveAndKeepPlanning(t *testing.T) {
	f := newReviewFixture(t, abandonExtension())
	withHeader(f.h, f.a)
	must(f.a.StartTurn())
	f.h.runStep(f.a, accepted)
	f.p.QueueAnswers(host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{abandonLabel}})
	out, err := f.call(t, goodPlan)
	if err != nil || out != `{"abandoned":true,"approved":false}` {
		t.Fatalf("Execute = %q, %v; want the abandoned result", out, err)
	}
	var labels []string
	for _, o := range f.p.Requests()[0].Questions[0].Options {
		labels = append(labels, o.Label)
	}
	if want := []string{planmode.ReviewApprove, abandonLabel, planmode.ReviewKeepPlanning}; !slices.Equal(labels, want) {
		t.Fatalf("options = %v, want %v", labels, want)
	}
	f.wantSilentExit(t)
	card := f.tool(t).(host.Presenter).PresentResult(planInput(t, goodPlan), out, false)
	if card.Title != planmode.CardTitleAbandoned {
		t.Fatalf("result card = %+v, want the abandoned card", card)
	}
}

func TestExitExtensionsDoNotChangeTheConsentRuleForUnhandledAnswers(t *testing.T) {
	f := newReviewFixture(t, abandonExtension())
	f.p.QueueAnswers(host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewApprove, abandonLabel}})
	if _, err := f.call(t, goodPlan); !errors.Is(err, planmode.ErrKeepPlanning) {
		t.Fatalf("two selections = %v, want keep planning", err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
}

func TestExitExtensionFinishErrorKeepsPlanMode(t *testing.T) {
	boom := errors.New("the plan file changed under the review")
	f := newReviewFixture(t, planmode.ExitExtension{
		Name:   "file",
		Finish: func(context.Context, *planmode.ExitCall, planmode.ExitVerdict) error { return boom },
	})
	f.p.QueueAnswers(approve())
	if _, err := f.call(t, goodPlan); !errors.Is(err, boom) {
		t.Fatalf("Execute = %v, want the Finish error", err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true})
}

func TestExitExtensionDecidesAReviewWithNoUserAttached(t *testing.T) {
	f := newExitFixture(t, &refhost.Questions{}, planmode.ExitExtension{
		Name: "headless",
		Unattended: func(context.Context, *planmode.ExitCall) (planmode.ExitVerdict, bool) {
			return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: "policy"}, true
		},
	})
	if out, err := f.call(t, goodPlan); err != nil || out != planmode.ExitResult {
		t.Fatalf("Execute = %q, %v; want the policy's approval", out, err)
	}
	wantState(t, f.c, f.a, planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true})

	g := newExitFixture(t, &refhost.Questions{}, abandonExtension())
	if _, err := g.call(t, goodPlan); !errors.Is(err, host.ErrNoProvider) {
		t.Fatalf("Execute without a policy = %v, want the core's no-provider failure", err)
	}
}

func TestNewRefusesInconsistentExitExtensions(t *testing.T) {
	prop := map[string]json.RawMessage{"steps": json.RawMessage(`{}`)}
	tests := []struct {
		name string
		give []planmode.ExitExtension
		want string
	}{
		{name: "no name", give: []planmode.ExitExtension{{}}, want: "has no name"},
		{name: "a name twice", give: []planmode.ExitExtension{{Name: "a"}, {Name: "a"}}, want: `"a" is supplied twice`},
		{name: "the plan property", give: []planmode.ExitExtension{{Name: "a", Properties: map[string]json.RawMessage{"plan": nil}}}, want: `"plan" is already plan-mode's`},
		{name: "a property twice", give: []planmode.ExitExtension{{Name: "a", Properties: prop}, {Name: "b", Properties: prop}}, want: `"steps" is already a's`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeHost().params(nil)
			p.ExitExtensions = tt.give
			_, err := planmode.New(p)
			if !errors.Is(err, planmode.ErrBadExtension) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want ErrBadExtension naming %q", err, tt.want)
			}
		})
	}
}

func TestEnterQueuesASilentEntryForTheNextAcceptedStep(t *testing.T) {
	h, c, a := startAgent(t)
	openTurnAfterHeader(h, a)
	h.runStep(a, accepted)
	if err := c.Enter(a); err != nil {
		t.Fatal(err)
	}
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	if err := c.Enter(a); !errors.Is(err, planmode.ErrPlanMode) {
		t.Fatalf("a second Enter = %v, want ErrPlanMode", err)
	}
	h.runStep(a, rejected)
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	from := a.Session().Len()
	d := h.runStep(a, accepted)
	if got := modes(t, a.Session(), from); !slices.Equal(got, []bool{true}) || len(d.Messages) != 0 || len(notices(t, a.Session(), 0)) != 0 {
		t.Fatalf("plan/mode %v, messages %v: want a silent entry", got, d.Messages)
	}
	if err := c.Enter(a); !errors.Is(err, planmode.ErrPlanMode) {
		t.Fatalf("Enter in plan mode = %v, want ErrPlanMode", err)
	}
	if err := c.Enter(nil); !errors.Is(err, planmode.ErrNoAgent) {
		t.Fatalf("Enter(nil) = %v, want ErrNoAgent", err)
	}
}
