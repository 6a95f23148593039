package main

import (
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
)

func TestPresentedPlansAreReadFromTheLog(t *testing.T) {
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
	edited, _ := json.Marshal(map[string]any{"approved": true, resultEdited: true, resultEditedPlan: "# B, edited\n"})
	events := []host.Event{
		call("1", "# A\n"),
		result("1", host.ToolErrorPrefix+planmode.ErrKeepPlanning.Error(), true, planmode.ExitKeepPlanning),
		ev(host.TypeToolCall, host.ToolCall{ID: "x", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}),
		call("2", "# B\n"),
		result("2", string(edited), false, planmode.ExitApproved),
		call("3", "# C\n"),
		// The outcome is read from the log, never from the words: a
		// result reworded in any way keeps its logged outcome.
		call("4", "# D\n"),
		result("4", host.ToolErrorPrefix+"words no version of the plugin ever wrote", true, planmode.ExitDismissed),
		// A result logged before outcomes were: answered, how unknown.
		call("5", "# E\n"),
		result("5", host.ToolErrorPrefix+planmode.ErrKeepPlanning.Error(), true, ""),
		// Presented from the plan file without "plan": the result holds
		// the text (plan-file), whether approved or abandoned.
		ev(host.TypeToolCall, host.ToolCall{ID: "6", Name: planmode.ExitToolName, Input: json.RawMessage(`{}`)}),
		result("6", `{"approved":false,"abandoned":true,"plan":"# F\n","planFile":"/p/plan.md"}`, false, planmode.ExitAbandoned),
		// The last plan/reopen marks the plan it names.
		ev(planmode.EventPlanReopen, planmode.ReopenPayload{Number: 1, Digest: host.DigestDetail("# A\n"), Plan: "# A\n"}),
		ev(planmode.EventPlanReopen, planmode.ReopenPayload{Number: 2, Digest: host.DigestDetail("# B, edited\n"), Plan: "# B, edited\n"}),
	}
	got := presentedPlans(host.LogOf(events))
	want := []tui.PresentedPlan{
		{Title: "A", Text: "# A\n", Outcome: planmode.ExitKeepPlanning},
		{Title: "B", Text: "# B, edited\n", Outcome: planmode.ExitApproved, Edited: true, Reopened: true},
		{Title: "C", Text: "# C\n"},
		{Title: "D", Text: "# D\n", Outcome: planmode.ExitDismissed},
		{Title: "E", Text: "# E\n", Outcome: planmode.ExitOutcomeNotLogged},
		{Title: "F", Text: "# F\n", Outcome: planmode.ExitAbandoned},
	}
	if len(got) != len(want) {
		t.Fatalf("presentedPlans = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("plan %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}
