package hostkit

import "sync"

// CloseFuncs is the close notification of a [host.Session] implementation:
// [host.SessionCloseNotifier.AfterClose] and the Close that runs what it
// registered. The zero value is ready to use; embed it in the session (it
// must not be copied after first use). A registration costs a few words,
// a fraction of what context.AfterFunc keeps for each.
type CloseFuncs struct {
	mu     sync.Mutex
	closed bool
	funcs  []*closeFunc
}

// closeFunc is one AfterClose registration.
type closeFunc struct {
	f    func()
	list *CloseFuncs
}

// AfterClose implements [host.SessionCloseNotifier.AfterClose]: f runs once, in
// its own goroutine, after Close; at once when Close was called already.
func (l *CloseFuncs) AfterClose(f func()) (stop func() bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		go f()
		return func() bool { return false }
	}
	r := &closeFunc{f: f, list: l}
	l.funcs = append(l.funcs, r)
	return r.stop
}

// stop unregisters r, reporting whether that kept it from running.
func (r *closeFunc) stop() bool {
	l := r.list
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.funcs {
		if x == r {
			last := len(l.funcs) - 1
			l.funcs[i], l.funcs[last] = l.funcs[last], nil
			l.funcs = l.funcs[:last]
			return true
		}
	}
	return false
}

// Close starts every registered func, each in its own goroutine, and
// makes later AfterClose calls start theirs at once. It is idempotent.
func (l *CloseFuncs) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	for _, r := range l.funcs {
		go r.f()
	}
	l.funcs = nil
}
