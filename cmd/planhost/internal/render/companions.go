package render

import (
	"fmt"
	"strings"

	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// Classes of the companions' HTML lists, next to [ClassList].
const (
	// ClassSteps marks the plan-steps list.
	ClassSteps = "pm-steps"
	// ClassTodo marks the todo list.
	ClassTodo = "pm-todo"
)

// StepsANSI draws an execution's steps as a box for a terminal width
// columns wide, in English; see [Words.StepsANSI].
func StepsANSI(x *plansteps.Execution, width int) string { return English.StepsANSI(x, width) }

// StepsHTML renders an execution's steps as an HTML fragment in English;
// see [Words.StepsHTML].
func StepsHTML(x *plansteps.Execution) string { return English.StepsHTML(x) }

// TodoANSI draws a todo list as a box in English; see [Words.TodoANSI].
func TodoANSI(items []todo.Item, width int) string { return English.TodoANSI(items, width) }

// TodoHTML renders a todo list as an HTML fragment in English; see
// [Words.TodoHTML].
func TodoHTML(items []todo.Item) string { return English.TodoHTML(items) }

// StepsANSI draws an execution's steps as a box for a terminal width
// columns wide: ✓ struck through for completed steps, ▶ bold for the
// current step, ○ for the others, and the next step in the footer. "" for
// nil. Model text is sanitized.
func (w *Words) StepsANSI(x *plansteps.Execution, width int) string {
	if x == nil {
		return ""
	}
	return Box(w.stepsTitle(x), w.stepRows(x), w.stepsFooter(x), width)
}

// StepsHTML renders an execution's steps as an HTML fragment, an ordered
// list with one CSS class per status (see [Stylesheet]); all text is
// escaped. "" for nil.
func (w *Words) StepsHTML(x *plansteps.Execution) string {
	if x == nil {
		return ""
	}
	return HTML(w.stepsTitle(x)+" — "+w.stepsFooter(x), ClassSteps, true, w.stepRows(x))
}

// stepRows turns the execution's steps into rows; the current step is in
// progress.
func (w *Words) stepRows(x *plansteps.Execution) []Row {
	cur := 0
	if !x.Done {
		cur = x.Current()
	}
	out := make([]Row, len(x.Steps))
	for i, st := range x.Steps {
		row := Row{Text: fmt.Sprintf("%d. %s", st.ID, st.Description)}
		switch {
		case st.Completed:
			row.Status = Completed
			if st.VerificationResult != "" {
				row.Note = fmt.Sprintf(w.NoteVerified, st.VerificationResult)
			}
		case st.ID == cur:
			row.Status = InProgress
			if st.Verification != "" {
				row.Note = fmt.Sprintf(w.NoteVerify, st.Verification)
			}
		}
		out[i] = row
	}
	return out
}

// stepsFooter says what comes next, or how the execution ended.
func (w *Words) stepsFooter(x *plansteps.Execution) string {
	switch {
	case x.Done:
		return fmt.Sprintf(w.FooterDone, x.Completed(), w.count(len(x.Steps), w.Step, w.Steps), w.count(len(x.Deviations), w.Deviation, w.Deviations))
	case len(x.Steps) == 0:
		return w.FooterNoSteps
	case x.Completed() == len(x.Steps):
		return fmt.Sprintf(w.FooterAllDone, w.count(len(x.Steps), w.Step, w.Steps))
	}
	if cur := x.Current(); cur != 0 {
		return fmt.Sprintf(w.FooterNext, x.Completed(), len(x.Steps), cur)
	}
	return fmt.Sprintf(w.FooterProgress, x.Completed(), len(x.Steps))
}

// count is n with its noun: one for 1, many otherwise (the same word in
// a language without plural forms).
func (w *Words) count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf(w.Count, n, one)
	}
	return fmt.Sprintf(w.Count, n, many)
}

// stepsTitle heads the box and the list.
func (w *Words) stepsTitle(x *plansteps.Execution) string {
	if x.Title == "" {
		return w.StepsTitle
	}
	return x.Title
}

// TodoANSI draws a todo list as a box for a terminal width columns wide:
// ✓ and struck through for completed items, ▶ and bold for the item in
// progress, ○ for pending ones; high-priority items are marked. Model text
// is sanitized: no control character reaches the terminal.
func (w *Words) TodoANSI(items []todo.Item, width int) string {
	return Box(w.TodoTitle, w.todoRows(items), w.todoFooter(items), width)
}

// TodoHTML renders a todo list as an HTML fragment, a list with one CSS
// class per status (see [Stylesheet]); all text is escaped.
func (w *Words) TodoHTML(items []todo.Item) string {
	return HTML(w.TodoTitle+" — "+w.todoFooter(items), ClassTodo, false, w.todoRows(items))
}

