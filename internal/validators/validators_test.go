package validators_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/validators"
	"github.com/dshgo/planmode/store"
)

// plainValidators offers only AddValidator, hiding the store's typed
// registration.
type plainValidators struct{ vs host.Validators }

func (p plainValidators) AddValidator(name string, v host.Validator) (func(), error) {
	return p.vs.AddValidator(name, v)
}

// TestAddFor: where the store offers typed registration, the
// check runs on the named types only; elsewhere on every event. Either way
// a bad event of a named type is refused.
func TestAddFor(t *testing.T) {
	errBad := errors.New("bad")
	tests := []struct {
		name      string
		plain     bool
		wantTypes []string // the types the check was called with
	}{
		{"typed", false, []string{"test/a"}},
		{"plain", true, []string{"test/other", "test/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			var vs host.Validators = st
			if tt.plain {
				vs = plainValidators{st}
			}
			var seen []string
			check := func(e host.Event) error {
				seen = append(seen, e.Type)
				if e.Type == "test/a" && string(e.Data) == `"bad"` {
					return errBad
				}
				return nil
			}
			if _, err := validators.AddFor(vs, "p", []string{"test/a", "test/b"}, check); err != nil {
				t.Fatal(err)
			}
			s, err := st.Create("")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range []host.Event{{Type: "test/other", Data: []byte(`"bad"`)}, {Type: "test/a", Data: []byte(`"good"`)}} {
				if _, err := s.Append(e); err != nil {
					t.Fatalf("append %s: %v", e.Type, err)
				}
			}
			if _, err := s.Append(host.Event{Type: "test/a", Data: []byte(`"bad"`)}); !errors.Is(err, errBad) {
				t.Errorf("append of a bad test/a: %v, want the check's error", err)
			}
			if want := append(slices.Clone(tt.wantTypes), "test/a"); !slices.Equal(seen, want) {
				t.Errorf("the check saw %q, want %q", seen, want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	types := []host.EventType{{Name: "test/a", Kind: host.LogOnly}, {Name: "test/b", Kind: host.LogOnly}}
	if got, want := validators.Names(types), []string{"test/a", "test/b"}; !slices.Equal(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if got := validators.Names(nil); len(got) != 0 {
		t.Errorf("Names(nil) = %q, want none", got)
	}
}
