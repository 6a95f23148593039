package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/present"
)

// TestEmptyCommentsNeverApprove: in the line console, an empty line for
// Approve with comments is refused, not taken as an approval without
// comments; the comments typed next approve.
func TestEmptyCommentsNeverApprove(t *testing.T) {
	dir := newRunDir(t)
	p, stdout, stderr, _ := testProgram(t, "/plan Add Goodbye\nw\n\nLooks fine.\n") // w: Approve with comments
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "typing.yaml"), "-config", planFileDeploy(t, dir))
	if code := p.main(args); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), present.English.Review.CommentsNeeded) {
		t.Errorf("the empty comments were not refused:\n%s", stdout)
	}
	out := exitResult(t, dir)
	if out["approved"] != true || !strings.Contains(fmt.Sprint(out), "Looks fine.") {
		t.Errorf("result = %v, want the approval with the comments", out)
	}
}
