package validators_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/validators"
	"github.com/dshgo/planmode/store"
)

// TestAddFor: the check is registered for every event; it refuses a bad
// event of its own type and passes the others.
func TestAddFor(t *testing.T) {
	errBad := errors.New("bad")
	st := store.NewMemory()
	var seen []string
	check := func(e host.Event) error {
		seen = append(seen, e.Type)
		if e.Type == "test/a" && string(e.Data) == `"bad"` {
			return errBad
		}
		return nil
	}
	if _, err := validators.AddFor(st, "p", []string{"test/a", "test/b"}, check); err != nil {
		t.Fatal(err)
	}
	s, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		give    host.Event
		wantErr error
	}{
		{host.Event{Type: "test/other", Data: []byte(`"bad"`)}, nil},
		{host.Event{Type: "test/a", Data: []byte(`"good"`)}, nil},
		{host.Event{Type: "test/a", Data: []byte(`"bad"`)}, errBad},
	}
	for _, tt := range tests {
		if _, err := s.Append(tt.give); !errors.Is(err, tt.wantErr) {
			t.Errorf("append %s %s: %v, want %v", tt.give.Type, tt.give.Data, err, tt.wantErr)
		}
	}
	if want := []string{"test/other", "test/a", "test/a"}; !slices.Equal(seen, want) {
		t.Errorf("the check saw %q, want %q", seen, want)
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
