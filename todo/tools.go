package todo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

// read is todo_read: the agent's list as {"todos": [...]}.
func (p *Plugin) read(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil {
		return "", errors.New(textNoAgent)
	}
	var fields map[string]json.RawMessage
	if t := bytes.TrimSpace(input); len(t) > 0 && (json.Unmarshal(t, &fields) != nil || len(fields) > 0) {
		return "", errors.New(textBadRead)
	}
	items, err := p.Read(ctx, call.Agent.ID())
	if err != nil {
		return "", err
	}
	return companion.JSON(List{Todos: items})
}

// write is todo_write: it checks the write, applies it and returns the
// stored list as {"todos": [...]}.
func (p *Plugin) write(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil {
		return "", errors.New(textNoAgent)
	}
	written, err := DecodeWrite(input, p.cfg.MaxItems)
	if err != nil {
		return "", err
	}
	items, err := p.Write(ctx, call.Agent.ID(), written)
	if err != nil {
		return "", err
	}
	return companion.JSON(List{Todos: items})
}
