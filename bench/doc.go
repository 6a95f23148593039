// Package bench holds the performance benchmarks of plan mode; it has no
// code of its own, only benchmarks (and a test that keeps their baseline
// honest) in its _test.go files.
//
// The suite compares the plugin with a baseline that answers the same
// questions by folding the whole session log on every call, measures the
// plugin's share of a reference-host step, the cost of opening a long
// JSONL session with and without the plugin, FoldPlanMode over a long log,
// and the memory the plugin keeps per session. Every benchmark reports
// bytes and allocations per operation, and the long logs are built once per
// test binary, so that
//
//	go test -run '^$' -bench . -benchtime=1x ./bench
//
// stays quick enough for CI. docs/performance.md describes the method and
// the results, and gives the commands that reproduce them.
package bench
