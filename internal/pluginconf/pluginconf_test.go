package pluginconf_test

import (
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/pluginconf"
	"gopkg.in/yaml.v3"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, give, want string // want: error substring, or "" for none
		n                int
		b                bool
	}{
		{"empty entry keeps the defaults", "", "", 5, false},
		{"null keeps the defaults", "null", "", 5, false},
		{"both keys", "n: 7\nb: true", "", 7, true},
		{"hex and underscores", "n: 0x0_a", "", 10, false},
		{"not a mapping", "[1]", "1:1: the configuration must be a mapping (keys: b, n) or empty, got a list", 5, false},
		{"unknown key", "x: 1", "1:1: x: unknown key (known keys: b, n)", 5, false},
		{"key not a string", "1: 2", "1:1: keys must be strings, got a number", 5, false},
		{"number out of range", "n: 11", "1:4: n: must be a whole number from 1 to 10, got 11", 5, false},
		{"number as a string", "n: \"3\"", "got a string", 5, false},
		{"float", "n: 1.5", "got a number", 5, false},
		{"bool as a string", "b: yes please", "b: must be true or false, got a string", 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var node yaml.Node
			if err := yaml.Unmarshal([]byte(tt.give), &node); err != nil {
				t.Fatal(err)
			}
			n, b := 5, false
			err := pluginconf.Decode(&node,
				pluginconf.Field{Key: "n", Decode: pluginconf.Int(&n, 1, 10)},
				pluginconf.Field{Key: "b", Decode: pluginconf.Bool(&b)})
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			case tt.want == "" && (n != tt.n || b != tt.b):
				t.Fatalf("n=%d b=%v, want %d %v", n, b, tt.n, tt.b)
			}
		})
	}
}
