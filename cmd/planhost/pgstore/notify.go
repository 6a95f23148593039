package pgstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
)

// notifier sends the notifications of committed appends, batched: an
// append records its session's new length and returns; the notifier sends
// one notification per session with the latest length, in one statement.
// A notification is only a wake-up, so one that is never sent (the
// process dies after the commit, the statement fails) delays other
// processes until their next poll or append; it never loses an event.
type notifier struct {
	st   *Store
	wake chan struct{}

	mu      sync.Mutex
	pending map[string]int64 // session → length to announce
}

func newNotifier(st *Store) *notifier {
	return &notifier{st: st, wake: make(chan struct{}, 1), pending: map[string]int64{}}
}

// add records that session id has n events.
func (n *notifier) add(id string, seq int64) {
	n.mu.Lock()
	if seq > n.pending[id] {
		n.pending[id] = seq
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// run sends what was added until the store is closed, then sends what is
// left.
func (n *notifier) run() {
	for {
		select {
		case <-n.wake:
			n.flush(n.st.ctx)
		case <-n.st.ctx.Done():
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			n.flush(ctx)
			cancel()
			return
		}
	}
}

func (n *notifier) flush(ctx context.Context) {
	n.mu.Lock()
	batch := n.pending
	if len(batch) == 0 {
		n.mu.Unlock()
		return
	}
	n.pending = make(map[string]int64, len(batch))
	n.mu.Unlock()
	payloads := make([]string, 0, len(batch))
	for _, id := range slices.Sorted(maps.Keys(batch)) {
		payloads = append(payloads, id+" "+strconv.FormatInt(batch[id], 10))
	}
	ctx, cancel := context.WithTimeout(ctx, n.st.opts.timeout)
	defer cancel()
	if _, err := n.st.pool.Exec(ctx, sqlNotify, payloads); err != nil && n.st.ctx.Err() == nil {
		n.st.opts.logger.Warn(LogNotifyFailed, "sessions", len(payloads), "err", redact(err, n.st.password))
	}
}
