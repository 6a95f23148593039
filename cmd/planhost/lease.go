package main

import (
	"sync"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// leaseRelay hands the turn-lease notices of a session several planhost
// processes share (another process holds the turn, this one lost it) to
// the front end that is showing the session. Until one is set, the
// notices are dropped: the runtime logs them as well.
type leaseRelay struct {
	mu   sync.Mutex
	busy func(h host.LeaseHolder)
	lost func()
}

// set installs the front end's handlers; nil handlers drop the notices.
func (r *leaseRelay) set(busy func(host.LeaseHolder), lost func()) {
	r.mu.Lock()
	r.busy, r.lost = busy, lost
	r.mu.Unlock()
}

// settings returns the runtime settings that report to the relay (empty
// settings for a nil relay).
func (r *leaseRelay) settings() *refhost.Settings {
	if r == nil {
		return &refhost.Settings{}
	}
	return &refhost.Settings{
		Busy: func(_ *refhost.Agent, h host.LeaseHolder, _ int) {
			r.mu.Lock()
			f := r.busy
			r.mu.Unlock()
			if f != nil {
				f(h)
			}
		},
		LeaseLost: func(*refhost.Agent) {
			r.mu.Lock()
			f := r.lost
			r.mu.Unlock()
			if f != nil {
				f()
			}
		},
	}
}
