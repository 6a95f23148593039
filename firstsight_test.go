package planmode_test

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// foldEvents are the events the first-sight property draws logs from:
// every type the fold reads, with valid, invalid and irrelevant payloads.
var foldEvents = []host.Event{
	{Type: planmode.EventPlanMode, Data: []byte(`{"active":true}`)},
	{Type: planmode.EventPlanMode, Data: []byte(`{"active":false}`)},
	{Type: planmode.EventPlanMode, Data: []byte(`{"active":1}`)},
	{Type: planmode.EventPlanCancel, Data: []byte(`{"cancelled":"active"}`)},
	{Type: planmode.EventPlanCancel, Data: []byte(`{"cancelled":"inactive"}`)},
	{Type: planmode.EventPlanCancel, Data: []byte(`{}`)},
	{Type: host.TypeTurnStart, Data: []byte(`{"turn":1}`)},
	{Type: host.TypeTurnEnd, Data: []byte(`{"turn":1,"reason":"completed"}`)},
	{Type: host.TypeStepStart, Data: []byte(`{"turn":1,"step":1,"attempt":1}`)},
	{Type: host.TypeRequestHeader, Data: []byte(`{"sections":["base","plan:policy"]}`)},
	{Type: host.TypeRequestHeader, Data: []byte(`{"sections":["base"]}`)},
	{Type: host.TypeRequestHeader, Data: []byte(`{"sections":1}`)},
	{Type: host.TypeRequestHeader, Data: []byte(`not json`)},
	{Type: host.TypeUserMessage, Data: []byte(`{"content":[]}`)},
	{Type: host.TypeUserMessage, Data: []byte(`{"content":[]}`),
		Source: &host.Source{Kind: host.SourcePlugin, Plugin: planmode.PluginName, Form: planmode.NoticeForm}},
	{Type: host.TypeCommandRun, Data: []byte(`{"id":"r1","name":"plan","args":""}`)},
	{Type: host.TypeCommandRun, Data: []byte(`{"id":"r2","name":"plan","args":"off"}`)},
	{Type: host.TypeCommandRun, Data: []byte(`{"id":"r3","name":"other","args":""}`)},
	{Type: host.TypeCommandDone, Data: []byte(`{"id":"r1","ok":true}`)},
	{Type: host.TypeCommandDone, Data: []byte(`{"id":"r2","ok":true}`)},
	{Type: host.TypeCommandDone, Data: []byte(`{"id":"r1","ok":false}`)},
	{Type: host.TypeToolCall, Data: []byte(`{"id":"c1","name":"exit_plan_mode","input":{}}`)},
	{Type: host.TypeToolCall, Data: []byte(`{"id":"c2","name":"read_file","input":{"path":"x"}}`)},
	{Type: host.TypeToolResult, Data: []byte(`{"callId":"c1","name":"exit_plan_mode","output":"approved"}`)},
	{Type: host.TypeToolResult, Data: []byte(`{"callId":"c1","name":"exit_plan_mode","output":"no","isError":true}`)},
	{Type: host.TypeToolResult, Data: []byte(`{"callId":"c9","name":"exit_plan_mode","output":"approved"}`)},
	{Type: host.TypeToolResult, Data: []byte(`{"callId":"c2","name":"read_file","output":"exit_plan_mode"}`)},
}

// TestFirstSightFoldsLikeTheSubscription checks the one-pass fold of first
// sight (Project, and the controller's first look at a session, which then
// follows the session one event at a time) against folding every event one
// at a time: the same view, whatever the log and wherever the pass ends.
func TestFirstSightFoldsLikeTheSubscription(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		picks := rapid.SliceOfN(rapid.IntRange(0, len(foldEvents)-1), 0, 60).Draw(t, "events")
		events := make([]host.Event, len(picks))
		for i, p := range picks {
			events[i] = foldEvents[p]
			events[i].Seq = uint64(i + 1)
		}
		split := rapid.IntRange(0, len(events)).Draw(t, "split")
		if stepwise, bulk := planmode.FoldViews(events, split); stepwise != bulk {
			t.Fatalf("one pass over the first %d events gives\n%s\nevent by event gives\n%s", split, bulk, stepwise)
		}
	})
}

// FuzzMentionsExitTool checks the exit-tool filter of the folds against
// bytes.Contains: a call or result it misses would never be seen as the
// exit tool's.
func FuzzMentionsExitTool(f *testing.F) {
	for _, s := range []string{
		`{"id":"c1","name":"exit_plan_mode","input":{}}`,
		`{"callId":"c2","name":"read_file","output":"exit_plan_mode"}`,
		`"exit_plan_mode"`,
		`x"exit_plan_mode`,
		`"exit_plan_mod"`,
		`xx"exit_plan_mode"xx`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := bytes.Contains(data, []byte(`"`+planmode.ExitToolName+`"`))
		if got := planmode.MentionsExitTool(data); got != want {
			t.Fatalf("MentionsExitTool(%q) = %v, want %v", data, got, want)
		}
	})
}
