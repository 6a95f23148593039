package plansteps

import (
	"encoding/json"
	"slices"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/planentry"
)

// State is what the log says about a session's plan: the mode, the goal
// of the latest entry and the latest approved plan's execution.
type State struct {
	// PlanMode is the logged plan-mode state.
	PlanMode bool
	// Goal and Scope are those of the latest "plan/goal" event, if any.
	Goal, Scope string
	// Plan is the latest approved plan, nil before the first.
	Plan *Execution
}

// Execution is an approved plan being (or having been) executed. A value
// is never changed once a fold returned it: the next event makes a new one.
type Execution struct {
	// Seq is the sequence number of its [EventSteps] event.
	Seq uint64
	// Title is the plan's title.
	Title string
	// Source is where the steps came from ([SourceSteps] or
	// [SourceMarkdown]).
	Source string
	// Steps are the steps with their progress.
	Steps []StepState
	// Done reports that [EventCompleted] ended the execution.
	Done bool
	// Summary and Deviations are those of the completion.
	Summary    string
	Deviations []Deviation
}

// StepState is a step with its progress.
type StepState struct {
	Step
	// Completed reports that the step was completed.
	Completed bool
	// VerificationResult is what the model reported on completion.
	VerificationResult string
	// Modified counts the approved changes of the step.
	Modified int
}

// Executing reports whether an approved plan is being executed.
func (s State) Executing() bool { return s.Plan != nil && !s.Plan.Done }

// Current returns the ID of the step to work on: the first step not
// completed whose dependencies are all completed; 0 when there is none.
func (x *Execution) Current() int {
	if x == nil {
		return 0
	}
	for _, s := range x.Steps {
		if !s.Completed && x.ready(s.Step) {
			return s.ID
		}
	}
	return 0
}

// ready reports whether every dependency of s is completed.
func (x *Execution) ready(s Step) bool {
	for _, d := range s.DependsOn {
		if d < 1 || d > len(x.Steps) || !x.Steps[d-1].Completed {
			return false
		}
	}
	return true
}

// Completed counts the completed steps.
func (x *Execution) Completed() int {
	n := 0
	for _, s := range x.Steps {
		if s.Completed {
			n++
		}
	}
	return n
}

// Fold folds events into a State, from the zero State.
func Fold(events host.Log) State {
	var s State
	for _, e := range events.All() {
		s = Apply(s, e)
	}
	return s
}

// Apply returns s with e applied. It is pure: s is not changed (a changed
// execution is a new value) and malformed events, which the payload check
// keeps out of a log, are skipped, as are step events that do not fit the
// current execution.
func Apply(s State, e host.Event) State {
	switch e.Type {
	case planmode.EventPlanMode:
		if active, ok := companion.PlanMode(e); ok {
			s.PlanMode = active
		}
	case planentry.EventGoal:
		// plan-entry's goal, read (never written) for plan_status.
		var p planentry.GoalPayload
		if json.Unmarshal(e.Data, &p) == nil {
			s.Goal, s.Scope = p.Goal, p.Scope
		}
	case EventSteps:
		p, err := decodeSteps(e.Data)
		if err != nil {
			return s
		}
		x := &Execution{Seq: e.Seq, Title: p.Title, Source: p.Source, Steps: make([]StepState, len(p.Steps))}
		for i, st := range p.Steps {
			x.Steps[i] = StepState{Step: st}
		}
		s.Plan = x
	case EventStepCompleted:
		p, err := decodeStepCompleted(e.Data)
		if err != nil || !s.Executing() || p.Step > len(s.Plan.Steps) || s.Plan.Steps[p.Step-1].Completed {
			return s
		}
		x := s.Plan.clone()
		x.Steps[p.Step-1].Completed = true
		x.Steps[p.Step-1].VerificationResult = p.VerificationResult
		s.Plan = x
	case EventStepModified:
		p, err := decodeStepModified(e.Data)
		if err != nil || !s.Executing() || p.Step > len(s.Plan.Steps) {
			return s
		}
		x := s.Plan.clone()
		st := &x.Steps[p.Step-1]
		st.Step = p.After
		st.Modified++
		s.Plan = x
	case EventCompleted:
		p, err := decodeCompleted(e.Data)
		if err != nil || !s.Executing() {
			return s
		}
		x := s.Plan.clone()
		x.Done, x.Summary, x.Deviations = true, p.Summary, p.Deviations
		s.Plan = x
	}
	return s
}

// clone copies x and its steps (the steps' slices are shared: they are
// never changed in place).
func (x *Execution) clone() *Execution {
	c := *x
	c.Steps = slices.Clone(x.Steps)
	return &c
}
