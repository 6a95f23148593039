// Package bench holds the performance benchmarks of plan mode; it has no
// code of its own, only benchmarks (and a test that keeps their baseline
// honest) in its _test.go files.
//
// The suite compares Controller.Get with a baseline that folds the whole
// session log on every call, at 1k, 100k and 1M events and across 10,000
// served sessions; it also measures the first sight of a long session,
// FoldPlanMode over a long log and the memory the plugin keeps per
// session. Every benchmark reports bytes and allocations per operation, and
// the long logs are built once per test binary, so that
//
//	go test -run '^$' -bench . -benchtime=1x ./bench
//
// stays quick enough for CI. docs/performance.md describes the method and
// the results, and gives the commands that reproduce them.
package bench
