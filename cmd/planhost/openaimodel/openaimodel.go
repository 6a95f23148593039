// Package openaimodel is a [refhost.Model] over an OpenAI-compatible
// chat-completions API with tool calling, built on the official OpenAI Go
// SDK. The base URL, model name and API key are configuration, so it works
// with any provider that speaks the protocol.
package openaimodel

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Environment variables [FromEnv] reads.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvModel   = "OPENAI_MODEL"
	EnvAPIKey  = "OPENAI_API_KEY"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults of the bounds of Config.
const (
	// DefaultTimeout bounds each request attempt when Config.Timeout is 0.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxResponseBytes bounds a response body when
	// Config.MaxResponseBytes is 0. It is above what a session line holds.
	DefaultMaxResponseBytes = 16 << 20
)

// generatedCallID names a tool call the provider sent without an ID; %d is
// its 1-based position in the response.
const generatedCallID = "call_%d"

// maxErrorText bounds how much of a provider's error message is quoted.
const maxErrorText = 300

// Errors of the adapter, for errors.Is.
var (
	// ErrConfig means the configuration is incomplete or malformed.
	ErrConfig = errors.New("bad model configuration")
	// ErrAPI means the provider answered with an HTTP error; errors.As
	// with *openai.Error gives the status and body.
	ErrAPI = errors.New("chat completion request failed")
	// ErrBadResponse means the provider's answer could not be used: no
	// choice, an unsupported tool call type, or tool-call arguments that
	// are not a JSON object.
	ErrBadResponse = errors.New("unusable chat completion")
)

// Config configures the adapter.
type Config struct {
	// BaseURL is the API root, for example "https://api.openai.com/v1" or
	// "http://localhost:11434/v1"; empty means DefaultBaseURL.
	BaseURL string
	// Model is the model name sent with every request. Required.
	Model string
	// APIKey is sent as a bearer token; empty sends no Authorization header
	// (for local providers that need none).
	APIKey string
	// Retries is how many times the SDK retries a request that failed with
	// a connection error, 408, 409, 429 or a 5xx status; 0 means none.
	Retries int
	// Timeout bounds each request attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes bounds the body of each response; a longer one
	// fails the request with ErrResponseTooLarge without being read
	// further. 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxTokens bounds the completion's length; 0 leaves it to the provider.
	MaxTokens int64
	// HTTPClient sends the requests; nil means a new client with the
	// standard transport.
	HTTPClient *http.Client
	// Stream asks for the answer as server-sent events (see stream.go):
	// text and reasoning reach OnDelta as they arrive, and an endpoint
	// that refuses streaming gets one plain request instead. With Stream,
	// Timeout bounds each silence (until the first event and between
	// events) rather than the whole answer.
	Stream bool
	// OnDelta, when set, is called with each piece of a streamed answer,
	// on the goroutine that called Generate.
	OnDelta func(Delta)
}

// FromEnv returns a Config with BaseURL, Model and APIKey taken from the
// OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY variables as getenv
// reports them (os.Getenv in a program).
func FromEnv(getenv func(string) string) Config {
	return Config{
		BaseURL: getenv(EnvBaseURL),
		Model:   getenv(EnvModel),
		APIKey:  getenv(EnvAPIKey),
	}
}

// Validate checks the configuration: a model name, an absolute http(s) base
// URL when one is given, and no negative retries, timeout or token bound.
func (c Config) Validate() error {
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("%w: model: empty; want a model name (%s)", ErrConfig, EnvModel)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: base URL: %q; want an absolute http or https URL (%s)", ErrConfig, RedactURL(c.BaseURL), EnvBaseURL)
		}
	}
	if c.Retries < 0 {
		return fmt.Errorf("%w: retries: %d; want 0 or more", ErrConfig, c.Retries)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("%w: timeout: %s; want 0 or more", ErrConfig, c.Timeout)
	}
	if c.MaxResponseBytes < 0 {
		return fmt.Errorf("%w: max response bytes: %d; want 0 or more", ErrConfig, c.MaxResponseBytes)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("%w: max tokens: %d; want 0 or more", ErrConfig, c.MaxTokens)
	}
	return nil
}

