package plangate_test

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/plangate"
)

// FuzzDecodeConfig: decoding never panics, and an accepted config is valid.
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range []string{"tools: [a]", "tools: []", "tools: [exit_plan_mode]", "tools: a", "x: 1", "[1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(src), &n) != nil {
			return
		}
		cfg, err := plangate.DecodeConfig(&n)
		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("decoded %+v from %q, which does not validate: %v", cfg, src, verr)
			}
		}
	})
}
