package main

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
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/refhost"
)

// reviewerFunc answers a question request instead of the user (the demo's
// scripted reviewer). It prints what it decided.
type reviewerFunc func(req host.AskRequest) ([]host.Answer, error)

// console runs one agent session over pipes (and the demo). Everything it
// prints is printed from the goroutine running serve, in log order: session
// events are queued by the subscription and printed there, so the
// transcript is the same on every run for the same input.
type console struct {
	out        io.Writer
	rt         *refhost.Runtime
	agent      *refhost.Agent
	plan       *planmode.Controller
	view       *printer
	src        lineSource
	reviewer   reviewerFunc
	interrupts <-chan os.Signal
	// planFile is the plan file's path, shown in the plan review, when
	// the deployment enables plan-file; "" otherwise.
	planFile string
	// lastLine is when the latest terminal line came (zero for a pipe).
	lastLine time.Time

	events eventQueue
	asks   chan *pendingAsk
	closed chan struct{}
}

// pendingAsk is a question request handed from the agent's goroutine to the
// console.
type pendingAsk struct {
	ctx   context.Context
	req   host.AskRequest
	reply chan askReply
}

type askReply struct {
	answers []host.Answer
	err     error
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

// askState is the question being answered line by line.
type askState struct {
	a        *pendingAsk
	q        int      // index of the question being answered
	keys     []string // option keys of the current question, dismiss last
	feedback bool     // waiting for the feedback line
	selected string   // the option chosen, while waiting for feedback
	answers  []host.Answer
	// gate refuses lines typed before the question (or the feedback
	// prompt) was shown, or too soon after it or after the line before.
	gate reviewgate.Gate
}

// serveResult says how the console ended.
type serveResult int

const (
	endInput serveResult = iota // the input ended (or /quit)
	endInterrupted
)

// serve runs the session until the input ends, /quit, or a second Ctrl-C.
func (c *console) serve(ctx context.Context) serveResult {
	c.events.notify = make(chan struct{}, 1)
	c.asks = make(chan *pendingAsk)
	c.closed = make(chan struct{})
	sess := c.agent.Session()
	unsubscribe := sess.Subscribe(sess.Len(), c.events.push)
	defer unsubscribe()

	ctx, cancel := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	defer func() {
		close(c.closed)
		cancel()
		watchers.Wait()
	}()
	idle := make(chan struct{}, 1)
	busy, watching, cancelling, eof := false, false, false, false
	interrupts := 0
	var cur *askState

	watchIdle := func() {
		if watching || c.agent.Status() != host.StatusRunning {
			return
		}
		busy, watching = true, true
		watchers.Go(func() {
			if c.agent.WaitIdle(ctx) == nil {
				idle <- struct{}{}
			}
		})
	}

	for {
		c.drain()
		prompt := c.prompt(cur)
		c.src.SetPrompt(prompt)
		ready := !busy || cur != nil
		if eof && ready {
			if cur != nil {
				cur.a.reply <- askReply{err: fmt.Errorf("%s: %w", lineInputEnded, host.ErrDismissed)}
				cur = nil
				continue
			}
			return endInput
		}
		var lines <-chan inputEvent
		if !eof && ready {
			lines = c.src.Lines()
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
			c.drain()
			c.view.println(fmt.Sprintf(lineReviewGone, context.Cause(cur.a.ctx)))
			cur = nil
		case <-idle:
			busy, watching, cancelling = false, false, false
		case <-c.interrupts:
			if c.interrupt(&interrupts, busy, &cancelling) {
				return endInterrupted
			}
		case ev := <-lines:
			switch {
			case ev.interrupt:
				if c.interrupt(&interrupts, busy, &cancelling) {
					return endInterrupted
				}
				continue
			case ev.eof:
				eof = true
				continue
			}
			interrupts = 0
			c.view.println(prompt + ev.line)
			if !ev.at.IsZero() {
				c.lastLine = ev.at
			}
			if cur != nil {
				if !cur.gate.Admit(ev.at) {
					c.view.println(fmt.Sprintf(lineTypedAhead, ev.line))
					continue
				}
				if c.answer(cur, ev.line, ev.at) {
					cur = nil
				}
				continue
			}
			if c.line(ctx, ev.line, busy) {
				return endInput
			}
			watchIdle()
		}
	}
}

// interrupt handles Ctrl-C and reports whether to exit: the first cancels a
// running turn (or, with nothing running, says how to exit), the next exits.
func (c *console) interrupt(count *int, busy bool, cancelling *bool) bool {
	*count++
	if *count > 1 {
		c.view.println(lineBye)
		return true
	}
	if busy && !*cancelling {
		*cancelling = true
		c.agent.Cancel()
		c.view.println(lineCancelling)
		return false
	}
	c.view.println(lineInterruptIdle)
	return false
}

// drain prints the events queued so far.
func (c *console) drain() {
	for _, e := range c.events.take() {
		c.view.event(e, c.agent.Session().Events)
	}
}

// prompt shows the mode, a pending switch, or the question being asked.
func (c *console) prompt(cur *askState) string {
	if cur != nil {
		if cur.feedback {
			return promptFeedback
		}
		if isClarifying(cur.a.req) {
			return clarifyingPrompt(cur)
		}
		if isPlanReview(cur.a.req) {
			return promptReview
		}
		return fmt.Sprintf(promptAnswer, strings.Join(cur.keys, "/"))
	}
	if c.plan == nil {
		return promptNoMode
	}
	st := c.plan.Get(c.agent)
	from := modeName(st.Active)
	switch st.Pending {
	case planmode.SelectionActive:
		return fmt.Sprintf(promptPendingFmt, from, modePlan)
	case planmode.SelectionInactive:
		return fmt.Sprintf(promptPendingFmt, from, modeDefault)
	}
	if st.Active {
		return promptPlan
	}
	return promptDefault
}

func modeName(active bool) string {
	if active {
		return modePlan
	}
	return modeDefault
}

// line handles one input line while no question waits. It reports whether
// to leave.
func (c *console) line(ctx context.Context, line string, busy bool) (quit bool) {
	text := strings.TrimSpace(line)
	switch {
	case text == "":
		return false
	case text == cmdQuit || text == cmdExit:
		return true
	case text == cmdHelp:
		c.help()
		return false
	case strings.HasPrefix(text, "/"):
		name, _, _ := refhost.ParseCommand(text)
		handled, reply, err := c.rt.Execute(ctx, c.agent, text, nil)
		switch {
		case !handled:
			c.view.println(fmt.Sprintf(lineUnknownCmd, "/"+name))
		case err != nil:
			c.view.println(fmt.Sprintf(lineCmdError, name, err))
		case reply != "":
			c.view.println(fmt.Sprintf(lineReply, name, reply))
		}
		return false
	}
	if err := c.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		c.view.println(fmt.Sprintf(lineSteerError, err))
		return false
	}
	if busy {
		c.view.println(lineQueued)
	}
	return false
}