// Model is a [refhost.Model] that calls a chat-completions endpoint. It is
// safe for concurrent use.
type Model struct {
	svc     openai.ChatCompletionService
	cfg     Config
	timeout time.Duration // Config.Timeout, or DefaultTimeout
	// refused is set once a plain request succeeded after a streaming
	// request was refused; later requests are plain.
	refused atomic.Bool
}

// New returns a Model for cfg. It reads no environment variables itself
// (use [FromEnv]) and does no I/O.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("openaimodel: %w", err)
	}
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	client := http.Client{}
	if cfg.HTTPClient != nil {
		client = *cfg.HTTPClient
	}
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = &limitTransport{next: next, max: cmp.Or(cfg.MaxResponseBytes, DefaultMaxResponseBytes)}
	m := &Model{cfg: cfg, timeout: cmp.Or(cfg.Timeout, DefaultTimeout)}
	opts := []option.RequestOption{
		option.WithHTTPClient(&client),
		option.WithBaseURL(base),
		option.WithMaxRetries(cfg.Retries),
		option.WithRequestTimeout(m.timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	m.svc = openai.NewChatCompletionService(opts...)
	return m, nil
}

// Generate sends req as one chat completion and returns the first choice's
// text and tool calls. Tool-call arguments are returned as the raw JSON the
// provider sent ("{}" when it sent none); arguments that are not a JSON
// object are an [ErrBadResponse] error. A call without an ID gets
// "call_<n>", its position in the response. An HTTP error is an [ErrAPI] error
// naming the status and the provider's message. No error text holds the
// API key or the base URL's user information (see [Config.Redact]).
func (m *Model) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	resp, err := m.generate(ctx, req)
	return resp, m.cfg.redactError(err)
}

func (m *Model) generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: request: %w", err)
	}
	if m.cfg.Stream {
		return m.generateStream(ctx, params)
	}
	return m.generateOnce(ctx, params)
}

// generateOnce sends params as one request with the whole answer in the
// response.
func (m *Model) generateOnce(ctx context.Context, params openai.ChatCompletionNewParams) (refhost.Response, error) {
	completion, err := m.svc.New(ctx, params)
	if err != nil {
		return refhost.Response{}, apiError(err)
	}
	resp, err := response(completion)
	if err != nil {
		return refhost.Response{}, fmt.Errorf("openaimodel: response: %w", err)
	}
	return resp, nil
}

// params maps a refhost request onto the SDK's parameters.
func (m *Model) params(req refhost.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.cfg.Model)}
	if m.cfg.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(m.cfg.MaxTokens)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		mp, err := message(msg)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, def := range req.Tools {
		t, err := tool(def)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", def.Name, err)
		}
		p.Tools = append(p.Tools, t)
	}
	return p, nil
}

// message maps one transcript message.
func message(msg refhost.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case refhost.RoleUser:
		return userMessage(msg)
	case refhost.RoleAssistant:
		a := openai.ChatCompletionAssistantMessageParam{}
		if msg.Text != "" {
			a.Content.OfString = openai.String(msg.Text)
		}
		for _, tc := range msg.ToolCalls {
			args := string(tc.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
				},
			})
		}
		setReasoning(&a, msg)
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case refhost.RoleTool:
		return openai.ToolMessage(msg.Text, msg.ToolCallID), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("role %q: want user, assistant or tool", msg.Role)
}

