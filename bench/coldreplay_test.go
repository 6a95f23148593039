package bench_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/store"
)

// BenchmarkColdReplay measures opening a 1M-event JSONL session the way a
// restarted process does: a new store.Dir, Open (which reads, decodes and
// validates every line), and closing the store again. With the plugin
// (plugin=on) the store also runs the plugin's payload check on every event
// while opening, and Controller.Get on an agent bound to the session folds
// the log once to obtain its plan state. The difference is the plugin's
// share of a cold start. The file is written (and opened once, unmeasured)
// once per test binary; its size is reported through SetBytes, so MB/s is
// the replay's read rate.
func BenchmarkColdReplay(b *testing.B) {
	f, err := replayLog()
	if err != nil {
		b.Fatalf("cold-replay log: %v", err)
	}
	for _, variant := range []struct {
		name   string
		plugin bool
	}{{"plugin=off", false}, {"plugin=on", true}} {
		b.Run(variant.name+"/"+size1M.name, func(b *testing.B) {
			b.SetBytes(f.size)
			b.ReportAllocs()
			var (
				n   int
				st  planmode.State
				err error
			)
			for b.Loop() {
				if n, st, err = openReplay(f, variant.plugin); err != nil {
					b.Fatal(err)
				}
			}
			if n != f.n {
				b.Fatalf("opened session holds %d events, want %d", n, f.n)
			}
			if variant.plugin && st != (planmode.State{Active: true}) {
				b.Fatalf("plan state after replay = %+v, want active with nothing pending", st)
			}
		})
	}
}

// openReplay opens the session of f in a new store, with or without the
// plugin, and returns its length and, with the plugin, its plan state.
func openReplay(f replayFile, withPlugin bool) (n int, st planmode.State, err error) {
	d, err := store.OpenDir(f.dir, store.WithSyncPolicy(store.SyncNever))
	if err != nil {
		return 0, st, err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	var c *planmode.Controller
	if withPlugin {
		if c, err = newController(newRegistries(), d); err != nil {
			return 0, st, err
		}
		defer func() { err = errors.Join(err, c.Stop(context.Background())) }()
	}
	sess, err := d.Open(f.id)
	if err != nil {
		return 0, st, fmt.Errorf("open %s: %w", d.Path(f.id), err)
	}
	if withPlugin {
		st = c.Get(&benchAgent{sess: sess})
	}
	return sess.Len(), st, nil
}
