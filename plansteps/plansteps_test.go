package plansteps_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/refhost/scripted"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plansteps"
)

const planText = "# Add retries\n\nContext.\n\n1. Read the uploader\n2. Add the retry loop\n3. Document it\n"

func stepsInput() []map[string]any {
	return []map[string]any{
		{"description": "Read the uploader", "files": []string{"upload.go"}},
		{"description": "Add the retry loop", "depends_on": []int{1}, "verification": "go test ./upload"},
		{"description": "Document it", "depends_on": []int{2}},
	}
}

func TestApprovedStepsAreLoggedAndStartExecution(t *testing.T) {
	e := newEnv(t, true)
	out := e.present(t, map[string]any{"plan": "# Add retries\n\nWhy.", "steps": stepsInput()})
	var res struct {
		Approved bool
		Steps    []struct {
			ID          int
			Description string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Approved || len(res.Steps) != 3 || res.Steps[1].ID != 2 {
		t.Fatalf("result %s", out)
	}
	reqs := e.user.Requests()
	if detail := reqs[len(reqs)-1].Questions[0].Detail; !strings.Contains(detail, "## Steps") || !strings.Contains(detail, "2. Add the retry loop") {
		t.Fatalf("the user did not see the steps:\n%s", detail)
	}
	if n := len(e.events(plansteps.EventSteps)); n != 1 {
		t.Fatalf("%d plan/steps events", n)
	}
	s := e.state()
	if !s.Executing() || s.Plan.Title != "Add retries" || s.Plan.Source != plansteps.SourceSteps || s.Plan.Current() != 1 {
		t.Fatalf("state %+v", s.Plan)
	}
	if s.Plan.Steps[1].Verification != "go test ./upload" || s.Plan.Steps[1].DependsOn[0] != 1 {
		t.Fatalf("step 2 is %+v", s.Plan.Steps[1])
	}
}

func TestWithoutStepsTheFirstOrderedListGivesThem(t *testing.T) {
	e := newEnv(t, true)
	e.present(t, map[string]any{"plan": planText})
	s := e.state()
	if s.Plan == nil || s.Plan.Source != plansteps.SourceMarkdown || len(s.Plan.Steps) != 3 || s.Plan.Steps[2].Description != "Document it" {
		t.Fatalf("plan %+v", s.Plan)
	}
}

// A nested numbered list and a code block are parts of their steps: the
// plan has two steps, and plan_complete needs only those two.
func TestMarkdownStepsKeepNestedListsAndCode(t *testing.T) {
	e := newEnv(t, true)
	e.present(t, map[string]any{"plan": "# Ship it\n\n1. Build\n   1. compile\n   2. link\n\n   ```sh\n   make\n   ```\n2. Test\n"})
	s := e.state()
	if s.Plan == nil || len(s.Plan.Steps) != 2 || s.Plan.Title != "Ship it" ||
		s.Plan.Steps[0].Description != "Build\n1. compile\n2. link\n\n```sh\nmake\n```" || s.Plan.Steps[1].Description != "Test" {
		t.Fatalf("plan %+v", s.Plan)
	}
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":2}`)
	e.mustCall(t, plansteps.CompleteToolName, map[string]any{"summary": "shipped"})
}

func TestBadStepsFailBeforeTheUserIsAsked(t *testing.T) {
	tests := []struct {
		name  string
		steps any
		want  string
	}{
		{"not a list", "x", "must be a list"},
		{"no description", []map[string]any{{"files": []string{"a"}}}, "step 1: \"description\""},
		{"forward dependency", []map[string]any{{"description": "a", "depends_on": []int{2}}, {"description": "b"}}, "step 1: depends_on names step 2"},
		{"self dependency", []map[string]any{{"description": "a"}, {"description": "b", "depends_on": []int{2}}}, "step 2: depends_on names step 2"},
		{"unknown field", []map[string]any{{"description": "a", "risk": "x"}}, `unknown fields "risk"`},
		{"wrong id", []map[string]any{{"id": 3, "description": "a"}}, "must be the step's position, 1"},
		{"too many", make([]map[string]any, 101), "101 steps, more than the 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, true)
			_, err := e.call(t, planmode.ExitToolName, map[string]any{"plan": "# P", "steps": tt.steps})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if n := len(e.user.Requests()); n != 0 {
				t.Fatalf("the user was asked %d times", n)
			}
		})
	}
}

func TestStepCompletionChecks(t *testing.T) {
	e := newEnv(t, true)
	if _, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":1}`); err == nil || !strings.Contains(err.Error(), "no approved plan") {
		t.Fatalf("before any plan: %v", err)
	}
	e.present(t, map[string]any{"plan": "# Add retries", "steps": stepsInput()})
	tests := []struct {
		name, input, want string
	}{
		{"no such step", `{"step_id":4}`, "there is no step 4"},
		{"dependency order", `{"step_id":2,"verification_result":"ok"}`, "depends on step(s) 1"},
		{"missing step id", `{}`, `"step_id" is missing`},
		{"unknown field", `{"step_id":1,"note":"x"}`, "bad input"},
	}
	for _, tt := range tests {
		if _, err := e.call(t, plansteps.StepCompleteToolName, tt.input); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	out := e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	if !strings.Contains(out, "Next: step 2") {
		t.Fatalf("result %q", out)
	}
	if _, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":1}`); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("completing twice: %v", err)
	}
	if _, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":2,"verification_result":"  "}`); err == nil || !strings.Contains(err.Error(), "has a verification (go test ./upload)") {
		t.Fatalf("missing verification: %v", err)
	}
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":2,"verification_result":"PASS"}`)
	if got := e.state().Plan.Steps[1].VerificationResult; got != "PASS" {
		t.Fatalf("verification result %q", got)
	}
	if n := len(e.events(plansteps.EventStepCompleted)); n != 2 {
		t.Fatalf("%d step events, want 2", n)
	}
}

