package planfile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/planmd"
)

// ExitOrder places the plugin's exit extension first among the companions:
// later extensions see the plan the file holds.
const ExitOrder = 10

// extension is the plugin's part in exit_plan_mode: "plan" becomes
// optional, the review shows the plan file, a change of the file during the
// review is seen (Reread) so that the user is asked again, and an approval
// writes the user's edit, if any, to the file and logs plan/approved.
func (pl *Plugin) extension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:         PluginName,
		Order:        ExitOrder,
		PlanOptional: true,
		TakesEdits:   true,
		ResultProperties: map[string]json.RawMessage{
			ResultEdited: json.RawMessage(schemaEdited),
			resultPlan:   json.RawMessage(schemaPlan),
			ResultPath:   json.RawMessage(schemaPath),
		},
		Prepare: pl.prepare,
		Reread:  pl.reread,
		Finish:  pl.finish,
		Reopen:  pl.reopen,
	}
}

// reopen seeds the plan file with a plan the user reopened as the working
// draft, replacing what the file held: the model revises it there.
func (pl *Plugin) reopen(ctx context.Context, agent host.Agent, plan string) (bool, error) {
	sess := agent.Session()
	pl.serve(ctx, sess)
	if err := pl.write(ctx, sess, plan); err != nil {
		return false, fmt.Errorf(textFileError, err)
	}
	return true, nil
}

// prepare writes a given plan to the file first, then presents the file's
// content: the review always shows the file.
func (pl *Plugin) prepare(ctx context.Context, x *planmode.ExitCall) error {
	sess := x.Agent.Session()
	pl.serve(ctx, sess)
	if x.PlanGiven {
		if err := pl.write(ctx, sess, x.Plan); err != nil {
			return fmt.Errorf(textFileError, err)
		}
	}
	doc, err := pl.store.Read(ctx, sess.ID())
	if err != nil {
		return fmt.Errorf(textFileError, err)
	}
	if strings.TrimSpace(doc.Content) == "" {
		return fmt.Errorf(textNoPlanFile, pl.store.Path(sess.ID()))
	}
	x.Plan = doc.Content
	return nil
}

// reread presents the file's content as it is now, whatever plan the
// extensions before it present: a change of the file since it was shown
// makes the core ask the user again.
func (pl *Plugin) reread(ctx context.Context, x *planmode.ExitCall, _ string) (string, error) {
	doc, err := pl.store.Read(ctx, x.Agent.Session().ID())
	if err != nil {
		return "", fmt.Errorf(textFileError, err)
	}
	return doc.Content, nil
}

// finish, for an approval, writes the user's edit of the plan (made in
// this review and carried in the answer) to the file and reports it; a
// plan approved as shown is reported unedited, whatever any other writer
// did. It logs plan/approved with the digest of the text shown. An
// abandoned plan logs nothing. For a call without "plan", the result of
// either holds the plan's text (the file's as shown, or the user's edit).
func (pl *Plugin) finish(ctx context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if !x.PlanGiven {
		// The call named no plan: the result records the text the review
		// settled on, so that the log holds it ([planmode.Plans]).
		x.Result[resultPlan] = x.Plan
	}
	if v.Kind != planmode.VerdictApprove {
		return nil
	}
	sess := x.Agent.Session()
	edited := x.Edited != ""
	if edited {
		if err := pl.write(ctx, sess, x.Edited); err != nil {
			return fmt.Errorf(textEditNotSaved, err)
		}
		x.Result[resultPlan] = x.Edited
	}
	x.Result[ResultPath] = pl.store.Path(sess.ID())
	x.Result[ResultEdited] = edited
	shown, _ := strings.CutPrefix(x.ShownDigest, host.DigestPrefix)
	data, err := json.Marshal(ApprovedPayload{Title: title(x.Plan), SHA256: Digest(x.Plan), Content: x.Plan, ShownSHA256: shown})
	if err != nil {
		return err
	}
	if _, err := host.Append(ctx, sess, host.Event{Type: EventApproved, Data: data}); err != nil {
		return fmt.Errorf("%s: log %s: %w", PluginName, EventApproved, err)
	}
	return nil
}

// title is the plan's title, the one every front end shows (see
// planmd.Title); "Plan" when it has no heading.
func title(plan string) string {
	if t := planmd.Title(plan); t != "" {
		return t
	}
	return titleDefault
}
