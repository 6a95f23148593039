package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
)

// TestTerminalLinesAreQuietUnlessVerbose protects the terminal transcript
// from the host's internal lines and the model's text: a request header
// and an exit_plan_mode result refused before the review are shown in the
// user's words, their details only with -verbose; the line console (no
// catalog) prints everything.
func TestTerminalLinesAreQuietUnlessVerbose(t *testing.T) {
	header, _ := json.Marshal(host.RequestHeader{Reason: "initial", Sections: []string{"planhost:base", "plan:policy"}})
	refused, _ := json.Marshal(host.ToolResult{CallID: "c1", Name: planmode.ExitToolName, IsError: true,
		Output: host.ToolErrorPrefix + "the plan has no heading: start it with # Title", Outcome: string(planmode.ExitRefused)})
	events := []host.Event{{Seq: 1, Type: host.TypeRequestHeader, Data: header}, {Seq: 2, Type: host.TypeToolResult, Data: refused}}
	tests := []struct {
		name     string
		cat      *tui.Catalog
		verbose  bool
		want     []string
		dontWant []string
	}{
		{"terminal", tui.English, false, []string{tui.English.ReviewRefused}, []string{"request initial", "no heading"}},
		{"terminal in Chinese", tui.Chinese, false, []string{tui.Chinese.ReviewRefused}, []string{"request", "no heading"}},
		{"terminal verbose", tui.English, true, []string{"request initial: sections planhost:base, plan:policy", "no heading"}, nil},
		{"line console", nil, false, []string{"request initial", "no heading"}, []string{tui.English.ReviewRefused}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &entrySink{}
			p := &printer{out: sink, presenters: newPresenters(), plan: false, userWords: tt.cat != nil, calls: map[string]host.ToolCall{}, cat: tt.cat, verbose: tt.verbose}
			for _, e := range events {
				p.event(e, func() host.Log { return host.Log{} })
			}
			var texts []string
			for _, e := range sink.take() {
				texts = append(texts, e.Text)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(all, w) {
					t.Errorf("shows %q:\n%s", w, all)
				}
			}
		})
	}
}
