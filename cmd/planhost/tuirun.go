package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/cmd/planhost/internal/saveplan"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/refhost"
)

// deltaRelay hands a streaming model's pieces to whoever shows them: the
// terminal UI while it runs, nobody otherwise.
type deltaRelay struct {
	to atomic.Pointer[func(openaimodel.Delta)]
}

func (r *deltaRelay) send(d openaimodel.Delta) {
	if f := r.to.Load(); f != nil {
		(*f)(d)
	}
}

func (r *deltaRelay) set(f func(openaimodel.Delta)) {
	if f == nil {
		r.to.Store(nil)
		return
	}
	r.to.Store(&f)
}

// tuiBackend is what the terminal UI drives: the agent, the runtime's
// commands and the plan-mode controller.
type tuiBackend struct {
	ctx   context.Context
	rt    *refhost.Runtime
	agent *refhost.Agent
	plan  *planmode.Controller
	cat   *tui.Catalog
}

func (b *tuiBackend) Send(text string) error {
	return b.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}})
}

func (b *tuiBackend) Command(line string) (string, bool, error) {
	before := reopens(b.agent.Session().Events())
	handled, reply, err := b.rt.Execute(b.ctx, b.agent, line, nil)
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	if handled && err == nil && b.plan != nil && name == planmode.CommandName {
		// The user's words for the mode the command left, not the
		// plugin's English reply.
		reply = b.cat.PlanReply(b.mode())
		if n := b.ReopenedPlan(); n > 0 && reopens(b.agent.Session().Events()) > before {
			reply += " " + fmt.Sprintf(b.cat.PlanReopened, n)
		}
	}
	return reply, handled, err
}

func (b *tuiBackend) Cancel() { b.agent.Cancel() }

// reopens counts the plan/reopen events of events.
func reopens(events host.Log) int {
	n := 0
	for _, e := range events.All() {
		if e.Type == planmode.EventPlanReopen {
			n++
		}
	}
	return n
}

// ReopenedPlan implements tui.PlanReopener.
func (b *tuiBackend) ReopenedPlan() int {
	for _, p := range planmode.Plans(b.agent.Session().Events()) {
		if p.Reopened {
			return p.Number
		}
	}
	return 0
}

func (b *tuiBackend) SetPlan(active bool) (tui.Mode, error) {
	if b.plan == nil {
		return tui.Mode{}, nil
	}
	_, err := b.plan.Set(b.agent, active)
	return b.mode(), err
}

// landPending logs a mode switch still pending once the turn has ended;
// a failure leaves it pending (and shown so) for the next turn.
func (b *tuiBackend) landPending() {
	if b.plan != nil {
		_, _ = b.plan.LandPending(b.agent)
	}
}

func (b *tuiBackend) mode() tui.Mode {
	if b.plan == nil {
		return tui.Mode{}
	}
	st := b.plan.Get(b.agent)
	return tui.Mode{Composed: true, Active: st.Active, Pending: st.Pending}
}

// tuiAsker answers the agent's questions through the terminal UI.
type tuiAsker struct {
	prog *tea.Program
	next atomic.Int64
	done <-chan struct{}
}

func (a *tuiAsker) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	id := int(a.next.Add(1))
	reply := make(chan tui.AskResult, 1)
	go a.prog.Send(tui.AskMsg{ID: id, Request: req, Reply: reply})
	select {
	case r := <-reply:
		return r.Answers, r.Err
	case <-ctx.Done():
		go a.prog.Send(tui.AskGoneMsg{ID: id})
		return nil, fmt.Errorf("%w: %w", host.ErrAborted, context.Cause(ctx))
	case <-a.done:
		return nil, host.ErrAborted
	}
}

// tuiPlanFile is the session's plan file, whose path the review shows.
type tuiPlanFile struct {
	pl    *planfile.Plugin
	agent host.Agent
}

func (f tuiPlanFile) Path() string { return f.pl.Path(f.agent) }

// reviewPlanFile is the plan file the review names; nil (and a nil
// tui.PlanFile) when the deployment does not enable plan-file.
func reviewPlanFile(parts *hostParts, agent host.Agent) tui.PlanFile {
	if parts.PlanFile == nil {
		return nil
	}
	return tuiPlanFile{pl: parts.PlanFile, agent: agent}
}

// tuiSession is what converseTUI needs besides the host parts.
type tuiSession struct {
	file     string
	stateDir string
	intro    []tui.Entry
	cat      *tui.Catalog
	relay    *deltaRelay
	// verbose shows the internal lines (request headers, pending
	// switches, exit_plan_mode's result for the model).
	verbose bool
	logger  *slog.Logger
	lease   *leaseRelay
}

// tuiCatalog is the terminal UI's catalog for -lang (or the environment).
func (p *program) tuiCatalog(lang string) *tui.Catalog {
	return tui.CatalogFor(lang, p.getenv("LC_ALL"), p.getenv("LC_MESSAGES"), p.getenv("LANG"))
}

