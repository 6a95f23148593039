package acp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// leaseNode is one planhost acp process on a shared PostgreSQL database:
// its own store, host and connection.
type leaseNode struct {
	st    *pgstore.Store
	model *scripted.Model
	h     *hostParts
	k     *conn
}

func newLeaseNode(t *testing.T, url string, opts ...pgstore.Option) *leaseNode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	st, err := pgstore.Open(ctx, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	n := &leaseNode{st: st, model: scripted.NewModel()}
	notices := &acp.LeaseNotices{}
	n.h = newHostParts(t, st, n.model, fx.Supply(&refhost.Settings{Busy: notices.Busy, LeaseLost: notices.LeaseLost}))
	n.k = connect(t, n.h, func(c *acp.Config) { c.Leases = notices })
	n.k.initialize()
	return n
}

// promptAsync sends a prompt and returns a channel with its outcome.
func (n *leaseNode) promptAsync(id sdk.SessionId, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := n.k.prompt(id, text)
		done <- err
	}()
	return done
}

// TestLeaseBusyShownToClient: two agents on one PostgreSQL session. A
// prompt sent to B while A runs the turn is queued for A's next step, and
// B's client is told so in plain words, with A's host name (which another
// process wrote into the database) shown as literal text.
func TestLeaseBusyShownToClient(t *testing.T) {
	url := pgtest.NewDB(t)
	a := newLeaseNode(t, url, pgstore.WithLeaseHolder("evil\x1b[2J*host*", 4242))
	b := newLeaseNode(t, url)
	dir := workspaceDir(t)
	sess := a.k.newSession(dir)
	if _, err := b.k.cs.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	step1, step2 := pgtest.NewGate(), pgtest.NewGate()
	defer step1.Open()
	defer step2.Open()
	a.model.Add(step1.Step(refhost.Response{ToolCalls: []host.ToolCall{call("c1", "no_such_tool", map[string]string{})}}), scripted.Step{Text: "done"})
	defer step2.BeforeStep(t, a.h.rt, 2)()

	doneA := a.promptAsync(sess.SessionId, "from A")
	step1.Reached(t, "A's first step")
	doneB := b.promptAsync(sess.SessionId, "hello from B")
	step1.Open()
	step2.Reached(t, "A between steps")
	b.k.c.waitFor(t, "the busy message", func(us []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		return strings.Contains(agentText(us), "Session busy on ")
	})
	step2.Open()
	for _, done := range []<-chan error{doneA, doneB} {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(waitTimeout):
			t.Fatal("a prompt did not answer")
		}
	}
	us, _ := b.k.c.snapshot()
	text := agentText(us)
	if !strings.Contains(text, "(pid 4242)") || !strings.Contains(text, "your message is queued for its turn") {
		t.Fatalf("B's client was told %q", text)
	}
	if strings.ContainsRune(text, 0x1b) || strings.Contains(text, " *host*") {
		t.Fatalf("the host name reached the client unescaped: %q", text)
	}
	if n := b.model.Calls(); n != 0 {
		t.Fatalf("B's model was called %d times: the turn is A's", n)
	}
	reqs := a.model.Requests()
	if len(reqs) != 2 || !strings.Contains(fmtRequest(reqs[1]), "hello from B") {
		t.Fatalf("A's second request lacks B's message (%d requests)", len(reqs))
	}
}

// TestLeaseLostShownToClient: another process is granted the turn lease
// while A's turn runs (as when A was paused past its lease); A's turn is
// cancelled and A's client is told why.
func TestLeaseLostShownToClient(t *testing.T) {
	url := pgtest.NewDB(t)
	a := newLeaseNode(t, url, pgstore.WithLeaseExpiry(600*time.Millisecond))
	dir := workspaceDir(t)
	sess := a.k.newSession(dir)
	step := pgtest.NewGate()
	defer step.Open()
	a.model.Add(step.Step(refhost.Response{Text: "late from A"}))
	done := a.promptAsync(sess.SessionId, "from A")
	step.Reached(t, "A's step")
	// Another process's grant: a newer fencing token and a live lease.
	if _, err := a.st.Pool().Exec(t.Context(), `UPDATE planmode_sessions SET fence = fence + 1, lease_host = 'other', lease_pid = 1,
		lease_since = clock_timestamp(), lease_until = clock_timestamp() + interval '1 hour' WHERE id = $1`, string(sess.SessionId)); err != nil {
		t.Fatal(err)
	}
	a.k.c.waitFor(t, "the lease-lost message", func(us []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		return strings.Contains(agentText(us), "Another process took over this session's turn")
	})
	step.Open()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		t.Fatal("A's prompt did not answer")
	}
}

// fmtRequest joins the texts of a model request.
func fmtRequest(r refhost.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, c := range m.Content {
			b.WriteString(c.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
