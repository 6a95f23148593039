//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package planfile_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planfile"
)

// FuzzCheck: content is accepted exactly when it is UTF-8 without NUL and
// within the limit.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"# Plan", "", "a\x00b", "\xff", strings.Repeat("x", 2000), "# 計畫"} {
		f.Add(s)
	}
	s, err := planfile.NewStore("/nonexistent/plans", 1024)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		want := utf8.ValidString(content) && !strings.Contains(content, "\x00") && len(content) <= 1024
		if got := s.Check(content) == nil; got != want {
			t.Fatalf("Check(%q) accepted = %v, want %v", content, got, want)
		}
	})
}

// FuzzCheckPayload: the payload check never panics, and a plan/approved
// it accepts holds a content whose digest it records.
func FuzzCheckPayload(f *testing.F) {
	good, _ := json.Marshal(planfile.ApprovedPayload{Title: "T", SHA256: planfile.Digest("x"), Content: "x"})
	shown, _ := json.Marshal(planfile.ApprovedPayload{Title: "T", SHA256: planfile.Digest("x"), Content: "x", ShownSHA256: planfile.Digest("y")})
	for _, s := range []string{string(good), string(shown), `{}`, `{"session":"s"}`, `null`, `[]`, `{"title":1}`, `{"title":"T","sha256":"","content":"","shownSha256":7}`} {
		f.Add(planfile.EventApproved, s)
		f.Add(planfile.EventFile, s)
	}
	f.Fuzz(func(t *testing.T, typ, data string) {
		e := host.Event{Type: typ, Data: json.RawMessage(data)}
		if planfile.CheckPayload(e) != nil || typ != planfile.EventApproved {
			return
		}
		var p planfile.ApprovedPayload
		if err := json.Unmarshal(e.Data, &p); err != nil || p.Title == "" || p.SHA256 != planfile.Digest(p.Content) {
			t.Fatalf("accepted %s: %+v %v", data, p, err)
		}
	})
}

// FuzzDecodeConfig: decoding never panics, and an accepted config is valid.
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range []string{"dir: plans", "dir: /p\nmax_bytes: 2048", "dir: 3", "max_bytes: [1]", "{", "- a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(src), &n) != nil {
			return
		}
		cfg, err := planfile.DecodeConfig("/etc/deploy.yaml", &n)
		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("decoded %+v from %q, which does not validate: %v", cfg, src, verr)
			}
		}
	})
}

// TestTitleIsThePlansTitle: the logged title is the one every front end
// shows (planmd.Title), "Plan" without a heading.
func TestTitleIsThePlansTitle(t *testing.T) {
	for give, want := range map[string]string{
		"# Add retries #\n":             "Add retries",
		"Add retries\n===\n":            "Add retries",
		"1. a\n   # Inner\n\n## Goal\n": "Goal",
		"```\n# not\n```\n## B":         "B",
		"    # code":                    "Plan",
		"":                              "Plan",
	} {
		if got := planfile.Title(give); got != want {
			t.Errorf("Title(%q) = %q, want %q", give, got, want)
		}
	}
}

// FuzzTitle: a title is never empty.
func FuzzTitle(f *testing.F) {
	for _, s := range []string{"# A", "```\n# not\n```\n## B", "", "#", "    # code"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, plan string) {
		if planfile.Title(plan) == "" {
			t.Fatalf("empty title for %q", plan)
		}
	})
}
