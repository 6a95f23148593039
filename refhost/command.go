package refhost

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// ParseCommand splits a command line "/name rest" into the name and the
// raw rest: everything after the white-space character that ends the name,
// untrimmed. ok is false when the line does not start with '/' or the name
// is empty.
func ParseCommand(line string) (name, args string, ok bool) {
	body, found := strings.CutPrefix(line, "/")
	if !found {
		return "", "", false
	}
	i := strings.IndexFunc(body, unicode.IsSpace)
	switch {
	case i < 0:
		return body, "", body != ""
	case i == 0:
		return "", "", false
	}
	_, size := utf8.DecodeRuneInString(body[i:])
	return body[:i], body[i+size:], true
}

// Execute runs a command line for agent a. A line that is not "/name ..."
// or names no registered command is not handled: handled is false and
// nothing is logged. Otherwise the run is logged as "command/run" before
// the handler and "command/done" after it (ok false with the error text
// when it fails), and the handler's reply is returned. Image attachments
// sent to a command that does not accept them are refused before the
// handler runs; the refusal is logged as a failed run (run, then done with
// ok false), so the log shows every handled line. The handler's error is
// returned with the command name as context.
func (r *Runtime) Execute(ctx context.Context, a host.Agent, line string, attachments []host.Block) (handled bool, reply string, err error) {
	name, args, ok := ParseCommand(line)
	if !ok {
		return false, "", nil
	}
	c, ok := r.Command(name)
	if !ok {
		return false, "", nil
	}
	if a == nil {
		return true, "", fmt.Errorf("refhost: /%s: %w", name, ErrNoAgent)
	}
	id := rand.Text() // pairs "command/run" with its "command/done"
	if err := appendJSON(a.Session(), host.TypeCommandRun, nil, host.CommandRun{ID: id, Name: name, Args: args}); err != nil {
		return true, "", err
	}
	if !c.AcceptsImages && slices.ContainsFunc(attachments, func(b host.Block) bool { return b.Type == host.BlockImage }) {
		text := fmt.Sprintf(TextImagesRefused, name)
		err := fmt.Errorf("refhost: /%s: %w", name, ErrImagesRefused)
		if e := appendJSON(a.Session(), host.TypeCommandDone, nil, host.CommandDone{ID: id, Text: text}); e != nil {
			err = fmt.Errorf("%w; %w", err, e)
		}
		return true, "", err
	}
	ctx, outcome := host.RecordOutcome(ctx)
	reply, runErr := c.Run(ctx, host.Invocation{Agent: a, Args: args, Attachments: attachments})
	done := host.CommandDone{ID: id, OK: runErr == nil, Text: reply, Outcome: outcome()}
	if runErr != nil {
		done.Text = runErr.Error()
		runErr = fmt.Errorf("/%s: %w", name, runErr)
	}
	err = appendJSON(a.Session(), host.TypeCommandDone, nil, done)
	if err == nil {
		err = host.Sync(a.Session()) // a durability point: the reply is shown
	}
	if err != nil {
		if runErr != nil {
			return true, "", fmt.Errorf("%w; %w", runErr, err)
		}
		return true, reply, err
	}
	return true, reply, runErr
}
