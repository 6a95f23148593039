package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/refhost/scripted"
)

// demoPaths matches the temporary demo directory in the output.
var demoPaths = regexp.MustCompile(`/\S*` + demoDirPattern + `[^/\s]*(/plans/[0-9a-f]+)?`)

func TestDemoEntrySceneGolden(t *testing.T) {
	p, out, errOut, _ := testProgram(t, "")
	if code := p.main([]string{"demo", "-scene", "entry", "-keep"}); code != exitOK {
		t.Fatalf("exit code = %d\nstderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	got := mask(out.String())
	goldenFile(t, "demo-entry.golden", demoPaths.ReplaceAllString(got, "<DIR>"))
	if errOut.String() != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out.String()), "session file: ")
	ws := filepath.Join(filepath.Dir(filepath.Dir(file)), demoWorkspaceDir)
	b, err := os.ReadFile(filepath.Join(ws, "README.md"))
	if err != nil || !strings.Contains(string(b), "Goodbye") {
		t.Errorf("README after the scene: %v\n%s", err, b)
	}
	for _, want := range []string{`"write_file" was not run`, "[user] Enter plan mode", "Approve with comments"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestDemoRejectsAnUnknownScene(t *testing.T) {
	p, _, errOut, _ := testProgram(t, "")
	if code := p.main([]string{"demo", "-scene", "nope"}); code != exitUsage || !strings.Contains(errOut.String(), `unknown scene "nope"`) {
		t.Fatalf("exit code = %d, stderr %q", code, errOut)
	}
}

func TestDemoEntryInputsAreValid(t *testing.T) {
	if _, err := scripted.ParseScript(entryScript); err != nil {
		t.Errorf("script: %v", err)
	}
	story, err := parseEntryStory(entryStoryYAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(story.Entries) != 1 || len(story.Reviews) != 1 || story.Reviews[0].Feedback == "" {
		t.Errorf("story %+v; want one consent and one approval with comments", story)
	}
}
