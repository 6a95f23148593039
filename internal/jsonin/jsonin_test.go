package jsonin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/jsonin"
)

func TestUnknownListsTheOtherKeysQuotedAndSorted(t *testing.T) {
	tests := []struct {
		name  string
		give  string
		known []string
		want  string
	}{
		{"only known keys", `{"a":1,"b":2}`, []string{"a", "b", "c"}, ""},
		{"no keys", `{}`, []string{"a"}, ""},
		{"one unknown", `{"a":1,"z":2}`, []string{"a"}, `"z"`},
		{"several unknown, sorted", `{"z":1,"a":2,"m":3}`, []string{"a"}, `"m", "z"`},
		{"a key differing in case", `{"A":1}`, []string{"a"}, `"A"`},
		{"a key needing quotes", `{"a\"b":1}`, nil, `"a\"b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.give), &fields); err != nil {
				t.Fatal(err)
			}
			if got := jsonin.Unknown(fields, tt.known...); got != tt.want {
				t.Errorf("Unknown = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestIsNull(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"null", true},
		{" null\n", true},
		{`"null"`, false},
		{"0", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := jsonin.IsNull(json.RawMessage(tt.give)); got != tt.want {
			t.Errorf("IsNull(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestRequiredFieldsNameTheKeyAndTheProblem(t *testing.T) {
	tests := []struct {
		name, give, want string
	}{
		{"a string", `{"k":"v"}`, ""},
		{"missing", `{}`, `"k" is missing`},
		{"null", `{"k":null}`, `"k" is not a string`},
		{"a number", `{"k":1}`, `"k" is not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, ok := jsonin.Object(json.RawMessage(tt.give))
			if !ok {
				t.Fatal("not an object")
			}
			_, err := jsonin.String(fields, "k")
			if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
				t.Errorf("String: %v, want %q", err, tt.want)
			}
		})
	}
	fields, _ := jsonin.Object(json.RawMessage(`{"l":{}}`))
	if _, err := jsonin.List(fields, "l"); fmt.Sprint(err) != `"l" is not a list` {
		t.Errorf("List of an object: %v", err)
	}
	for _, give := range []string{`[]`, `null`, `"x"`, `{`} {
		if _, ok := jsonin.Object(json.RawMessage(give)); ok {
			t.Errorf("Object(%s) is an object", give)
		}
	}
}

func TestHasControl(t *testing.T) {
	tests := []struct {
		give, allow string
		want        bool
	}{
		{"plain text, ünïcode", "", false},
		{"a\nb", "", true},
		{"a\nb\tc", "\n\t", false},
		{"a\r\nb", "\n\t", true},
		{"esc \x1b[2J", "\n\t", true},
		{"del \x7f", "", true},
		{"c1 \u0085", "", true},
		{"bidi \u202e", "", true},
		{"isolate \u2066", "", true},
		{"bad \xff", "", true},
	}
	for _, tt := range tests {
		if got := jsonin.HasControl(tt.give, tt.allow); got != tt.want {
			t.Errorf("HasControl(%q, %q) = %v, want %v", tt.give, tt.allow, got, tt.want)
		}
	}
}

func TestStrictNamesWhatIsWrong(t *testing.T) {
	type in struct {
		Goal  *string `json:"goal"`
		Count int     `json:"count"`
		Tags  []string
	}
	tests := []struct {
		give, want string
	}{
		{`{"goal":"g","count":1}`, ""},
		{``, "input is empty"},
		{` null `, "input is empty"},
		{`{"goal":3}`, `"goal" is not a string`},
		{`{"count":"x"}`, `"count" is not a number`},
		{`{"Tags":"x"}`, `"Tags" is not a list`},
		{`{"extra":1}`, `input does not decode: unknown field "extra"`},
		{`[1]`, "input does not decode: "},
		{`{} {}`, "input has data after its JSON value"},
	}
	for _, tt := range tests {
		var v in
		err := jsonin.Strict("input", []byte(tt.give), &v)
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && !strings.HasPrefix(got, tt.want)) {
			t.Errorf("Strict(%s) = %v, want %q", tt.give, err, tt.want)
		}
	}
}
