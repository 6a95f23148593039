package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/plansteps"
)

// askData is a plan/ask payload of one question with the options given.
func askData(t *testing.T, header string, labels ...string) string {
	t.Helper()
	opts := make([]map[string]string, len(labels))
	for i, l := range labels {
		opts[i] = map[string]string{"label": l, "description": "d"}
	}
	b, err := json.Marshal(map[string]any{"callId": "c1", "questions": []map[string]any{
		{"id": "q1", "header": header, "question": "Which?", "options": opts},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportRunsEveryPayloadCheck: a session file whose event one of
// planhost's plugins refuses (plan-ask's questions, and a malformed
// payload of every plugin with a payload check) is refused by import into
// either store, naming the file, the line and the plugin, and nothing is
// stored; export refuses it too. What import accepts, run opens.
func TestImportRunsEveryPayloadCheck(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	sevenOptions := make([]string, planask.MaxOptions+1)
	for i := range sevenOptions {
		sevenOptions[i] = fmt.Sprintf("option %d", i+1)
	}
	tests := []struct {
		name, plugin, typ, data string
	}{
		{"an escape character in a plan/ask header", planask.PluginName, planask.EventAsk, askData(t, "a\x1b[2Jb", "yes", "no")},
		{"seven options in a plan/ask", planask.PluginName, planask.EventAsk, askData(t, "Pick", sevenOptions...)},
		{"a 1 MB label in a plan/ask", planask.PluginName, planask.EventAsk, askData(t, "Pick", strings.Repeat("x", 1<<20), "no")},
		{"a malformed plan/mode", planmode.PluginName, planmode.EventPlanMode, `{"active":"yes"}`},
		{"a malformed plan/file", planfile.PluginName, planfile.EventFile, `42`},
		{"a malformed plan/goal", planentry.PluginName, planentry.EventGoal, `42`},
		{"a malformed plan/answer", planask.PluginName, planask.EventAnswer, `42`},
		{"a malformed plan/policy", planreview.PluginName, planreview.EventPolicy, `42`},
		{"a malformed plan/steps", plansteps.PluginName, plansteps.EventSteps, `42`},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.plugin] = true
	}
	for name := range wiring.PayloadChecks() {
		if !covered[name] {
			t.Errorf("plugin %q has a payload check that no case here breaks: add one", name)
		}
	}
	for _, tt := range tests {
		data, err := json.Marshal(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		content := `{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n" +
			`{"seq":2,"type":` + string(data) + `,"time":"2025-01-02T03:04:05Z","data":` + tt.data + "}\n"
		for _, target := range []string{"file", "postgres", "export"} {
			t.Run(tt.name+" into "+target, func(t *testing.T) {
				dir := t.TempDir()
				file := filepath.Join(dir, "bad.jsonl")
				if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				sessions := filepath.Join(dir, "sessions")
				args := map[string][]string{
					"file":     {"import", "-sessions", sessions, file},
					"postgres": {"import", "-store", url, file},
					"export":   {"export", "-o", filepath.Join(dir, "out.jsonl"), file},
				}[target]
				_, errOut := mustMain(t, exitFailure, "", args...)
				want := []string{tt.plugin, ": event 2 "}
				if target != "export" {
					want = append(want, file+":2: ")
				}
				for _, w := range want {
					if !strings.Contains(errOut, w) {
						t.Errorf("stderr = %q, want %q", errOut, w)
					}
				}
				switch target {
				case "postgres":
					p2, _, errOut2, _ := testProgram(t, "")
					if code := p2.main([]string{"inspect", "-store", url, "bad"}); code != exitUsage || !strings.Contains(errOut2.String(), "not found") {
						t.Errorf("after a refused import, inspect: exit %d, %q", code, errOut2)
					}
				case "file":
					if entries, _ := os.ReadDir(sessions); len(entries) != 0 {
						t.Errorf("the refused import left %v in the sessions directory", entries)
					}
				case "export":
					if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil {
						t.Errorf("the refused export wrote its file")
					}
				}
			})
		}
	}
}

// TestTransferNamesARefusedEventOnce: the error of an event a payload
// check refuses is the file, the line and the plugin's own words (which
// name the plugin and the event), each said once, for import into either
// store, export and inspect.
func TestTransferNamesARefusedEventOnce(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.jsonl")
	content := `{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n" +
		`{"seq":2,"type":"plan/goal","time":"2025-01-02T03:04:05Z","data":42}` + "\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	refusal := wiring.PayloadChecks()[planentry.PluginName](host.Event{Seq: 2, Type: planentry.EventGoal, Data: json.RawMessage(`42`)})
	if refusal == nil {
		t.Fatal("the plan-entry check accepts a plan/goal of 42")
	}
	tests := []struct {
		name string
		args []string
	}{
		{"import into files", []string{"import", "-sessions", filepath.Join(dir, "sessions"), file}},
		{"import into postgres", []string{"import", "-store", url, file}},
		{"export", []string{"export", "-o", filepath.Join(dir, "out.jsonl"), file}},
		{"inspect", []string{"inspect", file}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut := mustMain(t, exitFailure, "", tt.args...)
			if want := "planhost " + tt.args[0] + ": " + file + ":2: " + refusal.Error() + "\n"; errOut != want {
				t.Errorf("stderr =\n%q\nwant\n%q", errOut, want)
			}
		})
	}
}
