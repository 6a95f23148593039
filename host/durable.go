package host

// Syncer is implemented by sessions whose store writes appended events at
// once but makes them durable (fsync) in groups, at the points a host
// names. A host calls Sync at every point where something is shown that
// must not be lost: before a request is sent to the model, before a reply,
// a command's result or a question is shown to the user, and at the end of
// a turn. Concurrent calls share one flush.
type Syncer interface {
	// Sync returns once every event appended before the call is on stable
	// storage. An error means some of them may not be; the session then
	// takes no more appends.
	Sync() error
}

// Sync makes the events appended to s so far durable when s is a
// [Syncer], and does nothing otherwise (a memory session, or a store that
// makes every append durable by itself).
func Sync(s Session) error {
	if y, ok := s.(Syncer); ok {
		return y.Sync()
	}
	return nil
}
