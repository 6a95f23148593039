package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planreview"
)

// TestTheDocsListEveryReviewOption: the options table of docs/acp.md and
// docs/acp.zh.md has a row for every option a plan review can be offered
// with over ACP (every plan-review option, a model per mode, Save plan and
// stop), with its ID, its name in that page's language and its kind.
func TestTheDocsListEveryReviewOption(t *testing.T) {
	h := e2etest.New(t,
		fx.Supply(planreview.Config{Options: []string{planreview.OptionApproveWithComments, planreview.OptionApproveAndClear, planreview.OptionAbandon}}),
		planreview.Module,
		fx.Supply(
			fx.Annotated{Group: planmode.ExitExtensionGroup, Target: approvewith.Extension("MODEL")},
			fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()},
		),
	)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": "# P\n\n1. Do it.\n"}), e2etest.Say("done"))
	h.Prompt(a, "plan")
	reqs := h.User.Requests()
	if len(reqs) != 1 || reqs[0].Kind != host.AskReview {
		t.Fatalf("review requests %+v", reqs)
	}
	for page, cat := range map[string]*present.Catalog{"acp.md": present.English, "acp.zh.md": present.Chinese} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]string{} // option ID (lower case) → its table row
		for _, line := range strings.Split(string(b), "\n") {
			if id, rest, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "` | "); ok && strings.HasPrefix(line, "| `") {
				rows[strings.ToLower(id)] = rest
			}
		}
		opts := acp.PermissionOptions(cat, reqs[0])
		if len(opts) < 6 {
			t.Fatalf("%s: only %d options offered: %+v", page, len(opts), opts)
		}
		for _, o := range opts {
			row, ok := rows[strings.ToLower(string(o.OptionId))]
			if !ok {
				t.Errorf("%s: no row for option %q (%s)", page, o.OptionId, o.Name)
				continue
			}
			if !strings.HasPrefix(row, o.Name+" | `"+string(o.Kind)+"`") {
				t.Errorf("%s: option %q is offered as %q, %s; the row reads %q", page, o.OptionId, o.Name, o.Kind, row)
			}
		}
	}
}
