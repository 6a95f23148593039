package hostkit

import (
	"sync"

	"github.com/dshgo/planmode/host"
)

// Subscribers is the subscriber list of a [host.Session] implementation:
// [host.Session.Subscribe]'s replay, delivery in log order and an unsubscribe
// that stops delivery at once. The zero value is empty and ready to use;
// embed it in the session (it must not be copied after first use).
//
// Add and Deliver run with the session's append lock held (the lock that
// serializes appends and their delivery); the unsubscribe func that Add
// returns takes that lock itself, so once it returns the subscriber is not
// called again.
type Subscribers struct {
	subs []*subscriber
}

// subscriber is one Add; active is false once it was unsubscribed. lock
// is the append lock it was added under.
type subscriber struct {
	fn     func(host.Event)
	list   *Subscribers
	lock   sync.Locker
	active bool
}

// Add calls fn with the events of log from index from on, then adds fn so
// that it gets every event Deliver gets later: with the append lock held
// throughout, no append falls between the replay and the first delivery.
// lock is that append lock, which the caller holds, the same on every
// call; the returned unsubscribe takes it, removes fn and may be called
// more than once.
func (l *Subscribers) Add(lock sync.Locker, log host.Log, from int, fn func(host.Event)) (unsubscribe func()) {
	for _, e := range log.Range(from, log.Len()) {
		fn(e)
	}
	sub := &subscriber{fn: fn, list: l, lock: lock, active: true}
	l.subs = append(l.subs, sub)
	return sub.unsubscribe
}

// unsubscribe removes s from its list, once.
func (s *subscriber) unsubscribe() {
	s.lock.Lock()
	defer s.lock.Unlock()
	l := s.list
	if !s.active {
		return
	}
	s.active = false
	for i, x := range l.subs {
		if x == s {
			// A new slice, so that a delivery loop never sees this one shift.
			l.subs = append(l.subs[:i:i], l.subs[i+1:]...)
			break
		}
	}
}

// Deliver calls every subscriber with e, in the order they were added. The
// caller holds the append lock.
func (l *Subscribers) Deliver(e host.Event) {
	for _, sub := range l.subs {
		sub.fn(e)
	}
}
