package plansteps_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plansteps"
)

func ev(seq uint64, typ, data string) host.Event {
	return host.Event{Seq: seq, Type: typ, Data: json.RawMessage(data)}
}

const stepsData = `{"title":"T","source":"steps","steps":[{"id":1,"description":"a"},{"id":2,"description":"b","depends_on":[1],"verification":"v"}]}`

func sampleLog() []host.Event {
	return []host.Event{
		ev(1, "plan/mode", `{"active":true}`),
		ev(2, planentry.EventGoal, `{"goal":"g","scope":"s"}`),
		ev(3, plansteps.EventSteps, stepsData),
		ev(4, "plan/mode", `{"active":false}`),
		ev(5, plansteps.EventStepCompleted, `{"step":1}`),
		ev(6, plansteps.EventStepModified, `{"step":2,"reason":"r","before":{"id":2,"description":"b","depends_on":[1],"verification":"v"},"after":{"id":2,"description":"B","depends_on":[1]}}`),
		ev(7, plansteps.EventStepCompleted, `{"step":2}`),
		ev(8, plansteps.EventCompleted, `{"summary":"done"}`),
	}
}

func TestFoldTable(t *testing.T) {
	tests := []struct {
		name string
		give []host.Event
		want func(s plansteps.State) bool
	}{
		{"empty log", nil, func(s plansteps.State) bool { return !s.PlanMode && s.Plan == nil && !s.Executing() }},
		{"approved steps execute", sampleLog()[:3], func(s plansteps.State) bool {
			return s.PlanMode && s.Goal == "g" && s.Executing() && s.Plan.Seq == 3 && s.Plan.Current() == 1
		}},
		{"dependencies pick the current step", sampleLog()[:5], func(s plansteps.State) bool { return s.Plan.Current() == 2 && s.Plan.Completed() == 1 }},
		{"a modification replaces the step", sampleLog()[:6], func(s plansteps.State) bool {
			st := s.Plan.Steps[1]
			return st.Description == "B" && st.Verification == "" && st.Modified == 1
		}},
		{"completion ends execution", sampleLog(), func(s plansteps.State) bool { return !s.Executing() && s.Plan.Done && s.Plan.Summary == "done" }},
		{"step events without a plan are skipped", []host.Event{ev(1, plansteps.EventStepCompleted, `{"step":1}`)}, func(s plansteps.State) bool { return s.Plan == nil }},
		{"a step beyond the plan is skipped", []host.Event{ev(1, plansteps.EventSteps, stepsData), ev(2, plansteps.EventStepCompleted, `{"step":9}`)}, func(s plansteps.State) bool { return s.Plan.Completed() == 0 }},
		{"a malformed plan is skipped", []host.Event{ev(1, plansteps.EventSteps, `{"title":1}`)}, func(s plansteps.State) bool { return s.Plan == nil }},
		{"a later plan replaces", append(sampleLog()[:5:5], ev(9, plansteps.EventSteps, `{"title":"U","source":"markdown","steps":[]}`)), func(s plansteps.State) bool {
			return s.Plan.Title == "U" && len(s.Plan.Steps) == 0 && s.Executing()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := plansteps.Fold(host.LogOf(tt.give)); !tt.want(s) {
				t.Fatalf("state %+v plan %+v", s, s.Plan)
			}
		})
	}
}

