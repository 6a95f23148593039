package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/refhost"
)

// session is one ACP session: a store session bound to an agent of the
// runtime, a workspace and the queue of updates for the client.
type session struct {
	a     *Agent
	id    string
	agent *refhost.Agent
	q     *queue
	done  chan struct{} // closed by close: stops the sender
	once  sync.Once

	// prompt serializes prompts (and a reload).
	prompt sync.Mutex

	// Written by the log's subscriber (under the session's append lock) and
	// read by Ask and the handlers.
	mu     sync.Mutex
	unsub  func()
	active bool                     // the logged mode
	calls  map[string]host.ToolCall // tool calls without a result yet, by ID
	open   string                   // the tool call without a result yet
	tr     *present.Transcript      // what the user sees of the log, in their words
	plans  func(host.Event) ([]sdk.PlanEntry, bool)
	asked  int // synthetic tool calls for questions outside a tool call
}

func newSession(a *Agent, id string, agent *refhost.Agent) *session {
	s := &session{
		a: a, id: id, agent: agent, q: newQueue(), done: make(chan struct{}),
		calls: map[string]host.ToolCall{}, tr: present.NewTranscript(a.cat, false),
	}
	if a.cfg.Plan != nil {
		s.active = a.cfg.Plan.Get(agent).Active
	}
	return s
}

// send is the sender's way out to the client.
func (s *session) send(u sdk.SessionUpdate) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := s.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
		s.a.log.Warn("acp: update not sent", "session", s.id, "err", err)
	}
}

// loggedMode returns the mode the log records.
func (s *session) loggedMode() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// follow replays the log as it stands and then subscribes to what is
// appended after it.
func (s *session) follow() {
	events := s.agent.Session().Events()
	s.mu.Lock()
	if s.a.cfg.Plans != nil {
		s.plans = s.a.cfg.Plans.Follow(s.id)
	}
	for _, e := range events.All() {
		s.translate(s.tr, e, true)
	}
	s.mu.Unlock()
	unsub := s.agent.Session().Subscribe(events.Len(), func(e host.Event) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.translate(s.tr, e, false)
	})
	s.mu.Lock()
	s.unsub = unsub
	s.mu.Unlock()
}

// replayAll replays the whole log again (a second session/load of an open
// session); the plan feed is not consulted twice, so it sends the entries
// it last reported.
func (s *session) replayAll() {
	events := s.agent.Session().Events()
	s.mu.Lock()
	defer s.mu.Unlock()
	plans := s.plans
	s.plans = nil
	var last []sdk.PlanEntry
	if s.a.cfg.Plans != nil {
		follow := s.a.cfg.Plans.Follow(s.id)
		for _, e := range events.All() {
			if entries, ok := follow(e); ok {
				last = entries
			}
		}
	}
	tr := present.NewTranscript(s.a.cat, false)
	for _, e := range events.All() {
		s.translateReplayOnly(tr, e)
	}
	if last != nil {
		s.q.push(sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: last}})
	}
	s.plans = plans
}

// translateReplayOnly translates e as history, through tr, without
// touching the session's live state.
func (s *session) translateReplayOnly(tr *present.Transcript, e host.Event) {
	saved := struct {
		active bool
		open   string
	}{s.active, s.open}
	s.translate(tr, e, true)
	s.active, s.open = saved.active, saved.open
}

// pushCommands advertises the host's commands.
func (s *session) pushCommands(cmds []host.Command) {
	list := make([]sdk.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		c = s.a.cat.Command(c)
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	s.q.push(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: list}})
}

