package render_test

import (
	"encoding/json"
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companiontest"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	companiontest.Golden(t, *update, "./internal/render", name, got)
}

func sampleExecution() *plansteps.Execution {
	ev := func(seq uint64, typ, data string) host.Event {
		return host.Event{Seq: seq, Type: typ, Data: json.RawMessage(data)}
	}
	s := plansteps.Fold(host.LogOf([]host.Event{
		ev(1, plansteps.EventSteps, `{"title":"Add retries <now>","source":"steps","steps":[`+
			`{"id":1,"description":"Read the uploader"},`+
			`{"id":2,"description":"Add the retry loop with exponential backoff","depends_on":[1],"verification":"go test ./upload"},`+
			`{"id":3,"description":"Document the setting","depends_on":[2]}]}`),
		ev(2, plansteps.EventStepCompleted, `{"step":1,"verification_result":"read"}`),
	}))
	return s.Plan
}

func sampleTodo() []todo.Item {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	return []todo.Item{
		{ID: "1", Content: "Read the uploader and its tests", Status: todo.StatusCompleted, Priority: todo.PriorityMedium, CreatedAt: at, UpdatedAt: at},
		{ID: "2", Content: "Add retries with exponential backoff to every upload request, capped at five attempts", Status: todo.StatusInProgress, Priority: todo.PriorityHigh, CreatedAt: at, UpdatedAt: at},
		{ID: "3", Content: "Document the <retry> setting & its default", Status: todo.StatusPending, Priority: todo.PriorityLow, CreatedAt: at, UpdatedAt: at},
		{ID: "4", Content: "Escape \x1b[2J sequences 日本語", Status: todo.StatusPending, Priority: todo.PriorityMedium, CreatedAt: at, UpdatedAt: at},
	}
}

func TestStepsGolden(t *testing.T) {
	golden(t, "steps.ansi", render.StepsANSI(sampleExecution(), 50))
	golden(t, "steps.html", render.StepsHTML(sampleExecution()))
}

func TestStepsStyleEachStatus(t *testing.T) {
	out := render.StepsANSI(sampleExecution(), 60)
	for _, want := range []string{"✓ \x1b[9m1. Read", "▶ \x1b[1m2. Add", "○ 3. Document"} {
		if !strings.Contains(out, want) {
			t.Errorf("box lacks %q:\n%s", want, out)
		}
	}
	html := render.StepsHTML(sampleExecution())
	for _, want := range []string{render.ClassSteps, render.ClassCompleted, render.ClassInProgress, render.ClassPending, "&lt;now&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if render.StepsANSI(nil, 40) != "" || render.StepsHTML(nil) != "" {
		t.Error("nil execution rendered")
	}
}

func TestTodoGolden(t *testing.T) {
	golden(t, "todo.ansi", render.TodoANSI(sampleTodo(), 48))
	golden(t, "todo.html", render.TodoHTML(sampleTodo()))
}

