package host_test

import (
	"fmt"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/dshgo/planmode/host"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSlotsZeroValueIsEmpty(t *testing.T) {
	var s host.Slots
	k := host.NewSlotKey()
	if v := s.Load(k); v != nil {
		t.Fatalf("Load on zero Slots = %v, want nil", v)
	}
	if v := s.Load(nil); v != nil {
		t.Fatalf("Load(nil) = %v, want nil", v)
	}
	s.Delete(k) // nothing to delete: no panic, still empty
	if s.CompareAndDelete(k, 1) {
		t.Fatal("CompareAndDelete on zero Slots reported a deletion")
	}
	if v := s.Load(k); v != nil {
		t.Fatalf("Load after Delete = %v, want nil", v)
	}
}

func TestSlotKeysAreDistinct(t *testing.T) {
	a, b := host.NewSlotKey(), host.NewSlotKey()
	if a == b {
		t.Fatal("two NewSlotKey calls returned the same key")
	}
	var s host.Slots
	s.Store(a, "a")
	if v := s.Load(b); v != nil {
		t.Fatalf("Load(b) = %v after Store(a): keys share a slot", v)
	}
}

// slotOp is one call on Slots in a table test: store (v != nil), store nil,
// delete, or compare-and-delete with old.
type slotOp struct {
	kind string // "store", "delete", "cad"
	key  int
	v    any
	ok   bool // for "cad": the result wanted
}

func TestSlotsOperations(t *testing.T) {
	tests := []struct {
		name string
		ops  []slotOp
		want map[int]any // key index → value; absent keys want nil
	}{
		{"store then load", []slotOp{{kind: "store", key: 0, v: "x"}}, map[int]any{0: "x"}},
		{"store replaces", []slotOp{{kind: "store", key: 0, v: "x"}, {kind: "store", key: 0, v: "y"}}, map[int]any{0: "y"}},
		{"store nil deletes", []slotOp{{kind: "store", key: 0, v: "x"}, {kind: "store", key: 0, v: nil}}, nil},
		{"delete one of two", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "store", key: 1, v: 2}, {kind: "delete", key: 0},
		}, map[int]any{1: 2}},
		{"compare-and-delete matches", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: 1, ok: true},
		}, nil},
		{"compare-and-delete keeps a different value", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: 2, ok: false},
		}, map[int]any{0: 1}},
		{"compare-and-delete of nil deletes nothing", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: nil, ok: false},
		}, map[int]any{0: 1}},
		{"more keys than fit inline", func() []slotOp {
			var ops []slotOp
			for k := range 9 {
				ops = append(ops, slotOp{kind: "store", key: k, v: k * 10})
			}
			return append(ops, slotOp{kind: "delete", key: 2}, slotOp{kind: "delete", key: 7},
				slotOp{kind: "store", key: 4, v: "four"})
		}(), map[int]any{0: 0, 1: 10, 3: 30, 4: "four", 5: 50, 6: 60, 8: 80}},
		{"delete every key", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "store", key: 1, v: 2},
			{kind: "delete", key: 1}, {kind: "delete", key: 0},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := make([]*host.SlotKey, 10)
			for i := range keys {
				keys[i] = host.NewSlotKey()
			}
			var s host.Slots
			for _, op := range tt.ops {
				switch op.kind {
				case "store":
					s.Store(keys[op.key], op.v)
				case "delete":
					s.Delete(keys[op.key])
				case "cad":
					if got := s.CompareAndDelete(keys[op.key], op.v); got != op.ok {
						t.Fatalf("CompareAndDelete(key %d, %v) = %v, want %v", op.key, op.v, got, op.ok)
					}
				}
			}
			for i, k := range keys {
				if got := s.Load(k); got != tt.want[i] {
					t.Errorf("Load(key %d) = %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}

// Many goroutines each own a key and store, read back and delete their own
// values while the others do the same: a Load never returns another key's
// value or a value its owner no longer holds.
func TestSlotsConcurrentOwners(t *testing.T) {
	const owners, rounds = 16, 300
	var s host.Slots
	var wg sync.WaitGroup
	errs := make(chan error, owners)
	for o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := host.NewSlotKey()
			for i := range rounds {
				v := fmt.Sprintf("%d/%d", o, i)
				s.Store(k, v)
				if got := s.Load(k); got != v {
					errs <- fmt.Errorf("owner %d: Load after Store(%q) = %v", o, v, got)
					return
				}
				if i%3 == 0 {
					if !s.CompareAndDelete(k, v) {
						errs <- fmt.Errorf("owner %d: CompareAndDelete(%q) failed", o, v)
						return
					}
					if got := s.Load(k); got != nil {
						errs <- fmt.Errorf("owner %d: Load after delete = %v", o, got)
						return
					}
				}
			}
			s.Delete(k)
		}()
	}
	// Readers of keys no one stores under always see nothing.
	stop := make(chan struct{})
	var rd sync.WaitGroup
	rd.Add(1)
	go func() {
		defer rd.Done()
		k := host.NewSlotKey()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if v := s.Load(k); v != nil {
				errs <- fmt.Errorf("Load of an unused key = %v", v)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	rd.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Slots behaves as a map from key to value under any sequence of calls.
func TestSlotsMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := make([]*host.SlotKey, 7)
		for i := range keys {
			keys[i] = host.NewSlotKey()
		}
		var s host.Slots
		model := map[int]int{}
		for range rapid.IntRange(0, 60).Draw(t, "calls") {
			k := rapid.IntRange(0, len(keys)-1).Draw(t, "key")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				v := rapid.IntRange(1, 3).Draw(t, "value")
				s.Store(keys[k], v)
				model[k] = v
			case 1:
				s.Delete(keys[k])
				delete(model, k)
			case 2:
				v := rapid.IntRange(1, 3).Draw(t, "old")
				want := model[k] == v
				if got := s.CompareAndDelete(keys[k], v); got != want {
					t.Fatalf("CompareAndDelete(key %d, %d) = %v, want %v", k, v, got, want)
				}
				if want {
					delete(model, k)
				}
			}
			for i, key := range keys {
				var want any
				if v, ok := model[i]; ok {
					want = v
				}
				if got := s.Load(key); got != want {
					t.Fatalf("Load(key %d) = %v, want %v", i, got, want)
				}
			}
		}
	})
}

func TestSlotsLoadDoesNotAllocate(t *testing.T) {
	var s host.Slots
	keys := make([]*host.SlotKey, 6)
	for i := range keys {
		keys[i] = host.NewSlotKey()
		s.Store(keys[i], &keys[i])
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			_ = s.Load(k)
		}
	}); n != 0 {
		t.Errorf("Load allocates %v times per run, want 0", n)
	}
}
