package planfile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// ExitOrder places the plugin's exit extension first among the companions:
// later extensions see the plan the file holds.
const ExitOrder = 10

// extension is the plugin's part in exit_plan_mode: "plan" becomes
// optional, the review shows the plan file, and an approval takes the file
// as the user left it and logs plan/approved.
func (pl *Plugin) extension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:         PluginName,
		Order:        ExitOrder,
		PlanOptional: true,
		ResultProperties: map[string]json.RawMessage{
			resultEdited: json.RawMessage(schemaEdited),
			resultPlan:   json.RawMessage(schemaPlan),
			resultPath:   json.RawMessage(schemaPath),
		},
		Prepare: pl.prepare,
		Finish:  pl.finish,
	}
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

// finish, for an approval, reads the file again: the approved plan is the
// file's content now, which differs from what was presented when the user
// edited it during the review. It logs plan/approved. An abandoned plan
// logs nothing.
func (pl *Plugin) finish(ctx context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if v.Kind != planmode.VerdictApprove {
		return nil
	}
	sess := x.Agent.Session()
	doc, err := pl.store.Read(ctx, sess.ID())
	if err != nil {
		return fmt.Errorf(textFileError, err)
	}
	edited := doc.Content != x.Plan
	x.Result[resultPath] = pl.store.Path(sess.ID())
	x.Result[resultEdited] = edited
	if edited {
		x.Plan = doc.Content
		x.Result[resultPlan] = doc.Content
	}
	data, err := json.Marshal(ApprovedPayload{Title: Title(x.Plan), SHA256: Digest(x.Plan), Content: x.Plan})
	if err != nil {
		return err
	}
	if _, err := sess.Append(host.Event{Type: EventApproved, Data: data}); err != nil {
		return fmt.Errorf("%s: log %s: %w", PluginName, EventApproved, err)
	}
	return nil
}

// Title returns the text of a plan's first Markdown heading (any level)
// outside fenced code blocks; "Plan" when there is none.
func Title(plan string) string {
	fence := ""
	for line := range strings.Lines(plan) {
		line = strings.TrimRight(line, "\r\n")
		body := strings.TrimLeft(line, " ")
		if len(line)-len(body) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(body, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~") {
			fence = body[:3]
			continue
		}
		n := 0
		for n < len(body) && body[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || (n < len(body) && body[n] != ' ' && body[n] != '\t') {
			continue
		}
		if t := strings.TrimSpace(body[n:]); t != "" {
			return t
		}
	}
	return titleDefault
}
