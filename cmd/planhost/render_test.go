package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
)

func TestArgSummary(t *testing.T) {
	tests := []struct {
		name string
		give string
		want string
	}{
		{name: "keys in order, short strings quoted", give: `{"path":"a.go","mode":"x"}`, want: `mode: "x", path: "a.go"`},
		{name: "a multi-line string shows its size", give: `{"content":"a\nb","path":"f"}`, want: `content: 3 bytes, path: "f"`},
		{name: "a long string shows its size", give: `{"pattern":"` + strings.Repeat("x", 61) + `"}`, want: "pattern: 61 bytes"},
		{name: "other values as compact JSON", give: `{"recursive":true,"n":3,"o":{"a":[1,2]}}`, want: `n: 3, o: {"a":[1,2]}, recursive: true`},
		{name: "a long JSON value is clipped", give: `{"list":[` + strings.Repeat("1,", 30) + `1]}`, want: "list: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,…"},
		{name: "no arguments", give: `{}`, want: ""},
		{name: "not an object", give: "[1,\n 2]", want: "[1,2]"},
		{name: "not JSON", give: "{\n", want: "{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := argSummary(json.RawMessage(tt.give)); got != tt.want {
				t.Errorf("argSummary(%s) = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestResultSummary(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		isError bool
		want    string
	}{
		{name: "one line", give: "wrote 3 bytes to a", want: "wrote 3 bytes to a"},
		{name: "several lines", give: "a\nb\nc\n", want: fmt.Sprintf(resultLines, "a", 2)},
		{name: "an error drops the host's prefix", give: "Error: no such file\nmore", isError: true, want: fmt.Sprintf(resultError, "no such file")},
		{name: "a long line is clipped", give: strings.Repeat("é", 120), want: strings.Repeat("é", 99) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resultSummary(tt.give, tt.isError); got != tt.want {
				t.Errorf("resultSummary = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOptionKeys(t *testing.T) {
	opts := func(labels ...string) host.Question {
		var q host.Question
		for _, l := range labels {
			q.Options = append(q.Options, host.Option{Label: l})
		}
		return q
	}
	tests := []struct {
		name string
		give host.Question
		edit bool
		want []string
	}{
		{name: "distinct first letters", give: opts("Approve", "Keep planning"), want: []string{"a", "k", "d"}},
		{name: "a repeated first letter numbers them", give: opts("Yes", "yes please"), want: []string{"1", "2", "d"}},
		{name: "a first letter taken by dismiss numbers them", give: opts("Delete", "Keep"), want: []string{"1", "2", "d"}},
		{name: "no options leaves dismiss", give: opts(), want: []string{"d"}},
		{name: "a plan review has edit before dismiss", give: opts("Approve", "Keep planning"), edit: true, want: []string{"a", "k", "e", "d"}},
		{name: "a first letter taken by edit numbers them", give: opts("Approve", "Explain"), edit: true, want: []string{"1", "2", "e", "d"}},
		{name: "edit is no key outside a plan review", give: opts("Approve", "Explain"), want: []string{"a", "e", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := optionKeys(tt.give, tt.edit); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("optionKeys = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzArgSummary: whatever arguments a model sends, a tool call takes one
// line.
func FuzzArgSummary(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"b\nc"}`, `{"a":[1,{"b":null}]}`, `"x"`, `{`, "{\"a\":\"\u2028\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		got := argSummary(json.RawMessage(input))
		if strings.Contains(got, "\n") {
			t.Fatalf("argSummary(%q) = %q spans lines", input, got)
		}
	})
}

// FuzzResultSummary: whatever a tool returns, its result takes one line.
func FuzzResultSummary(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", "Error: x\ny", "\n\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, output string, isError bool) {
		if got := resultSummary(output, isError); strings.Contains(got, "\n") {
			t.Fatalf("resultSummary(%q) = %q spans lines", output, got)
		}
	})
}
