package planmode_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.uber.org/fx"
	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/refhost/scripted"
)

// companionModel is a reference model of plan mode with the entry and
// review companions, written apart from the plugins: the
// logged state, the goals logged and the notices recorded. Consented
// entries and abandoned plans are silent: they never record a notice.
type companionModel struct {
	logged bool
	goals  int
}

// The user's answers the actions use.
func consentAnswer(ok bool) host.Answer {
	label := planentry.OptionDecline
	if ok {
		label = planentry.OptionEnter
	}
	return host.Answer{QuestionID: planentry.QuestionID, Selected: []string{label}}
}

func reviewAnswer(label, custom string) host.Answer {
	return host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{label}, Custom: custom}
}

// TestCompanionsMatchReferenceModel drives plan mode with plan-entry and
// plan-review on the reference host through random sequences of entries
// (consented or declined), reviews (approved, abandoned, kept planning) and
// the user's own switches, and compares the log with the model after each.
func TestCompanionsMatchReferenceModel(t *testing.T) {
	h := e2etest.New(t,
		fx.Supply(planentry.Config{}, planreview.Config{Options: []string{planreview.OptionAbandon, planreview.OptionApproveWithComments}}),
		planentry.Module, planreview.Module,
	)
	rapid.Check(t, func(rt *rapid.T) {
		a := h.Agent()
		m := &companionModel{}
		call := 0
		id := func() string { call++; return fmt.Sprintf("c%d", call) }
		// turn runs one prompt whose first step calls the tools; the
		// model's own actions never record a notice.
		turn := func(rt *rapid.T, answers []host.Answer, calls ...host.ToolCall) {
			before := planNotices(a)
			h.User.QueueAnswers(answers...)
			h.Model.Add(scripted.Step{ToolCalls: calls}, e2etest.Say("ok"))
			h.Prompt(a, "go")
			expect(rt, planNotices(a) == before, "a consented entry or a review recorded a notice")
		}
		actions := map[string]func(*rapid.T){
			"the model asks to enter plan mode": func(rt *rapid.T) {
				ok := rapid.Bool().Draw(rt, "consent")
				c := id()
				var answers []host.Answer
				if !m.logged {
					answers = []host.Answer{consentAnswer(ok)}
				}
				turn(rt, answers, toolCall(c, planentry.ToolName, `{"goal":"do the thing"}`))
				res := e2etest.Result(t, a, c)
				switch {
				case m.logged:
					expect(rt, res.IsError && strings.Contains(res.Output, "already in plan mode"), "entry while planning: %+v", res)
				case ok:
					expect(rt, !res.IsError, "consented entry: %+v", res)
					m.logged = true
					m.goals++
				default:
					expect(rt, !res.IsError && strings.Contains(res.Output, "declined"), "declined entry: %+v", res)
				}
			},
			"the model presents a plan": func(rt *rapid.T) {
				choice := rapid.SampledFrom([]string{planmode.ReviewApprove, planreview.LabelAbandon, planmode.ReviewKeepPlanning, planreview.LabelApproveWithComments}).Draw(rt, "choice")
				custom := ""
				if choice == planreview.LabelApproveWithComments {
					custom = rapid.SampledFrom([]string{"", "add tests"}).Draw(rt, "comments")
				}
				c := id()
				var answers []host.Answer
				if m.logged {
					answers = []host.Answer{reviewAnswer(choice, custom)}
				}
				turn(rt, answers, toolCall(c, planmode.ExitToolName, `{"plan":"# P\n\nsteps"}`))
				res := e2etest.Result(t, a, c)
				leaves := choice == planmode.ReviewApprove || choice == planreview.LabelAbandon ||
					(choice == planreview.LabelApproveWithComments && custom != "")
				switch {
				case !m.logged:
					expect(rt, res.IsError && strings.Contains(res.Output, "not in plan mode"), "exit outside plan mode: %+v", res)
				case leaves:
					expect(rt, !res.IsError, "%s: %+v", choice, res)
					expect(rt, (choice == planreview.LabelAbandon) == strings.Contains(res.Output, `"abandoned":true`), "%s: %s", choice, res.Output)
					m.logged = false
				default:
					expect(rt, res.IsError, "%s kept planning: %+v", choice, res)
				}
			},
			"the model enters and presents in one batch": func(rt *rapid.T) {
				// The entry is pending until the next step, so the exit in
				// the same batch finds the session not in plan mode yet.
				if m.logged {
					return // only from the default mode
				}
				e, x := id(), id()
				turn(rt, []host.Answer{consentAnswer(true)},
					toolCall(e, planentry.ToolName, `{"goal":"g"}`),
					toolCall(x, planmode.ExitToolName, `{"plan":"# P"}`))
				expect(rt, !e2etest.Result(t, a, e).IsError, "entry")
				expect(rt, e2etest.Result(t, a, x).IsError, "exit in the entry's batch succeeded")
				m.logged = true
				m.goals++
			},
			"the user switches while idle": func(rt *rapid.T) {
				on := rapid.Bool().Draw(rt, "on")
				if _, err := h.Plan.Set(a, on); err != nil {
					rt.Fatal(err)
				}
				m.logged = on
			},
			"": func(rt *rapid.T) {
				expect(rt, e2etest.Active(a) == m.logged, "logged state %v, model %v", e2etest.Active(a), m.logged)
				expect(rt, len(e2etest.Events(a, planentry.EventGoal)) == m.goals, "goals logged %d, model %d",
					len(e2etest.Events(a, planentry.EventGoal)), m.goals)
				st := h.Plan.Get(a)
				expect(rt, st.Active == m.logged && st.Pending == planmode.SelectionNone, "Get %+v, model %v", st, m.logged)
			},
		}
		// A few actions per check keep the test quick: each is a whole turn
		// on the reference host.
		check := actions[""]
		delete(actions, "")
		names := slices.Sorted(maps.Keys(actions))
		for range rapid.IntRange(1, 6).Draw(rt, "actions") {
			actions[rapid.SampledFrom(names).Draw(rt, "action")](rt)
			check(rt)
		}
	})
}

// planNotices counts the plan-mode notices in a's log.
func planNotices(a host.Agent) int {
	n := 0
	for _, e := range e2etest.Events(a, host.TypeUserMessage) {
		if e.Source != nil && e.Source.Plugin == planmode.PluginName {
			n++
		}
	}
	return n
}

func expect(t *rapid.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

func toolCall(id, name, input string) host.ToolCall {
	return host.ToolCall{ID: id, Name: name, Input: []byte(input)}
}
