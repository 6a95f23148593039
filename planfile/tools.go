package planfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
)

var (
	errNoAgent       = errors.New(textNoAgent)
	errWriteInactive = errors.New(textWriteInactive)
)

// read is plan_read: the plan file's content in any mode, or a note that
// there is no plan yet.
func (pl *Plugin) read(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return "", errNoAgent
	}
	if fields, ok := jsonin.Object(input); !ok || len(fields) > 0 {
		return "", fmt.Errorf(textBadReadInput, companion.QuoteJSON(input))
	}
	sess := call.Agent.Session()
	pl.serve(ctx, sess)
	doc, err := pl.store.Read(ctx, sess.ID())
	if err != nil {
		return "", fmt.Errorf(textFileError, err)
	}
	if strings.TrimSpace(doc.Content) == "" {
		return fmt.Sprintf(textReadEmpty, pl.store.Path(sess.ID())), nil
	}
	return doc.Content, nil
}

// writeTool is plan_write: with the session's logged state plan mode, it
// atomically replaces the plan file with the input's plan.
func (pl *Plugin) writeTool(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return "", errNoAgent
	}
	sess := call.Agent.Session()
	h, err := pl.history.Get(sess)
	if err != nil {
		return "", fmt.Errorf("%s: %w", WriteToolName, err)
	}
	if !h.active {
		return "", errWriteInactive
	}
	var in struct {
		Plan *string `json:"plan"`
	}
	if jsonin.Strict("the input", input, &in) != nil || in.Plan == nil {
		return "", fmt.Errorf(textBadInput, companion.QuoteJSON(input))
	}
	pl.serve(ctx, sess)
	if err := pl.write(ctx, sess, *in.Plan); err != nil {
		return "", fmt.Errorf(textFileError, err)
	}
	return fmt.Sprintf(textWritten, pl.store.Path(sess.ID()), len(*in.Plan)), nil
}

// write replaces the session's plan and marks the session as its owner.
func (pl *Plugin) write(ctx context.Context, sess host.Session, plan string) error {
	if err := pl.store.Replace(ctx, sess.ID(), plan); err != nil {
		return err
	}
	pl.markOwner(ctx, sess)
	return nil
}
