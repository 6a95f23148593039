package acp

import (
	"fmt"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
)

// LeaseNotices carries the turn-lease notices of sessions several
// processes share to the client showing the session: that another process
// runs the turn and the prompt was queued for it, and that this process
// lost the turn it ran. Install its Busy and LeaseLost as the reference
// host's (refhost.Options.Busy and LeaseLost) and give it to [Serve] in
// [Config].Leases; notices for sessions no connection shows are dropped
// (the runtime logs them as well).
type LeaseNotices struct {
	mu sync.Mutex
	to *Agent
}

// Busy reports that the messages given to a were handed to the turn
// another process runs: the client gets an agent message saying so.
func (n *LeaseNotices) Busy(a *refhost.Agent, h host.LeaseHolder, _ int) {
	if s := n.sessionOf(a); s != nil {
		s.q.push(sdk.UpdateAgentMessageText(busyText(s.a.cat, h)))
	}
}

// LeaseLost reports that a lost its session's turn, to another process
// or because its lease could not be renewed (cause): the client gets an
// agent message saying so.
func (n *LeaseNotices) LeaseLost(a *refhost.Agent, cause error) {
	if s := n.sessionOf(a); s != nil {
		s.q.push(sdk.UpdateAgentMessageText(s.a.cat.LeaseLoss(cause)))
	}
}

// busyText is the message for a turn h holds. The host name comes from
// the database, written by another process: it is shown as literal text.
func busyText(cat *present.Catalog, h host.LeaseHolder) string {
	return fmt.Sprintf(cat.Session.SessionBusy, shownEntry(h.Host), h.PID, h.Since.UTC().Format(time.DateTime))
}

// attach makes the notices go to the sessions of ag until the returned
// func is called.
func (n *LeaseNotices) attach(ag *Agent) func() {
	n.mu.Lock()
	n.to = ag
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		if n.to == ag {
			n.to = nil
		}
		n.mu.Unlock()
	}
}

// sessionOf returns the connection's session bound to a, if any.
func (n *LeaseNotices) sessionOf(a *refhost.Agent) *session {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	ag := n.to
	n.mu.Unlock()
	if ag == nil {
		return nil
	}
	ag.mu.Lock()
	defer ag.mu.Unlock()
	for _, s := range ag.sessions {
		if s.agent == a {
			return s
		}
	}
	return nil
}
