package planask_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planask"
)

// question is ask_user's input of one question with header h, question q
// and options of labels and descriptions (in pairs).
func question(h, q string, pairs ...string) json.RawMessage {
	var opts []map[string]string
	for i := 0; i+1 < len(pairs); i += 2 {
		opts = append(opts, map[string]string{"label": pairs[i], "description": pairs[i+1]})
	}
	data, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{"header": h, "question": q, "options": opts}}})
	return data
}

func TestAQuestionWordedAsThePlanReviewIsRefused(t *testing.T) {
	tests := []struct {
		name  string
		input json.RawMessage
		want  string // in the error
	}{
		{"the review's header", question("Plan review", "Which store?", "A", "a", "B", "b"), `the header reads as the plan review's own words ("Plan review: %s")`},
		{"the review's title with a plan", question("Plan review: Add retries", "Which store?", "A", "a", "B", "b"), "header"},
		{"the review's question", question("Storage", "Approve this plan and leave plan mode?", "A", "a", "B", "b"), "question 1: the question reads"},
		{"the catalog's question", question("Storage", "The model presents this plan.  What now?", "A", "a", "B", "b"), "question"},
		{"Approve and Keep planning", question("Next", "What now?", "Approve", "go", "Keep planning", "wait"), `option 1: the label reads as the plan review's own words ("Approve")`},
		{"shouting with a full stop", question("Next", "What now?", "APPROVE.", "go", "Later", "wait"), `"Approve"`},
		{"full width and spaces", question("Next", "What now?", "  Ａｐｐｒｏｖｅ！ ", "go", "Later", "wait"), `"Approve"`},
		{"a zero-width space inside", question("Next", "What now?", "Appr\u200bove", "go", "Later", "wait"), `"Approve"`},
		{"keep planning second", question("Next", "What now?", "Go", "go", "keep  planning", "wait"), `option 2: the label`},
		{"the ACP option name", question("Next", "What now?", "Yes, leave plan mode and carry out the plan", "go", "No", "wait"), "option 1: the label"},
		{"the ACP name of Approve", question("Next", "What now?", "Approve: leave plan mode and carry the plan out", "go", "No", "wait"), "option 1: the label"},
		{"the review's description", question("Next", "What now?", "Go", "Leave plan mode and start working on this plan.", "No", "wait"), "option 1: the description"},
		{"approve with a model", question("Next", "What now?", "Approve and execute with gpt-5", "go", "No", "wait"), `"Approve and execute with %s"`},
		{"mathematical bold letters", question("Next", "What now?", "𝐀𝐩𝐩𝐫𝐨𝐯𝐞", "go", "Later", "wait"), `"Approve"`},
		{"circled letters", question("Next", "What now?", "Ⓐpprove", "go", "Later", "wait"), `"Approve"`},
		{"a Turkish dotted capital", question("Plan revİew", "Which?", "A", "a", "B", "b"), ""},
		{"Chinese approve", question("下一步", "怎么办？", "批准", "执行", "继续计划", "等待"), `"批准"`},
		{"Chinese header", question("计划审阅：重试", "怎么办？", "甲", "a", "乙", "b"), "header"},
		{"Chinese header alone", question("计划审阅", "怎么办？", "甲", "a", "乙", "b"), "header"},
		{"Chinese ACP name", question("下一步", "怎么办？", "批准：退出计划模式并执行计划", "a", "乙", "b"), "label"},
		{"Chinese approve with a model", question("下一步", "怎么办？", "批准并用 gpt-5 执行", "a", "乙", "b"), "label"},
		{"Chinese question", question("下一步", "模型提交了这份计划。接下来？", "甲", "a", "乙", "b"), "question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planask.DecodeInput(tt.input)
			if !errors.Is(err, planask.ErrBadInput) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "exit_plan_mode") {
				t.Fatalf("error %v; want one with %q", err, tt.want)
			}
		})
	}
}

func TestOrdinaryQuestionsWithReviewWordsPass(t *testing.T) {
	tests := []struct {
		name  string
		input json.RawMessage
	}{
		{"approve a schema change", question("Schema", "How should the migration go?", "Approve the schema change", "apply it", "Keep the old schema", "no change")},
		{"a plan reviewer", question("Plan reviewer", "Who reviews?", "Alice", "a", "Bob", "b")},
		{"keep planning the API", question("Scope", "What first?", "Keep planning the API", "a", "Approved list", "b")},
		{"Chinese approval flow", question("审批", "需要哪种审批流程？", "批准后发布", "a", "直接发布", "b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := planask.DecodeInput(tt.input); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAReviewLookalikeIsAToolErrorAndAsksNothing(t *testing.T) {
	h, a := planning(t, planask.DefaultConfig())
	h.Model.Add(e2etest.Call("k", planask.ToolName, question("Plan review", "Approve this plan and leave plan mode?",
		"Approve", "go", "Keep planning", "wait")), e2etest.Say("ok"))
	h.Prompt(a, "go")
	r := e2etest.Result(t, a, "k")
	if !r.IsError || !strings.Contains(r.Output, "plan review's own words") || len(h.User.Requests()) != 0 || len(e2etest.Events(a, planask.EventAsk)) != 0 {
		t.Fatalf("result %+v", r)
	}
}