func TestModifyAsksTheUser(t *testing.T) {
	change := map[string]any{"step_id": 2, "reason": "the client has retries", "new_description": "Configure the client's retries", "new_verification": "go test ./client"}
	t.Run("approved", func(t *testing.T) {
		e := executing(t, true)
		e.approve(plansteps.ModifyApprove, plansteps.ModifyQuestionID)
		out := e.mustCall(t, plansteps.ModifyToolName, change)
		if !strings.Contains(out, "Configure the client's retries") {
			t.Fatalf("result %q", out)
		}
		reqs := e.user.Requests()
		req := reqs[len(reqs)-1]
		if opts := req.Questions[0].Options; req.Kind != host.AskConsent || req.Purpose != plansteps.ModifyPurpose ||
			opts[0].Label != plansteps.ModifyApprove || opts[0].Role != host.RoleApprove || opts[1].Role != host.RoleDecline {
			t.Fatalf("request %+v", req)
		}
		detail := req.Questions[0].Detail
		if !strings.Contains(detail, "Before:") || !strings.Contains(detail, "Add the retry loop") || !strings.Contains(detail, "Configure the client's retries") {
			t.Fatalf("detail lacks before and after:\n%s", detail)
		}
		wantFields := []host.Field{
			{Key: plansteps.FieldStep, Value: "2"}, {Key: plansteps.FieldPlan, Value: "Add retries"},
			{Key: plansteps.FieldReason, Value: "the client has retries"},
			{Key: plansteps.FieldBefore, Value: "Add the retry loop"},
			{Key: plansteps.FieldBeforeVerification, Value: "go test ./upload"},
			{Key: plansteps.FieldAfter, Value: "Configure the client's retries"},
			{Key: plansteps.FieldAfterVerification, Value: "go test ./client"},
		}
		if got := req.Questions[0].Fields; !slices.Equal(got, wantFields) {
			t.Errorf("fields = %+v, want %+v", got, wantFields)
		}
		st := e.state().Plan.Steps[1]
		if st.Description != "Configure the client's retries" || st.Verification != "go test ./client" || st.Modified != 1 || st.DependsOn[0] != 1 {
			t.Fatalf("step 2 is %+v", st)
		}
		if len(e.events(plansteps.EventStepModified)) != 1 {
			t.Fatal("the change was not logged")
		}
	})
	t.Run("refused with words", func(t *testing.T) {
		e := executing(t, true)
		e.user.QueueAnswers(host.Answer{QuestionID: plansteps.ModifyQuestionID, Selected: []string{plansteps.ModifyKeep}, Custom: "keep our own loop"})
		_, err := e.call(t, plansteps.ModifyToolName, change)
		if err == nil || !strings.HasSuffix(err.Error(), "keep our own loop") {
			t.Fatalf("error %v", err)
		}
		if e.state().Plan.Steps[1].Description != "Add the retry loop" || len(e.events(plansteps.EventStepModified)) != 0 {
			t.Fatal("a refused change took effect")
		}
	})
	t.Run("approve with text is refused", func(t *testing.T) {
		e := executing(t, true)
		e.user.QueueAnswers(host.Answer{QuestionID: plansteps.ModifyQuestionID, Selected: []string{plansteps.ModifyApprove}, Custom: "but not like that"})
		if _, err := e.call(t, plansteps.ModifyToolName, change); err == nil || !strings.Contains(err.Error(), "not like that") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("dismissed", func(t *testing.T) {
		e := executing(t, true)
		e.user.QueueReply(scriptedReply(fmt.Errorf("ui: %w", host.ErrDismissed)))
		if _, err := e.call(t, plansteps.ModifyToolName, change); err == nil || !strings.Contains(err.Error(), "wait for the user") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("no channel", func(t *testing.T) {
		e := executing(t, false)
		if _, err := e.call(t, plansteps.ModifyToolName, change); err == nil || !strings.Contains(err.Error(), "cannot ask the user") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a completed step cannot change", func(t *testing.T) {
		e := executing(t, true)
		e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
		c := map[string]any{"step_id": 1, "reason": "r", "new_description": "d"}
		if _, err := e.call(t, plansteps.ModifyToolName, c); err == nil || !strings.Contains(err.Error(), "already completed") {
			t.Fatalf("error %v", err)
		}
		if len(e.user.Requests()) != 1 {
			t.Fatal("the user was asked")
		}
	})
}

// TestModifyLogsHowItEnded: plan_modify records its outcome for front
// ends, which say from it how the user's consent ended.
func TestModifyLogsHowItEnded(t *testing.T) {
	change := map[string]any{"step_id": 2, "reason": "r", "new_description": "Configure the client's retries"}
	keep := host.Answer{QuestionID: plansteps.ModifyQuestionID, Selected: []string{plansteps.ModifyKeep}}
	tests := []struct {
		name      string
		questions bool
		reply     *scripted.Reply
		step      int
		want      string
	}{
		{name: "approved", questions: true, want: plansteps.ModifyChanged},
		{name: "kept", questions: true, reply: &scripted.Reply{Answers: []host.Answer{keep}}, want: plansteps.ModifyDeclined},
		{name: "dismissed", questions: true, reply: &scripted.Reply{Err: fmt.Errorf("ui: %w", host.ErrDismissed)}, want: plansteps.ModifyDismissed},
		{name: "closed by a cancelled turn", questions: true, reply: &scripted.Reply{Err: context.Canceled}, want: plansteps.ModifyFailed},
		{name: "the channel failed", questions: true, reply: &scripted.Reply{Err: errors.New("socket closed")}, want: plansteps.ModifyFailed},
		{name: "no channel", questions: false, want: plansteps.ModifyRefused},
		{name: "no such step", questions: true, step: 9, want: plansteps.ModifyRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := executing(t, tt.questions)
			if tt.reply != nil {
				e.user.QueueReply(*tt.reply)
			} else if tt.questions {
				e.approve(plansteps.ModifyApprove, plansteps.ModifyQuestionID)
			}
			in := maps.Clone(change)
			if tt.step != 0 {
				in["step_id"] = tt.step
			}
			got, err := e.callOutcome(t, plansteps.ModifyToolName, in)
			if got != tt.want || (err == nil) != (tt.want == plansteps.ModifyChanged) {
				t.Errorf("outcome = %q (error %v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestCompleteNeedsEveryStepDoneOrNamed(t *testing.T) {
	t.Run("with deviations", func(t *testing.T) {
		e := executing(t, true)
		e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
		_, err := e.call(t, plansteps.CompleteToolName, map[string]any{"summary": "done"})
		if err == nil || !strings.Contains(err.Error(), "steps 2, 3 are neither completed nor named") {
			t.Fatalf("error %v", err)
		}
		_, err = e.call(t, plansteps.CompleteToolName, map[string]any{"summary": "done", "deviations": []map[string]any{{"step_id": 9, "description": "x"}}})
		if err == nil || !strings.Contains(err.Error(), "names step 9") {
			t.Fatalf("error %v", err)
		}
		e.mustCall(t, plansteps.CompleteToolName, map[string]any{"summary": "Retries exist already", "deviations": []map[string]any{
			{"step_id": 2, "description": "the client retries already"}, {"step_id": 3, "description": "nothing to document"}}})
		s := e.state()
		if s.Executing() || !s.Plan.Done || len(s.Plan.Deviations) != 2 {
			t.Fatalf("plan %+v", s.Plan)
		}
		if _, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":2,"verification_result":"x"}`); err == nil || !strings.Contains(err.Error(), "no approved plan") {
			t.Fatalf("after completion: %v", err)
		}
	})
	t.Run("without deviations", func(t *testing.T) {
		e := executing(t, true)
		e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
		e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":2,"verification_result":"ok"}`)
		out := e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":3}`)
		if !strings.Contains(out, "call plan_complete") {
			t.Fatalf("result %q", out)
		}
		e.mustCall(t, plansteps.CompleteToolName, map[string]any{"summary": "All done"})
		if len(e.events(plansteps.EventCompleted)) != 1 {
			t.Fatal("completion not logged")
		}
	})
}

func TestALaterApprovedPlanReplacesTheFirst(t *testing.T) {
	e := newEnv(t, true)
	e.present(t, map[string]any{"plan": "# First", "steps": stepsInput()})
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	e.present(t, map[string]any{"plan": "# Second\n\n1. Only step\n"})
	s := e.state()
	if s.Plan.Title != "Second" || len(s.Plan.Steps) != 1 || s.Plan.Steps[0].Completed {
		t.Fatalf("plan %+v", s.Plan)
	}
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	if _, err := e.call(t, plansteps.StepCompleteToolName, `{"step_id":2}`); err == nil || !strings.Contains(err.Error(), "no step 2") {
		t.Fatalf("the first plan's step 2: %v", err)
	}
}

func TestAbandonedOrRefusedPlansLogNoSteps(t *testing.T) {
	e := newEnv(t, true)
	e.user.QueueAnswers(host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewKeepPlanning}, Custom: "more"})
	if _, err := e.call(t, planmode.ExitToolName, map[string]any{"plan": planText}); err == nil {
		t.Fatal("keep planning succeeded")
	}
	if len(e.events(plansteps.EventSteps)) != 0 {
		t.Fatal("a plan the user did not approve logged steps")
	}
}

func TestStatusReportsModeGoalAndSteps(t *testing.T) {
	e := newEnv(t, true)
	var r plansteps.StatusReport
	if err := json.Unmarshal([]byte(e.mustCall(t, plansteps.StatusToolName, `{}`)), &r); err != nil || r.Mode != "plan" || r.Plan != nil {
		t.Fatalf("before a plan: %+v %v", r, err)
	}
	if _, err := e.sess.Append(host.Event{Type: planentry.EventGoal, Data: json.RawMessage(`{"goal":"retries","scope":"upload/"}`)}); err != nil {
		t.Fatal(err)
	}
	e.present(t, map[string]any{"plan": "# Add retries", "steps": stepsInput()})
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	if err := json.Unmarshal([]byte(e.mustCall(t, plansteps.StatusToolName, `{}`)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Goal != "retries" || r.Scope != "upload/" || r.Plan.Title != "Add retries" || r.Plan.CurrentStep != 2 ||
		r.Plan.Steps[0].Status != "completed" || r.Plan.Steps[1].Status != "in_progress" || r.Plan.Steps[2].Status != "pending" {
		t.Fatalf("report %+v", r)
	}
}

func TestProgressSectionWhileExecuting(t *testing.T) {
	e := newEnv(t, true)
	prompt := func() string { return e.rt.Assemble(host.AssembleContext{Agent: e.agent}).System }
	if strings.Contains(prompt(), "approved plan is being executed") {
		t.Fatal("section before any plan")
	}
	e.present(t, map[string]any{"plan": "# Add retries", "steps": stepsInput()})
	e.mustCall(t, plansteps.StepCompleteToolName, `{"step_id":1}`)
	got := prompt()
	for _, want := range []string{"Add retries (1 of 3 steps completed)", "✓ 1. Read the uploader", "▶ 2. Add the retry loop", "○ 3. Document it", "Next step: 2.", "Verify it with: go test ./upload"} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	e.mustCall(t, plansteps.CompleteToolName, map[string]any{"summary": "s", "deviations": []map[string]any{{"step_id": 2, "description": "x"}, {"step_id": 3, "description": "y"}}})
	if strings.Contains(prompt(), "approved plan is being executed") {
		t.Fatal("section after completion")
	}
}

func TestToolsRefuseWithoutAnAgentAndAfterStop(t *testing.T) {
	e := newEnv(t, true)
	for _, name := range []string{plansteps.StatusToolName, plansteps.StepCompleteToolName, plansteps.ModifyToolName, plansteps.CompleteToolName} {
		tool := e.tools.m[name]
		if _, err := tool.Execute(t.Context(), host.CallContext{}, []byte(`{}`)); err == nil {
			t.Errorf("%s ran without an agent", name)
		}
	}
	tool := e.tools.m[plansteps.StatusToolName]
	if err := e.steps.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Execute(t.Context(), host.CallContext{Agent: e.agent}, []byte(`{}`)); !errors.Is(err, plansteps.ErrNotRunning) {
		t.Fatalf("after Stop: %v", err)
	}
}

func TestModifyFailsClosed(t *testing.T) {
	change := map[string]any{"step_id": 2, "reason": "r", "new_description": "d"}
	t.Run("a delegated agent", func(t *testing.T) {
		e := executing(t, true)
		e.user.QueueReply(scriptedReply(fmt.Errorf("ui: %w", host.ErrDelegatedAgent)))
		if _, err := e.call(t, plansteps.ModifyToolName, change); err == nil || !strings.Contains(err.Error(), "cannot ask the user") {
			t.Fatalf("error %v", err)
		}
		if len(e.events(plansteps.EventStepModified)) != 0 {
			t.Fatal("a change was logged")
		}
	})
	t.Run("the plugin stops while the user is asked", func(t *testing.T) {
		e := executing(t, true)
		release := e.user.Hold()
		defer release()
		done := make(chan error, 1)
		go func() {
			_, err := e.call(t, plansteps.ModifyToolName, change)
			done <- err
		}()
		if err := e.user.WaitRequests(t.Context(), 2); err != nil {
			t.Fatal(err)
		}
		if err := e.steps.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err == nil || !strings.Contains(err.Error(), "reloaded") {
			t.Fatalf("error %v", err)
		}
		if len(e.events(plansteps.EventStepModified)) != 0 {
			t.Fatal("a change was logged")
		}
	})
}
