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
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
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
	// revised is the plan of the last review when it was sent back for a
	// revision (Keep planning, or approved as edited): the next plan
	// review shows what changed from it. "" otherwise.
	revised string

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
	// selectedRole is the role of the option chosen.
	selectedRole host.Role
	answers      []host.Answer
	// text is the plan under review: the question's, or the user's edit
	// of it (then edited is set, and an approving answer carries it).
	text   string
	edited bool
	// editing is set while the lines of an edit are typed; lines holds
	// them until the terminator line.
	editing bool
	lines   []string
	// revise is set when the answer sends the plan back for a revision.
	revise bool
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
	c.view.holdPlanCards = true
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
				c.revised = ""
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
			c.revised = ""
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
				// The lines of an edit are text, never an answer: the
				// gate guards the menu, shown again after the edit.
				if !cur.editing && !cur.gate.Admit(ev.at) {
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
		if cur.editing {
			return promptEdit
		}
		if cur.feedback {
			return promptFeedback
		}
		if isClarifying(cur.a.req) {
			return clarifyingPrompt(cur)
		}
		if isPlanReview(cur.a.req) {
			// The keys of the menu shown above, whatever options the
			// review offers (Save plan and stop, plan-review's, ...).
			return fmt.Sprintf(promptReview, strings.Join(cur.keys, "/"))
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
	case text == cmdPlans:
		c.listPlans()
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

// listPlans is /plans: the plans presented in the session, numbered as
// "/plan reopen N" numbers them, with how each review ended and which one
// is reopened, in the terminal UI's words.
func (c *console) listPlans() {
	plans := presentedPlans(c.agent.Session().Events())
	cat := tui.English
	if len(plans) == 0 {
		c.view.println(cat.PlansNone)
		return
	}
	c.view.println(linePlansHeader)
	for i, p := range plans {
		outcome := cat.OutcomeUnanswered
		switch {
		case p.Saved:
			outcome = cat.OutcomeSaved
		case p.Outcome != "":
			outcome = cat.ExitOutcome(p.Outcome, p.Edited)
		}
		if p.Reopened {
			outcome += "; " + cat.OutcomeReopened
		}
		c.view.println(safetext.Escape(fmt.Sprintf(cat.PlansLine, i+1, oneLine(p.Title), outcome)))
	}
}

// help lists the host's commands and the console's own.
func (c *console) help() {
	c.view.println(lineHelpHeader)
	for _, cmd := range c.rt.CommandList() {
		c.view.println(strings.Replace(fmt.Sprintf(lineHelpCmd, cmd.Name, cmd.Hint, cmd.Description), "  — ", " — ", 1))
	}
	c.view.println(lineHelpPlans)
	c.view.println(lineHelpHelp)
	c.view.println(lineHelpQuit)
}

// startAsk shows a question request; the scripted reviewer answers at once,
// otherwise the answer is typed.
func (c *console) startAsk(a *pendingAsk) *askState {
	if c.reviewer != nil {
		for _, q := range a.req.Questions {
			c.view.review(q, optionKeys(q, isPlanReview(a.req)), c.revisedFrom(a.req))
		}
		answers, err := c.reviewer(a.req)
		c.revised = ""
		if o, ok := chosen(a.req, answers); err == nil && isPlanReview(a.req) && ok && sendsBack(o.Role) {
			c.revised = a.req.Questions[0].Detail
		}
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
	plan := isPlanReview(st.a.req)
	st.keys = optionKeys(q, plan)
	if plan {
		st.text = q.Detail
	}
	c.view.review(q, st.keys, c.revisedFrom(st.a.req))
	if c.planFile != "" && plan {
		c.view.println(fmt.Sprintf(linePlanFile, safetext.Escape(c.planFile)))
	}
	st.gate = reviewgate.Open(time.Now(), c.lastLine)
}

// revisedFrom is the plan req revises, when it is a plan review that
// follows a plan sent back for a revision; "" otherwise.
func (c *console) revisedFrom(req host.AskRequest) string {
	if !isPlanReview(req) {
		return ""
	}
	return c.revised
}

// answer takes one line, typed at at, for the question being asked and
// reports whether the request is settled. An empty line never approves.
func (c *console) answer(st *askState, line string, at time.Time) (done bool) {
	if isClarifying(st.a.req) {
		return c.answerClarifying(st, line, at)
	}
	q := st.a.req.Questions[st.q]
	if st.editing {
		if line == editEnd {
			c.finishEdit(st, at)
		} else {
			st.lines = append(st.lines, line)
		}
		return false
	}
	if st.feedback {
		if strings.TrimSpace(line) == "" && st.selectedRole.NeedsText() {
			c.view.println(lineCommentsNeeded)
			st.gate.Sleep(at)
			return false
		}
		return c.choose(st, host.Answer{QuestionID: q.ID, Selected: []string{st.selected}, Custom: strings.TrimSpace(line)}, st.selectedRole)
	}
	choice := strings.ToLower(strings.TrimSpace(line))
	if choice == st.keys[len(st.keys)-1] || choice == optionDismiss {
		st.a.reply <- askReply{err: fmt.Errorf("%s: %w", lineDismissed, host.ErrDismissed)}
		c.revised = ""
		return true
	}
	plan := isPlanReview(st.a.req)
	if plan && (choice == st.keys[len(q.Options)] || choice == optionEdit) {
		st.editing, st.lines = true, nil
		c.view.println(lineEditHow)
		return false
	}
	for i, o := range q.Options {
		if choice != st.keys[i] && choice != strings.ToLower(o.Label) {
			continue
		}
		if plan && o.Role.TakesText() {
			st.feedback, st.selected, st.selectedRole = true, o.Label, o.Role
			st.gate = reviewgate.Open(time.Now(), at)
			return false
		}
		return c.choose(st, host.Answer{QuestionID: q.ID, Selected: []string{o.Label}}, o.Role)
	}
	c.view.println(fmt.Sprintf(lineReviewBad, strings.Join(st.keys, ", ")))
	st.gate.Sleep(at)
	return false
}

// finishEdit takes the typed edit: a changed plan becomes the plan under
// review (what changed is shown, then the plan), an empty or unchanged one
// leaves it as it was. The menu is shown again, asleep until the keyboard
// is quiet.
func (c *console) finishEdit(st *askState, at time.Time) {
	text := strings.TrimRight(strings.Join(st.lines, "\n"), "\n") + "\n"
	st.editing, st.lines = false, nil
	if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == strings.TrimSpace(st.text) {
		c.view.println(lineEditUnchanged)
	} else {
		c.view.println(lineEditChanged)
		if d := plandiff.Unified(st.text, text); d != "" {
			c.view.println(d)
		}
		st.text, st.edited = text, true
		c.view.out.markdown(text)
		c.view.println(lineEditedNote)
	}
	c.view.menu(st.a.req.Questions[st.q], st.keys)
	st.gate = reviewgate.Open(time.Now(), at)
}

// choose records the answer to the current question, which selects an
// option of role: it echoes the question's digest (the text shown), and
// an approving answer to an edited plan carries the edit, as the
// full-screen UI's does.
func (c *console) choose(st *askState, a host.Answer, role host.Role) bool {
	st.feedback = false
	a.DetailDigest = st.a.req.Questions[st.q].DetailDigest
	if isPlanReview(st.a.req) && len(a.Selected) == 1 {
		if st.edited && role.Approves() {
			a.Edited = st.text
		}
		st.revise = sendsBack(role) || (st.edited && role.Approves())
	}
	st.answers = append(st.answers, a)
	return c.nextQuestion(st)
}

func (c *console) nextQuestion(st *askState) bool {
	st.q++
	if st.q < len(st.a.req.Questions) {
		c.showQuestion(st)
		return false
	}
	st.a.reply <- askReply{answers: st.answers}
	c.revised = ""
	if st.revise {
		c.revised = st.text
	}
	return true
}

// sendsBack reports whether a plan review's option of role sends the plan
// back to the model for a revision.
func sendsBack(role host.Role) bool { return role == host.RoleKeepPlanning }

// chosen returns the option the one answer to a one-question request
// selects.
func chosen(req host.AskRequest, answers []host.Answer) (host.Option, bool) {
	if len(req.Questions) != 1 || len(answers) != 1 {
		return host.Option{}, false
	}
	return req.Questions[0].Chosen(answers[0])
}

// isPlanReview reports whether req is a plan review.
func isPlanReview(req host.AskRequest) bool {
	return req.Kind == host.AskReview
}

// optionKeys gives each option a key: its first letter, lower-cased, when
// those are distinct (and not the edit or dismiss key); numbers otherwise.
// A plan review (edit set) has the edit key after the options; the dismiss
// key comes last.
func optionKeys(q host.Question, edit bool) []string {
	keys := make([]string, 0, len(q.Options)+2)
	seen := map[string]bool{dismissKey: true, editKey: edit}
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
	if edit {
		keys = append(keys, editKey)
	}
	return append(keys, dismissKey)
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}
