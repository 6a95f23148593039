package tui_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
)

func clarifyingAsk(id int) (tui.AskMsg, chan tui.AskResult) {
	reply := make(chan tui.AskResult, 1)
	return tui.AskMsg{ID: id, Reply: reply, Request: host.AskRequest{
		Questions: []host.Question{
			{ID: "q1", Header: "Storage", Question: "Where should greetings live?",
				Options: []host.Option{{Label: "In code", Description: "A Go map."}, {Label: "In a file", Description: "A JSON file."}}},
			{ID: "q2", Header: "Languages", Question: "Which first?", MultiSelect: true,
				Options: []host.Option{{Label: "German"}, {Label: "French"}, {Label: "Spanish"}}},
			{ID: "q3", Header: "Docs", Question: "Anything else?",
				Options: []host.Option{{Label: "No"}, {Label: "Yes"}}},
			{ID: "q4", Header: "Tests", Question: "Table tests?",
				Options: []host.Option{{Label: "Yes"}, {Label: "No"}}},
		},
		Kind: host.AskClarify, Purpose: planask.Purpose,
	}}, reply
}

// TestFormAnswersClarifyingQuestions fills in the form: arrows and Enter
// for one choice, space and numbers toggling several, the text row for
// the user's own words, and Esc to skip.
func TestFormAnswersClarifyingQuestions(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := clarifyingAsk(1)
	h.send(ask)
	for _, want := range []string{"Question 1 of 4 · Storage", "Where should greetings live?", "( ) 2 In a file — A JSON file.", "Other:", "esc skip"} {
		if !strings.Contains(h.view(), want) {
			t.Fatalf("the form lacks %q:\n%s", want, h.view())
		}
	}
	h.clock.advance(time.Second)
	h.key(tea.KeyEnter, 0) // nothing chosen: not an answer
	if !strings.Contains(h.view(), "choose an option or type") {
		t.Fatalf("an empty Enter was not refused:\n%s", h.view())
	}
	h.key(tea.KeyDown, 0)
	h.key(tea.KeyDown, 0)
	h.key(tea.KeyEnter, 0) // In a file
	if !strings.Contains(h.view(), "Question 2 of 4 · Languages") || !strings.Contains(h.view(), "[ ] 1 German") {
		t.Fatalf("second question:\n%s", h.view())
	}
	h.answer("13")
	h.keys("3") // toggled off again
	if !strings.Contains(h.view(), "[ ] 3 Spanish") {
		t.Fatalf("3 did not toggle off:\n%s", h.view())
	}
	h.send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}) // Spanish, where the cursor is
	if !strings.Contains(h.view(), "[x] 1 German") || !strings.Contains(h.view(), "[x] 3 Spanish") {
		t.Fatalf("toggles:\n%s", h.view())
	}
	h.key(tea.KeyEnter, 0)
	h.clock.advance(time.Second)
	h.key(tea.KeyUp, 0) // the text row
	h.keys("Both, behind a flag")
	h.key(tea.KeyEnter, 0)
	h.clock.advance(time.Second)
	h.key(tea.KeyEscape, 0) // skip
	r := h.replied(reply)
	want := [][]string{{"In a file"}, {"German", "Spanish"}, nil, nil}
	if r.Err != nil || len(r.Answers) != 4 {
		t.Fatalf("reply %+v", r)
	}
	for i, a := range r.Answers {
		if a.QuestionID != want4IDs[i] || !slices.Equal(a.Selected, want[i]) {
			t.Errorf("answer %d = %+v, want %v", i, a, want[i])
		}
	}
	if r.Answers[2].Custom != "Both, behind a flag" || r.Answers[3].Custom != "" {
		t.Errorf("custom texts %q, %q", r.Answers[2].Custom, r.Answers[3].Custom)
	}
	if strings.Contains(h.view(), "Question 4 of 4") {
		t.Errorf("the form stays after its last answer:\n%s", h.view())
	}
}

var want4IDs = []string{"q1", "q2", "q3", "q4"}

// TestFormIgnoresKeysTypedAsItAppears: keys typed as the form appears
// answer nothing; Enter typed in the same burst neither.
func TestFormIgnoresKeysTypedAsItAppears(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := clarifyingAsk(1)
	h.send(ask)
	h.keys("1")
	h.key(tea.KeyEnter, 0)
	h.key(tea.KeyEscape, 0)
	h.noReply(reply, "type-ahead answered the form")
	if !strings.Contains(h.view(), "Question 1 of 4") || !strings.Contains(h.view(), "keys typed as the questions") {
		t.Fatalf("view:\n%s", h.view())
	}
	h.send(tui.AskGoneMsg{ID: 1})
	if strings.Contains(h.view(), "Question 1 of 4") {
		t.Fatalf("a withdrawn form is still shown:\n%s", h.view())
	}
}

// TestWithdrawnQuestionsAddNoLine: a question the agent withdrew (Ctrl-C,
// a cancelled turn) closes without a line of its own: the log's items say
// how it ended, in order, once.
func TestWithdrawnQuestionsAddNoLine(t *testing.T) {
	for _, kind := range []string{"review", "form"} {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t, tui.Config{})
			ask, reply := clarifyingAsk(1)
			if kind == "review" {
				ask, reply = planAsk(1, "# Plan\n")
			}
			h.send(ask)
			before := tui.RenderedForTest(h.m)
			h.send(tui.AskGoneMsg{ID: 1})
			if after := tui.RenderedForTest(h.m); !slices.Equal(before, after) {
				t.Errorf("the withdrawn question added lines:\n%s", strings.Join(after[len(before):], "\n"))
			}
			h.noReply(reply, "a withdrawn question was answered")
			if v := h.view(); !strings.Contains(v, "/help") {
				t.Errorf("the question did not close:\n%s", v)
			}
		})
	}
}

// TestFormSaysOwnWordsReplaceTheTickedOptions: with options ticked and
// the user's own words typed, the form says what the model is told: the
// words win. Both go in the answer, as planask reads them.
func TestFormSaysOwnWordsReplaceTheTickedOptions(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		t.Run(cat.Lang, func(t *testing.T) {
			h := newHarness(t, tui.Config{Catalog: cat})
			ask, reply := clarifyingAsk(1)
			h.send(ask)
			h.answer("1")
			h.key(tea.KeyUp, 0) // the row of the user's words
			if strings.Contains(h.view(), cat.Form.OtherWins) {
				t.Fatalf("the note shows before any words were typed:\n%s", h.view())
			}
			h.keys("Both")
			if v := h.view(); !strings.Contains(v, cat.Form.OtherWins) {
				t.Fatalf("the form does not say the words replace the ticked option:\n%s", v)
			}
			h.key(tea.KeyEnter, 0)
			for range 3 {
				h.answer("1")
				h.key(tea.KeyEnter, 0)
			}
			r := h.replied(reply)
			if a := r.Answers[0]; a.Custom != "Both" || !slices.Equal(a.Selected, []string{"In code"}) {
				t.Errorf("answer = %+v", a)
			}
		})
	}
}