// todoRows turns items into rows.
func (w *Words) todoRows(items []todo.Item) []Row {
	out := make([]Row, len(items))
	for i, it := range items {
		out[i] = Row{Status: todoStatus(it.Status), Text: it.Content}
		if it.Priority == todo.PriorityHigh {
			out[i].Text = "[" + w.High + "] " + it.Content
		}
	}
	return out
}

// todoStatus is the row status of an item's.
func todoStatus(s todo.Status) Status {
	switch s {
	case todo.StatusInProgress:
		return InProgress
	case todo.StatusCompleted:
		return Completed
	}
	return Pending
}

// todoFooter counts the completed items.
func (w *Words) todoFooter(items []todo.Item) string {
	if len(items) == 0 {
		return w.TodoEmpty
	}
	done := 0
	for _, it := range items {
		if it.Status == todo.StatusCompleted {
			done++
		}
	}
	return fmt.Sprintf(w.TodoFooter, done, len(items))
}

// Words are the companion displays' words in one language: titles,
// footers and notes of the plan-steps and todo boxes. Formats take the
// arguments their English values show.
type Words struct {
	// Lang is the language tag ("en", "zh").
	Lang string
	// StepsTitle heads a steps box whose plan has no title.
	StepsTitle string
	// NoteVerified and NoteVerify show a step's verification: "%s".
	NoteVerified, NoteVerify string
	// FooterDone ends a completed execution: completed steps, the step
	// count, the deviation count (each made with Count).
	FooterDone    string
	FooterNoSteps string
	// FooterAllDone: every step done, the plan not completed yet.
	FooterAllDone string
	// Count is a count and its noun; Step/Steps and Deviation/Deviations
	// are the nouns' singular and plural forms (the same word twice in a
	// language without plural forms).
	Count, Step, Steps, Deviation, Deviations string
	// FooterNext: done, total, next step. FooterProgress: done, total.
	FooterNext, FooterProgress string
	TodoTitle                  string
	// TodoFooter: completed, total.
	TodoFooter, TodoEmpty string
	// High marks a high-priority todo item.
	High string
	// The transcript's lines of plan-ask's questions: AskAsked heads
	// them (log position, outcome); the outcomes: answered, declined, a
	// headless policy's answer ("%s": the policy), not answered, failed
	// ("%s": the error); AskSkipped stands for a skipped question.
	AskAsked, AskAnswered, AskDeclined, AskPolicy, AskOpen, AskFailed, AskSkipped string
}

// English are the companion displays' English words.
var English = &Words{
	Lang:           "en",
	StepsTitle:     "Plan",
	NoteVerified:   "verified: %s",
	NoteVerify:     "verify: %s",
	FooterDone:     "Completed: %d of %s done, %s",
	FooterNoSteps:  "No tracked steps",
	FooterAllDone:  "All %s done · the plan is not completed yet",
	Count:          "%d %s",
	Step:           "step",
	Steps:          "steps",
	Deviation:      "deviation",
	Deviations:     "deviations",
	FooterNext:     "%d of %d done · next: step %d",
	FooterProgress: "%d of %d done · waiting on dependencies",
	TodoTitle:      "Todo",
	TodoFooter:     "%d of %d completed",
	TodoEmpty:      "The todo list is empty.",
	High:           string(todo.PriorityHigh),
	AskAsked:       "#%d questions (%s):",
	AskAnswered:    "answered",
	AskDeclined:    "declined",
	AskPolicy:      "no user attached; the headless policy %s answered",
	AskOpen:        "not answered",
	AskFailed:      "failed: %s",
	AskSkipped:     "skipped",
}

// Chinese are the companion displays' Chinese words; Chinese has no
// plural forms.
var Chinese = &Words{
	Lang:           "zh",
	StepsTitle:     "计划",
	NoteVerified:   "已验证：%s",
	NoteVerify:     "验证：%s",
	FooterDone:     "已完成：%[2]s中完成 %[1]d 步，%[3]s",
	FooterNoSteps:  "没有跟踪的步骤",
	FooterAllDone:  "%s全部完成 · 计划尚未标记完成",
	Count:          "%d %s",
	Step:           "步",
	Steps:          "步",
	Deviation:      "处偏离",
	Deviations:     "处偏离",
	FooterNext:     "已完成 %d/%d · 下一步：第 %d 步",
	FooterProgress: "已完成 %d/%d · 等待依赖的步骤",
	TodoTitle:      "待办",
	TodoFooter:     "已完成 %d/%d",
	TodoEmpty:      "待办清单是空的。",
	High:           "高",
	AskAsked:       "#%d 提问（%s）：",
	AskAnswered:    "已回答",
	AskDeclined:    "已拒绝",
	AskPolicy:      "没有用户在场；由无人值守策略 %s 回答",
	AskOpen:        "未回答",
	AskFailed:      "失败：%s",
	AskSkipped:     "已跳过",
}

// WordsFor is the words for a language tag: Chinese for "zh…", English
// otherwise.
func WordsFor(lang string) *Words {
	if strings.HasPrefix(strings.ToLower(lang), "zh") {
		return Chinese
	}
	return English
}
