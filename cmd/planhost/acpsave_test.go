package main

import (
	"fmt"
	"os"
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
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state")}
	r := startACPReview(t, []string{"acp", "-model", "scripted:" + script}, env, ws)
	w := present.English.Review.Options[host.RoleSave]
	var saveID string
	for _, o := range r.Options() {
		if o["name"] == fmt.Sprintf(present.English.ACP.Option, w.Label, w.Description) {
			saveID, _ = o["optionId"].(string)
			if o["kind"] != "reject_once" {
				t.Errorf("the save option is %v, want reject_once: it approves nothing", o["kind"])
			}
		}
	}
	if saveID == "" {
		t.Fatalf("no save option in %v", r.Options())
	}
	r.answer(saveID)
	res2 := exitResults(t, sessionEvents(t, filepath.Join(dir, "state", wiring.AppDir)))
	if len(res2) != 1 || res2[0].IsError || !saveplan.Saved(res2[0].Output) {
		t.Errorf("exit results %+v", res2)
	}
}