// help lists the host's commands and the console's own.
func (c *console) help() {
	c.view.println(lineHelpHeader)
	for _, cmd := range c.rt.CommandList() {
		c.view.println(strings.Replace(fmt.Sprintf(lineHelpCmd, cmd.Name, cmd.Hint, cmd.Description), "  — ", " — ", 1))
	}
	c.view.println(lineHelpHelp)
	c.view.println(lineHelpQuit)
}

// startAsk shows a question request; the scripted reviewer answers at once,
// otherwise the answer is typed.
func (c *console) startAsk(a *pendingAsk) *askState {
	if c.reviewer != nil {
		for _, q := range a.req.Questions {
			c.view.question(q, optionKeys(q))
		}
		answers, err := c.reviewer(a.req)
		a.reply <- askReply{answers: answers, err: err}
		return nil
	}
	st := &askState{a: a}
	c.showQuestion(st)
	return st
}

func (c *console) showQuestion(st *askState) {
	if isClarifying(st.a.req) {
		c.showClarifying(st)
		return
	}
	q := st.a.req.Questions[st.q]
	st.keys = optionKeys(q)
	c.view.question(q, st.keys)
	if c.planFile != "" && isPlanReview(st.a.req) {
		c.view.println(fmt.Sprintf(linePlanFile, safetext.Escape(c.planFile)))
	}
	st.gate = reviewgate.Open(time.Now(), c.lastLine)
}

