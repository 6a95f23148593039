package planmode_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

func ev(typ, data string) host.Event {
	return host.Event{Type: typ, Data: json.RawMessage(data)}
}

func mode(active bool) host.Event {
	if active {
		return ev(planmode.EventPlanMode, `{"active":true}`)
	}
	return ev(planmode.EventPlanMode, `{"active":false}`)
}

// cancel is a plan/cancel withdrawing sel.
func cancel(sel planmode.Selection) host.Event {
	data, _ := json.Marshal(planmode.CancelPayload{Cancelled: sel.String()})
	return host.Event{Type: planmode.EventPlanCancel, Data: data}
}

func header(sections ...string) host.Event {
	data, _ := json.Marshal(host.RequestHeader{Reason: host.HeaderChange, Sections: append([]string{}, sections...)})
	return host.Event{Type: host.TypeRequestHeader, Data: data}
}

func TestFoldPlanMode(t *testing.T) {
	tests := []struct {
		name string
		give []host.Event
		end  int // -1 means len(give)
		want bool
	}{
		{"an empty log is inactive", nil, -1, false},
		{"a log without plan/mode is inactive", []host.Event{ev(host.TypeTurnStart, `{"turn":1}`)}, -1, false},
		{"one active event is active", []host.Event{mode(true)}, -1, true},
		{"the last event wins", []host.Event{mode(true), mode(false)}, -1, false},
		{"the last event wins again", []host.Event{mode(false), mode(true)}, -1, true},
		{"end cuts the log", []host.Event{mode(true), mode(false)}, 1, true},
		{"end zero is inactive", []host.Event{mode(true)}, 0, false},
		{"negative end is inactive", []host.Event{mode(true)}, -5, false},
		{"end past the log is clamped", []host.Event{mode(true)}, 10, true},
		{"spacing does not matter", []host.Event{ev(planmode.EventPlanMode, ` { "active" : true } `)}, -1, true},
		{"extra fields do not matter", []host.Event{ev(planmode.EventPlanMode, `{"active":true,"by":"user"}`)}, -1, true},
		{"a string active is skipped, not read as false", []host.Event{mode(true), ev(planmode.EventPlanMode, `{"active":"false"}`)}, -1, true},
		{"a null active is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, `{"active":null}`)}, -1, true},
		{"a missing active is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, `{}`)}, -1, true},
		{"a differently cased key is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, `{"Active":false}`)}, -1, true},
		{"a non-object payload is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, `false`)}, -1, true},
		{"an empty payload is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, ``)}, -1, true},
		{"a number active is skipped", []host.Event{mode(true), ev(planmode.EventPlanMode, `{"active":0}`)}, -1, true},
		{"other event types never count", []host.Event{mode(true), ev("plan/other", `{"active":false}`)}, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end := tt.end
			if end == -1 {
				end = len(tt.give)
			}
			if got := planmode.FoldPlanMode(host.LogOf(tt.give), end); got != tt.want {
				t.Fatalf("FoldPlanMode = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFoldTurnOpen(t *testing.T) {
	start, end := ev(host.TypeTurnStart, `{"turn":1}`), ev(host.TypeTurnEnd, `{"turn":1}`)
	tests := []struct {
		name string
		give []host.Event
		want bool
	}{
		{"no turn is not open", nil, false},
		{"a started turn is open", []host.Event{start, ev(host.TypeStepStart, `{}`)}, true},
		{"an ended turn is not open", []host.Event{start, end, mode(true)}, false},
		{"a second turn is open", []host.Event{start, end, start}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := turnOpen(host.LogOf(tt.give), len(tt.give)); got != tt.want {
				t.Fatalf("TurnOpen = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFoldHeaderMode(t *testing.T) {
	tests := []struct {
		name string
		give []host.Event
		want planmode.HeaderMode
	}{
		{"no header is unknown", []host.Event{mode(true)}, planmode.HeaderUnknown},
		{"a header with plan:policy described active", []host.Event{header("base", planmode.SectionName)}, planmode.HeaderActive},
		{"a header without it described inactive", []host.Event{header("base")}, planmode.HeaderInactive},
		{"an empty header described inactive", []host.Event{header()}, planmode.HeaderInactive},
		{"the last header wins", []host.Event{header(planmode.SectionName), header("base")}, planmode.HeaderInactive},
		{"plan/mode after a header does not change what it described", []host.Event{header("base"), mode(true)}, planmode.HeaderInactive},
		{"a malformed header is skipped", []host.Event{header(planmode.SectionName), ev(host.TypeRequestHeader, `[`)}, planmode.HeaderActive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planmode.FoldHeaderMode(host.LogOf(tt.give), len(tt.give)); got != tt.want {
				t.Fatalf("FoldHeaderMode = %v, want %v", got, tt.want)
			}
		})
	}
}

// forwardMode is the obvious forward fold, the reference for FoldPlanMode.
func forwardMode(events []host.Event) bool {
	active := false
	for _, e := range events {
		if e.Type != planmode.EventPlanMode {
			continue
		}
		if planmode.CheckPayload(e) == nil {
			var p planmode.ModePayload
			_ = json.Unmarshal(e.Data, &p)
			active = p.Active
		}
	}
	return active
}

// genEvent draws events that matter to the folds, including malformed ones.
func genEvent() *rapid.Generator[host.Event] {
	return rapid.OneOf(
		rapid.Just(mode(true)),
		rapid.Just(mode(false)),
		rapid.Map(rapid.SampledFrom([]string{`{"active":"yes"}`, `{}`, `[]`, `{"active":1}`, `{"active": true }`, `null`, ``}),
			func(d string) host.Event { return ev(planmode.EventPlanMode, d) }),
		rapid.Just(ev(host.TypeTurnStart, `{"turn":1}`)),
		rapid.Just(ev(host.TypeTurnEnd, `{"turn":1}`)),
		rapid.Just(header(planmode.SectionName)),
		rapid.Just(header("base")),
		rapid.Just(ev(host.TypeToolCall, `{"id":"1","name":"x"}`)),
		rapid.Just(ev(host.TypeCommandRun, `{"id":"r1","name":"plan","args":"off"}`)),
		rapid.Just(ev(host.TypeCommandRun, `{"id":"r1","name":"plan","args":""}`)),
		rapid.Just(ev(host.TypeCommandDone, `{"id":"r1","ok":true}`)),
		rapid.Just(ev(host.TypeToolResult, `{"callId":"c","name":"exit_plan_mode","output":"{\"approved\":true}"}`)),
		rapid.Just(cancel(planmode.SelectionActive)),
		rapid.Just(cancel(planmode.SelectionInactive)),
		rapid.Just(ev(planmode.EventPlanCancel, `{"cancelled":"none"}`)),
	)
}

func TestFoldsHoldThePrefixProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		events := rapid.SliceOfN(genEvent(), 0, 40).Draw(t, "events")
		for end := 0; end <= len(events); end++ {
			prefix := events[:end]
			if got, want := planmode.FoldPlanMode(host.LogOf(events), end), forwardMode(prefix); got != want {
				t.Fatalf("FoldPlanMode(events, %d) = %v, forward fold = %v", end, got, want)
			}
			if got, want := planmode.FoldPlanMode(host.LogOf(prefix), len(prefix)), planmode.FoldPlanMode(host.LogOf(events), end); got != want {
				t.Fatalf("fold of the prefix %v != fold with end %v", got, want)
			}
			p := planmode.Project(host.LogOf(prefix))
			if p.Active != planmode.FoldPlanMode(host.LogOf(events), end) {
				t.Fatalf("Project(prefix %d).Active = %v disagrees with FoldPlanMode", end, p.Active)
			}
			if p.Pending != planmode.SelectionNone && (p.Pending == planmode.SelectionActive) == p.Active {
				t.Fatalf("Project(prefix %d) = %+v: pending equals the logged state", end, p)
			}
			if turnOpen(host.LogOf(events), end) != turnOpen(host.LogOf(prefix), len(prefix)) {
				t.Fatalf("TurnOpen differs at %d", end)
			}
			if planmode.FoldHeaderMode(host.LogOf(events), end) != planmode.FoldHeaderMode(host.LogOf(prefix), len(prefix)) {
				t.Fatalf("FoldHeaderMode differs at %d", end)
			}
		}
	})
}

func TestProject(t *testing.T) {
	run := func(id, args string) host.Event {
		data, _ := json.Marshal(host.CommandRun{ID: id, Name: planmode.CommandName, Args: args})
		return host.Event{Type: host.TypeCommandRun, Data: data}
	}
	done := func(id string, ok bool) host.Event {
		data, _ := json.Marshal(host.CommandDone{ID: id, OK: ok})
		return host.Event{Type: host.TypeCommandDone, Data: data}
	}
	exitResult := func(isError bool) host.Event {
		data, _ := json.Marshal(host.ToolResult{CallID: "c1", Name: planmode.ExitToolName, Output: `{"approved":true}`, IsError: isError})
		return host.Event{Type: host.TypeToolResult, Data: data}
	}
	other := func() host.Event {
		data, _ := json.Marshal(host.CommandRun{ID: "x", Name: "help"})
		return host.Event{Type: host.TypeCommandRun, Data: data}
	}
	tests := []struct {
		name string
		give []host.Event
		want planmode.State
	}{
		{"an empty log projects nothing", nil, planmode.State{}},
		{"a completed /plan without plan/mode is pending",
			[]host.Event{run("r1", ""), done("r1", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"a /plan with a message selects plan mode",
			[]host.Event{run("r1", "  look at the tests "), done("r1", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"/plan off selects the default mode",
			[]host.Event{mode(true), run("r1", " off\n"), done("r1", true)},
			planmode.State{Active: true, Pending: planmode.SelectionInactive}},
		{"/plan OFF is not off",
			[]host.Event{run("r1", "OFF"), done("r1", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"a plan/mode after the run means it landed",
			[]host.Event{run("r1", ""), mode(true), done("r1", true)},
			planmode.State{Active: true}},
		{"a plan/mode after the done means it landed",
			[]host.Event{run("r1", ""), done("r1", true), mode(true)},
			planmode.State{Active: true}},
		{"a failed command is not pending",
			[]host.Event{run("r1", ""), done("r1", false)},
			planmode.State{}},
		{"a running command is not pending",
			[]host.Event{run("r1", "")},
			planmode.State{}},
		{"a selection equal to the logged state is not pending",
			[]host.Event{mode(true), run("r1", ""), done("r1", true)},
			planmode.State{Active: true}},
		{"/plan off cancels an entry that never landed",
			[]host.Event{run("r1", ""), done("r1", true), run("r2", "off"), done("r2", true)},
			planmode.State{}},
		{"other commands do not count",
			[]host.Event{other(), done("x", true)},
			planmode.State{}},
		{"an approved exit without plan/mode is a pending exit",
			[]host.Event{mode(true), exitResult(false)},
			planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true}},
		{"a failed exit is not pending",
			[]host.Event{mode(true), exitResult(true)},
			planmode.State{Active: true}},
		{"an exit followed by plan/mode landed",
			[]host.Event{mode(true), exitResult(false), mode(false)},
			planmode.State{}},
		{"a later /plan replaces an approved exit",
			[]host.Event{mode(true), exitResult(false), run("r1", ""), done("r1", true)},
			planmode.State{Active: true}},
		{"a malformed plan/mode does not resolve a selection",
			[]host.Event{run("r1", ""), ev(planmode.EventPlanMode, `{"active":"yes"}`), done("r1", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"a plan/cancel withdraws a completed /plan",
			[]host.Event{run("r1", ""), done("r1", true), cancel(planmode.SelectionActive)},
			planmode.State{}},
		{"a plan/cancel withdraws a completed /plan off and keeps the logged state",
			[]host.Event{mode(true), run("r1", "off"), done("r1", true), cancel(planmode.SelectionInactive)},
			planmode.State{Active: true}},
		{"a plan/cancel withdraws an approved exit",
			[]host.Event{mode(true), exitResult(false), cancel(planmode.SelectionInactive)},
			planmode.State{Active: true}},
		{"a plan/cancel withdraws a /plan that completes after it",
			[]host.Event{run("r1", ""), cancel(planmode.SelectionActive), done("r1", true)},
			planmode.State{}},
		{"a /plan run after a plan/cancel is pending again",
			[]host.Event{run("r1", ""), done("r1", true), cancel(planmode.SelectionActive), run("r2", "go"), done("r2", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"an exit after a plan/cancel is pending again",
			[]host.Event{mode(true), exitResult(false), cancel(planmode.SelectionInactive), exitResult(false)},
			planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true}},
		{"a malformed plan/cancel withdraws nothing",
			[]host.Event{run("r1", ""), done("r1", true), ev(planmode.EventPlanCancel, `{"cancelled":"yes"}`)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"a /plan completing after a later /plan does not override it",
			[]host.Event{run("r1", ""), run("r2", "off"), done("r2", true), done("r1", true)},
			planmode.State{}},
		{"a /plan off completing after a later /plan does not override it",
			[]host.Event{run("r1", "off"), run("r2", ""), done("r2", true), done("r1", true)},
			planmode.State{Pending: planmode.SelectionActive}},
		{"a /plan completing after a later approved exit does not override it",
			[]host.Event{mode(true), run("r1", ""), exitResult(false), done("r1", true)},
			planmode.State{Active: true, Pending: planmode.SelectionInactive, Exit: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planmode.Project(host.LogOf(tt.give)); got != tt.want {
				t.Fatalf("Project = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSelectionForArgs(t *testing.T) {
	tests := []struct {
		give string
		want planmode.Selection
	}{
		{"", planmode.SelectionActive},
		{"off", planmode.SelectionInactive},
		{"  off \t\n", planmode.SelectionInactive},
		{"Off", planmode.SelectionActive},
		{"off please", planmode.SelectionActive},
		{"explore the store", planmode.SelectionActive},
	}
	for _, tt := range tests {
		if got := planmode.SelectionForArgs(tt.give); got != tt.want {
			t.Errorf("SelectionForArgs(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

// fuzzLog turns fuzz input into a log: one event per line, "type data".
func fuzzLog(input string) []host.Event {
	var events []host.Event
	for line := range strings.SplitSeq(input, "\n") {
		typ, data, _ := strings.Cut(line, " ")
		events = append(events, ev(typ, data))
	}
	return events
}

func FuzzFoldPlanMode(f *testing.F) {
	seeds := []string{
		"plan/mode {\"active\":true}",
		"plan/mode {\"active\":true}\nplan/mode {\"active\":false}",
		"plan/mode {\"active\":true}\nplan/mode {\"active\":\"no\"}",
		"plan/mode {\"active\": true, \"active\": 3}",
		"plan/mode {\"active\":tru",
		"turn/start {}\nrequest/header {\"sections\":[\"plan:policy\"]}\nturn/end {}",
		"command/run {\"id\":\"a\",\"name\":\"plan\",\"args\":\"off\"}\ncommand/done {\"id\":\"a\",\"ok\":true}",
		"tool/result {\"name\":\"exit_plan_mode\"}",
		"plan/mode",
		"command/run {\"id\":\"a\",\"name\":\"plan\"}\ncommand/done {\"id\":\"a\",\"ok\":true}\nplan/cancel {\"cancelled\":\"active\"}",
		"command/run {\"id\":\"a\",\"name\":\"plan\"}\nplan/cancel {\"cancelled\":\"Active\"}\ncommand/done {\"id\":\"a\",\"ok\":true}",
		"plan/cancel {\"cancelled\": \"inactive\", \"cancelled\": 1}",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		events := fuzzLog(input)
		for end := 0; end <= len(events); end++ {
			got := planmode.FoldPlanMode(host.LogOf(events), end)
			if want := forwardMode(events[:end]); got != want {
				t.Fatalf("FoldPlanMode(events, %d) = %v, forward fold %v", end, got, want)
			}
			if p := planmode.Project(host.LogOf(events[:end])); p.Active != got {
				t.Fatalf("Project(events[:%d]).Active = %v, fold %v", end, p.Active, got)
			}
			turnOpen(host.LogOf(events), end)
			planmode.FoldHeaderMode(host.LogOf(events), end)
		}
		// A plan/mode passes the payload check exactly when the fold reads
		// it: then it decides the state whatever came before it. A
		// plan/cancel passes it exactly when the projection reads it: then
		// it withdraws a completed /plan and never changes the state.
		pending := []host.Event{ev(host.TypeCommandRun, `{"id":"r","name":"plan"}`), ev(host.TypeCommandDone, `{"id":"r","ok":true}`)}
		for i, e := range events {
			switch e.Type {
			case planmode.EventPlanMode:
				afterFalse := planmode.FoldPlanMode(host.LogOf([]host.Event{mode(false), e}), 2)
				afterTrue := planmode.FoldPlanMode(host.LogOf([]host.Event{mode(true), e}), 2)
				if (planmode.CheckPayload(e) == nil) != (afterFalse == afterTrue) {
					t.Fatalf("event %d %q: the payload check and the fold disagree", i, e.Data)
				}
			case planmode.EventPlanCancel:
				p := planmode.Project(host.LogOf(append(slices.Clone(pending), e)))
				if (planmode.CheckPayload(e) == nil) != (p.Pending == planmode.SelectionNone) || p.Active {
					t.Fatalf("event %d %q: the payload check and the projection disagree (%+v)", i, e.Data, p)
				}
			}
		}
	})
}
