package wiring

import (
	"sync"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Lease hands the turn-lease notices of a session several planhost
// processes share (another process holds the turn, this one lost it) to
// the front end that is showing the session. Until one is set, the
// notices are dropped: the runtime logs them as well.
type Lease struct {
	mu   sync.Mutex
	busy func(a *refhost.Agent, h host.LeaseHolder)
	lost func(a *refhost.Agent, cause error)
}

// Set installs the front end's handlers; nil handlers drop the notices.
// lost is told why the turn was lost (see refhost.Options.LeaseLost).
func (r *Lease) Set(busy func(host.LeaseHolder), lost func(cause error)) {
	var b func(*refhost.Agent, host.LeaseHolder)
	var l func(*refhost.Agent, error)
	if busy != nil {
		b = func(_ *refhost.Agent, h host.LeaseHolder) { busy(h) }
	}
	if lost != nil {
		l = func(_ *refhost.Agent, cause error) { lost(cause) }
	}
	r.SetFor(b, l)
}

// SetFor installs handlers that are told the agent concerned, for front
// ends showing several sessions; nil handlers drop the notices.
func (r *Lease) SetFor(busy func(*refhost.Agent, host.LeaseHolder), lost func(*refhost.Agent, error)) {
	r.mu.Lock()
	r.busy, r.lost = busy, lost
	r.mu.Unlock()
}

// settings returns the runtime settings that report to the relay (empty
// settings for a nil relay).
func (r *Lease) settings() *refhost.Settings {
	if r == nil {
		return &refhost.Settings{}
	}
	return &refhost.Settings{
		Busy: func(a *refhost.Agent, h host.LeaseHolder, _ int) {
			r.mu.Lock()
			f := r.busy
			r.mu.Unlock()
			if f != nil {
				f(a, h)
			}
		},
		LeaseLost: func(a *refhost.Agent, cause error) {
			r.mu.Lock()
			f := r.lost
			r.mu.Unlock()
			if f != nil {
				f(a, cause)
			}
		},
	}
}
