package planask_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
)

// FuzzDecodeInput feeds arbitrary input to ask_user's check: no panic; a
// refusal wraps ErrBadInput; what it accepts keeps every limit, holds no
// control characters where they would reach a terminal, and logs as a
// plan/ask event the payload check accepts.
func FuzzDecodeInput(f *testing.F) {
	f.Add([]byte(`{"questions":[{"header":"H","question":"Q?","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}`))
	f.Add([]byte(`{"questions":[{"header":"H","question":"Q?","multiSelect":true,"options":[{"label":"A","description":"a"},{"label":"a","description":"b"}]}]}`))
	f.Add([]byte(`{"questions":[{"header":"H\u001b[2J","question":"Q?\nmore","options":[{"label":"A","description":"a"},{"label":"Other","description":"b"}]}]}`))
	f.Add([]byte(`{"questions":null}`))
	f.Add([]byte(`{"questions":[],"x":1}`))
	f.Fuzz(func(t *testing.T, input []byte) {
		qs, err := planask.DecodeInput(input)
		if err != nil {
			if !errors.Is(err, planask.ErrBadInput) {
				t.Fatalf("error %v does not wrap ErrBadInput", err)
			}
			return
		}
		if len(qs) < 1 || len(qs) > planask.MaxQuestions {
			t.Fatalf("%d questions", len(qs))
		}
		for _, q := range qs {
			if len(q.Options) < planask.MinOptions || len(q.Options) > planask.MaxOptions || q.Header == "" || q.Question == "" {
				t.Fatalf("question %+v", q)
			}
			if !clean(q.Header, false) || !clean(q.Question, true) {
				t.Fatalf("control characters in %+v", q)
			}
			labels := map[string]bool{}
			for _, o := range q.Options {
				k := strings.ToLower(o.Label)
				if labels[k] || !clean(o.Label, false) || !clean(o.Description, true) || strings.EqualFold(o.Label, "other") {
					t.Fatalf("option %+v", o)
				}
				labels[k] = true
			}
		}
		data, err := json.Marshal(planask.AskPayload{CallID: "c", Questions: qs})
		if err != nil {
			t.Fatal(err)
		}
		if err := planask.CheckPayload(host.Event{Type: planask.EventAsk, Data: data}); err != nil {
			t.Fatalf("accepted input logs a refused payload: %v", err)
		}
	})
}

// clean reports valid UTF-8 without C0, DEL or C1 controls (line breaks and
// tabs allowed when breaks is set).
func clean(s string, breaks bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if breaks && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return false
		}
	}
	return true
}
