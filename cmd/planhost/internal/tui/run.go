package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/refhost"
)

// Session is what Run shows: the host's parts, the session's agent and the
// terminal.
type Session struct {
	Runtime *refhost.Runtime
	Agent   *refhost.Agent
	// Plan is nil when the deployment has no plan mode.
	Plan *planmode.Controller
	// PlanFile is the plan file's path for the agent when the deployment
	// enables plan-file, "" otherwise.
	PlanFile string
	// Catalog gives the words; Verbose shows the internal lines.
	Catalog *present.Catalog
	Verbose bool
	// Intro is shown first (the session, the model, a resumed session's
	// recap).
	Intro []present.Item
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
	// Editor is the editor's command line; "" is vi. NoColor draws
	// without colours.
	Editor  string
	NoColor bool
	// History holds the earlier inputs; SaveHistory keeps a new one.
	History     []string
	SaveHistory func(string)
	Logger      *slog.Logger
	// Deltas, when set, receives the function that hands the streamed
	// pieces of the model's answer to the UI, and nil when it stops.
	Deltas func(func(text, reasoning string))
	// Lease, when set, receives the functions that show the turn-lease
	// notices of a shared session, and nil ones when the UI stops.
	Lease func(busy func(host.LeaseHolder), lost func(cause error))
}

// Run runs the session in the terminal UI until the user leaves.
func Run(ctx context.Context, s Session) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	backend := &backend{ctx: ctx, rt: s.Runtime, agent: s.Agent, plan: s.Plan, cat: s.Catalog}
	sess := s.Agent.Session()
	fwd := newForwarder(s, backend)
	model := New(Config{
		History:     s.History,
		SaveHistory: s.SaveHistory,
		Backend:     backend,
		Catalog:     s.Catalog,
		Verbose:     s.Verbose,
		Commands:    s.Runtime.CommandList(),
		Mode:        backend.mode(),
		Intro:       s.Intro,
		Log:         sess.Events,
		NoColor:     s.NoColor,
		Editor:      s.Editor,
		Sanitize:    safetext.Escape,
		Markdown:    safetext.Markdown,
		Rendered:    safetext.EscapeExceptSGR,
		PlanFile:    s.PlanFile,
		Logger:      s.Logger,
	})
	// Bubble Tea's signal handler quits on SIGTERM (and SIGINT, which a
	// terminal in raw mode sends as a key instead), restoring the terminal.
	prog := tea.NewProgram(model, tea.WithContext(ctx), tea.WithInput(s.In), tea.WithOutput(s.Out))
	fwd.prog = prog

	done := make(chan struct{})
	asker := &asker{prog: prog, done: done, log: sess.Events}
	unset, err := s.Runtime.Questions().SetProvider(asker)
	if err != nil {
		return err
	}
	defer unset()
	if s.Deltas != nil {
		s.Deltas(func(text, reasoning string) { prog.Send(DeltaMsg{Text: text, Reasoning: reasoning}) })
		defer s.Deltas(nil)
	}
	if s.Lease != nil {
		s.Lease(func(h host.LeaseHolder) { go prog.Send(BusyMsg{Host: h.Host, PID: h.PID, Since: h.Since}) },
			func(cause error) { go prog.Send(LeaseLostMsg{Cause: cause}) })
		defer s.Lease(nil, nil)
	}

	var wg sync.WaitGroup
	fwd.tr.Seed(sess.Events())
	unsubscribe := sess.Subscribe(sess.Len(), fwd.push)
	wg.Go(func() { fwd.run(done) })

	_, runErr := prog.Run()
	close(done)
	unsubscribe()
	s.Agent.Cancel()
	wg.Wait()
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, tea.ErrInterrupted) {
		return runErr
	}
	return nil
}

// backend is what the UI drives: the agent, the runtime's commands and the
// plan-mode controller.
type backend struct {
	ctx   context.Context
	rt    *refhost.Runtime
	agent *refhost.Agent
	plan  *planmode.Controller
	cat   *present.Catalog
}

