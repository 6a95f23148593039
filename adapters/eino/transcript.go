package eino

import (
	"encoding/json"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode/host"
)

// transcript folds the log's transcript events into the conversation a
// request sends. It restarts at the last compaction summary and pairs
// every tool call with one tool message right after its assistant
// message: a call the log holds no result for gets an is-error result, a
// result that answers no waiting call is left out (endpoints that check
// the tool-call rules refuse anything else).
func (h *Host) transcript(log host.Log) []*schema.Message {
	var out []*schema.Message
	var waiting []host.ToolCall // the last assistant message's unanswered calls
	flush := func() {
		for _, c := range waiting {
			out = append(out, schema.ToolMessage(textResultLost, c.ID, schema.WithToolName(c.Name)))
		}
		waiting = nil
	}
	for _, e := range log.All() {
		if k, ok := h.EventKind(e.Type); !ok || k != host.Transcript {
			continue
		}
		switch e.Type {
		case host.TypeUserMessage:
			var m host.UserMessage
			if json.Unmarshal(e.Data, &m) != nil {
				continue
			}
			flush()
			out = append(out, schema.UserMessage(text(m.Content)))
		case host.TypeAssistantMessage:
			var m host.AssistantMessage
			if json.Unmarshal(e.Data, &m) != nil {
				continue
			}
			flush()
			msg := &schema.Message{Role: schema.Assistant, Content: m.Text, ReasoningContent: m.Reasoning}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{
					ID: c.ID, Type: "function",
					Function: schema.FunctionCall{Name: c.Name, Arguments: string(c.Input)},
				})
			}
			out, waiting = append(out, msg), m.ToolCalls
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) != nil {
				continue
			}
			for i, c := range waiting {
				if c.ID == r.CallID {
					out = append(out, schema.ToolMessage(r.Output, r.CallID, schema.WithToolName(c.Name)))
					waiting = append(waiting[:i:i], waiting[i+1:]...)
					break
				}
			}
		case host.TypeCompactionSummary:
			var c host.CompactionSummary
			if json.Unmarshal(e.Data, &c) != nil {
				continue
			}
			out, waiting = []*schema.Message{schema.UserMessage(c.Summary)}, nil
		}
	}
	flush()
	return out
}

// text joins a message's text blocks; images are not sent (this host
// sends text only).
func text(blocks []host.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == host.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
