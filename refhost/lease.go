package refhost

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
)

// Waits of an agent whose session's turn another process holds.
const (
	// leaseRetryMin and leaseRetryMax bound the wait between tries to take
	// the lease or hand messages over; the log's own changes wake the
	// agent earlier.
	leaseRetryMin = 20 * time.Millisecond
	leaseRetryMax = 500 * time.Millisecond
)

// turnFold follows, for an agent on a session several processes share,
// where the log stands: whether a turn is open, whether a step runs, and
// whether a user message arrived between steps (handed over by another
// process) that no step has read yet.
type turnFold struct {
	mu      sync.Mutex
	turn    int  // the number of the last "turn/start"
	open    bool // a turn is open
	inStep  bool // a step of the open turn runs
	waiting bool // a user message came between steps of the open turn
	changed chan struct{}
}

func newTurnFold() *turnFold { return &turnFold{changed: make(chan struct{}, 1)} }

// add folds one event; it is the agent's subscriber.
func (f *turnFold) add(e host.Event) {
	f.mu.Lock()
	switch e.Type {
	case host.TypeTurnStart:
		var p host.TurnStart
		if json.Unmarshal(e.Data, &p) == nil {
			f.turn = max(f.turn, p.Turn)
		}
		f.open, f.inStep, f.waiting = true, false, false
	case host.TypeTurnEnd:
		f.open, f.inStep, f.waiting = false, false, false
	case host.TypeStepStart:
		f.inStep, f.waiting = true, false
	case host.TypeStepEnd:
		f.inStep = false
	case host.TypeUserMessage:
		if f.open && !f.inStep {
			f.waiting = true
		}
	}
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// betweenSteps reports whether a turn is open and no step of it runs: the
// place where a message handed to the turn's owner is read by its next
// step.
func (f *turnFold) betweenSteps() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open && !f.inStep
}

// handedIn reports whether a user message waits for the open turn's next
// step.
func (f *turnFold) handedIn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

// lastTurn returns the number of the log's last turn.
func (f *turnFold) lastTurn() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.turn
}

// takeLease is the start of a turn on a session several processes share:
// it takes the session's turn lease, then repairs what a crashed holder
// left (its open turn and unanswered calls) and continues the turn
// numbering from the log. While another process holds the lease, the
// queued messages are handed to that process's turn instead: each is
// appended, between two of its steps, as a user message its next step
// reads. It returns false when no turn is to run here: the messages were
// handed over, the turn was cancelled or the lease could not be asked for.
func (a *Agent) takeLease(ctx context.Context, l host.TurnLeaser) bool {
	wait := leaseRetryMin
	for {
		g, err := l.LeaseTurn()
		if err == nil {
			a.lease = g
			if err := a.repairUnderLease(); err != nil {
				a.log.Error("refhost: turn not started: repair under the lease", "err", err)
				a.dropLease()
				return false
			}
			return true
		}
		var busy *host.BusyError
		if !errors.As(err, &busy) {
			a.log.Error("refhost: turn not started: lease", "err", err)
			return false
		}
		n, err := a.handOver()
		if err != nil {
			a.log.Error("refhost: message not handed to the turn's owner", "err", err)
			return false
		}
		if n > 0 {
			a.log.Info("refhost: session busy; message queued for the turn's owner", "holder", busy.Holder.Host, "pid", busy.Holder.PID, "messages", n)
			if a.rt.o.Busy != nil {
				a.rt.o.Busy(a, busy.Holder, n)
			}
		}
		if len(a.Pending()) == 0 {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-a.fold.changed:
		case <-time.After(wait):
			wait = min(2*wait, leaseRetryMax)
		}
	}
}

// handOver appends the queued messages as user messages of the turn
// another process runs, while it is between steps, and returns how many
// it appended. The rest stay queued.
func (a *Agent) handOver() (int, error) {
	c := a.claim()
	for i, m := range c.msgs {
		data, err := json.Marshal(host.UserMessage{Content: m.Content})
		ok := false
		if err == nil {
			_, ok, err = a.sess.AppendIf(host.Event{Type: host.TypeUserMessage, Source: m.Source, Data: data}, a.fold.betweenSteps)
		}
		if err != nil || !ok {
			a.putBack(claimed{msgs: c.msgs[i:]}, false)
			return i, err
		}
	}
	return len(c.msgs), nil
}

// repairUnderLease brings the agent up to the log it now owns: other
// processes' turns since it last looked set the turn number, and a turn
// whose holder's lease ran out (the process died or was cut off) is closed
// as interrupted, its unanswered calls answered.
func (a *Agent) repairUnderLease() error {
	if err := host.Refresh(a.sess); err != nil {
		return err
	}
	a.lost = nil // the log is the truth now: repair answers every call
	if err := a.repair(a.sess.Events()); err != nil {
		return err
	}
	a.mu.Lock()
	a.turn = max(a.turn, a.fold.lastTurn())
	a.mu.Unlock()
	return nil
}

// watchLease cancels the turn when its lease is lost, and says so and
// why. stop ends the watch.
func (a *Agent) watchLease(cancel context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	g := a.lease
	go func() {
		select {
		case <-g.Lost():
			cancel()
			cause := g.Err()
			a.log.Error("refhost: turn lease lost; this process's writes to the turn are refused", "token", g.Token(), "err", cause)
			if a.rt.o.LeaseLost != nil {
				a.rt.o.LeaseLost(a, cause)
			}
		case <-done:
		}
	}()
	return func() { close(done) }
}

// dropLease releases the turn lease, if held.
func (a *Agent) dropLease() {
	if a.lease == nil {
		return
	}
	select {
	case <-a.lease.Lost():
		// The new holder repairs the turn; what this agent meant to
		// write for lost results is no longer its to write.
		a.lost = nil
	default:
	}
	if err := a.lease.Release(); err != nil {
		a.log.Warn("refhost: turn lease not released; it expires by itself", "err", err)
	}
	a.lease = nil
}
