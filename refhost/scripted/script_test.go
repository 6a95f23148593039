package scripted_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
)

// wantStep is a step in the fixtures' expected form.
type wantStep struct {
	Text      string          `json:"text,omitempty"`
	Reasoning string          `json:"reasoning,omitempty"`
	ToolCalls []host.ToolCall `json:"toolCalls,omitempty"`
	Error     string          `json:"error,omitempty"`
	Block     bool            `json:"block,omitempty"`
}

func normalize(steps []scripted.Step) []wantStep {
	out := make([]wantStep, len(steps))
	for i, s := range steps {
		out[i] = wantStep{Text: s.Text, Reasoning: s.Reasoning, ToolCalls: s.ToolCalls, Block: s.Block}
		if s.Err != nil {
			out[i].Error = s.Err.Error()
		}
	}
	return out
}

// The fixtures hold a script, a separator line "==== want" or
// "==== want error", then the expected steps as JSON or an error substring.
func TestParseScriptFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/scripts/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			script, want, ok := bytes.Cut(data, []byte("==== want"))
			if !ok {
				t.Fatal("no ==== want separator")
			}
			header, body, _ := bytes.Cut(want, []byte("\n"))
			body = bytes.TrimSpace(body)
			steps, err := scripted.ParseScript(script)
			if string(header) == " error" {
				if err == nil {
					t.Fatalf("no error, want one containing %q", body)
				}
				if !strings.Contains(err.Error(), string(body)) {
					t.Errorf("err = %q, want it to contain %q", err, body)
				}
				if !bytes.HasPrefix(body, []byte("yaml:")) && !errors.Is(err, scripted.ErrBadScript) {
					t.Errorf("err = %v, want ErrBadScript", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(normalize(steps))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(body) {
				t.Errorf("steps:\n got %s\nwant %s", got, body)
			}
		})
	}
}

func FuzzParseScript(f *testing.F) {
	files, _ := filepath.Glob("testdata/scripts/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		script, _, _ := bytes.Cut(data, []byte("==== want"))
		f.Add(script)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, err := scripted.ParseScript(data)
		if err != nil {
			return
		}
		for i, s := range steps {
			kinds := 0
			for _, set := range []bool{s.Text != "" || len(s.ToolCalls) > 0, s.Err != nil, s.Block} {
				if set {
					kinds++
				}
			}
			if kinds > 1 {
				t.Errorf("step %d mixes kinds: %+v", i+1, s)
			}
			for _, c := range s.ToolCalls {
				if c.ID == "" || c.Name == "" || !json.Valid(c.Input) {
					t.Errorf("step %d: bad call %+v", i+1, c)
				}
			}
		}
	})
}

func TestLoadScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("steps:\n  - text: hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if steps, err := scripted.LoadScript(path); err != nil || len(steps) != 1 || steps[0].Text != "hi" {
		t.Errorf("got %+v, %v", steps, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("steps: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := scripted.LoadScript(bad); !errors.Is(err, scripted.ErrBadScript) || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("bad script: err = %v, want ErrBadScript naming the file", err)
	}
	if _, err := scripted.LoadScript(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}
