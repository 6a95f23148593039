package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/saveplan"
)

// TestACPSaveIsNoApproval protects "Save plan and stop" over ACP: the
// review's permission request offers it as a reject_once option (it
// approves nothing), named like every other option ("label:
// description", in the catalog's words), and choosing it saves the plan
// and leaves plan mode.
func TestACPSaveIsNoApproval(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", `steps:
  - toolCalls:
      - name: exit_plan_mode
        input:
          plan: |
            # Add Goodbye

            1. Add it.
  - text: Stopped.
`)
	r := startACPReview(t, map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state")}, mkdir(t, dir, "ws"), "-model", "scripted:"+script)
	w := present.English.Review.Options[host.RoleSave]
	// reject_once: it approves nothing.
	r.answer(r.option(fmt.Sprintf(present.English.ACP.Option, w.Label, w.Description), "reject_once"))
	res2 := exitResults(t, sessionEvents(t, filepath.Join(dir, "state", wiring.AppDir)))
	if len(res2) != 1 || res2[0].IsError || !saveplan.Saved(res2[0].Output) {
		t.Errorf("exit results %+v", res2)
	}
}
