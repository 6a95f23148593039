package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dshgo/planmode/host"
)

// workspace is the demo's files, in memory.
type workspace struct {
	mu    sync.Mutex
	files map[string]string
}

func (w *workspace) get(path string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files[path]
}

// fileInput is the tools' arguments.
type fileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// readTool is read_file over the workspace.
type readTool struct{ ws *workspace }

func (readTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name: "read_file", Description: "Read a file of the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
	}
}

func (t readTool) Execute(_ context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	var in fileInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	t.ws.mu.Lock()
	defer t.ws.mu.Unlock()
	text, ok := t.ws.files[in.Path]
	if !ok {
		return "", fmt.Errorf("%s: no such file", in.Path)
	}
	return text, nil
}

// writeTool is write_file over the workspace.
type writeTool struct{ ws *workspace }

func (writeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name: "write_file", Description: "Write a file of the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
	}
}

func (t writeTool) Execute(_ context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	var in fileInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	t.ws.mu.Lock()
	defer t.ws.mu.Unlock()
	t.ws.files[in.Path] = in.Content
	return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path), nil
}
