package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/internal/present"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample runs the example against its fake endpoint, in both
// languages: the plan is shown and approved, and the agent finishes in
// the default mode.
func TestExample(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		var out bytes.Buffer
		err := run(context.Background(), &out, cat, "", "fake-model", filepath.Join(t.TempDir(), "sessions"))
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		for _, want := range []string{"Add --verbose", "1. Add the flag in main.go.", "> a", replyDone} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output has no %q:\n%s", want, out.String())
			}
		}
		if strings.Contains(out.String(), replyStillPlanning) {
			t.Errorf("the model was still in plan mode after the approval:\n%s", out.String())
		}
	}
}
