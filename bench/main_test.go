package bench_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// scratch is the directory the benchmarks write files into (the cold-replay
// log); TestMain creates it before any benchmark runs and removes it at the
// end, so it is never written after that.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "planmode-bench-")
	if err != nil {
		panic(err)
	}
	scratch = dir
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}