// userMessage maps a user message: a plain string when it is only text,
// content parts (images as data URLs) otherwise.
func userMessage(msg refhost.Message) (openai.ChatCompletionMessageParamUnion, error) {
	var (
		texts  []string
		parts  []openai.ChatCompletionContentPartUnionParam
		images bool
	)
	for _, b := range msg.Content {
		switch {
		case b.Type == host.BlockText:
			texts = append(texts, b.Text)
			parts = append(parts, openai.TextContentPart(b.Text))
		case b.Type != host.BlockImage:
			return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("content block type %q: want text or image", b.Type)
		case b.MediaType == "":
			return openai.ChatCompletionMessageParamUnion{}, errors.New("image block: media type is empty")
		default:
			images = true
			u := "data:" + b.MediaType + ";base64," + base64.StdEncoding.EncodeToString(b.Data)
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: u}))
		}
	}
	if msg.Text != "" {
		texts = append(texts, msg.Text)
		parts = append(parts, openai.TextContentPart(msg.Text))
	}
	if !images {
		return openai.UserMessage(strings.Join(texts, "\n\n")), nil
	}
	return openai.UserMessage(parts), nil
}

// tool maps a tool definition; the JSON Schema is passed through as raw
// JSON values so that nothing is rounded or reordered.
func tool(def host.ToolDefinition) (openai.ChatCompletionToolUnionParam, error) {
	params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	if len(def.InputSchema) > 0 {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(def.InputSchema, &raw); err != nil {
			return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("input schema: %w", err)
		}
		params = make(shared.FunctionParameters, len(raw))
		for k, v := range raw {
			params[k] = v
		}
	}
	fn := shared.FunctionDefinitionParam{Name: def.Name, Parameters: params}
	if def.Description != "" {
		fn.Description = openai.String(def.Description)
	}
	return openai.ChatCompletionFunctionTool(fn), nil
}

// response maps the first choice back.
func response(c *openai.ChatCompletion) (refhost.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return refhost.Response{}, fmt.Errorf("%w: no choices", ErrBadResponse)
	}
	msg := c.Choices[0].Message
	resp := refhost.Response{Text: msg.Content, Reasoning: reasoning(msg.JSON.ExtraFields)}
	if resp.Text == "" && msg.Refusal != "" {
		resp.Text = msg.Refusal
	}
	for i, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			return refhost.Response{}, fmt.Errorf("%w: tool call %d (%s): type %q; want function", ErrBadResponse, i, tc.ID, tc.Type)
		}
		if tc.Function.Name == "" {
			return refhost.Response{}, fmt.Errorf("%w: tool call %d (%s): no function name", ErrBadResponse, i, tc.ID)
		}
		args := strings.TrimSpace(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		if !strings.HasPrefix(args, "{") || !json.Valid([]byte(args)) {
			return refhost.Response{}, fmt.Errorf("%w: tool call %d (%s %s): arguments are not a JSON object: %s",
				ErrBadResponse, i, tc.Function.Name, tc.ID, clip(args))
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers send no ID; the transcript needs one
			// to pair the result with the call.
			id = fmt.Sprintf(generatedCallID, i+1)
		}
		resp.ToolCalls = append(resp.ToolCalls, host.ToolCall{ID: id, Name: tc.Function.Name, Input: json.RawMessage(args)})
	}
	return resp, nil
}

// apiError turns an SDK error into one that names the status and the
// provider's own message, and still unwraps to the SDK's error.
func apiError(err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("openaimodel: %w", err)
	}
	text := fmt.Sprintf("openaimodel: %s: %d %s", ErrAPI, apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
	if msg := strings.TrimSpace(apiErr.Message); msg != "" {
		text += ": " + clip(msg)
	}
	return &requestError{text: strings.TrimSpace(text), cause: err}
}

// requestError is an HTTP error of the provider: its text is ours, and it
// unwraps to both ErrAPI and the SDK's error.
type requestError struct {
	text  string
	cause error
}

func (e *requestError) Error() string   { return e.text }
func (e *requestError) Unwrap() []error { return []error{ErrAPI, e.cause} }

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

var _ refhost.Model = (*Model)(nil)
