package present_test

import (
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// TestPlansListReadsTheOutcomesFromTheLog: /plans lists every presented
// plan with how its review ended as the log records it (the outcome code
// and the result's fields, never its words), and marks the plan reopened
// last.
func TestPlansListReadsTheOutcomesFromTheLog(t *testing.T) {
	ev := func(typ string, v any) host.Event {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return host.Event{Type: typ, Data: b}
	}
	call := func(id, plan string) host.Event {
		in, _ := json.Marshal(map[string]string{"plan": plan})
		return ev(host.TypeToolCall, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: in})
	}
	result := func(id, out string, isErr bool, outcome planmode.ExitOutcome) host.Event {
		return ev(host.TypeToolResult, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: out, IsError: isErr, Outcome: string(outcome)})
	}
	edited, _ := json.Marshal(map[string]any{"approved": true, "editedByUser": true, "editedPlan": "# B, edited\n"})
	events := []host.Event{
		call("1", "# A\n"),
		result("1", "Error: keep planning", true, planmode.ExitKeepPlanning),
		call("2", "# B\n"),
		result("2", string(edited), false, planmode.ExitApproved),
		call("3", "# C\n"),
		// The outcome is read from the log, never from the words.
		call("4", "# D\n"),
		result("4", "Error: words no version of the plugin ever wrote", true, planmode.ExitDismissed),
		// A result logged before outcomes were: answered, how unknown.
		call("5", "# E\n"),
		result("5", "Error: keep planning", true, ""),
		// Saved and stopped: an abandon whose result says saved.
		call("6", "# F\n"),
		result("6", `{"approved":false,"abandoned":true,"saved":true}`, false, planmode.ExitAbandoned),
		ev(planmode.EventPlanReopen, planmode.ReopenPayload{Number: 2, Digest: host.DigestDetail("# B, edited\n"), Plan: "# B, edited\n"}),
	}
	for i := range events {
		events[i].Seq = uint64(i + 1)
	}
	items := present.English.PlansList(host.LogOf(events), false)
	if len(items) != 1 || items[0].Kind != present.Box {
		t.Fatalf("items %+v", items)
	}
	want := []string{
		"1. A — sent back with feedback",
		"2. B — approved as you edited it; reopened as the working draft",
		"3. C — not answered before the session stopped",
		"4. D — dismissed",
		"5. E — answered; the log does not say how",
		"6. F — saved; nothing was carried out",
	}
	rows := items[0].Rows
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i, w := range want {
		if rows[i].Text != w {
			t.Errorf("plan %d: %q, want %q", i+1, rows[i].Text, w)
		}
	}
	if open := present.English.PlansList(host.LogOf(events[:5]), true)[0].Rows; open[2].Text != "3. C — waiting for your review" {
		t.Errorf("a review under way: %q", open[2].Text)
	}
}
