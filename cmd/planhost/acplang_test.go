package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// TestACPFollowsTheLanguage runs "planhost acp" as the other front ends
// run: in the language of -lang, else of LC_ALL, LC_MESSAGES and LANG.
// The review's options are in that language's words.
func TestACPFollowsTheLanguage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want *present.Catalog
	}{
		{"LANG", nil, "zh_CN.UTF-8", present.Chinese},
		{"-lang over LANG", []string{"-lang", "en"}, "zh_CN.UTF-8", present.English},
		{"-lang", []string{"-lang", "zh"}, "C.UTF-8", present.Chinese},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script := writeScript(t, dir, "script.yaml", "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input:\n          plan: \"# Add Goodbye\\n\\n1. Add it.\\n\"\n  - text: Done.\n")
			env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "LANG": tt.env}
			r := startACPReview(t, env, mkdir(t, dir, "ws"), append([]string{"-model", "scripted:" + script}, tt.args...)...)
			w := tt.want.Review.Options[host.RoleApprove]
			want := fmt.Sprintf(tt.want.ACP.Option, w.Label, w.Description)
			var names []any
			for _, o := range r.Options() {
				names = append(names, o["name"])
			}
			if len(names) == 0 || names[0] != want {
				t.Errorf("options %v, want %q first", names, want)
			}
			r.answer("approve")
		})
	}
}
