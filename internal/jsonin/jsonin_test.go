package jsonin_test

import (
	"encoding/json"
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
