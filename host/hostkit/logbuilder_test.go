package hostkit_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
	"github.com/dshgo/planmode/internal/logcheck"
)

func TestLogBuilderSnapshotsNeverChange(t *testing.T) {
	b := hostkit.NewLogBuilder(host.Log{})
	var snaps []host.Log
	for i := range 5000 {
		b.Append(host.Event{Seq: uint64(i + 1)})
		if i%97 == 0 || i == 1023 || i == 1024 {
			snaps = append(snaps, b.Log())
		}
	}
	for _, s := range snaps {
		if got := logcheck.Seqs(t, s); !slices.Equal(got, logcheck.Want(0, s.Len())) {
			t.Fatalf("snapshot of %d events changed: %v", s.Len(), got)
		}
	}
}

// TestLogBuilderNeverCopiesAFullChunk checks that appends past the first
// chunk leave every stored event where it was: the first event of each
// full chunk keeps its address however long the log grows.
func TestLogBuilderNeverCopiesAFullChunk(t *testing.T) {
	b := hostkit.NewLogBuilder(host.Log{})
	for i := range 2048 {
		b.Append(host.Event{Seq: uint64(i + 1)})
	}
	first, _ := b.Log().ChunkAt(0)
	second, _ := b.Log().ChunkAt(1024)
	for i := range 100_000 {
		b.Append(host.Event{Seq: uint64(2048 + i + 1)})
	}
	f2, _ := b.Log().ChunkAt(0)
	s2, _ := b.Log().ChunkAt(1024)
	if &f2[0] != &first[0] || &s2[0] != &second[0] {
		t.Fatal("a full chunk moved while the log grew")
	}
}

// TestLogBuildersFromOnePrefixAreIndependent is the fork case: two
// builders continuing one snapshot write into storage of their own.
func TestLogBuildersFromOnePrefixAreIndependent(t *testing.T) {
	for _, n := range []int{0, 5, 1024, 1500, 2048, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src := hostkit.NewLogBuilder(host.Log{})
			for i := range n {
				src.Append(host.Event{Seq: uint64(i + 1)})
			}
			prefix := src.Log()
			a, b := hostkit.NewLogBuilder(prefix), hostkit.NewLogBuilder(prefix)
			for i := range 1100 {
				a.Append(host.Event{Seq: uint64(n + i + 1), Type: "a"})
				b.Append(host.Event{Seq: uint64(n + i + 1), Type: "b"})
				src.Append(host.Event{Seq: uint64(n + i + 1), Type: "src"})
			}
			for name, l := range map[string]host.Log{"a": a.Log(), "b": b.Log(), "src": src.Log()} {
				if got := logcheck.Seqs(t, l); !slices.Equal(got, logcheck.Want(0, n+1100)) {
					t.Fatalf("%s reads %v", name, got)
				}
				for i, e := range l.Range(n, l.Len()) {
					if e.Type != name {
						t.Fatalf("%s: event %d was written by %q", name, i, e.Type)
					}
				}
			}
			if got := logcheck.Seqs(t, prefix); !slices.Equal(got, logcheck.Want(0, n)) {
				t.Fatalf("the prefix changed: %v", got)
			}
		})
	}
}

// TestLogSnapshotsReadWhileAppending runs readers of snapshots against a
// writer, as a session does: the writer appends and publishes under a
// lock, readers take a snapshot under it and read it without. The race
// detector checks that no reader touches what the writer writes.
func TestLogSnapshotsReadWhileAppending(t *testing.T) {
	var (
		mu   sync.RWMutex
		b    = hostkit.NewLogBuilder(host.Log{})
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.RLock()
				l := b.Log()
				mu.RUnlock()
				for i, e := range l.Backward(l.Len()) {
					if e.Seq != uint64(i)+1 {
						t.Errorf("event %d has seq %d", i, e.Seq)
						return
					}
					if i < l.Len()-50 {
						break
					}
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	for i := range 20_000 {
		mu.Lock()
		b.Append(host.Event{Seq: uint64(i + 1)})
		mu.Unlock()
	}
	close(done)
	wg.Wait()
}

// TestLogBuilderMatchesASlice is a reference model: any sequence of
// appends, snapshots, prefixes and new builders reads as the same
// operations on plain slices.
func TestLogBuilderMatchesASlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type pair struct {
			b     *hostkit.LogBuilder
			model []host.Event
		}
		next := uint64(0)
		builders := []pair{{hostkit.NewLogBuilder(host.Log{}), nil}}
		type snap struct {
			l     host.Log
			model []host.Event
		}
		var snaps []snap
		t.Repeat(map[string]func(*rapid.T){
			"append": func(t *rapid.T) {
				i := rapid.IntRange(0, len(builders)-1).Draw(t, "builder")
				for range rapid.IntRange(1, 1500).Draw(t, "n") {
					next++
					e := host.Event{Seq: next}
					builders[i].b.Append(e)
					builders[i].model = append(builders[i].model, e)
				}
			},
			"snapshot": func(t *rapid.T) {
				i := rapid.IntRange(0, len(builders)-1).Draw(t, "builder")
				snaps = append(snaps, snap{builders[i].b.Log(), slices.Clone(builders[i].model)})
			},
			"fork": func(t *rapid.T) {
				i := rapid.IntRange(0, len(builders)-1).Draw(t, "builder")
				end := rapid.IntRange(0, len(builders[i].model)).Draw(t, "end")
				builders = append(builders, pair{hostkit.NewLogBuilder(builders[i].b.Log().Prefix(end)), slices.Clone(builders[i].model[:end])})
			},
			"": func(t *rapid.T) {
				for _, p := range builders {
					if p.b.Len() != len(p.model) {
						t.Fatalf("builder Len %d, model %d", p.b.Len(), len(p.model))
					}
					checkLog(t, p.b.Log(), p.model)
				}
				for _, s := range snaps {
					checkLog(t, s.l, s.model)
				}
			},
		})
	})
}

func checkLog(t *rapid.T, l host.Log, model []host.Event) {
	if l.Len() != len(model) {
		t.Fatalf("Len %d, model %d", l.Len(), len(model))
	}
	for i, e := range l.All() {
		if e.Seq != model[i].Seq {
			t.Fatalf("event %d has seq %d, model %d", i, e.Seq, model[i].Seq)
		}
	}
}

// TestLogBuilderAppendOwnsTheEventsMemory checks that the event Append
// returns, and the one the log holds, share no memory with the caller's.
func TestLogBuilderAppendOwnsTheEventsMemory(t *testing.T) {
	b := hostkit.NewLogBuilder(host.Log{})
	for i := range 3000 {
		data := []byte(fmt.Sprintf(`{"i":%d}`, i))
		src := &host.Source{Kind: host.SourceUser}
		got := b.Append(host.Event{Seq: uint64(i + 1), Type: "test/own", Source: src, Data: data})
		if &got.Data[0] == &data[0] || got.Source == src {
			t.Fatalf("event %d: Append returned the caller's memory", i)
		}
		copy(data, "XXXX")
		src.Kind = "changed"
	}
	for i, e := range b.Log().All() {
		if want := fmt.Sprintf(`{"i":%d}`, i); string(e.Data) != want || e.Source.Kind != host.SourceUser {
			t.Fatalf("event %d: %s %+v, want %s from the user", i, e.Data, e.Source, want)
		}
	}
}
