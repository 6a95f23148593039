// Package console is planhost's line console: a session over pipes (stdin
// or stdout is not a terminal) and the demo. It is a plain renderer of the
// session's items (package present), in the user's language, with the
// internal lines only under -verbose, and it reads one input a line:
// messages, commands, and the answers to the agent's questions, chosen by
// the keys of their menus.
package console

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
)

// Config is what a console serves.
type Config struct {
	// Out receives the transcript; In delivers the user's lines.
	Out io.Writer
	In  Source
	// Runtime, Agent and Plan are the host's; Plan is nil when the
	// deployment has no plan mode.
	Runtime *refhost.Runtime
	Agent   *refhost.Agent
	Plan    *planmode.Controller
	// Catalog gives the words; Verbose shows the internal lines.
	Catalog *present.Catalog
	Verbose bool
	// Markdown renders a plan as plain text; nil prints it as it is.
	Markdown func(string) (string, error)
	// PlanFile is the plan file's path, shown with a plan review when the
	// deployment enables plan-file; "" otherwise.
	PlanFile string
	// Interrupts delivers Ctrl-C.
	Interrupts <-chan os.Signal
	// Reviewer, when set, answers every question instead of the user (the
	// demo's scripted user); it prints what it decided.
	Reviewer func(req host.AskRequest) ([]host.Answer, error)
}

// Result says how a console ended.
type Result int

// How a console ends.
const (
	// InputEnded: the input ended, or /quit.
	InputEnded Result = iota
	// Interrupted: a second Ctrl-C.
	Interrupted
)

// console runs one session. Everything it prints is printed from the
// goroutine running serve, in log order: session events are queued by the
// subscription and printed there, so the transcript is the same on every
// run for the same input.
type console struct {
	cfg  Config
	cat  *present.Catalog
	out  *present.Plain
	tr   *present.Transcript
	plan *planmode.Controller
	// lastLine is when the latest terminal line came (zero for a pipe).
	lastLine time.Time

	events eventQueue
	asks   chan *pendingAsk
	closed chan struct{}
}

// pendingAsk is a question request handed from the agent's goroutine to
// the console.
type pendingAsk struct {
	ctx   context.Context
	req   host.AskRequest
	reply chan askReply
}

type askReply struct {
	answers []host.Answer
	err     error
}

// Provider is the console as the host's user-question provider.
type Provider interface {
	Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error)
}

// Run serves the session until the input ends, /quit, or a second Ctrl-C.
// It attaches itself as the runtime's question provider meanwhile.
func Run(ctx context.Context, cfg Config) (Result, error) {
	c := &console{
		cfg:    cfg,
		cat:    cfg.Catalog,
		out:    &present.Plain{W: cfg.Out, Cat: cfg.Catalog, Verbose: cfg.Verbose, Markdown: cfg.Markdown, HoldPlans: true},
		tr:     present.NewTranscript(cfg.Catalog, cfg.Verbose),
		plan:   cfg.Plan,
		asks:   make(chan *pendingAsk),
		closed: make(chan struct{}),
	}
	c.events.notify = make(chan struct{}, 1)
	unset, err := cfg.Runtime.Questions().SetProvider(c)
	if err != nil {
		return InputEnded, err
	}
	defer unset()
	return c.serve(ctx), nil
}

// Ask implements refhost.Provider: it hands the request to the console and
// waits for the answers, the request's cancellation or the console's end.
func (c *console) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	a := &pendingAsk{ctx: ctx, req: req, reply: make(chan askReply, 1)}
	select {
	case c.asks <- a:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", host.ErrAborted, context.Cause(ctx))
	case <-c.closed:
		return nil, host.ErrAborted
	}
	select {
	case r := <-a.reply:
		return r.answers, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", host.ErrAborted, context.Cause(ctx))
	case <-c.closed:
		return nil, host.ErrAborted
	}
}

// eventQueue buffers session events from the subscription (which must not
// block) for the console's goroutine.
type eventQueue struct {
	mu     sync.Mutex
	buf    []host.Event
	notify chan struct{}
}

func (q *eventQueue) push(e host.Event) {
	q.mu.Lock()
	q.buf = append(q.buf, e)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *eventQueue) take() []host.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.buf
	q.buf = nil
	return b
}

