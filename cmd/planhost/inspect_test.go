package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
)

func TestInspectGolden(t *testing.T) {
	tests := []struct {
		name string
		file string
		json bool
	}{
		{name: "the demo session", file: "demo.jsonl"},
		{name: "the demo session as JSON", file: "demo.jsonl", json: true},
		{name: "a /plan whose plan/mode never landed", file: "pending.jsonl"},
		{name: "a pending selection as JSON", file: "pending.jsonl", json: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join("testdata", "inspect", tt.file)
			before := readFile(t, file)
			args := []string{"inspect", file}
			golden := strings.TrimSuffix(tt.file, ".jsonl") + ".golden"
			if tt.json {
				args = []string{"inspect", "-json", file}
				golden = strings.TrimSuffix(tt.file, ".jsonl") + ".json.golden"
			}
			out, _ := mustMain(t, exitOK, "", args...)
			goldenFile(t, filepath.Join("inspect", golden), out)
			if tt.json {
				var ins inspect.Inspection
				if err := json.Unmarshal([]byte(out), &ins); err != nil {
					t.Errorf("output is not the inspection JSON: %v", err)
				}
			}
			after, err := os.ReadFile(file)
			if err != nil || string(after) != string(before) {
				t.Errorf("inspect changed %s", file)
			}
		})
	}
}

func TestInspectRejectsABadPayload(t *testing.T) {
	file := filepath.Join("testdata", "inspect", "badpayload.jsonl")
	_, errOut := mustMain(t, exitFailure, "", "inspect", file)
	if !strings.Contains(errOut, file+":1:") || !strings.Contains(errOut, `"yes"`) {
		t.Errorf("stderr = %q, want the file, line and bad value", errOut)
	}
}
