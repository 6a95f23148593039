// Package tui is planhost's terminal interface, a Bubble Tea program in the
// Elm shape: a Model value, Update without I/O (the agent, the editor and
// the answers to the agent's questions are reached through commands), and a
// View drawn from the model. Session events, streamed text and questions
// arrive as messages the host sends to the program.
package tui

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
)

// Timing of the UI.
const (
	tickInterval = 100 * time.Millisecond
	// interruptWindow is how soon a second Ctrl-C must follow the first
	// to exit.
	interruptWindow = 2 * time.Second
	maxInputRows    = 8
)

// spinnerFrames animate the status line while the model works.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Config is what the UI is built from.
type Config struct {
	Backend  Backend
	Catalog  *Catalog
	Commands []CommandHelp
	Mode     Mode
	// Intro is shown first: the session, the model and the endpoint, and
	// a recap when the session was resumed.
	Intro []Entry
	// Plans are the plans a resumed session presented before the UI
	// started, oldest first, so that /plans lists them too.
	Plans []PresentedPlan
	// Questions are the clarifying questions a resumed session asked
	// before the UI started, with their answers, for /plans.
	Questions []AskedQuestion
	// NoColor draws without colours (NO_COLOR).
	NoColor bool
	// Editor is the editor's command line ($VISUAL, $EDITOR); "" is vi.
	Editor string
	// TempDir holds the file the editor opens ("" for the system's).
	TempDir string
	// Sanitize makes model text safe to show (escapes control characters).
	Sanitize func(string) string
	// Markdown makes text safe to hand to the Markdown renderer, and
	// Rendered checks what the renderer made (keeping its colours).
	Markdown, Rendered func(string) string
	// PlanFile is the session's plan file when the plan-file companion is
	// enabled, nil otherwise; the review shows its path. Edit never
	// touches the file: the editor opens a private copy of the plan shown,
	// and an approving answer carries the edited text (host.Answer.Edited),
	// which the host applies.
	PlanFile PlanFile
	// History holds the earlier inputs, oldest first (up and down recall
	// them); SaveHistory keeps a new one (called from a command).
	History     []string
	SaveHistory func(entry string)
	// Now is the clock (time.Now when nil); tests fix it.
	Now func() time.Time
	// Logger receives what the UI reports besides the screen (an editor
	// that failed); nil discards it.
	Logger *slog.Logger
}

// PlanFile is the session's private plan file (the plan-file companion).
type PlanFile interface {
	// Path is the file's path, for the user.
	Path() string
}

// Model is the UI's state.
type Model struct {
	cfg  Config
	cat  *Catalog
	keys keyMap
	st   styles

	width, height int
	dark          bool

	// model is the model that answered the last step, when the host
	// chooses among several (already escaped).
	model string

	entries []Entry
	// liveText and liveReasoning are the streamed answer so far.
	liveText, liveReasoning string
	expand                  bool

	input    textarea.Model
	feedback textarea.Model
	vp       viewport.Model
	follow   bool

	mode       Mode
	busy       bool
	ticking    bool
	started    time.Time
	now        time.Time
	cancelling bool
	lastCtrlC  time.Time
	note       string
	// lastKey is when the latest key or paste for the input line or the
	// review came: a review waits for the typing to stop.
	lastKey time.Time

	// sending is set while a message or a command is on its way to the
	// backend; what the user sends meanwhile waits in outbox, so the
	// backend gets them in the order they were typed (a "/plan ..." and
	// the message typed after it, say).
	sending bool
	outbox  []tea.Cmd

	review *review
	// form is the open clarifying-question form (see form.go).
	form  *form
	asked []AskedQuestion
	plans []planRecord
	// reopened is the number of the plan reopened last (0 for none).
	reopened int

	render *renderCache
	quit   bool

	// history is the inputs to recall; histPos is the one shown (len for
	// the draft), draft what was typed before recalling.
	history []string
	histPos int
	draft   string
}

// PresentedPlan is a plan the session's log shows presented, with how its
// review ended; Outcome "" means the log holds no result for it.
type PresentedPlan struct {
	Title, Text string
	Outcome     planmode.ExitOutcome
	Edited      bool
	// Saved reports a plan the user saved and stopped at.
	Saved bool
	// Reopened reports the plan reopened last ("/plan reopen").
	Reopened bool
}