// serve runs the session until the input ends, /quit, or a second Ctrl-C.
func (c *console) serve(ctx context.Context) Result {
	sess := c.cfg.Agent.Session()
	c.tr.Seed(sess.Events())
	unsubscribe := sess.Subscribe(sess.Len(), c.events.push)
	defer unsubscribe()

	ctx, cancel := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	defer func() {
		close(c.closed)
		cancel()
		watchers.Wait()
		c.drain()
		c.out.Flush()
	}()
	idle := make(chan struct{}, 1)
	busy, watching, cancelling, eof := false, false, false, false
	interrupts := 0
	var cur *asking

	watchIdle := func() {
		if watching || c.cfg.Agent.Status() != host.StatusRunning {
			return
		}
		busy, watching = true, true
		watchers.Go(func() {
			if c.cfg.Agent.WaitIdle(ctx) == nil {
				idle <- struct{}{}
			}
		})
	}

	for {
		c.drain()
		prompt := c.prompt(cur)
		c.cfg.In.SetPrompt(prompt)
		ready := !busy || cur != nil
		if eof && ready {
			if cur != nil {
				cur.a.reply <- askReply{err: fmt.Errorf("%s: %w", c.cat.Console.InputEnded, host.ErrDismissed)}
				cur = nil
				continue
			}
			return InputEnded
		}
		var lines <-chan Event
		if !eof && ready {
			lines = c.cfg.In.Lines()
		}
		var askDone <-chan struct{}
		if cur != nil {
			askDone = cur.a.ctx.Done()
		}
		select {
		case <-c.events.notify:
		case a := <-c.asks:
			c.drain()
			cur = c.startAsk(a)
		case <-askDone:
			// The log says how the question ended (the review's
			// outcome, the questions' box), in the user's words and in
			// order: the error it was withdrawn with is the model's.
			cur = nil
		case <-idle:
			busy, watching, cancelling = false, false, false
			c.landPending()
		case <-c.cfg.Interrupts:
			if c.interrupt(&interrupts, busy, &cancelling) {
				return Interrupted
			}
		case ev := <-lines:
			switch {
			case ev.Interrupt:
				if c.interrupt(&interrupts, busy, &cancelling) {
					return Interrupted
				}
				continue
			case ev.EOF:
				eof = true
				continue
			}
			interrupts = 0
			c.out.Line(prompt + ev.Line)
			if !ev.At.IsZero() {
				c.lastLine = ev.At
			}
			if cur != nil && !cur.editing && isQuit(ev.Line) {
				// Leaving is never an answer.
				cur.a.reply <- askReply{err: fmt.Errorf("%s: %w", c.cat.Console.InputEnded, host.ErrDismissed)}
				return InputEnded
			}
			if cur != nil {
				// The lines of an edit are text, never an answer: the
				// gate guards the menu, shown again after the edit.
				if !cur.editing && !cur.gate.Admit(ev.At) {
					c.out.Line(fmt.Sprintf(c.cat.Console.Early, ev.Line))
					continue
				}
				if c.answer(cur, ev.Line, ev.At) {
					cur = nil
				}
				continue
			}
			if c.line(ctx, ev.Line, busy) {
				return InputEnded
			}
			watchIdle()
		}
	}
}

// landPending logs a switch still pending once the turn has ended, so that
// the log and the prompt show the mode in force.
func (c *console) landPending() {
	if c.plan != nil {
		_, _ = c.plan.LandPending(c.cfg.Agent)
		c.drain()
	}
}

// interrupt handles Ctrl-C and reports whether to exit: the first cancels a
// running turn (or, with nothing running, says how to exit), the next exits.
func (c *console) interrupt(count *int, busy bool, cancelling *bool) bool {
	*count++
	if *count > 1 {
		c.out.Line(c.cat.Console.Bye)
		return true
	}
	if busy && !*cancelling {
		*cancelling = true
		c.cfg.Agent.Cancel()
		c.out.Line(c.cat.Console.Cancelling)
		return false
	}
	c.out.Line(c.cat.Console.Idle)
	return false
}

// drain prints the events queued so far, then the pending switch when it
// changed.
func (c *console) drain() {
	events := c.events.take()
	for _, e := range events {
		for _, it := range c.tr.Add(e) {
			// The user's own lines are echoed already, and the replies to
			// commands printed as they returned.
			if it.Kind != present.User && it.Kind != present.Reply {
				c.out.Item(it)
			}
		}
	}
	if len(events) > 0 && c.plan != nil {
		c.out.Items(c.tr.Mode(c.plan.Get(c.cfg.Agent).Pending))
	}
}

