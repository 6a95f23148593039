package openaimodel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/dshgo/planmode/refhost"
)

// Errors of streaming, for errors.Is.
var (
	// ErrStreamBroken means a streamed answer stopped before its end (the
	// connection closed, or the events ended without a finish reason).
	ErrStreamBroken = errors.New("the streamed answer broke off")
	// ErrSilent means the endpoint sent nothing for the configured
	// timeout while an answer was streaming.
	ErrSilent = errors.New("the endpoint went silent")
)

// Delta is a piece of a streamed answer.
type Delta struct {
	// Text is the next piece of the assistant's text.
	Text string
	// Reasoning is the next piece of its reasoning text.
	Reasoning string
}

// generateStream sends params as a streaming request and accumulates the
// events with the SDK's accumulator (text, tool calls and their arguments)
// and the reasoning text, which the SDK does not know. An endpoint that
// answers the streaming request with an error status that can mean "no
// streaming", or with no events at all, gets the same request once without
// streaming; when that succeeds, the model stops asking for streams.
func (m *Model) generateStream(ctx context.Context, params openai.ChatCompletionNewParams) (refhost.Response, error) {
	if m.refused.Load() {
		return m.fallback(ctx, params)
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(m.timeout, func() { cancel(ErrSilent) })
	defer watchdog.Stop()
	// The watchdog bounds silences; the SDK's own timeout would bound the
	// whole answer.
	var plain plainAnswer
	stream := m.svc.NewStreaming(sctx, params, option.WithRequestTimeout(0), option.WithMiddleware(plain.keep))
	defer stream.Close()

	var acc openai.ChatCompletionAccumulator
	var thought strings.Builder
	chunks := 0
	for stream.Next() {
		watchdog.Reset(m.timeout)
		chunk := stream.Current()
		chunks++
		if !acc.AddChunk(chunk) {
			return refhost.Response{}, fmt.Errorf("openaimodel: %w: event %d does not continue the answer", ErrBadResponse, chunks)
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			r := reasoning(c.Delta.JSON.ExtraFields)
			thought.WriteString(r)
			if m.cfg.OnDelta != nil && (r != "" || c.Delta.Content != "") {
				m.cfg.OnDelta(Delta{Text: c.Delta.Content, Reasoning: r})
			}
		}
	}
	err := stream.Err()
	switch {
	case err != nil && ctx.Err() != nil:
		return refhost.Response{}, fmt.Errorf("openaimodel: %w", context.Cause(ctx))
	case err != nil && errors.Is(context.Cause(sctx), ErrSilent):
		return refhost.Response{}, fmt.Errorf("openaimodel: %w for %s", ErrSilent, m.timeout)
	case err != nil && chunks == 0 && refusesStreaming(err):
		return m.fallback(ctx, params)
	case err != nil && chunks == 0:
		return refhost.Response{}, apiError(err)
	case err != nil:
		return refhost.Response{}, fmt.Errorf("openaimodel: %w after %d events: %w", ErrStreamBroken, chunks, err)
	case chunks == 0 && plain.body != nil:
		// An endpoint that ignores "stream" answers with one JSON body.
		return m.plainResponse(plain)
	case chunks == 0:
		// Events were asked for and none came.
		return m.fallback(ctx, params)
	case len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "":
		return refhost.Response{}, fmt.Errorf("openaimodel: %w after %d events: no finish reason", ErrStreamBroken, chunks)
	}
	resp, err := response(&acc.ChatCompletion)
	if err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: response: %w", err)
	}
	resp.Reasoning = thought.String()
	return resp, nil
}

// fallback sends params once without streaming; when that works, later
// requests are not streamed.
func (m *Model) fallback(ctx context.Context, params openai.ChatCompletionNewParams) (refhost.Response, error) {
	resp, err := m.generateOnce(ctx, params)
	if err == nil {
		m.refused.Store(true)
		m.delta(resp)
	}
	return resp, err
}

// maxPlainAnswer bounds the JSON answer an endpoint that ignores "stream"
// may send.
const maxPlainAnswer = 32 << 20

// plainAnswer keeps the body of a JSON answer to a streaming request (an
// endpoint that ignores "stream"), which the event decoder would skip.
type plainAnswer struct {
	body []byte
	err  error
}

// keep is an SDK middleware: a successful answer that is JSON rather than
// events is read here and the decoder gets an empty body.
func (p *plainAnswer) keep(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode != http.StatusOK {
		return res, err
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt != "application/json" {
		return res, nil
	}
	b, rerr := io.ReadAll(io.LimitReader(res.Body, maxPlainAnswer+1))
	res.Body.Close()
	switch {
	case rerr != nil:
		p.body, p.err = []byte{}, rerr
	case len(b) > maxPlainAnswer:
		p.body, p.err = []byte{}, fmt.Errorf("%w: the answer is over %d bytes", ErrBadResponse, maxPlainAnswer)
	default:
		p.body, p.err = b, nil
	}
	res.Body = io.NopCloser(bytes.NewReader(nil))
	return res, nil
}

// plainResponse maps a kept JSON answer; later requests are not streamed.
func (m *Model) plainResponse(p plainAnswer) (refhost.Response, error) {
	if p.err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: response: %w", p.err)
	}
	var c openai.ChatCompletion
	if err := c.UnmarshalJSON(p.body); err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: response: %w: %w", ErrBadResponse, err)
	}
	resp, err := response(&c)
	if err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: response: %w", err)
	}
	m.refused.Store(true)
	m.delta(resp)
	return resp, nil
}

// delta hands a whole answer to OnDelta, when the answer was not streamed.
func (m *Model) delta(resp refhost.Response) {
	if m.cfg.OnDelta != nil && (resp.Text != "" || resp.Reasoning != "") {
		m.cfg.OnDelta(Delta{Reasoning: resp.Reasoning, Text: resp.Text})
	}
}

// refusesStreaming reports whether a failed streaming request may have
// failed for asking for a stream: statuses endpoints use for an unknown
// or unsupported parameter or method.
func refusesStreaming(err error) bool {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusNotAcceptable, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return true
	}
	return false
}