// The fold of a prefix never changes when more events follow, and the
// values it returned are never changed by later events.
func TestFoldPrefixAndImmutability(t *testing.T) {
	log := sampleLog()
	var states []plansteps.State
	var snapshots []string
	s := plansteps.State{}
	for i, e := range log {
		s = plansteps.Apply(s, e)
		states = append(states, s)
		b, _ := json.Marshal(s)
		snapshots = append(snapshots, string(b))
		if got := plansteps.Fold(host.LogOf(log[:i+1])); !reflect.DeepEqual(got, s) {
			t.Fatalf("prefix %d: Fold %+v, incremental %+v", i+1, got, s)
		}
	}
	for i, s := range states {
		if b, _ := json.Marshal(s); string(b) != snapshots[i] {
			t.Fatalf("state %d changed after later events", i+1)
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, e := range sampleLog() {
		f.Add(e.Type, string(e.Data))
	}
	f.Fuzz(func(t *testing.T, typ, data string) {
		base := sampleLog()[:5]
		e := host.Event{Seq: 99, Type: typ, Data: json.RawMessage(data)}
		s := plansteps.Fold(host.LogOf(append(base, e)))
		if plansteps.CheckPayload(e) != nil && strings.HasPrefix(typ, "plan/s") {
			if !reflect.DeepEqual(s, plansteps.Fold(host.LogOf(base))) && typ != planentry.EventGoal {
				t.Fatalf("a rejected %s event changed the state", typ)
			}
		}
		_ = plansteps.Report(s)
		_ = plansteps.ProgressText(s)
	})
}

func TestPayloadCheck(t *testing.T) {
	tests := []struct {
		name, typ, data, want string
	}{
		{"steps ok", plansteps.EventSteps, stepsData, ""},
		{"steps numbered wrong", plansteps.EventSteps, `{"title":"T","source":"steps","steps":[{"id":2,"description":"a"}]}`, "id is 2; want 1"},
		{"steps missing", plansteps.EventSteps, `{"title":"T","source":"steps"}`, "steps is missing"},
		{"bad source", plansteps.EventSteps, `{"title":"T","source":"x","steps":[]}`, `source is "x"`},
		{"unknown field", plansteps.EventSteps, `{"title":"T","source":"steps","steps":[],"x":1}`, "unknown field"},
		{"forward dependency", plansteps.EventSteps, `{"title":"T","source":"steps","steps":[{"id":1,"description":"a","depends_on":[1]}]}`, "depends_on names step 1"},
		{"completed ok", plansteps.EventStepCompleted, `{"step":3,"verification_result":"x"}`, ""},
		{"completed step 0", plansteps.EventStepCompleted, `{"step":0}`, "step is 0"},
		{"completed not an object", plansteps.EventStepCompleted, `[]`, "does not decode"},
		{"modified without reason", plansteps.EventStepModified, `{"step":1,"reason":" ","before":{"id":1,"description":"a"},"after":{"id":1,"description":"b"}}`, "reason"},
		{"modified renumbers", plansteps.EventStepModified, `{"step":1,"reason":"r","before":{"id":1,"description":"a"},"after":{"id":2,"description":"b"}}`, "id is 2"},
		{"completion without summary", plansteps.EventCompleted, `{"summary":""}`, "summary"},
		{"empty", plansteps.EventCompleted, ``, "empty"},
		{"other events pass", "tool/call", `nonsense`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := plansteps.CheckPayload(ev(4, tt.typ, tt.data))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "event 4") {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestThePayloadCheckGuardsTheLog(t *testing.T) {
	e := newEnv(t, true)
	if _, err := e.sess.Append(ev(0, plansteps.EventStepCompleted, `{"step":"one"}`)); err == nil {
		t.Fatal("a malformed plan/step-completed was appended")
	}
}

// A session reopened from its log folds to the state the running plugin
// kept, one event at a time.
func TestResumeAndForkKeepTheState(t *testing.T) {
	e := executing(t, true)
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	live := e.state()
	if again := plansteps.Fold(e.sess.Events()); !reflect.DeepEqual(again, live) {
		t.Fatalf("fold of the log %+v, live %+v", again.Plan, live.Plan)
	}
	fork, err := e.sess.Fork(e.sess.Len())
	if err != nil {
		t.Fatal(err)
	}
	if got := e.steps.State(fork); !reflect.DeepEqual(got, live) {
		t.Fatalf("fork state %+v, parent %+v", got.Plan, live.Plan)
	}
}

func TestConcurrentCompletionsOfOneStepLogOnce(t *testing.T) {
	e := executing(t, true)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		if err == nil {
			ok++
		}
	}
	if n := len(e.events(plansteps.EventStepCompleted)); ok != 1 || n != 1 {
		t.Fatalf("%d calls succeeded and %d events were logged, want 1 and 1", ok, n)
	}
}
