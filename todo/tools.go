package todo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/dshgo/planmode/host"
)

// readTool is todo_read.
type readTool struct{ p *Plugin }

// Definition implements [host.Tool].
func (t *readTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name:         ReadToolName,
		Description:  ReadToolDescription,
		InputSchema:  json.RawMessage(ReadInputSchema),
		OutputSchema: json.RawMessage(ListSchema),
	}
}

// Execute implements [host.Tool]: the agent's list as {"todos": [...]}.
func (t *readTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil {
		return "", errors.New(textNoAgent)
	}
	var fields map[string]json.RawMessage
	if t := bytes.TrimSpace(input); len(t) > 0 && (json.Unmarshal(t, &fields) != nil || len(fields) > 0) {
		return "", errors.New(textBadRead)
	}
	items, err := t.p.Read(ctx, call.Agent.ID())
	if err != nil {
		return "", err
	}
	data, err := marshalList(items)
	return string(data), err
}

// writeTool is todo_write.
type writeTool struct{ p *Plugin }

// Definition implements [host.Tool].
func (t *writeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name:         WriteToolName,
		Description:  WriteToolDescription,
		InputSchema:  json.RawMessage(WriteInputSchema),
		OutputSchema: json.RawMessage(ListSchema),
	}
}

// Execute implements [host.Tool]: it checks the write, applies it and
// returns the stored list as {"todos": [...]}.
func (t *writeTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil {
		return "", errors.New(textNoAgent)
	}
	written, err := DecodeWrite(input, t.p.cfg.MaxItems)
	if err != nil {
		return "", err
	}
	items, err := t.p.Write(ctx, call.Agent.ID(), written)
	if err != nil {
		return "", err
	}
	data, err := marshalList(items)
	return string(data), err
}

// marshalList encodes a list without HTML escaping, so content keeps its
// size.
func marshalList(items []Item) ([]byte, error) {
	if items == nil {
		items = []Item{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(List{Todos: items}); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

var (
	_ host.Tool = (*readTool)(nil)
	_ host.Tool = (*writeTool)(nil)
)
