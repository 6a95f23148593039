package eino

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// transcript is the conversation a request sends: the reference host's
// fold of the log (refhost.Transcript), as Eino messages. It restarts at
// the last compaction summary, turns a plugin's transcript-kind event into
// a user message and pairs every tool call with one tool message right
// after its assistant message (endpoints that check the tool-call rules
// refuse anything else).
func (h *Host) transcript(log host.Log) []*schema.Message {
	var out []*schema.Message
	names := map[string]string{} // call ID to tool name
	for _, m := range refhost.Transcript(log, h.EventTypes()) {
		switch m.Role {
		case refhost.RoleAssistant:
			msg := &schema.Message{Role: schema.Assistant, Content: m.Text, ReasoningContent: m.Reasoning}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{
					ID: c.ID, Type: "function",
					Function: schema.FunctionCall{Name: c.Name, Arguments: string(c.Input)},
				})
			}
			out = append(out, msg)
		case refhost.RoleTool:
			out = append(out, schema.ToolMessage(m.Text, m.ToolCallID, schema.WithToolName(names[m.ToolCallID])))
		default: // a summary has Text, a user message Content
			out = append(out, schema.UserMessage(m.Text+text(m.Content)))
		}
	}
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
