package store_test

import (
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

func TestMemoryConformance(t *testing.T) {
	hosttest.TestStore(t, func(testing.TB) host.Store { return store.NewMemory() })
}

func TestDirConformance(t *testing.T) {
	hosttest.TestStore(t, func(t testing.TB) host.Store { return openDir(t, sessionsDir(t)) })
}
