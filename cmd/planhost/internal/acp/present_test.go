package acp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/refhost/scripted"
)

// languages are the catalogs the client may be shown, by name.
var languages = []struct {
	name string
	cat  *present.Catalog
}{{"English", present.English}, {"Chinese", present.Chinese}}

// inLanguage is the connection option for cat's words.
func inLanguage(cat *present.Catalog) func(*acp.Config) {
	return func(c *acp.Config) { c.Catalog = cat }
}

// shownLine is a line of the presentation as the client gets it: Markdown
// that shows its text as it is.
func shownLine(s string) string { return mdview.Literal(safetext.Escape(s)) }

// modelPerMode answers with the scripted model under two names: "planner"
// in plan mode, "doer" otherwise, as planhost's -plan-model routes.
type modelPerMode struct {
	*scripted.Model
	plan *planmode.Controller
}

func (m *modelPerMode) ChooseModel(agent host.Agent) string {
	if m.plan.Get(agent).Active {
		return "planner"
	}
	return "doer"
}

// TestTheClientSeesTheReviewsOutcomeAndTheModelLines: over ACP the user
// sees what every front end shows of a reviewed plan and of a model per
// mode, in their language: the review's outcome ("Plan approved.") and a
// line each time another model answers, live and again on load.
func TestTheClientSeesTheReviewsOutcomeAndTheModelLines(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			cat := lang.cat
			m := &modelPerMode{Model: planSteps(scripted.Step{Text: "Done."})}
			h := newHostParts(t, newStore(t), m)
			m.plan = h.plan
			s := openSession(t, h, inLanguage(cat))
			s.planMode(approve)
			s.mustPrompt("Add a Goodbye function.")
			want := []string{
				shownLine(fmt.Sprintf(cat.Session.Model, "planner")),
				shownLine(fmt.Sprintf(cat.Session.Outcome, cat.Plans.Approved)),
				shownLine(fmt.Sprintf(cat.Session.Model, "doer")),
			}
			checkInOrder(t, "live", agentText(mustSnapshot(s.conn)), want)

			before := len(mustSnapshot(s.conn))
			s.load(s.id, s.dir)
			checkInOrder(t, "on load", agentText(mustSnapshot(s.conn)[before:]), want)
		})
	}
}

// TestTheClientSeesTheTurnEndError: a turn that failed ends with the line
// every front end shows for it, in the user's language, besides the
// prompt's error.
func TestTheClientSeesTheTurnEndError(t *testing.T) {
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			cat := lang.cat
			model := scripted.NewModel(scripted.Step{Err: errors.New("the upstream model is down")})
			s := openSession(t, newHostParts(t, newStore(t), model), inLanguage(cat))
			if _, err := s.prompt(s.id, "Hello."); err == nil {
				t.Fatal("the failed turn's prompt answered without an error")
			}
			var end host.TurnEnd
			for _, e := range s.open().Events().All() {
				if e.Type == host.TypeTurnEnd {
					if err := json.Unmarshal(e.Data, &end); err != nil {
						t.Fatal(err)
					}
				}
			}
			if end.Reason != host.TurnError || !strings.Contains(end.Error, "the upstream model is down") {
				t.Fatalf("turn end %+v, want an error", end)
			}
			reason, _, _ := strings.Cut(end.Error, "\n")
			want := shownLine(fmt.Sprintf(cat.Session.TurnEnded, end.Turn, cat.Session.TurnFailed+": "+reason))
			checkInOrder(t, "live", agentText(mustSnapshot(s.conn)), []string{want})
		})
	}
}

// checkInOrder fails unless text holds each of want, in order.
func checkInOrder(t *testing.T, what, text string, want []string) {
	t.Helper()
	rest := text
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%s: agent messages lack %q after the lines before it:\n%s", what, w, text)
			return
		}
		rest = rest[i+len(w):]
	}
}
