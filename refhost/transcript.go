package refhost

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/dshgo/planmode/host"
)

// transcript folds a session log into the messages the model sees, one
// step at a time: each update decodes only the events appended since the
// last one. When the declared event types change the fold starts over,
// because an event's kind may have changed. It is owned by the agent's loop
// goroutine.
//
// The messages slice is handed out as Request.Messages. The fold only ever
// appends to it or replaces it (on compaction), never rewrites an element
// a request already holds, so earlier requests stay valid.
//
// The transcript always pairs tool calls with results the way providers
// that enforce it (OpenAI, DeepSeek) demand: an assistant message with tool
// calls is followed by exactly one tool message per call, before any other
// message. A call the log holds no result for when the next message comes
// (its result could not be written) gets a [TextResultLost] result right
// there; a result that answers no call still waiting (a late or repeated
// one, or one whose call a compaction summarised) is left out. So one
// failed append never makes every later request fail.
type transcript struct {
	kinds map[string]host.EventKind // the declared event types it was folded with
	upto  int
	msgs  []Message
	open  []string // the calls of the last assistant message still without a result
}

// Transcript folds a session log into the messages the model sees, as
// the runtime does for every request: the events of the transcript kinds
// types declare since the last "compaction/summary" (a plugin's type
// becomes a user message), every tool call paired with one result. A host
// built on another agent framework uses it to send the same conversation.
func Transcript(events host.Log, types []host.EventType) []Message {
	var t transcript
	return t.update(events, types, slog.New(slog.DiscardHandler))
}

// update folds the events appended since the last call and returns the
// transcript (capacity clipped so a caller's append cannot reach ours).
func (t *transcript) update(events host.Log, types []host.EventType, log *slog.Logger) []Message {
	kinds := map[string]host.EventKind{}
	for _, d := range types {
		kinds[d.Name] = d.Kind
	}
	if !maps.Equal(t.kinds, kinds) || t.upto > events.Len() {
		*t = transcript{kinds: kinds}
	}
	for _, e := range events.Range(t.upto, events.Len()) {
		if kinds[e.Type] != host.Transcript {
			continue // undeclared types are log-only (LogOnly is the zero kind)
		}
		if err := t.fold(e); err != nil {
			log.Warn("refhost: transcript: skipped an event", "seq", e.Seq, "type", e.Type, "err", err)
		}
	}
	t.upto = events.Len()
	msgs := slices.Clip(t.msgs)
	if len(t.open) > 0 {
		// The loop derives a request only once every result of the last
		// batch was written or lost: the calls still open are lost. The
		// fold keeps them open, in case their results come after all.
		msgs = append(msgs, lostResults(t.open)...)
	}
	return msgs
}

// add appends one message, keeping tool calls and results paired: see
// [transcript].
func (t *transcript) add(m Message) {
	if m.Role == RoleTool {
		i := slices.Index(t.open, m.ToolCallID)
		if i < 0 {
			return // answers no call still waiting
		}
		t.open = slices.Delete(t.open, i, i+1)
		t.msgs = append(t.msgs, m)
		return
	}
	if len(t.open) > 0 {
		t.msgs = append(t.msgs, lostResults(t.open)...)
		t.open = t.open[:0]
	}
	t.msgs = append(t.msgs, m)
	for _, c := range m.ToolCalls {
		if !slices.Contains(t.open, c.ID) {
			t.open = append(t.open, c.ID)
		}
	}
}

// lostResults returns a [TextResultLost] tool message for each call.
func lostResults(calls []string) []Message {
	out := make([]Message, len(calls))
	for i, id := range calls {
		out[i] = Message{Role: RoleTool, Text: TextResultLost, ToolCallID: id, IsError: true}
	}
	return out
}

// fold adds one transcript-kind event. Core types map to their messages;
// tool calls travel inside the assistant message that asked for them, so
// "tool/call" adds nothing of its own. A plugin's transcript type becomes a
// user message: its payload's "content" blocks when it has any, otherwise
// a text block "[type] payload".
func (t *transcript) fold(e host.Event) error {
	switch e.Type {
	case host.TypeUserMessage:
		var p host.UserMessage
		if err := json.Unmarshal(e.Data, &p); err != nil {
			return err
		}
		t.add(Message{Role: RoleUser, Content: p.Content})
	case host.TypeAssistantMessage:
		var p host.AssistantMessage
		if err := json.Unmarshal(e.Data, &p); err != nil {
			return err
		}
		t.add(Message{Role: RoleAssistant, Text: p.Text, ToolCalls: p.ToolCalls, Reasoning: p.Reasoning, Model: p.Model})
	case host.TypeToolCall:
	case host.TypeToolResult:
		var p host.ToolResult
		if err := json.Unmarshal(e.Data, &p); err != nil {
			return err
		}
		t.add(Message{Role: RoleTool, Text: p.Output, ToolCallID: p.CallID, IsError: p.IsError})
	case host.TypeCompactionSummary:
		var p host.CompactionSummary
		if err := json.Unmarshal(e.Data, &p); err != nil {
			return err
		}
		// A fresh slice: requests already handed out keep the old one.
		t.msgs = []Message{{Role: RoleUser, Text: p.Summary}}
		t.open = t.open[:0] // the summary replaces the calls
	default:
		var p host.UserMessage
		if json.Unmarshal(e.Data, &p) == nil && len(p.Content) > 0 {
			t.add(Message{Role: RoleUser, Content: p.Content})
			return nil
		}
		t.add(Message{Role: RoleUser, Content: []host.Block{host.TextBlock(fmt.Sprintf("[%s] %s", e.Type, e.Data))}})
	}
	return nil
}