// answer takes one line, typed at at, for the question being asked and
// reports whether the request is settled. An empty line never approves.
func (c *console) answer(st *askState, line string, at time.Time) (done bool) {
	if isClarifying(st.a.req) {
		return c.answerClarifying(st, line, at)
	}
	q := st.a.req.Questions[st.q]
	if st.feedback {
		if strings.TrimSpace(line) == "" && st.selected == planreview.LabelApproveWithComments {
			c.view.println(lineCommentsNeeded)
			st.gate.Sleep(at)
			return false
		}
		st.answers = append(st.answers, host.Answer{QuestionID: q.ID, Selected: []string{st.selected}, Custom: strings.TrimSpace(line)})
		st.feedback = false
		return c.nextQuestion(st)
	}
	choice := strings.ToLower(strings.TrimSpace(line))
	if choice == st.keys[len(st.keys)-1] || choice == optionDismiss {
		st.a.reply <- askReply{err: fmt.Errorf("%s: %w", lineDismissed, host.ErrDismissed)}
		return true
	}
	for i, o := range q.Options {
		if choice != st.keys[i] && choice != strings.ToLower(o.Label) {
			continue
		}
		if isPlanReview(st.a.req) && asksForText(o.Label, st.a.req.Intent.ApproveOption) {
			st.feedback, st.selected = true, o.Label
			st.gate = reviewgate.Open(time.Now(), at)
			return false
		}
		st.answers = append(st.answers, host.Answer{QuestionID: q.ID, Selected: []string{o.Label}})
		return c.nextQuestion(st)
	}
	c.view.println(fmt.Sprintf(lineReviewBad, strings.Join(st.keys, ", ")))
	st.gate.Sleep(at)
	return false
}

func (c *console) nextQuestion(st *askState) bool {
	st.q++
	if st.q < len(st.a.req.Questions) {
		c.showQuestion(st)
		return false
	}
	st.a.reply <- askReply{answers: st.answers}
	return true
}

// asksForText reports whether a plan review option takes a line of text
// (feedback, comments) before it is answered: every option but the
// approval and plan-review's Approve and clear and Abandon, which take none.
func asksForText(label, approve string) bool {
	return label != approve && label != planreview.LabelApproveAndClear && label != planreview.LabelAbandon
}

// isPlanReview reports whether req is plan mode's review.
func isPlanReview(req host.AskRequest) bool {
	return req.Intent != nil && req.Intent.Kind == planmode.ReviewIntentKind && req.Intent.ApproveOption != ""
}

// optionKeys gives each option a key: its first letter, lower-cased, when
// those are distinct (and not the dismiss key); numbers otherwise. The
// dismiss key comes last.
func optionKeys(q host.Question) []string {
	keys := make([]string, 0, len(q.Options)+1)
	seen := map[string]bool{dismissKey: true}
	for _, o := range q.Options {
		k := strings.ToLower(firstRune(o.Label))
		if k == "" || seen[k] {
			keys = keys[:0]
			break
		}
		seen[k] = true
		keys = append(keys, k)
	}
	if len(keys) != len(q.Options) {
		keys = keys[:0]
		for i := range q.Options {
			keys = append(keys, fmt.Sprint(i+1))
		}
	}
	return append(keys, dismissKey)
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}