func TestTodoANSIStylesEachStatus(t *testing.T) {
	out := render.TodoANSI(sampleTodo(), 60)
	for _, want := range []string{"✓ \x1b[9mRead the uploader", "▶ \x1b[1m[high] Add retries", "○ Document"} {
		if !strings.Contains(out, want) {
			t.Errorf("box lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Error("model text put an escape sequence into the box")
	}
}

func TestTodoHTMLEscapesAndClassifies(t *testing.T) {
	out := render.TodoHTML(sampleTodo())
	for _, want := range []string{render.ClassTodo, render.ClassCompleted, render.ClassInProgress, render.ClassPending, "&lt;retry&gt; setting &amp; its"} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// FuzzSteps feeds any event after a sample log to the fold and draws the
// result: the box never fails.
func FuzzSteps(f *testing.F) {
	f.Add(plansteps.EventStepCompleted, `{"step":2}`)
	f.Fuzz(func(t *testing.T, typ, data string) {
		s := plansteps.Fold(host.LogOf([]host.Event{{Seq: 1, Type: typ, Data: json.RawMessage(data)}}))
		_ = render.StepsANSI(s.Plan, 40)
	})
}

// TestRenderCountsInWords: the footer says "1 deviation", "1 step",
// "2 deviations", never "1 deviations".
func TestRenderCountsInWords(t *testing.T) {
	steps := func(n int, done bool) []plansteps.StepState {
		var out []plansteps.StepState
		for i := range n {
			out = append(out, plansteps.StepState{Step: plansteps.Step{ID: i + 1, Description: "s"}, Completed: done})
		}
		return out
	}
	devs := func(n int) []plansteps.Deviation {
		return make([]plansteps.Deviation, n)
	}
	tests := []struct {
		name string
		give plansteps.Execution
		want string
		bad  string
	}{
		{"one deviation", plansteps.Execution{Steps: steps(3, true), Done: true, Deviations: devs(1)}, "Completed: 3 of 3 steps done, 1 deviation", "1 deviations"},
		{"two deviations", plansteps.Execution{Steps: steps(3, true), Done: true, Deviations: devs(2)}, "Completed: 3 of 3 steps done, 2 deviations", ""},
		{"no deviation", plansteps.Execution{Steps: steps(2, true), Done: true}, "Completed: 2 of 2 steps done, 0 deviations", ""},
		{"one step", plansteps.Execution{Steps: steps(1, true), Done: true}, "Completed: 1 of 1 step done", "1 steps"},
		{"one step done, not completed", plansteps.Execution{Steps: steps(1, true)}, "All 1 step done", "1 steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, out := range []string{render.StepsANSI(&tt.give, 80), render.StepsHTML(&tt.give)} {
				if !strings.Contains(out, tt.want) {
					t.Errorf("lacks %q:\n%s", tt.want, out)
				}
				if tt.bad != "" && strings.Contains(out, tt.bad) {
					t.Errorf("says %q:\n%s", tt.bad, out)
				}
			}
		})
	}
}

// TestChineseBoxesHaveNoEnglish draws the steps and todo boxes of every
// footer's case with the Chinese words and Chinese model text: no English
// word is left (the plan's and the model's text aside, which are Chinese
// here), and the English words stay what the goldens show.
func TestChineseBoxesHaveNoEnglish(t *testing.T) {
	step := func(id int, done bool, verify string) plansteps.StepState {
		return plansteps.StepState{Step: plansteps.Step{ID: id, Description: "读代码", Verification: verify}, Completed: done, VerificationResult: map[bool]string{true: "通过"}[done]}
	}
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	items := []todo.Item{
		{ID: "1", Content: "读代码", Status: todo.StatusCompleted, Priority: todo.PriorityHigh, CreatedAt: at, UpdatedAt: at},
		{ID: "2", Content: "写测试", Status: todo.StatusInProgress, Priority: todo.PriorityMedium, CreatedAt: at, UpdatedAt: at},
	}
	tests := []struct {
		name string
		give string
	}{
		{"no title, next step", render.Chinese.StepsANSI(&plansteps.Execution{Steps: []plansteps.StepState{step(1, true, ""), step(2, false, "运行测试")}}, 80)},
		{"waiting on dependencies", render.Chinese.StepsANSI(&plansteps.Execution{Title: "重试", Steps: []plansteps.StepState{step(1, false, "")}}, 80)},
		{"no steps", render.Chinese.StepsANSI(&plansteps.Execution{}, 80)},
		{"all done", render.Chinese.StepsHTML(&plansteps.Execution{Steps: []plansteps.StepState{step(1, true, "")}})},
		{"completed", render.Chinese.StepsANSI(&plansteps.Execution{Steps: []plansteps.StepState{step(1, true, "")}, Done: true, Deviations: make([]plansteps.Deviation, 2)}, 80)},
		{"todo", render.Chinese.TodoANSI(items, 80)},
		{"todo html", render.Chinese.TodoHTML(items)},
		{"empty todo", render.Chinese.TodoANSI(nil, 80)},
	}
	word := regexp.MustCompile(`[A-Za-z][A-Za-z]+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := render.Plain(tt.give)
			if strings.HasPrefix(text, "<") {
				text = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(text, " ")
			}
			if w := word.FindAllString(text, -1); len(w) > 0 {
				t.Errorf("English %q in the Chinese box:\n%s", w, text)
			}
		})
	}
	if render.WordsFor("zh_CN.UTF-8") != render.Chinese || render.WordsFor("en") != render.English || render.WordsFor("") != render.English {
		t.Error("WordsFor picks the wrong words")
	}
}
