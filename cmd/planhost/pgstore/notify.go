package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

// maxPayload is the longest notification payload PostgreSQL sends (it
// must be shorter than 8000 bytes).
const maxPayload = 7999

// linger is how long the notifier waits, once woken, for more appends of
// this process to announce in the same statement (as PostgreSQL's
// commit_delay groups the commits of busy servers): every notification is
// a transaction of its own, which costs the server about half of an
// append. It is the time of a few appends, and nothing a user could see.
const linger = 5 * time.Millisecond

// maxPending bounds the events a session's next notifications carry,
// roughly in bytes.
const maxPending = 16 * maxPayload

// closeGrace bounds how long Close waits for the last notifications.
const closeGrace = time.Second

// notifier sends the notifications of committed appends, batched: an
// append records its event and returns; the notifier sends one
// notification per session, in one statement, carrying the events this
// process appended since the last one when they fit (see [encodeNotice]).
// A notification is only a wake-up with a shortcut, so one that is never
// sent (the process dies after the commit, the statement fails) delays
// other processes until their next poll or append; it never loses an
// event.
type notifier struct {
	st   *Store
	wake chan struct{}
	// sendCtx ends closeGrace after the store is closed, or when run
	// returns.
	sendCtx  context.Context
	stopSend context.CancelFunc

	mu      sync.Mutex
	pending map[string]*notice // session → what to announce
}

// notice is what one notification announces: the session has n events,
// and these are (some of) the last ones, in order.
type notice struct {
	n      int64
	events []host.Event
	size   int  // the events' payload bytes, roughly
	full   bool // later events are not carried
}

func newNotifier(st *Store) *notifier {
	n := &notifier{st: st, wake: make(chan struct{}, 1), pending: map[string]*notice{}}
	n.sendCtx, n.stopSend = context.WithCancel(context.Background())
	context.AfterFunc(st.ctx, func() { time.AfterFunc(closeGrace, n.stopSend) })
	return n
}

// add records that session id committed e and wakes the notifier. Events
// stop being kept once they hold maxPending bytes (the notifier is
// behind); the notifications then carry those kept and the length.
func (n *notifier) add(id string, e host.Event) {
	n.mu.Lock()
	p := n.pending[id]
	if p == nil {
		p = &notice{}
		n.pending[id] = p
	}
	p.n = max(p.n, int64(e.Seq))
	if !p.full && !n.st.opts.noEvents {
		size := len(e.Type) + len(e.Data) + 160 // seq, time, source, keys
		if e.Source != nil {
			size += len(e.Source.Plugin) + len(e.Source.Form)
		}
		if p.size+size > maxPending {
			p.full = true
		} else {
			p.events = append(p.events, e)
			p.size += size
		}
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// run sends what was added, a linger after it was woken, until the store
// is closed; then it sends what is left.
func (n *notifier) run() {
	defer n.stopSend()
	for {
		select {
		case <-n.wake:
			select {
			case <-time.After(linger):
			case <-n.st.ctx.Done():
			}
		case <-n.st.ctx.Done():
		}
		n.flush()
		if n.st.ctx.Err() != nil {
			n.flush() // what was added while the last one was sent
			return
		}
	}
}

// flush sends what is pending. Close waits for it (up to closeGrace), so
// the appends that returned before Close are announced.
func (n *notifier) flush() {
	n.mu.Lock()
	batch := n.pending
	if len(batch) == 0 {
		n.mu.Unlock()
		return
	}
	n.pending = make(map[string]*notice, len(batch))
	n.mu.Unlock()
	payloads := make([]string, 0, len(batch))
	for _, id := range slices.Sorted(maps.Keys(batch)) {
		p := batch[id]
		events := p.events
		for {
			payload, used := encodeNotice(id, p.n, events)
			payloads = append(payloads, payload)
			events = events[used:]
			if used == 0 || len(events) == 0 {
				break
			}
		}
	}
	ctx, cancel := context.WithTimeout(n.sendCtx, n.st.opts.timeout)
	defer cancel()
	if _, err := n.st.pool.Exec(ctx, sqlNotify, payloads); err != nil && n.st.ctx.Err() == nil {
		n.st.opts.logger.Warn(LogNotifyFailed, "sessions", len(payloads), "err", err)
	}
}

// encodeNotice makes a payload announcing events of session id, which
// has n events, and reports how many of them it carries: the first that
// fit in a payload and count up by one, as a JSON array of event objects (as the session
// files hold them) after the line "<id> <length>". The length is that of
// the last event carried, or n when the payload carries all of events or
// none. A receiver adds the carried events that continue its log and
// reads the table when its log is still shorter than the length.
func encodeNotice(id string, n int64, events []host.Event) (string, int) {
	var body bytes.Buffer
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)          // keep the data's bytes as stored
	room := maxPayload - len(id) - 24 // the first line, "\n[" and "]"
	used := 0
	for _, e := range events {
		if used > 0 && e.Seq != events[used-1].Seq+1 {
			break // another process appended between: the next payload
		}
		buf.Reset()
		if err := enc.Encode(e); err != nil {
			break
		}
		one := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if body.Len()+len(one)+1 > room {
			break
		}
		if used > 0 {
			body.WriteByte(',')
		}
		body.Write(one)
		used++
	}
	if used > 0 && used < len(events) {
		n = int64(events[used-1].Seq)
	}
	head := id + " " + strconv.FormatInt(n, 10)
	if used == 0 {
		return head, 0
	}
	return head + "\n[" + body.String() + "]", used
}

// decodeNotice reads a payload made by [encodeNotice]. A payload of only
// the first line (what earlier versions send) carries no events. The
// events are outside input: each passes the check of every event read
// back from a store (package eventcheck); a payload whose events do not
// parse, fail the check or do not count up by one is refused as a whole
// (ok is still true when its first line names a session and a length, so
// the receiver reads the rows instead).
func decodeNotice(p string) (id string, n int64, events []host.Event, ok bool, err error) {
	head, body, hasBody := strings.Cut(p, "\n")
	id, n, ok = parsePayload(head)
	if !ok {
		return "", 0, nil, false, fmt.Errorf("notification %.40q: want \"<session> <length>\"", head)
	}
	if !hasBody {
		return id, n, nil, true, nil
	}
	var raw []host.Event
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		return id, n, nil, true, fmt.Errorf("notification for session %q: events: %w", id, err)
	}
	for i := range raw {
		e := &raw[i]
		if e.Seq == 0 || int64(e.Seq) > n || i > 0 && e.Seq != raw[i-1].Seq+1 {
			return id, n, nil, true, fmt.Errorf("notification for session %q of length %d: event %d at position %d", id, n, e.Seq, i)
		}
		err := checkNUL(e)
		if err == nil {
			err = eventcheck.Stored(e)
		}
		if err != nil {
			return id, n, nil, true, fmt.Errorf("notification for session %q: %w", id, err)
		}
	}
	return id, n, raw, true, nil
}