func (b *backend) Send(text string) error {
	return b.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}})
}

func (b *backend) Command(line string) (string, bool, error) {
	before := b.agent.Session().Len()
	handled, reply, err := b.rt.Execute(b.ctx, b.agent, line, nil)
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	if handled && err == nil && b.plan != nil && name == planmode.CommandName {
		// The user's words for the mode the command left, not the
		// plugin's English reply.
		reply = b.cat.PlanReply(b.plan.Get(b.agent), present.Reopened(b.agent.Session().Events(), before))
	}
	return reply, handled, err
}

func (b *backend) Cancel() { b.agent.Cancel() }

func (b *backend) SetPlan(active bool) (Mode, error) {
	if b.plan == nil {
		return Mode{}, nil
	}
	_, err := b.plan.Set(b.agent, active)
	return b.mode(), err
}

// landPending logs a mode switch still pending once the turn has ended;
// a failure leaves it pending (and shown so) for the next turn.
func (b *backend) landPending() {
	if b.plan != nil {
		_, _ = b.plan.LandPending(b.agent)
	}
}

func (b *backend) mode() Mode {
	if b.plan == nil {
		return Mode{}
	}
	st := b.plan.Get(b.agent)
	return Mode{Composed: true, Active: st.Active, Pending: st.Pending}
}

// asker answers the agent's questions through the terminal UI.
type asker struct {
	prog *tea.Program
	next atomic.Int64
	done <-chan struct{}
	// log reads the session's log, which the question's diff reads.
	log func() host.Log
}

func (a *asker) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	id := int(a.next.Add(1))
	reply := make(chan AskResult, 1)
	go a.prog.Send(AskMsg{ID: id, Request: req, Reply: reply, Log: a.log()})
	select {
	case r := <-reply:
		return r.Answers, r.Err
	case <-ctx.Done():
		go a.prog.Send(AskGoneMsg{ID: id})
		return nil, fmt.Errorf("%w: %w", host.ErrAborted, context.Cause(ctx))
	case <-a.done:
		return nil, host.ErrAborted
	}
}

// forwarder turns session events into the UI's messages, in log order, on
// its own goroutine (a subscription must not block).
type forwarder struct {
	mu      sync.Mutex
	buf     []host.Event
	notify  chan struct{}
	tr      *present.Transcript
	backend *backend
	prog    *tea.Program
}

func newForwarder(s Session, b *backend) *forwarder {
	return &forwarder{notify: make(chan struct{}, 1), tr: present.NewTranscript(s.Catalog, s.Verbose), backend: b}
}

// push queues an event (the session's subscription).
func (f *forwarder) push(e host.Event) {
	f.mu.Lock()
	f.buf = append(f.buf, e)
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

func (f *forwarder) take() []host.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.buf
	f.buf = nil
	return b
}

func (f *forwarder) run(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-f.notify:
		}
		events := f.take()
		if len(events) == 0 {
			continue
		}
		var msg EventsMsg
		for _, e := range events {
			for _, it := range f.tr.Add(e) {
				if (it.Kind == present.User || it.Kind == present.Reply) && it.Seq != 0 {
					continue // the user's own lines and the commands' replies are on screen already
				}
				msg.Items = append(msg.Items, it)
			}
			switch e.Type {
			case host.TypeTurnStart:
				msg.TurnStarted = true
			case host.TypeTurnEnd:
				msg.TurnEnded = true
			case host.TypeAssistantMessage:
				msg.AssistantDone = true
			}
		}
		if msg.TurnEnded {
			// A switch queued after the turn's last step is logged now,
			// so the idle screen shows the mode the log has.
			f.backend.landPending()
		}
		msg.Mode = f.backend.mode()
		msg.Items = append(msg.Items, f.tr.Mode(msg.Mode.Pending)...)
		msg.Model = f.tr.Model()
		select {
		case <-done:
			return
		default:
		}
		f.prog.Send(msg)
	}
}