// planRecord is a plan presented in this session, for /plans.
type planRecord struct {
	title, text, outcome string
}

// New returns the UI's initial model.
func New(cfg Config) Model {
	if cfg.Catalog == nil {
		cfg.Catalog = English
	}
	same := func(s string) string { return s }
	if cfg.Sanitize == nil {
		cfg.Sanitize = same
	}
	if cfg.Markdown == nil {
		cfg.Markdown = cfg.Sanitize
	}
	if cfg.Rendered == nil {
		cfg.Rendered = same
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := Model{cfg: cfg, cat: cfg.Catalog, keys: newKeyMap(), dark: true, mode: cfg.Mode, follow: true, render: &renderCache{}}
	m.st = newStyles(cfg.NoColor)
	m.entries = append(m.entries, cfg.Intro...)
	for _, p := range cfg.Plans {
		outcome := m.cat.OutcomeUnanswered
		switch {
		case p.Saved:
			outcome = m.cat.OutcomeSaved
		case p.Outcome != "":
			outcome = m.cat.ExitOutcome(p.Outcome, p.Edited)
		}
		// The title comes from the log: escaped like all model text. The
		// text is escaped when it is rendered.
		m.plans = append(m.plans, planRecord{title: cfg.Sanitize(p.Title), text: p.Text, outcome: outcome})
		if p.Reopened {
			m.reopened = len(m.plans)
		}
	}
	m.history = append([]string(nil), cfg.History...)
	m.histPos = len(m.history)
	m.input = newTextarea(cfg.Catalog.Placeholder)
	m.feedback = newTextarea("")
	m.vp = viewport.New()
	m.vp.KeyMap = viewport.KeyMap{}
	m.width, m.height = 80, 24
	m.input.Focus()
	m.layout()
	return m
}

func newTextarea(placeholder string) textarea.Model {
	t := textarea.New()
	t.Placeholder = placeholder
	t.ShowLineNumbers = false
	t.Prompt = "› "
	t.DynamicHeight = true
	t.MinHeight = 1
	t.MaxHeight = maxInputRows
	t.MaxContentHeight = 0
	t.CharLimit = 0
	t.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	// A steady cursor: no redraw twice a second while the user reads.
	st := t.Styles()
	st.Cursor.Blink = false
	t.SetStyles(st)
	return t
}

// Init asks for the terminal's background colour (for the Markdown style).
func (m Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.input.Focus())
}

// Entries returns the transcript shown so far (for tests).
func (m Model) Entries() []Entry { return m.entries }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
	case EventsMsg:
		cmd = m.onEvents(msg)
	case DeltaMsg:
		m.liveText += m.cfg.Sanitize(msg.Text)
		m.liveReasoning += m.cfg.Sanitize(msg.Reasoning)
	case AskMsg:
		m.openAsk(msg)
	case BusyMsg:
		m.add(KindMeta, fmt.Sprintf(m.cat.SessionBusy, m.cfg.Sanitize(msg.Host), msg.PID, msg.Since.UTC().Format(time.DateTime)))
	case LeaseLostMsg:
		m.add(KindError, m.cat.LeaseLost)
	case AskGoneMsg:
		if m.withdrawForm(msg.ID) {
			break
		}
		if m.review != nil && m.review.id == msg.ID {
			m.closeReview(m.cat.OutcomeCancelled)
			m.add(KindMeta, m.cat.ReviewCancelled)
		}
	case tickMsg:
		m.now = msg.now
		if m.busy {
			cmd = tick()
		} else {
			m.ticking = false
		}
	case sentMsg:
		if msg.err != nil {
			m.add(KindError, fmt.Sprintf(m.cat.SendFailed, msg.err))
		}
		cmd = m.delivered()
	case commandMsg:
		cmd = m.delivered()
		if msg.reopened > 0 {
			m.reopened = msg.reopened
		}
		switch {
		case !msg.handled:
			m.add(KindError, fmt.Sprintf(m.cat.UnknownCmd, "/"+msg.name))
		case msg.err != nil:
			m.add(KindError, fmt.Sprintf(m.cat.CmdFailed, msg.name, msg.err))
		case msg.reply != "":
			m.add(KindMeta, "/"+msg.name+": "+msg.reply)
		}
	case modeMsg:
		if msg.err != nil {
			m.add(KindError, fmt.Sprintf(m.cat.ModeFailed, msg.err))
		} else {
			m.mode = msg.mode
		}
	case editReadyMsg:
		cmd = m.startEditor(msg)
	case editedMsg:
		cmd = m.onEdited(msg)
	case tea.PasteMsg:
		cmd = m.paste(msg)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	default:
		var c1, c2 tea.Cmd
		m.input, c1 = m.input.Update(msg)
		m.feedback, c2 = m.feedback.Update(msg)
		cmd = tea.Batch(c1, c2)
	}
	m.layout()
	if m.quit {
		return m, tea.Quit
	}
	return m, cmd
}

