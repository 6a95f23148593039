package present_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planreview"
)

// TestPlanAskRefusesEveryWordOfTheReview: ask_user refuses a question
// worded as the plan review, in every place the review shows a word: the
// review request the exit tool and every companion put (header,
// question, option labels and descriptions), and what each front end shows
// of it in both catalogs (title, question, menu, ACP option names, the
// question asked again after a change, the outcome). plan-ask keeps its
// own list of the review's words; this test fails when the catalog or
// the exit tool words the review in a way the list does not cover.
func TestPlanAskRefusesEveryWordOfTheReview(t *testing.T) {
	const plan = "# Add retries\n\n1. Wrap the call.\n"
	h := e2etest.New(t,
		fx.Supply(planreview.Config{Options: []string{planreview.OptionApproveWithComments, planreview.OptionApproveAndClear, planreview.OptionAbandon}}),
		planreview.Module,
		fx.Supply(
			fx.Annotated{Group: planmode.ExitExtensionGroup, Target: approvewith.Extension("gpt-5")},
			fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()},
		),
	)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("done"))
	h.Prompt(a, "plan")
	reqs := h.User.Requests()
	if len(reqs) != 1 || reqs[0].Kind != host.AskReview || len(reqs[0].Questions[0].Options) < 7 {
		t.Fatalf("requests %+v", reqs)
	}
	req := reqs[0]
	q := req.Questions[0]
	words := []string{q.Header, q.Question}
	for _, o := range q.Options {
		words = append(words, o.Label, o.Description)
	}
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		shown := cat.Question(req, 0, a.Session().Events(), true)
		words = append(words, shown.Title, shown.Text, cat.PlanHeading(""), cat.Review.Changed,
			fmt.Sprintf(cat.Session.Outcome, cat.Plans.Approved))
		for _, ch := range shown.Menu {
			words = append(words, ch.Description, fmt.Sprintf(cat.ACP.Option, ch.Label, ch.Description))
			if ch.Action == present.Answer {
				words = append(words, ch.Label)
			}
			if ch.Option.Role == host.RoleKeepPlanning {
				words = append(words, cat.ACP.KeepPlanning, fmt.Sprintf(cat.ACP.Option, ch.Label, cat.ACP.KeepPlanning))
			}
		}
		for _, w := range cat.Review.Options {
			words = append(words, w.Label, w.Description, fmt.Sprintf(cat.ACP.Option, w.Label, w.Description))
		}
	}
	slices.Sort(words)
	for _, w := range slices.Compact(words) {
		for _, field := range []string{"header", "question", "label", "description"} {
			if field == "header" && len(w) > planask.MaxHeaderSize || field == "label" && len(w) > planask.MaxLabelSize {
				continue
			}
			t.Run(field+" "+w, func(t *testing.T) {
				fields := map[string]string{"header": "Storage", "question": "Where?", "label": "Here", "description": "there"}
				if _, err := planask.DecodeInput(input(fields)); err != nil {
					t.Fatalf("the plain question is refused: %v", err)
				}
				fields[field] = w
				if _, err := planask.DecodeInput(input(fields)); err == nil || !strings.Contains(err.Error(), "plan review's own words") {
					t.Errorf("a question with the %s %q is taken (error %v)", field, w, err)
				}
			})
		}
	}
}

// input is ask_user's input of one question with these fields, its second
// option a plain one.
func input(f map[string]string) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"header": f["header"], "question": f["question"], "options": []map[string]string{
			{"label": f["label"], "description": f["description"]}, {"label": "Elsewhere", "description": "d"}}}}})
	return data
}
