package host_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/dshgo/planmode/host"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSlotsZeroValueIsEmpty(t *testing.T) {
	var s host.Slots
	k := host.NewSlotKey[int]()
	if v := k.Load(&s); v != nil {
		t.Fatalf("Load on zero Slots = %v, want nil", v)
	}
	if v := k.Load(nil); v != nil {
		t.Fatalf("Load on nil Slots = %v, want nil", v)
	}
	k.Delete(&s) // nothing to delete: no panic, still empty
	if k.CompareAndDelete(&s, new(int)) {
		t.Fatal("CompareAndDelete on zero Slots reported a deletion")
	}
	if v := k.Load(&s); v != nil {
		t.Fatalf("Load after Delete = %v, want nil", v)
	}
}

func TestSlotKeysAreDistinct(t *testing.T) {
	a, b := host.NewSlotKey[string](), host.NewSlotKey[string]()
	if a == b {
		t.Fatal("two NewSlotKey calls returned the same key")
	}
	var s host.Slots
	x := "a"
	a.Store(&s, &x)
	if v := b.Load(&s); v != nil {
		t.Fatalf("b.Load = %q after a.Store: keys share a slot", *v)
	}
}

// slotOp is one call on Slots in a table test: store (v < 0 stores nil),
// delete, or compare-and-delete with the value stored as v.
type slotOp struct {
	kind string // "store", "delete", "cad"
	key  int
	v    int
	ok   bool // for "cad": the result wanted
}

func TestSlotsOperations(t *testing.T) {
	tests := []struct {
		name string
		ops  []slotOp
		want map[int]int // key index → value; absent keys want nil
	}{
		{"store then load", []slotOp{{kind: "store", key: 0, v: 1}}, map[int]int{0: 1}},
		{"store replaces", []slotOp{{kind: "store", key: 0, v: 1}, {kind: "store", key: 0, v: 2}}, map[int]int{0: 2}},
		{"store nil deletes", []slotOp{{kind: "store", key: 0, v: 1}, {kind: "store", key: 0, v: -1}}, nil},
		{"delete one of two", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "store", key: 1, v: 2}, {kind: "delete", key: 0},
		}, map[int]int{1: 2}},
		{"a freed inline entry takes the next key", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "store", key: 1, v: 2}, {kind: "delete", key: 0},
			{kind: "store", key: 2, v: 3}, {kind: "store", key: 3, v: 4},
		}, map[int]int{1: 2, 2: 3, 3: 4}},
		{"compare-and-delete matches", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: 1, ok: true},
		}, nil},
		{"compare-and-delete keeps a different value", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: 2, ok: false},
		}, map[int]int{0: 1}},
		{"compare-and-delete of nil deletes nothing", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "cad", key: 0, v: -1, ok: false},
		}, map[int]int{0: 1}},
		{"more keys than fit inline", func() []slotOp {
			var ops []slotOp
			for k := range 9 {
				ops = append(ops, slotOp{kind: "store", key: k, v: k * 10})
			}
			return append(ops, slotOp{kind: "delete", key: 1}, slotOp{kind: "delete", key: 7},
				slotOp{kind: "store", key: 4, v: 44}, slotOp{kind: "cad", key: 5, v: 50, ok: true},
				slotOp{kind: "store", key: 9, v: 99})
		}(), map[int]int{0: 0, 2: 20, 3: 30, 4: 44, 6: 60, 8: 80, 9: 99}},
		{"delete every key", []slotOp{
			{kind: "store", key: 0, v: 1}, {kind: "store", key: 1, v: 2}, {kind: "store", key: 2, v: 3},
			{kind: "delete", key: 2}, {kind: "delete", key: 1}, {kind: "delete", key: 0},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := make([]*host.SlotKey[int], 10)
			for i := range keys {
				keys[i] = host.NewSlotKey[int]()
			}
			var s host.Slots
			values := map[int]*int{} // one pointer per value, so that equal values compare equal
			ptr := func(v int) *int {
				if v < 0 {
					return nil
				}
				if values[v] == nil {
					values[v] = &v
				}
				return values[v]
			}
			for _, op := range tt.ops {
				k := keys[op.key]
				switch op.kind {
				case "store":
					k.Store(&s, ptr(op.v))
				case "delete":
					k.Delete(&s)
				case "cad":
					if got := k.CompareAndDelete(&s, ptr(op.v)); got != op.ok {
						t.Fatalf("CompareAndDelete(key %d, %d) = %v, want %v", op.key, op.v, got, op.ok)
					}
				}
			}
			for i, k := range keys {
				got := k.Load(&s)
				want, ok := tt.want[i]
				switch {
				case !ok && got != nil:
					t.Errorf("Load(key %d) = %d, want nil", i, *got)
				case ok && (got == nil || *got != want):
					t.Errorf("Load(key %d) = %v, want %d", i, got, want)
				}
			}
		})
	}
}

