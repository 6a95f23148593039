package pgstore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
)

// TestDocumentsConformance runs the host.Documents conformance suite
// against the store's documents, each subtest on a fresh schema.
func TestDocumentsConformance(t *testing.T) {
	hosttest.TestDocuments(t, func(t testing.TB) host.Documents { return open(t, pgtest.NewDB(t)).Documents() })
}

// TestDocumentsTwoStoresLoseNoUpdate: goroutines on two stores (two
// processes) increment one counter document by read, change and
// compare-and-swap with retry; no increment is lost.
func TestDocumentsTwoStoresLoseNoUpdate(t *testing.T) {
	a, b, _ := twoStores(t)
	ctx := context.Background()
	const goroutines, each = 16, 10
	var wg sync.WaitGroup
	for g := range goroutines {
		docs := []*pgstore.Store{a, b}[g%2].Documents()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				for {
					n, v := 0, int64(0)
					doc, err := docs.Get(ctx, "agent", "counter")
					switch {
					case err == nil:
						n, _ = strconv.Atoi(string(doc.Data))
						v = doc.Version
					case !errors.Is(err, host.ErrDocumentNotFound):
						t.Error(err)
						return
					}
					_, err = docs.Put(ctx, "agent", "counter", []byte(strconv.Itoa(n+1)), v)
					if errors.Is(err, host.ErrVersionConflict) {
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	doc, err := b.Documents().Get(ctx, "agent", "counter")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc.Data) != strconv.Itoa(goroutines*each) || doc.Version != goroutines*each {
		t.Fatalf("counter %s at version %d, want %d at %d", doc.Data, doc.Version, goroutines*each, goroutines*each)
	}
}
