package present_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
)

// askOf is one ask_user call of two questions as the log holds it, at
// position seq, ended with outcome and answers.
func askOf(seq uint64, outcome string, answers ...planask.Answer) planask.Ask {
	opts := []planask.Option{{Label: "In code", Description: "a map"}, {Label: "In a file", Description: "JSON"}}
	return planask.Ask{Seq: seq,
		Questions: planask.AskPayload{CallID: "c", Questions: []planask.Question{
			{ID: "q1", Header: "Storage", Question: "Where?", MultiSelect: true, Options: opts},
			{ID: "q2", Header: "Docs", Question: "README?", Options: opts},
		}},
		Answer: &planask.AnswerPayload{CallID: "c", Outcome: outcome, Answers: answers, Error: "question aborted: context canceled"},
	}
}

// TestAnswersShowWhatTheModelReads: each answer shows as the model reads
// it (planask's result: the user's own words win over the options ticked
// with them), and the box is named by its questions' headers, never by a
// position in the log, with how it ended in the catalog's words.
func TestAnswersShowWhatTheModelReads(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		w := &cat.Boxes
		tests := []struct {
			name string
			give planask.Answer
			want string
		}{
			{"options", planask.Answer{ID: "q1", Selected: []string{"In code", "In a file"}}, "In code, In a file"},
			{"own words", planask.Answer{ID: "q1", Other: "Both"}, fmt.Sprintf(w.OwnWords, "Both")},
			{"own words over ticked options", planask.Answer{ID: "q1", Selected: []string{"In code"}, Other: "Both"}, fmt.Sprintf(w.OwnWordsOver, "Both", "In code")},
			{"skipped", planask.Answer{ID: "q1", Skipped: true}, w.Skipped},
		}
		for _, tt := range tests {
			t.Run(cat.Lang+"/"+tt.name, func(t *testing.T) {
				box := cat.AnswersBox(askOf(10, planask.OutcomeAnswered, tt.give))
				if want := fmt.Sprintf(w.Answer, "Storage", "Where?", tt.want); box.Rows[0].Text != want {
					t.Errorf("row = %q, want %q", box.Rows[0].Text, want)
				}
				if want := fmt.Sprintf(w.Unanswered, "Docs", "README?"); box.Rows[1].Text != want {
					t.Errorf("unanswered row = %q, want %q", box.Rows[1].Text, want)
				}
				if want := fmt.Sprintf(w.Asked, "Storage"+w.Join+"Docs", w.Answered); box.Title != want {
					t.Errorf("title = %q, want %q", box.Title, want)
				}
			})
		}
		t.Run(cat.Lang+"/failed", func(t *testing.T) {
			box := cat.AnswersBox(askOf(10, planask.OutcomeFailed))
			if want := fmt.Sprintf(w.Asked, "Storage"+w.Join+"Docs", w.Failed); box.Title != want {
				t.Errorf("title = %q, want %q", box.Title, want)
			}
			for _, bad := range []string{"10", "aborted", "canceled"} {
				if strings.Contains(box.Title, bad) {
					t.Errorf("title %q shows %q", box.Title, bad)
				}
			}
		})
	}
}