// Many goroutines each own a key and store, read back and delete their own
// values while the others do the same, more of them than fit inline, so
// that entries are freed and taken by other keys all the time; a watcher
// per key reads it meanwhile. A Load never returns another key's value or
// a value its owner no longer holds.
func TestSlotsConcurrentOwners(t *testing.T) {
	const owners, rounds = 6, 3000
	var s host.Slots
	keys := make([]*host.SlotKey[string], owners)
	for o := range keys {
		keys[o] = host.NewSlotKey[string]()
	}
	errs := make(chan error, 2*owners+1)
	stop := make(chan struct{})
	var watchers sync.WaitGroup
	for o, k := range keys {
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			prefix := fmt.Sprintf("%d/", o)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if v := k.Load(&s); v != nil && !strings.HasPrefix(*v, prefix) {
					errs <- fmt.Errorf("key %d read %q, another key's value", o, *v)
					return
				}
				v, w, inline := k.LoadWord(&s)
				if v != nil && !strings.HasPrefix(*v, prefix) {
					errs <- fmt.Errorf("key %d: LoadWord read %q, another key's value", o, *v)
					return
				}
				if v == nil && (w != 0 || inline) {
					errs <- fmt.Errorf("key %d: LoadWord without a value = word %#x, inline %v", o, w, inline)
					return
				}
				if w != 0 && w>>32 != uint64(o)+1 {
					errs <- fmt.Errorf("key %d: LoadWord read word %#x, another key's", o, w)
					return
				}
			}
		}()
	}
	var wg sync.WaitGroup
	for o, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				v := fmt.Sprintf("%d/%d", o, i)
				k.Store(&s, &v)
				if got := k.Load(&s); got != &v {
					errs <- fmt.Errorf("owner %d: Load after Store(%q) = %v", o, v, got)
					return
				}
				// The owner writes its value's word (when it is inline)
				// until it deletes or replaces the value.
				if p := k.Word(&s); p != nil {
					if got := p.Load(); got != 0 {
						errs <- fmt.Errorf("owner %d: a new value's word = %#x, want 0", o, got)
						return
					}
					want := (uint64(o)+1)<<32 | uint64(i)
					p.Store(want)
					if got, w, inline := k.LoadWord(&s); got != &v || w != want || !inline {
						errs <- fmt.Errorf("owner %d: LoadWord = %v, %#x, %v; want its value, %#x, true", o, got, w, inline, want)
						return
					}
				}
				if i%2 == 0 {
					if !k.CompareAndDelete(&s, &v) {
						errs <- fmt.Errorf("owner %d: CompareAndDelete(%q) failed", o, v)
						return
					}
					if got := k.Load(&s); got != nil {
						errs <- fmt.Errorf("owner %d: Load after delete = %q", o, *got)
						return
					}
				}
			}
			k.Delete(&s)
		}()
	}
	unused := host.NewSlotKey[string]()
	for range rounds {
		if v := unused.Load(&s); v != nil {
			errs <- fmt.Errorf("Load of an unused key = %q", *v)
			break
		}
	}
	wg.Wait()
	close(stop)
	watchers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An inline value's word starts at zero, stays with the value until it is