// onEvents adds the entries of new session events and follows the turn.
func (m *Model) onEvents(msg EventsMsg) tea.Cmd {
	if msg.AssistantDone {
		if m.liveReasoning != "" && !hasReasoning(msg.Entries) {
			m.entries = append(m.entries, Entry{Kind: KindReasoning, Text: m.liveReasoning})
		}
		m.liveText, m.liveReasoning = "", ""
	}
	m.entries = append(m.entries, msg.Entries...)
	m.mode = msg.Mode
	if msg.Model != "" {
		m.model = msg.Model
	}
	var cmd tea.Cmd
	if msg.TurnStarted && !m.busy {
		m.busy, m.started, m.cancelling = true, m.cfg.Now(), false
		m.now = m.started
		if !m.ticking {
			m.ticking = true
			cmd = tick()
		}
	}
	if msg.TurnEnded {
		m.busy, m.cancelling = false, false
		m.liveText, m.liveReasoning = "", ""
	}
	m.render.invalidateFrom(len(m.entries) - len(msg.Entries))
	return cmd
}

func hasReasoning(es []Entry) bool {
	for _, e := range es {
		if e.Kind == KindReasoning {
			return true
		}
	}
	return false
}

func tick() tea.Cmd {
	return tea.Tick(tickInterval, func(t time.Time) tea.Msg { return tickMsg{now: t} })
}