// converseTUI runs the session in the terminal UI until the user leaves.
func (p *program) converseTUI(ctx context.Context, parts *hostParts, agent *refhost.Agent, s tuiSession) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cat := s.cat
	backend := &tuiBackend{ctx: ctx, rt: parts.Runtime, agent: agent, plan: parts.Plan, cat: cat}
	var cmds []tui.CommandHelp
	for _, c := range parts.Runtime.CommandList() {
		cmds = append(cmds, tui.CommandHelp{Name: c.Name, Hint: c.Hint, Description: c.Description})
	}
	editor := p.getenv("VISUAL")
	if editor == "" {
		editor = p.getenv("EDITOR")
	}
	var history []string
	var saveHistory func(string)
	if path, err := openHistoryFile(s.stateDir); err == nil {
		history = loadHistory(path)
		saveHistory = func(entry string) { _ = appendHistory(path, entry) }
	}
	model := tui.New(tui.Config{
		History:     history,
		SaveHistory: saveHistory,
		Backend:     backend,
		Catalog:     cat,
		Commands:    cmds,
		Mode:        backend.mode(),
		Intro:       s.intro,
		Plans:       presentedPlans(agent.Session().Events()),
		Questions:   askedQuestions(agent.Session().Events()),
		NoColor:     p.getenv("NO_COLOR") != "",
		Editor:      editor,
		Sanitize:    safetext.Escape,
		Markdown:    safetext.Markdown,
		Rendered:    safetext.EscapeExceptSGR,
		PlanFile:    reviewPlanFile(parts, agent),
		Logger:      s.logger,
	})
	// Bubble Tea's signal handler quits on SIGTERM (and SIGINT, which a
	// terminal in raw mode sends as a key instead), restoring the terminal.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(p.stdin), tea.WithOutput(p.stdout)}
	prog := tea.NewProgram(model, opts...)

	done := make(chan struct{})
	asker := &tuiAsker{prog: prog, done: done}
	unset, err := parts.Runtime.Questions().SetProvider(asker)
	if err != nil {
		return p.fail("run", err)
	}
	defer unset()
	s.relay.set(func(d openaimodel.Delta) { prog.Send(tui.DeltaMsg{Text: d.Text, Reasoning: d.Reasoning}) })
	defer s.relay.set(nil)
	s.lease.set(func(h host.LeaseHolder) { go prog.Send(tui.BusyMsg{Host: h.Host, PID: h.PID, Since: h.Since}) },
		func() { go prog.Send(tui.LeaseLostMsg{}) })
	defer s.lease.set(nil, nil)

	var wg sync.WaitGroup
	fwd := newEventForwarder(parts, agent, backend, prog)
	fwd.view.cat, fwd.view.verbose = cat, s.verbose
	sess := agent.Session()
	unsubscribe := sess.Subscribe(sess.Len(), fwd.queue.push)
	wg.Go(func() { fwd.run(done) })

	_, runErr := prog.Run()
	close(done)
	unsubscribe()
	agent.Cancel()
	wg.Wait()
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, tea.ErrInterrupted) {
		return p.fail("run", runErr)
	}
	fmt.Fprintf(p.stdout, cat.SessionFileLine+"\n", s.file)
	return exitOK
}

// eventForwarder turns session events into the UI's messages, in log
// order, on its own goroutine (a subscription must not block).
type eventForwarder struct {
	queue   eventQueue
	view    *printer
	sink    *entrySink
	agent   *refhost.Agent
	backend *tuiBackend
	prog    *tea.Program
}

func newEventForwarder(parts *hostParts, agent *refhost.Agent, b *tuiBackend, prog *tea.Program) *eventForwarder {
	sink := &entrySink{}
	view := &printer{out: sink, presenters: parts.Presenters, plan: parts.Plan != nil, userWords: true, calls: map[string]host.ToolCall{}}
	f := &eventForwarder{view: view, sink: sink, agent: agent, backend: b, prog: prog}
	f.queue.notify = make(chan struct{}, 1)
	return f
}

func (f *eventForwarder) run(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-f.queue.notify:
		}
		events := f.queue.take()
		if len(events) == 0 {
			continue
		}
		var msg tui.EventsMsg
		for _, e := range events {
			f.view.event(e, f.agent.Session().Events)
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
		msg.Entries = f.sink.take()
		msg.Mode = f.backend.mode()
		msg.Model = safetext.Escape(f.view.model)
		select {
		case <-done:
			return
		default:
		}
		f.prog.Send(msg)
	}
}

// recap is the last exchanges of a resumed session, for the UI's intro.
func recap(events host.Log, n int, cat *tui.Catalog) []tui.Entry {
	var out []tui.Entry
	for _, e := range events.All() {
		switch e.Type {
		case host.TypeUserMessage:
			if e.Source != nil && e.Source.Kind == host.SourcePlugin {
				continue
			}
			var m host.UserMessage
			if json.Unmarshal(e.Data, &m) == nil {
				out = append(out, tui.Entry{Kind: tui.KindUser, Text: safetext.Escape(clipText(oneLine(blocksText(m.Content)), maxRecap))})
			}
		case host.TypeAssistantMessage:
			var m host.AssistantMessage
			if json.Unmarshal(e.Data, &m) == nil && strings.TrimSpace(m.Text) != "" {
				out = append(out, tui.Entry{Kind: tui.KindAssistant, Text: safetext.Escape(cat.AssistantLabel + clipText(oneLine(m.Text), maxRecap))})
			}
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// presentedPlans reads the plans the session's log shows presented with
// exit_plan_mode, how each review ended and which one was reopened, for
// the UI's /plans (numbered as planmode.Plans and "/plan reopen N" number
// them).
func presentedPlans(events host.Log) []tui.PresentedPlan {
	var plans []tui.PresentedPlan
	for _, p := range planmode.Plans(events) {
		plans = append(plans, tui.PresentedPlan{
			Title: p.Title, Text: p.Plan, Outcome: p.Outcome, Edited: p.Edited, Reopened: p.Reopened,
			Saved: !p.IsError && p.Outcome != "" && saveplan.Saved(p.Output),
		})
	}
	return plans
}
