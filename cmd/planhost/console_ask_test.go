package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
)

// askResults decodes the ask_user results of the run in dir.
func askResults(t *testing.T, dir string) []planask.Result {
	t.Helper()
	var out []planask.Result
	for _, e := range sessionEvents(t, dir) {
		var r host.ToolResult
		if e.Type != host.TypeToolResult || json.Unmarshal(e.Data, &r) != nil || r.Name != planask.ToolName {
			continue
		}
		if r.IsError {
			t.Fatalf("ask_user error: %s", r.Output)
		}
		var res planask.Result
		if err := json.Unmarshal([]byte(r.Output), &res); err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

// TestConsoleAnswersClarifyingQuestions drives ask_user through the line
// console: numbered options, a number that is no option and two numbers
// for a single choice are refused and asked again, "1,3" picks several,
// other text is the user's own answer and an empty line skips.
func TestConsoleAnswersClarifyingQuestions(t *testing.T) {
	dir := newRunDir(t)
	in := "/plan Greet in more languages\n" +
		"5\n" + // no option 5
		"1,2\n" + // one option only
		"2\n" + // In a file
		"1, 3,1\n" + // English, French
		"Both, behind a flag\n" + // own words
		"\n" // skip
	p, stdout, stderr, _ := testProgram(t, in)
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "ask", "ask.yaml"), "-config", filepath.Join("testdata", "ask", "deploy.yaml"))
	if code := p.main(args); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	out := stdout.String()
	for _, want := range []string{
		"┌─ Question 1 of 2 · Storage\n│  Where should the greetings live?",
		"│  [2] In a file — A JSON file next to the binary.",
		present.English.Console.AskMulti,
		"there is no option 5: type a number from 1 to 2",
		present.English.Console.AskOne,
		"┌─ Question 2 of 2 · Docs\n│  Update the README?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
	res := askResults(t, dir)
	if len(res) != 2 {
		t.Fatalf("%d results", len(res))
	}
	first, second := res[0], res[1]
	if first.Outcome != planask.OutcomeAnswered || !slices.Equal(first.Answers[0].Selected, []string{"In a file"}) ||
		!slices.Equal(first.Answers[1].Selected, []string{"English", "French"}) {
		t.Errorf("first result %+v", first)
	}
	if second.Answers[0].Other != "Both, behind a flag" || len(second.Answers[0].Selected) != 0 || !second.Answers[1].Skipped {
		t.Errorf("second result %+v", second)
	}
	shown := []string{
		"Questions from the model: Storage, Languages (answered)",
		"Storage — Where should the greetings live? → In a file",
		"Languages — Which languages first? → English, French",
		"Tests — Table tests or examples? → “Both, behind a flag”",
		"Docs — Update the README? → skipped",
	}
	checkHas(t, "the transcript", out, shown...)

	// /plans lists them from the log, each as the model reads it.
	events := sessionEvents(t, dir)
	for i := range events {
		events[i].Seq = uint64(i + 1)
	}
	items := present.English.PlansList(host.LogOf(events), false)
	var asked []string
	for _, it := range items {
		if it.Title == present.English.Plans.Questions {
			for _, r := range it.Rows {
				asked = append(asked, r.Text)
			}
		}
	}
	if len(asked) != 4 || !strings.HasSuffix(asked[1], "→ English, French") || !strings.HasSuffix(asked[2], "→ “Both, behind a flag”") ||
		!strings.HasSuffix(asked[3], "→ skipped") {
		t.Errorf("asked questions %q", asked)
	}

	files, err := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files %v %v", files, err)
	}
	ip, iout, ierr, _ := testProgram(t, "")
	if code := ip.main([]string{"inspect", files[0]}); code != exitOK {
		t.Fatalf("inspect: %d\n%s", code, ierr)
	}
	checkHas(t, "inspect", iout.String(), shown...)
	page := filepath.Join(t.TempDir(), "session.html")
	hp, _, herr, _ := testProgram(t, "")
	if code := hp.main([]string{"inspect", "-html", page, files[0]}); code != exitOK {
		t.Fatalf("inspect -html: %d\n%s", code, herr)
	}
	b := readFile(t, page)
	for _, want := range []string{"<h2>" + present.English.Page.Questions + "</h2>", "Tests — Table tests or examples? → “Both, behind a flag”", "English, French"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q:\n%s", want, b)
		}
	}
}

// TestQuestionsHTMLEscapesTheLog: text from the log never becomes markup
// or a control sequence on the page.
func TestQuestionsHTMLEscapesTheLog(t *testing.T) {
	page := page(host.Event{Type: planask.EventAsk, Data: mustJSON(t, planask.AskPayload{CallID: "c", Questions: []planask.Question{
		{ID: "q1", Header: "<b>H</b>", Question: "Q <script>x</script>", Options: []planask.Option{{Label: "A", Description: "a"}, {Label: "B", Description: "b"}}}}})},
		host.Event{Type: planask.EventAnswer, Data: mustJSON(t, planask.AnswerPayload{CallID: "c", Outcome: planask.OutcomeAnswered,
			Answers: []planask.Answer{{ID: "q1", Other: "<img src=x>\x1b[31m"}}})})
	for _, bad := range []string{"<b>", "<script", "<img", "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q:\n%s", bad, page)
		}
	}
	if !strings.Contains(page, "&lt;b&gt;H&lt;/b&gt;") {
		t.Errorf("page:\n%s", page)
	}
}

// TestAskUserOverTheOpenAIEndpoint drives ask_user end to end through the
// fake OpenAI endpoint: the tool is in every request's tool list, the
// model's call reaches the console, and the answer goes back to the model
// as JSON in the tool message.
func TestAskUserOverTheOpenAIEndpoint(t *testing.T) {
	args := `{"questions":[{"header":"Storage","question":"Where should greetings live?","options":[` +
		`{"label":"In code","description":"A Go map."},{"label":"In a file","description":"A JSON file."}]}]}`
	srv := fakeopenai.New(fakeopenai.Options{APIKey: "k", Strict: true},
		fakeopenai.Reply{Text: "One question first.", Calls: []fakeopenai.Call{{ID: "call_1", Name: planask.ToolName, Arguments: args}}},
		fakeopenai.Reply{Text: "A JSON file it is."},
	)
	defer srv.Close()
	dir := newRunDir(t)
	env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "m", "OPENAI_API_KEY": "k"}
	out, _ := mustMainEnv(t, env, exitOK, "/plan Greet in more languages\n2\n", openaiArgs(dir, filepath.Join("testdata", "ask", "deploy.yaml"))...)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests\n%s", len(reqs), out)
	}
	if !strings.Contains(reqs[0].Raw, `"name":"ask_user"`) {
		t.Errorf("the first request does not offer ask_user:\n%s", reqs[0].Raw)
	}
	if !strings.Contains(reqs[1].Raw, `\"outcome\":\"answered\"`) || !strings.Contains(reqs[1].Raw, `\"selected\":[\"In a file\"]`) {
		t.Errorf("the answer did not reach the model:\n%s", reqs[1].Raw)
	}
	if !strings.Contains(out, "assistant: A JSON file it is.") {
		t.Errorf("output:\n%s", out)
	}
}
