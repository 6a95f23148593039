package host

// Refresher is implemented by sessions whose log other processes append to
// as well (a store shared by several host processes). Such a session learns
// of the others' events asynchronously; Refresh reads every event committed
// elsewhere before the call and delivers it to the subscribers, in log
// order, before it returns. A plugin calls it before a decision that must
// not rest on a stale view, such as committing a selection "between turns".
type Refresher interface {
	// Refresh catches the session up with the store. An error means the
	// store could not be read; the local view stays as it was.
	Refresh() error
}

// Refresh catches s up with its store when s is a [Refresher], and does
// nothing otherwise (a session only this process appends to is never
// behind).
func Refresh(s Session) error {
	if r, ok := s.(Refresher); ok {
		return r.Refresh()
	}
	return nil
}
