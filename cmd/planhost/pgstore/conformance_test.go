package pgstore_test

import (
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
)

// TestConformance runs the host.Store and host.Session conformance suite
// against the store, each subtest on a fresh schema.
func TestConformance(t *testing.T) {
	hosttest.TestStore(t, func(t testing.TB) host.Store { return open(t, pgtest.NewDB(t)) })
}
