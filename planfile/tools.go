package planfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

var (
	errNoAgent       = errors.New(textNoAgent)
	errWriteInactive = errors.New(textWriteInactive)
)

// readTool is plan_read: the session's plan file, in any mode.
type readTool struct{ pl *Plugin }

// Definition implements [host.Tool].
func (t *readTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: ReadToolName, Description: ReadToolDescription, InputSchema: json.RawMessage(ReadInputSchema)}
}

// Execute implements [host.Tool]: it returns the plan file's content, or a
// note that there is no plan yet.
func (t *readTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return "", errNoAgent
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil || fields == nil || len(fields) > 0 {
		return "", fmt.Errorf(textBadReadInput, companion.QuoteJSON(input))
	}
	sess := call.Agent.Session()
	t.pl.serve(ctx, sess)
	doc, err := t.pl.store.Read(ctx, sess.ID())
	if err != nil {
		return "", fmt.Errorf(textFileError, err)
	}
	if strings.TrimSpace(doc.Content) == "" {
		return fmt.Sprintf(textReadEmpty, t.pl.store.Path(sess.ID())), nil
	}
	return doc.Content, nil
}

// writeTool is plan_write: replaces the plan file, only in plan mode.
type writeTool struct{ pl *Plugin }

// Definition implements [host.Tool].
func (t *writeTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: WriteToolName, Description: WriteToolDescription, InputSchema: json.RawMessage(WriteInputSchema)}
}

// Execute implements [host.Tool]: with the session's logged state plan
// mode, it atomically replaces the plan file with the input's plan.
func (t *writeTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return "", errNoAgent
	}
	sess := call.Agent.Session()
	h, err := t.pl.history(sess)
	if err != nil {
		return "", fmt.Errorf("%s: %w", WriteToolName, err)
	}
	if !h.active {
		return "", errWriteInactive
	}
	plan, err := decodeWrite(input)
	if err != nil {
		return "", err
	}
	t.pl.serve(ctx, sess)
	if err := t.pl.write(ctx, sess, plan); err != nil {
		return "", fmt.Errorf(textFileError, err)
	}
	return fmt.Sprintf(textWritten, t.pl.store.Path(sess.ID()), len(plan)), nil
}

// write replaces the session's plan and marks the session as its owner.
func (pl *Plugin) write(ctx context.Context, sess host.Session, plan string) error {
	if err := pl.store.Replace(ctx, sess.ID(), plan); err != nil {
		return err
	}
	pl.markOwner(sess)
	return nil
}

// decodeWrite reads {"plan": string}: exact keys, nothing else.
func decodeWrite(input json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil || fields == nil || len(fields) != 1 {
		return "", fmt.Errorf(textBadInput, companion.QuoteJSON(input))
	}
	raw, ok := fields["plan"]
	var plan string
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &plan) != nil {
		return "", fmt.Errorf(textBadInput, companion.QuoteJSON(input))
	}
	return plan, nil
}

var (
	_ host.Tool = (*readTool)(nil)
	_ host.Tool = (*writeTool)(nil)
)
