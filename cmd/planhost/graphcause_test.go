package main

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"
)

func TestGraphCauseIsOneLineNamingTheCause(t *testing.T) {
	boom := errors.New("plan-mode: invalid config: section: must not be blank")
	err := fx.New(fx.NopLogger,
		fx.Provide(func() (int, error) { return 0, boom }),
		fx.Provide(func(int) string { return "" }),
		fx.Invoke(func(string) {}),
	).Err()
	if err == nil {
		t.Fatal("the graph built")
	}
	got := graphCause(err)
	if !errors.Is(got, boom) || strings.Contains(got.Error(), "\n") || got.Error() != boom.Error() {
		t.Fatalf("graphCause = %q; want %q", got, boom)
	}
}