// deleted or replaced, and LoadWord reads it with the value; values past
// the inline keys have no word.
func TestSlotsWords(t *testing.T) {
	keys := make([]*host.SlotKey[int], 4)
	for i := range keys {
		keys[i] = host.NewSlotKey[int]()
	}
	var nilSlots *host.Slots
	if p := keys[0].Word(nilSlots); p != nil {
		t.Fatal("Word of nil Slots is not nil")
	}
	if v, w, inline := keys[0].LoadWord(nilSlots); v != nil || w != 0 || inline {
		t.Fatalf("LoadWord of nil Slots = %v, %#x, %v; want nil, 0, false", v, w, inline)
	}
	var s host.Slots
	if p := keys[0].Word(&s); p != nil {
		t.Fatal("Word of a key with no value is not nil")
	}
	values := make([]int, len(keys))
	for i, k := range keys {
		k.Store(&s, &values[i])
	}
	for i, k := range keys {
		p := k.Word(&s)
		if inline := i < 2; (p != nil) != inline {
			t.Fatalf("key %d: Word = %p, want a word only for the first two (inline) keys", i, p)
		}
		if p == nil {
			if v, w, inline := k.LoadWord(&s); v != &values[i] || w != 0 || inline {
				t.Fatalf("key %d: LoadWord = %p, %#x, %v; want its value, 0, false", i, v, w, inline)
			}
			continue
		}
		if got := p.Load(); got != 0 {
			t.Fatalf("key %d: a new value's word = %#x, want 0", i, got)
		}
		p.Store(uint64(100 + i))
		if again := k.Word(&s); again != p {
			t.Fatalf("key %d: Word moved from %p to %p while the value stayed", i, p, again)
		}
	}
	for i, k := range keys[:2] {
		if v, w, inline := k.LoadWord(&s); v != &values[i] || w != uint64(100+i) || !inline {
			t.Fatalf("key %d: LoadWord = %p, %#x, %v; want its value, %d, true", i, v, w, inline, 100+i)
		}
	}
	// Replacing a value resets its word; a freed entry's next key starts
	// from zero too.
	other := 7
	keys[0].Store(&s, &other)
	if _, w, _ := keys[0].LoadWord(&s); w != 0 {
		t.Fatalf("after replacing the value, its word = %#x, want 0", w)
	}
	keys[1].Delete(&s)
	fresh := host.NewSlotKey[int]()
	fresh.Store(&s, &other)
	if p := fresh.Word(&s); p == nil || p.Load() != 0 {
		t.Fatalf("a key taking a freed inline entry: Word = %v, want a zero word", p)
	}
}

// Keys of different types share one Slots; each reads back its own type.
func TestSlotsKeysOfDifferentTypes(t *testing.T) {
	var s host.Slots
	ki, ks := host.NewSlotKey[int](), host.NewSlotKey[string]()
	i, str := 7, "seven"
	ki.Store(&s, &i)
	ks.Store(&s, &str)
	ki.Delete(&s)
	i2 := 8
	ki.Store(&s, &i2) // takes the entry back, after the string's
	if got := ks.Load(&s); got == nil || *got != "seven" {
		t.Fatalf("string key reads %v, want %q", got, "seven")
	}
	if got := ki.Load(&s); got == nil || *got != 8 {
		t.Fatalf("int key reads %v, want 8", got)
	}
}

// Slots behaves as a map from key to value under any sequence of calls.
func TestSlotsMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := make([]*host.SlotKey[int], 6)
		for i := range keys {
			keys[i] = host.NewSlotKey[int]()
		}
		values := []*int{new(int), new(int), new(int)}
		var s host.Slots
		model := map[int]*int{}
		for range rapid.IntRange(0, 60).Draw(t, "calls") {
			k := rapid.IntRange(0, len(keys)-1).Draw(t, "key")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				v := values[rapid.IntRange(0, len(values)-1).Draw(t, "value")]
				keys[k].Store(&s, v)
				model[k] = v
			case 1:
				keys[k].Delete(&s)
				delete(model, k)
			case 2:
				v := values[rapid.IntRange(0, len(values)-1).Draw(t, "old")]
				want := model[k] == v
				if got := keys[k].CompareAndDelete(&s, v); got != want {
					t.Fatalf("CompareAndDelete(key %d) = %v, want %v", k, got, want)
				}
				if want {
					delete(model, k)
				}
			}
			for i, key := range keys {
				if got := key.Load(&s); got != model[i] {
					t.Fatalf("Load(key %d) = %p, want %p", i, got, model[i])
				}
				if got, _, _ := key.LoadWord(&s); got != model[i] {
					t.Fatalf("LoadWord(key %d) = %p, want %p", i, got, model[i])
				}
			}
		}
	})
}

func TestSlotsLoadDoesNotAllocate(t *testing.T) {
	var s host.Slots
	keys := make([]*host.SlotKey[int], 5) // inline and beyond
	for i := range keys {
		keys[i] = host.NewSlotKey[int]()
		keys[i].Store(&s, new(int))
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			_ = k.Load(&s)
			_, _, _ = k.LoadWord(&s)
		}
	}); n != 0 {
		t.Errorf("Load allocates %v times per run, want 0", n)
	}
}

// BenchmarkSlotsLoad measures a Load that finds its value inline, and one
// past the inline keys.
func BenchmarkSlotsLoad(b *testing.B) {
	var s host.Slots
	keys := make([]*host.SlotKey[int], 4)
	for i := range keys {
		keys[i] = host.NewSlotKey[int]()
		keys[i].Store(&s, new(int))
	}
	for _, c := range []struct {
		name string
		k    *host.SlotKey[int]
	}{{"inline", keys[0]}, {"more", keys[3]}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c.k.Load(&s) == nil {
					b.Fatal("Load = nil")
				}
			}
		})
	}
}