// prompt shows the mode, a pending switch, or the question being asked.
func (c *console) prompt(cur *asking) string {
	w := &c.cat.Console
	if cur != nil {
		return cur.prompt(c.cat)
	}
	if c.plan == nil {
		return w.PromptNone
	}
	st := c.plan.Get(c.cfg.Agent)
	s := &c.cat.Session
	name := func(active bool) string {
		if active {
			return s.ModePlan
		}
		return s.ModeDefault
	}
	switch st.Pending {
	case planmode.SelectionActive:
		return fmt.Sprintf(w.PromptPending, name(st.Active), s.ModePlan)
	case planmode.SelectionInactive:
		return fmt.Sprintf(w.PromptPending, name(st.Active), s.ModeDefault)
	}
	return fmt.Sprintf(w.Prompt, name(st.Active))
}

// Commands the console handles itself.
const (
	cmdQuit  = "/quit"
	cmdExit  = "/exit"
	cmdHelp  = "/help"
	cmdPlans = "/plans"
)

// isQuit reports whether line asks to leave.
func isQuit(line string) bool {
	text := strings.TrimSpace(line)
	return text == cmdQuit || text == cmdExit
}

// line handles one input line while no question waits. It reports whether
// to leave.
func (c *console) line(ctx context.Context, line string, busy bool) (quit bool) {
	text := strings.TrimSpace(line)
	switch {
	case text == "":
		return false
	case isQuit(text):
		return true
	case text == cmdHelp:
		c.help()
		return false
	case text == cmdPlans || strings.HasPrefix(text, cmdPlans+" "):
		c.plans(strings.TrimSpace(strings.TrimPrefix(text, cmdPlans)))
		return false
	case strings.HasPrefix(text, "/"):
		name, _, _ := refhost.ParseCommand(text)
		before := c.cfg.Agent.Session().Len()
		handled, reply, err := c.cfg.Runtime.Execute(ctx, c.cfg.Agent, text, nil)
		var st planmode.State
		if c.plan != nil {
			st = c.plan.Get(c.cfg.Agent)
		}
		c.out.Items(c.cat.CommandReply(name, handled, reply, err, st, c.plan != nil, present.Reopened(c.cfg.Agent.Session().Events(), before)))
		return false
	}
	if err := c.cfg.Agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		c.out.Item(present.Item{Kind: present.Error, Text: fmt.Sprintf(c.cat.Session.SendFailed, err)})
		return false
	}
	if busy {
		c.out.Item(present.Item{Kind: present.Note, Text: c.cat.Session.Queued})
	}
	return false
}

// plans is /plans: the list, or one plan in full.
func (c *console) plans(arg string) {
	log := c.cfg.Agent.Session().Events()
	if arg == "" {
		c.out.Items(c.cat.PlansList(log, false))
		return
	}
	it, err := c.cat.PlanN(log, arg)
	if err != nil {
		c.out.Item(present.Item{Kind: present.Error, Text: err.Error()})
		return
	}
	c.out.Item(it)
}

// help lists the host's commands and the console's own.
func (c *console) help() {
	w := &c.cat.Console
	c.out.Line(w.HelpHeader)
	for _, cmd := range c.cfg.Runtime.CommandList() {
		h := c.cat.Command(cmd)
		c.out.Line(strings.Replace(fmt.Sprintf(w.HelpCommand, h.Name, h.Hint, h.Description), "  — ", " — ", 1))
	}
	c.out.Line(w.HelpPlans)
	c.out.Line(w.HelpHelp)
	c.out.Line(w.HelpQuit)
}

// startAsk shows a question request; the scripted user answers at once,
// otherwise the answer is typed.
func (c *console) startAsk(a *pendingAsk) *asking {
	if c.cfg.Reviewer != nil {
		for q := range a.req.Questions {
			c.out.Question(c.cat.Question(a.req, q, c.cfg.Agent.Session().Events(), true))
		}
		answers, err := c.cfg.Reviewer(a.req)
		a.reply <- askReply{answers: answers, err: err}
		return nil
	}
	st := &asking{a: a}
	c.showQuestion(st)
	return st
}

// showQuestion shows the current question, and opens its gate.
func (c *console) showQuestion(st *asking) {
	q := c.cat.Question(st.a.req, st.q, c.cfg.Agent.Session().Events(), true)
	st.question = q
	st.plan = st.a.req.Questions[st.q].Detail
	if q.Kind == host.AskClarify {
		c.showClarifying(st)
		return
	}
	c.out.Question(q)
	if c.cfg.PlanFile != "" && q.Kind == host.AskReview {
		c.out.Line("  " + fmt.Sprintf(c.cat.Review.PlanFile, c.cfg.PlanFile))
	}
	st.gate = reviewgate.Open(time.Now(), c.lastLine)
}
