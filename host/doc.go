// Package host holds the contracts between an agent host and its plugins.
//
// A host is the agent runtime: it owns the session logs, runs the agent loop
// and keeps the registries (prompt sections, tools, commands, pre-step
// listeners, user questions) that plugins add to. This package declares the
// contracts and the value types they use; the helpers for implementers of
// a session live in package hostkit, the reference implementation in
// package refhost and the durable logs in package store.
//
// Every registration returns an unregister func so that a plugin can undo
// exactly what it added when it is stopped or reloaded. Registering a second
// item under a name that is already taken is an error ([ErrDuplicate]).
package host