// translate turns one logged event into updates: the plan entries, the
// tool calls and mode changes in the protocol's own forms, and the items
// tr (the one presentation) shows of it. replay is true for the history
// sent on load (and at session start). Callers hold s.mu.
func (s *session) translate(tr *present.Transcript, e host.Event, replay bool) {
	if s.plans != nil {
		if entries, ok := s.plans(e); ok {
			if entries == nil {
				entries = []sdk.PlanEntry{}
			}
			s.q.push(sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries}})
		}
	}
	items := tr.Add(e)
	switch e.Type {
	case host.TypeToolCall:
		var c host.ToolCall
		if json.Unmarshal(e.Data, &c) != nil {
			return
		}
		s.calls[c.ID], s.open = c, c.ID
		root, _ := s.a.cfg.Workspaces.Root(s.id)
		var old *string
		if !replay && c.Name == workspace.WriteFileName {
			old = s.a.cfg.Workspaces.current(s.id, c.Input)
		}
		title, locs, content := describe(s.a.cat, c, root, old)
		kind := s.a.kind(c.Name)
		s.q.push(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(c.ID),
			Title:      title,
			Kind:       kind,
			Status:     sdk.ToolCallStatusInProgress,
			Locations:  locs,
			Content:    content,
			RawInput:   c.Input,
		}})
	case host.TypeToolResult:
		var r host.ToolResult
		if json.Unmarshal(e.Data, &r) != nil {
			return
		}
		if s.open == r.CallID {
			s.open = ""
		}
		status := sdk.ToolCallStatusCompleted
		if r.IsError {
			status = sdk.ToolCallStatusFailed
		}
		u := &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(r.CallID),
			Status:     &status,
			RawOutput:  map[string]any{"output": r.Output, "isError": r.IsError},
		}
		if r.Output != "" {
			// The output can quote the model's input (a path in an
			// error) or a file's text: shown as it is, hiding nothing.
			u.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(shownPlan(r.Output)))}
		}
		if r.IsError {
			if c, ok := s.calls[r.CallID]; ok {
				u.Title = sdk.Ptr(shownTitle(fmt.Sprintf(s.a.cat.ACP.ToolFailed, c.Name)))
			}
		}
		delete(s.calls, r.CallID)
		s.q.push(sdk.SessionUpdate{ToolCallUpdate: u})
	case planmode.EventPlanMode:
		var m planmode.ModePayload
		if json.Unmarshal(e.Data, &m) != nil || s.a.cfg.Plan == nil {
			return
		}
		changed := m.Active != s.active
		s.active = m.Active
		if changed && !replay {
			s.q.push(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: modeID(m.Active)}})
			s.q.push(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: configOptions(s.a.cat, m.Active)}})
		}
	}
	for _, it := range items {
		s.show(e, it, replay)
	}
}

// show sends an item of e as the client shows it, as every front end
// shows it without -verbose: the model's answer and thinking as agent
// chunks, the other lines escaped, as agent messages too.
func (s *session) show(e host.Event, it present.Item, replay bool) {
	text := func(t string) { s.q.push(sdk.UpdateAgentMessageText(t)) }
	switch {
	case it.Kind == present.User:
		// The client shows what it sent; on load it gets it back.
		var m host.UserMessage
		switch {
		case !replay:
		case e.Type == host.TypeUserMessage && json.Unmarshal(e.Data, &m) == nil:
			for _, b := range blocks(m.Content) {
				s.q.push(sdk.UpdateUserMessage(b))
			}
		default:
			s.q.push(sdk.UpdateUserMessageText(it.Text))
		}
	case it.Kind == present.Reply:
		// A live command's reply is said as the command returns (see
		// Prompt); a loaded session shows the logged one.
		if replay {
			text(shownEntry(it.Text))
		}
	case it.Internal, it.Kind == present.Tool, it.Kind == present.Box,
		it.Kind == present.Plan && e.Type == host.TypeToolCall:
		// The tool calls, their plans and the companions' lists have
		// their own updates.
	case it.Kind == present.Assistant:
		// The model's Markdown, with what would hide or reorder text
		// made visible.
		text(safetext.Escape(it.Text))
	case it.Kind == present.Reasoning:
		s.q.push(sdk.SessionUpdate{AgentThoughtChunk: &sdk.SessionUpdateAgentThoughtChunk{Content: sdk.TextBlock(safetext.Escape(it.Text))}})
	case it.Kind == present.Plan:
		text(shownEntry(fmt.Sprintf(s.a.cat.Session.PlanTitle, it.Title)) + "\n\n" + shownPlan(it.Text))
	default:
		text(shownEntry(it.Text))
	}
}

// kind is the protocol's tool kind of a tool: "other" for one the agent
// has no kind for.
func (a *Agent) kind(tool string) sdk.ToolKind {
	if k, ok := a.kinds[tool]; ok {
		return k
	}
	return sdk.ToolKindOther
}

// openCall returns the tool call waiting for its result, if any.
func (s *session) openCall() (host.ToolCall, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.calls[s.open]
	return c, ok && s.open != ""
}

// close stops the session's agent, subscription and sender.
func (s *session) close(ctx context.Context) {
	s.once.Do(func() {
		s.agent.Cancel()
		if err := s.agent.Stop(ctx); err != nil {
			s.a.log.Warn("acp: agent did not stop", "session", s.id, "err", err)
		}
		s.mu.Lock()
		unsub := s.unsub
		s.mu.Unlock()
		if unsub != nil {
			unsub()
		}
		close(s.done)
	})
}