// add appends one entry.
func (m *Model) add(kind EntryKind, text string) {
	m.entries = append(m.entries, Entry{Kind: kind, Text: text})
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Interrupt) {
		return m.interrupt()
	}
	m.lastCtrlC = time.Time{}
	switch {
	case key.Matches(msg, m.keys.PageUp):
		m.vp.PageUp()
		m.follow = false
		return nil
	case key.Matches(msg, m.keys.PageDown):
		m.vp.PageDown()
		m.follow = m.vp.AtBottom()
		return nil
	case key.Matches(msg, m.keys.Reasoning):
		m.expand = !m.expand
		m.render.invalidateFrom(0)
		return nil
	}
	now := m.cfg.Now()
	defer func() { m.lastKey = now }()
	if m.form != nil {
		return m.formKey(msg, now)
	}
	if m.review != nil {
		return m.reviewKey(msg, now)
	}
	switch {
	case key.Matches(msg, m.keys.Cancel):
		if m.busy && !m.cancelling {
			m.cancelling = true
			b := m.cfg.Backend
			return func() tea.Msg { b.Cancel(); return nil }
		}
		return nil
	case key.Matches(msg, m.keys.TogglePlan):
		if !m.mode.Composed {
			return nil
		}
		want := !m.mode.target()
		b := m.cfg.Backend
		return func() tea.Msg {
			mode, err := b.SetPlan(want)
			return modeMsg{mode: mode, err: err}
		}
	case key.Matches(msg, m.keys.Exit) && m.input.Value() == "":
		m.add(KindMeta, m.cat.Bye)
		m.quit = true
		return nil
	case key.Matches(msg, m.keys.Send):
		text := m.input.Value()
		m.input.Reset()
		return tea.Batch(m.remember(text), m.submit(text))
	case key.Matches(msg, m.keys.HistoryPrev) && m.input.Line() == 0 && m.histPos > 0:
		if m.histPos == len(m.history) {
			m.draft = m.input.Value()
		}
		m.histPos--
		m.input.SetValue(m.history[m.histPos])
		return nil
	case key.Matches(msg, m.keys.HistoryNext) && m.input.Line() == m.input.LineCount()-1 && m.histPos < len(m.history):
		m.histPos++
		if m.histPos == len(m.history) {
			m.input.SetValue(m.draft)
		} else {
			m.input.SetValue(m.history[m.histPos])
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// remember adds a sent input to the history (and saves it).
func (m *Model) remember(raw string) tea.Cmd {
	text := strings.TrimRight(raw, "\n")
	m.draft = ""
	if strings.TrimSpace(text) == "" {
		m.histPos = len(m.history)
		return nil
	}
	if n := len(m.history); n == 0 || m.history[n-1] != text {
		m.history = append(m.history, text)
	}
	m.histPos = len(m.history)
	save := m.cfg.SaveHistory
	if save == nil {
		return nil
	}
	return func() tea.Msg { save(text); return nil }
}

// interrupt is Ctrl-C: the first cancels a running turn (or, idle, says how
// to exit); a second one soon after exits.
func (m *Model) interrupt() tea.Cmd {
	now := m.cfg.Now()
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < interruptWindow {
		m.add(KindMeta, m.cat.Bye)
		m.quit = true
		return nil
	}
	m.lastCtrlC = now
	if m.busy && !m.cancelling {
		m.cancelling = true
		b := m.cfg.Backend
		m.note = m.cat.InterruptAgain
		return func() tea.Msg { b.Cancel(); return nil }
	}
	m.note = m.cat.InterruptAgain
	return nil
}

// paste inserts pasted text, lines and all, into the editor that has the
// focus: one paste is one message or one feedback.
func (m *Model) paste(msg tea.PasteMsg) tea.Cmd {
	text := strings.ReplaceAll(msg.Content, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	m.lastKey = m.cfg.Now()
	if m.form != nil {
		m.formPaste(text)
		return nil
	}
	if m.review != nil {
		if m.review.feedback {
			m.feedback.InsertString(text)
		} else {
			m.review.gate.Sleep(m.lastKey) // a paste is typing, not an answer
		}
		return nil
	}
	m.input.InsertString(text)
	return nil
}

// submit handles the text of the input line: a UI command, a host
// command, or a message for the model.
func (m *Model) submit(raw string) tea.Cmd {
	text := strings.TrimSpace(raw)
	m.note = ""
	if text != "" {
		// Whatever is sent, its answer comes at the bottom: go there.
		m.follow = true
	}
	switch {
	case text == "":
		return nil
	case text == "/quit" || text == "/exit":
		m.add(KindMeta, m.cat.Bye)
		m.quit = true
		return nil
	case text == "/help":
		m.help()
		return nil
	case text == "/plans" || strings.HasPrefix(text, "/plans "):
		arg := strings.TrimSpace(strings.TrimPrefix(text, "/plans"))
		m.listPlans(arg)
		if arg == "" {
			m.listQuestions()
		}
		return nil
	case strings.HasPrefix(text, "/"):
		m.add(KindUser, text)
		b := m.cfg.Backend
		name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
		return m.deliver(func() tea.Msg {
			reply, handled, err := b.Command(text)
			msg := commandMsg{name: name, reply: reply, handled: handled, err: err}
			if r, ok := b.(PlanReopener); ok {
				msg.reopened = r.ReopenedPlan()
			}
			return msg
		})
	}
	m.add(KindUser, strings.TrimRight(raw, "\n"))
	if m.busy {
		m.add(KindMeta, m.cat.Queued)
	}
	b := m.cfg.Backend
	return m.deliver(func() tea.Msg { return sentMsg{err: b.Send(strings.TrimRight(raw, "\n"))} })
}

// deliver sends f to the backend now, or after what is on its way there.
func (m *Model) deliver(f tea.Cmd) tea.Cmd {
	if m.sending {
		m.outbox = append(m.outbox, f)
		return nil
	}
	m.sending = true
	return f
}

// delivered is called when a message or command reached the backend: the
// next one waiting goes.
func (m *Model) delivered() tea.Cmd {
	if len(m.outbox) == 0 {
		m.sending = false
		return nil
	}
	f := m.outbox[0]
	m.outbox = m.outbox[1:]
	return f
}

// help lists the keys and the host's commands.
func (m *Model) help() {
	lines := []string{m.cat.HelpKeys}
	lines = append(lines, m.cat.HelpLines...)
	lines = append(lines, m.cat.HelpReview...)
	if len(m.cfg.Commands) > 0 {
		lines = append(lines, m.cat.HelpCommands)
		for _, c := range m.cfg.Commands {
			c = m.cat.Command(c)
			lines = append(lines, strings.TrimRight(fmt.Sprintf("  /%s %s — %s", c.Name, c.Hint, c.Description), " "))
		}
	}
	m.add(KindMeta, strings.Join(lines, "\n"))
}

// listPlans is /plans: the list, or one plan in full.
func (m *Model) listPlans(arg string) {
	if arg != "" {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > len(m.plans) {
			m.add(KindError, fmt.Sprintf(m.cat.PlansBad, arg))
			return
		}
		p := m.plans[n-1]
		m.add(KindMeta, fmt.Sprintf(m.cat.PlansLine, n, p.title, m.planMarks(n, p)))
		m.add(KindMarkdown, p.text)
		return
	}
	if len(m.plans) == 0 {
		m.add(KindMeta, m.cat.PlansNone)
		return
	}
	lines := []string{m.cat.PlansHeader}
	for i, p := range m.plans {
		lines = append(lines, fmt.Sprintf(m.cat.PlansLine, i+1, p.title, m.planMarks(i+1, p)))
	}
	m.add(KindMeta, strings.Join(lines, "\n"))
}

// planMarks is how plan n's review ended, and whether it is the plan
// reopened last.
func (m *Model) planMarks(n int, p planRecord) string {
	if n == m.reopened {
		return p.outcome + "; " + m.cat.OutcomeReopened
	}
	return p.outcome
}

// errDismissed is the answer of a dismissed review.
var errDismissed = fmt.Errorf("dismissed by the user: %w", host.ErrDismissed)

// isPlanReview reports whether req is a plan review.
func isPlanReview(req host.AskRequest) bool {
	return req.Kind == host.AskReview && len(req.Questions) == 1
}

// wrap wraps text to width without padding.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, " ")
}

// renderCache keeps the rendered entries for one width and look.
type renderCache struct {
	width  int
	dark   bool
	expand bool
	lines  []string
	md     *mdview.Renderer
	mdKey  string
}

func (c *renderCache) invalidateFrom(i int) {
	if i < len(c.lines) {
		c.lines = c.lines[:max(i, 0)]
	}
}

// styles are the UI's looks; without colour they only use attributes.
type styles struct {
	meta, user, assistant, err, reasoning, mode, modePlan, status, selected, added, removed, title lipgloss.Style
	noColor                                                                                        bool
}

func newStyles(noColor bool) styles {
	s := styles{noColor: noColor}
	s.meta = lipgloss.NewStyle().Faint(true)
	s.reasoning = lipgloss.NewStyle().Faint(true).Italic(true)
	s.title = lipgloss.NewStyle().Bold(true)
	s.selected = lipgloss.NewStyle().Bold(true)
	s.status = lipgloss.NewStyle()
	if noColor {
		s.user = lipgloss.NewStyle().Bold(true)
		s.assistant = lipgloss.NewStyle()
		s.err = lipgloss.NewStyle().Bold(true)
		s.mode = lipgloss.NewStyle().Reverse(true)
		s.modePlan = lipgloss.NewStyle().Reverse(true).Bold(true)
		s.added, s.removed = lipgloss.NewStyle(), lipgloss.NewStyle()
		return s
	}
	s.user = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	s.assistant = lipgloss.NewStyle()
	s.err = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	s.mode = lipgloss.NewStyle().Reverse(true)
	s.modePlan = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("13"))
	s.selected = s.selected.Foreground(lipgloss.Color("13"))
	s.added = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	s.removed = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	return s
}
