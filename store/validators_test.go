package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

func TestValidatorsRunInOrderAndNameTheOneThatFails(t *testing.T) {
	var vs store.Validators // the zero value is ready
	var ran []string
	pass := func(name string) host.Validator {
		return func(host.Event) error { ran = append(ran, name); return nil }
	}
	errBad := errors.New("bad payload")
	if _, err := vs.Add("a", pass("a")); err != nil {
		t.Fatal(err)
	}
	removeB, err := vs.Add("b", pass("b"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vs.Add("c", func(host.Event) error { ran = append(ran, "c"); return errBad }); err != nil {
		t.Fatal(err)
	}
	err = vs.Check(host.Event{Type: "x/y"})
	if !errors.Is(err, errBad) || !strings.Contains(err.Error(), `validator "c"`) {
		t.Errorf("Check = %v, want errBad named validator \"c\"", err)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want %q", ran, want)
	}
	removeB()
	removeB() // a second call does nothing
	ran = nil
	_ = vs.Check(host.Event{Type: "x/y"})
	if want := []string{"a", "c"}; !slices.Equal(ran, want) {
		t.Errorf("after removing b ran %q, want %q", ran, want)
	}
}

func TestValidatorsAddRefusesNilAndDuplicatesNamingTheOwner(t *testing.T) {
	vs := &store.Validators{Owner: "mystore"}
	if _, err := vs.Add("a", func(host.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		give    host.Validator
		key     string
		wantErr string
		wantIs  error
	}{
		{"nil func", nil, "n", `mystore: validator "n": func is nil`, nil},
		{"duplicate name", func(host.Event) error { return nil }, "a", `mystore: validator "a": `, host.ErrDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := vs.Add(tt.key, tt.give)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) {
				t.Errorf("Add = %v, want an error starting %q (is %v)", err, tt.wantErr, tt.wantIs)
			}
		})
	}
}
