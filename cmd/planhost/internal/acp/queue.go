package acp

import (
	"context"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// queue holds one session's updates in log order for its sender: the
// log's subscriber must not block, the client may be slow.
type queue struct {
	mu      sync.Mutex
	items   []item
	notify  chan struct{}
	stopped bool
}

// item is an update to send, or a barrier closed once everything before it
// was sent.
type item struct {
	update  *sdk.SessionUpdate
	barrier chan struct{}
}

func newQueue() *queue { return &queue{notify: make(chan struct{}, 1)} }

func (q *queue) push(u sdk.SessionUpdate) {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, item{update: &u})
	q.mu.Unlock()
	q.wake()
}

// barrier returns a channel closed once every update pushed before it was
// sent (or the queue stopped).
func (q *queue) barrier() <-chan struct{} {
	c := make(chan struct{})
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		close(c)
		return c
	}
	q.items = append(q.items, item{barrier: c})
	q.mu.Unlock()
	q.wake()
	return c
}

// flush waits until every update pushed so far was sent, or ctx ends.
func (q *queue) flush(ctx context.Context) error {
	select {
	case <-q.barrier():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *queue) wake() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *queue) take() []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// stop drops what is queued, releases every barrier and refuses more.
func (q *queue) stop() {
	q.mu.Lock()
	items := q.items
	q.items, q.stopped = nil, true
	q.mu.Unlock()
	for _, it := range items {
		if it.barrier != nil {
			close(it.barrier)
		}
	}
	q.wake()
}

// run sends the queued updates with send until done is closed; it waits for
// gate first (nil means open).
func (q *queue) run(done <-chan struct{}, gate <-chan struct{}, send func(sdk.SessionUpdate)) {
	defer q.stop()
	if gate != nil {
		select {
		case <-gate:
		case <-done:
			return
		}
	}
	for {
		for _, it := range q.take() {
			if it.barrier != nil {
				close(it.barrier)
				continue
			}
			send(*it.update)
		}
		select {
		case <-q.notify:
		case <-done:
			return
		}
	}
}
