// Package tui is planhost's terminal interface, a Bubble Tea program in the
// Elm shape: a Model value, Update without I/O (the agent, the editor and
// the answers to the agent's questions are reached through commands), and a
// View drawn from the model. Session events, streamed text and questions
// arrive as messages the host sends to the program.
//
// It renders what package present makes of a session: the transcript's
// items by kind, and each question with the menu present decides from its
// options' roles, in the catalog's words. Each item is rendered once for
// the width and look and kept; a frame draws only the lines on screen, and
// nothing is drawn again while nothing changes.
package tui

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// Timing of the UI.
const (
	// tickInterval moves the spinner while the model works.
	tickInterval = 100 * time.Millisecond
	// frameInterval spaces the frames that show streamed text: about 30
	// screen updates a second however fast the pieces come.
	frameInterval = 33 * time.Millisecond
	// interruptWindow is how soon a second Ctrl-C must follow the first
	// to exit.
	interruptWindow = 2 * time.Second
	maxInputRows    = 8
)

// spinnerFrames animate the status line while the model works.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Config is what the UI is built from.
type Config struct {
	Backend Backend
	// Catalog gives the words (present.English when nil); Verbose shows
	// the internal items.
	Catalog *present.Catalog
	Verbose bool
	// Commands are the host's commands, for /help.
	Commands []host.Command
	Mode     Mode
	// Intro is shown first: the session, the model and the endpoint, and
	// a recap when the session was resumed.
	Intro []present.Item
	// Log reads the session's log, for /plans (from a command); nil reads
	// an empty one.
	Log func() host.Log
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
	// PlanFile is the session's plan file's path when the plan-file
	// companion is enabled; the review shows it. Edit never touches the
	// file: the editor opens a private copy of the plan shown, and an
	// approving answer carries the edited text (host.Answer.Edited),
	// which the host applies.
	PlanFile string
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

// Model is the UI's state.
type Model struct {
	cfg  Config
	cat  *present.Catalog
	keys keyMap
	st   styles
	md   *mdCache

	width, height int
	dark, expand  bool

	// model is the model that answered the last step, when the host
	// chooses among several (escaped).
	model string

	tr transcript
	// top is the transcript's first line on the page, follow keeps the
	// page at its end; pageH is the page's height and bottom what is
	// drawn under it (both set by layout).
	top    int
	follow bool
	pageH  int
	bottom string

	input, feedback textarea.Model

	mode Mode
	busy bool
	// ticking is set while a tick is on its way, framing while a frame.
	ticking, framing bool
	started, now     time.Time
	cancelling       bool
	lastCtrlC        time.Time
	// notice is shown on the status line until the next key.
	notice string
	// lastKey is when the latest key or paste came: a question waits for
	// the typing to stop.
	lastKey time.Time

	// sending is set while a message or a command is on its way to the
	// backend; what the user sends meanwhile waits in outbox, so the
	// backend gets them in the order they were typed (a "/plan ..." and
	// the message typed after it, say).
	sending bool
	outbox  []tea.Cmd

	// review is the question being answered from a menu (a plan review,
	// a consent); form the model's questions being answered (form.go).
	review *review
	form   *form
	quit   bool

	// history is the inputs to recall; histPos is the one shown (len for
	// the draft), draft what was typed before recalling.
	history []string
	histPos int
	draft   string
}

// New returns the UI's initial model.
func New(cfg Config) Model {
	if cfg.Catalog == nil {
		cfg.Catalog = present.English
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
	if cfg.Log == nil {
		cfg.Log = func() host.Log { return host.Log{} }
	}
	m := Model{cfg: cfg, cat: cfg.Catalog, keys: newKeyMap(), st: newStyles(cfg.NoColor), md: &mdCache{},
		dark: true, mode: cfg.Mode, follow: true, width: 80, height: 24}
	m.tr.look = look{width: m.width, dark: true}
	m.add(cfg.Intro...)
	m.history = append([]string(nil), cfg.History...)
	m.histPos = len(m.history)
	m.input = newTextarea(m.cat.UI.Placeholder)
	m.feedback = newTextarea("")
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

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
	case EventsMsg:
		m.onEvents(msg)
	case DeltaMsg:
		m.tr.stream(m.cfg.Sanitize(msg.Text), m.cfg.Sanitize(msg.Reasoning))
		cmd = m.frame()
	case frameMsg:
		m.framing = false
		cmd = m.frame()
	case AskMsg:
		m.ask(msg)
	case BusyMsg:
		m.note(present.Note, fmt.Sprintf(m.cat.Session.SessionBusy, msg.Host, msg.PID, msg.Since.UTC().Format(time.DateTime)))
	case LeaseLostMsg:
		m.note(present.Error, m.cat.LeaseLoss(msg.Cause))
	case AskGoneMsg:
		m.askGone(msg.ID)
	case tickMsg:
		m.now, m.ticking = msg.now, false
	case sentMsg:
		m.add(msg.items...)
		cmd = m.delivered()
	case plansMsg:
		m.add(msg.items...)
	case modeMsg:
		if msg.err != nil {
			m.note(present.Error, fmt.Sprintf(m.cat.Session.ModeFailed, msg.err))
		} else {
			m.mode = msg.mode
		}
	case editReadyMsg:
		cmd = m.startEditor(msg)
	case editedMsg:
		m.onEdited(msg)
	case tea.PasteMsg:
		m.paste(msg)
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
	cmd = tea.Batch(cmd, m.tick())
	return m, cmd
}

// frame shows the streamed text that came since the last frame, then
// waits a frame's time before it shows more: about 30 screen updates a
// second however fast the pieces come.
func (m *Model) frame() tea.Cmd {
	if m.framing || !m.tr.fresh {
		return nil
	}
	m.renderLive()
	m.framing = true
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// tick keeps the spinner turning while the model works and no question
// waits for the user; nothing ticks otherwise.
func (m *Model) tick() tea.Cmd {
	if m.ticking || !m.busy || m.review != nil || m.form != nil {
		return nil
	}
	m.ticking = true
	return tea.Tick(tickInterval, func(t time.Time) tea.Msg { return tickMsg{now: t} })
}

// onEvents adds the items of new session events and follows the turn.
func (m *Model) onEvents(msg EventsMsg) {
	if msg.AssistantDone {
		if m.tr.reasoning != "" && !hasReasoning(msg.Items) {
			m.add(present.Item{Kind: present.Reasoning, Text: m.tr.reasoning})
		}
		m.tr.endStream()
	}
	m.add(msg.Items...)
	m.mode = msg.Mode
	if msg.Model != "" {
		m.model = m.cfg.Sanitize(msg.Model)
	}
	if msg.TurnStarted && !m.busy {
		m.busy, m.started, m.cancelling = true, m.cfg.Now(), false
		m.now = m.started
	}
	if msg.TurnEnded {
		m.busy, m.cancelling = false, false
		m.tr.endStream()
	}
}

func hasReasoning(items []present.Item) bool {
	for _, it := range items {
		if it.Kind == present.Reasoning {
			return true
		}
	}
	return false
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Interrupt) {
		return m.interrupt()
	}
	m.lastCtrlC = time.Time{}
	switch {
	case key.Matches(msg, m.keys.PageUp):
		m.scroll(-m.pageH)
		return nil
	case key.Matches(msg, m.keys.PageDown):
		m.scroll(m.pageH)
		return nil
	case key.Matches(msg, m.keys.Reasoning):
		m.expand = !m.expand
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
		return m.cancel()
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

// cancel cancels the running turn, once.
func (m *Model) cancel() tea.Cmd {
	if !m.busy || m.cancelling {
		return nil
	}
	m.cancelling = true
	b := m.cfg.Backend
	return func() tea.Msg { b.Cancel(); return nil }
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
		m.quit = true
		return nil
	}
	m.lastCtrlC = now
	m.notice = m.cat.UI.InterruptAgain
	return m.cancel()
}

// paste inserts pasted text, lines and all, into the editor that has the
// focus: one paste is one message or one feedback.
func (m *Model) paste(msg tea.PasteMsg) {
	text := strings.ReplaceAll(msg.Content, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	m.lastKey = m.cfg.Now()
	switch {
	case m.form != nil:
		m.formPaste(text)
	case m.review != nil && m.review.feedback:
		m.feedback.InsertString(text)
	case m.review != nil:
		m.review.gate.Sleep(m.lastKey) // a paste is typing, not an answer
	default:
		m.input.InsertString(text)
	}
}

// submit handles the text of the input line: a UI command, a host
// command, or a message for the model.
func (m *Model) submit(raw string) tea.Cmd {
	text := strings.TrimSpace(raw)
	m.notice = ""
	if text != "" {
		// Whatever is sent, its answer comes at the bottom: go there.
		m.follow = true
	}
	b := m.cfg.Backend
	switch {
	case text == "":
		return nil
	case text == "/quit" || text == "/exit":
		m.quit = true
		return nil
	case text == "/help":
		m.help()
		return nil
	case text == "/plans" || strings.HasPrefix(text, "/plans "):
		return m.plans(strings.TrimSpace(strings.TrimPrefix(text, "/plans")))
	case strings.HasPrefix(text, "/"):
		m.note(present.User, text)
		cat := m.cat
		name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
		return m.deliver(func() tea.Msg {
			reply, handled, err := b.Command(text)
			return sentMsg{items: cat.CommandReply(name, handled, reply, err, planmode.State{}, false, 0)}
		})
	}
	text = strings.TrimRight(raw, "\n")
	m.note(present.User, text)
	if m.busy {
		m.note(present.Note, m.cat.Session.Queued)
	}
	failed := m.cat.Session.SendFailed
	return m.deliver(func() tea.Msg {
		if err := b.Send(text); err != nil {
			return sentMsg{items: []present.Item{{Kind: present.Error, Text: fmt.Sprintf(failed, err)}}}
		}
		return sentMsg{}
	})
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
	w := &m.cat.UI
	lines := append(append([]string{w.HelpKeys}, w.HelpLines...), w.HelpReview...)
	if len(m.cfg.Commands) > 0 {
		lines = append(lines, w.HelpCommands)
		for _, c := range m.cfg.Commands {
			c = m.cat.Command(c)
			lines = append(lines, strings.TrimRight(fmt.Sprintf(m.cat.Console.HelpCommand, c.Name, c.Hint, c.Description), " "))
		}
	}
	m.note(present.Note, strings.Join(lines, "\n"))
}

// plans is /plans: the plans the log shows presented and the questions
// asked, or plan N in full.
func (m *Model) plans(arg string) tea.Cmd {
	cat, log := m.cat, m.cfg.Log
	return func() tea.Msg {
		if arg == "" {
			return plansMsg{items: cat.PlansList(log(), false)}
		}
		it, err := cat.PlanN(log(), arg)
		if err != nil {
			it = present.Item{Kind: present.Error, Text: err.Error()}
		}
		return plansMsg{items: []present.Item{it}}
	}
}
