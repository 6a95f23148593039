// Package hosttest holds test helpers for host authors, in the manner of
// testing/fstest and net/http/httptest: conformance suites that an
// implementation of the contracts in package host runs in its own tests.
//
// [TestStore] checks a [host.Store] and its sessions: consecutive sequence
// numbers, AppendIf's precondition, Subscribe's replay-then-follow without
// gap or duplicate under concurrent appends, Fork, validators on append and
// on Open, and the shared errors. [TestSession] checks a lone
// [host.Session]. Every later store (a file, a database) runs the same
// suite, so a plugin tested against one store behaves the same on another.
//
// [TestLoop] checks a host's agent loop with plan mode installed: the
// rules of docs/host.md ("Contract points that are easy to miss"), one
// subtest each, over a whole plan-mode round trip that the host author's
// [LoopHarness] lets the suite play.
package hosttest
