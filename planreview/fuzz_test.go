package planreview_test

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/planreview"
)

// FuzzDecodeConfig: decoding never panics, and an accepted config is valid.
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range []string{"options: [abandon]", "options: [abandon, abandon]", "options: []\nheadless: approve", "headless: 1", "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(src), &n) != nil {
			return
		}
		cfg, err := planreview.DecodeConfig(&n)
		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("decoded %+v from %q, which does not validate: %v", cfg, src, verr)
			}
		}
	})
}
