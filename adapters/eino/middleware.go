package eino

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Middleware is the ADK middleware that hosts plan mode in a
// ChatModelAgent (adk.ChatModelAgentConfig.Middlewares):
//
//   - AdditionalTools: the tools registered so far (exit_plan_mode and the
//     companions' tools) as Eino tools; make the middleware after plan mode
//     and its companions started;
//   - BeforeChatModel: before every chat-model call, closes the previous
//     step, runs the pre-step chain (plan mode outermost), logs step/start
//     and the decision's messages, renders the sections after the agent's
//     instruction, logs a request/header when the prompt changed, and gives
//     the model the conversation the session log holds;
//   - AfterChatModel: logs the reply (assistant/message);
//   - WrapToolCall: around every tool call, plan mode's and the agent's
//     own, runs the tool guards and logs tool/call before and tool/result
//     after, with the tool's outcome; a tool's error becomes an is-error
//     result the model reads.
func (h *Host) Middleware() (adk.AgentMiddleware, error) {
	var tools []tool.BaseTool
	for _, t := range h.Tools() {
		def := t.Definition()
		var params *jsonschema.Schema
		if len(def.InputSchema) > 0 {
			params = new(jsonschema.Schema)
			if err := json.Unmarshal(def.InputSchema, params); err != nil {
				return adk.AgentMiddleware{}, fmt.Errorf("%s: tool %q: input schema: %w", name, def.Name, err)
			}
		}
		info := &schema.ToolInfo{Name: def.Name, Desc: def.Description}
		if params != nil {
			info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(params)
		}
		tools = append(tools, &hostedTool{h: h, info: info})
	}
	return adk.AgentMiddleware{
		AdditionalTools: tools,
		BeforeChatModel: h.beforeChatModel,
		AfterChatModel:  h.afterChatModel,
		WrapToolCall:    compose.ToolMiddleware{Invokable: h.wrapInvokable, Streamable: h.wrapStreamable},
	}, nil
}

// beforeChatModel runs one step up to the request.
func (h *Host) beforeChatModel(ctx context.Context, st *adk.ChatModelAgentState) error {
	a, err := agentFrom(ctx)
	if err != nil {
		return err
	}
	if a.base == nil { // the first call of the run carries the instruction
		base := ""
		if len(st.Messages) > 0 && st.Messages[0].Role == schema.System {
			base = st.Messages[0].Content
		}
		a.base = &base
	}
	if a.stepOpen {
		if err := a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1}); err != nil {
			return err
		}
		a.stepOpen = false
	}
	a.mu.Lock()
	claimed := a.queue
	a.queue = nil
	a.mu.Unlock()
	s := host.Step{Agent: a, Turn: a.turn, Step: a.step + 1, Attempt: 1, Messages: claimed}
	d := h.RunPreSteps(ctx, s, nil)
	if !d.Accepted || ctx.Err() != nil {
		a.mu.Lock()
		a.queue = append(claimed, a.queue...) // back to the front
		a.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.blocked = d.Reason
		return fmt.Errorf("%w: %s", ErrBlocked, d.Reason)
	}
	a.step, a.stepOpen = s.Step, true
	if err := a.log(host.TypeStepStart, nil, host.StepStart{Turn: a.turn, Step: a.step, Attempt: 1}); err != nil {
		return err
	}
	for _, m := range d.Messages {
		if err := a.log(host.TypeUserMessage, m.Source, host.UserMessage{Content: m.Content}); err != nil {
			return err
		}
	}
	// Derive the request only now, with everything the chain appended.
	p := h.render(a)
	system := strings.TrimSpace(*a.base + "\n\n" + p.text)
	_, tools := h.Catalog()
	hdr := host.RequestHeader{Sections: p.sections, SystemDigest: digest(system), ToolsDigest: tools}
	switch {
	case !a.headerSeen:
		hdr.Reason = host.HeaderInitial
	case a.resumed:
		hdr.Reason = host.HeaderResume
	case hdr.SystemDigest != a.system || hdr.ToolsDigest != a.tools:
		hdr.Reason = host.HeaderChange
	}
	if hdr.Reason != "" {
		if err := a.log(host.TypeRequestHeader, nil, hdr); err != nil {
			return err
		}
		a.headerSeen, a.resumed, a.system, a.tools = true, false, hdr.SystemDigest, hdr.ToolsDigest
	}
	if err := host.Sync(a.sess); err != nil { // a durability point: the request
		return err
	}
	msgs := h.transcript(a.sess.Events())
	if system != "" {
		msgs = append([]*schema.Message{schema.SystemMessage(system)}, msgs...)
	}
	st.Messages = msgs
	return nil
}

// afterChatModel logs the model's reply; a reply without tool calls ends
// the step.
func (h *Host) afterChatModel(ctx context.Context, st *adk.ChatModelAgentState) error {
	a, err := agentFrom(ctx)
	if err != nil {
		return err
	}
	if len(st.Messages) == 0 {
		return nil
	}
	m := st.Messages[len(st.Messages)-1]
	am := host.AssistantMessage{Text: m.Content, Reasoning: m.ReasoningContent}
	for _, tc := range m.ToolCalls {
		am.ToolCalls = append(am.ToolCalls, host.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: inputJSON(tc.Function.Arguments)})
	}
	if err := a.log(host.TypeAssistantMessage, nil, am); err != nil {
		return err
	}
	if len(am.ToolCalls) == 0 {
		a.stepOpen = false
		return a.log(host.TypeStepEnd, nil, host.StepEnd{Turn: a.turn, Step: a.step, Attempt: 1})
	}
	return nil
}

// inputJSON is a call's arguments as JSON: no arguments are {}, and text
// that is not JSON is kept as a JSON string.
func inputJSON(args string) json.RawMessage {
	switch {
	case strings.TrimSpace(args) == "":
		return json.RawMessage(`{}`)
	case json.Valid([]byte(args)):
		return json.RawMessage(args)
	}
	js, _ := json.Marshal(args) // a string always marshals
	return js
}

func (h *Host) wrapInvokable(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
		out, err := h.callTool(ctx, in, func(ctx context.Context) (string, error) {
			o, err := next(ctx, in)
			if err != nil {
				return "", err
			}
			return o.Result, nil
		})
		if err != nil {
			return nil, err
		}
		return &compose.ToolOutput{Result: out}, nil
	}
}

// wrapStreamable logs a streaming tool's whole output as its result and
// streams it on in one piece.
func (h *Host) wrapStreamable(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
		out, err := h.callTool(ctx, in, func(ctx context.Context) (string, error) {
			o, err := next(ctx, in)
			if err != nil {
				return "", err
			}
			defer o.Result.Close()
			var b strings.Builder
			for {
				chunk, err := o.Result.Recv()
				if err == io.EOF {
					return b.String(), nil
				}
				if err != nil {
					return b.String(), err
				}
				b.WriteString(chunk)
			}
		})
		if err != nil {
			return nil, err
		}
		return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{out})}, nil
	}
}

// callTool runs one tool call between its tool/call and tool/result.
func (h *Host) callTool(ctx context.Context, in *compose.ToolInput, run func(context.Context) (string, error)) (string, error) {
	a, err := agentFrom(ctx)
	if err != nil {
		return "", err
	}
	input := inputJSON(in.Arguments)
	if err := a.log(host.TypeToolCall, nil, host.ToolCall{ID: in.CallID, Name: in.Name, Input: input}); err != nil {
		return "", err
	}
	cc := host.CallContext{Agent: a, CallID: in.CallID}
	res := host.ToolResult{CallID: in.CallID, Name: in.Name}
	var runErr error // an error that ends the run: cancellation, an interrupt
	if strings.TrimSpace(in.Arguments) != "" && !json.Valid([]byte(in.Arguments)) {
		res.Output, res.IsError = textBadToolInput, true
	} else if err := h.RunGuards(ctx, cc, in.Name, input); err != nil {
		res.Output, res.IsError = host.ToolErrorPrefix+err.Error(), true
	} else {
		callCtx, outcome := host.RecordOutcome(ctx)
		out, err := runSafely(callCtx, run)
		res.Output, res.Outcome = out, outcome()
		if err != nil {
			res.IsError = true
			res.Output = host.ToolErrorPrefix + err.Error()
			if _, interrupt := compose.IsInterruptRerunError(err); interrupt {
				res.Output, runErr = refhost.ToolErrorPrefix+textRunInterrupted, err
			} else if ctx.Err() != nil {
				res.Output, runErr = textToolCancelled, err
			}
		}
	}
	if err := a.log(host.TypeToolResult, nil, res); err != nil {
		a.lost(ctx, cc, in.Name, err)
		return "", err
	}
	return res.Output, runErr
}

// UnknownTool is an Eino compose.ToolsNodeConfig.UnknownToolsHandler:
// set it in the agent's ToolsConfig so that a call to a tool the agent
// does not have is logged (tool/call, then an is-error tool/result the
// model reads) and the turn goes on. Without it, Eino ends the run at such
// a call; the turn then ends with an error and every call of the reply
// gets an is-error result.
func (h *Host) UnknownTool(ctx context.Context, toolName, input string) (string, error) {
	a, err := agentFrom(ctx)
	if err != nil {
		return "", err
	}
	c := host.ToolCall{ID: compose.GetToolCallID(ctx), Name: toolName, Input: inputJSON(input)}
	if err := a.log(host.TypeToolCall, nil, c); err != nil {
		return "", err
	}
	res := host.ToolResult{CallID: c.ID, Name: toolName, Output: fmt.Sprintf(textUnknownTool, toolName), IsError: true}
	if err := a.log(host.TypeToolResult, nil, res); err != nil {
		a.lost(ctx, host.CallContext{Agent: a, CallID: c.ID}, toolName, err)
		return "", err
	}
	return res.Output, nil
}

// lost owes the call an is-error result, in the tool's words when it
// handles a lost result (the exit tool withdraws its approval), else in
// the host's.
func (a *Agent) lost(ctx context.Context, cc host.CallContext, tool string, err error) {
	text := textResultLost
	if t, ok := a.h.Tool(tool); ok {
		if rl, ok := t.(host.ResultLossHandler); ok {
			text = cmp.Or(a.h.resultLost(ctx, rl, cc, tool, err), textResultLost)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.owed = append(a.owed, host.ToolResult{CallID: cc.CallID, Name: tool, Output: text, IsError: true})
}

// resultLost tells the handler; a panicking handler gives no text.
func (h *Host) resultLost(ctx context.Context, rl host.ResultLossHandler, cc host.CallContext, tool string, err error) (text string) {
	defer func() {
		if p := recover(); p != nil {
			h.o.Logger.Warn(warnLossHandlerPanicked, "tool", tool, "panic", p)
		}
	}()
	return rl.ResultLost(ctx, cc, err)
}

func runSafely(ctx context.Context, run func(context.Context) (string, error)) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf(textToolPanicked, p)
		}
	}()
	return run(ctx)
}

// hostedTool is a tool of the host's registry as an Eino tool.
type hostedTool struct {
	h    *Host
	info *schema.ToolInfo
}

func (t *hostedTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *hostedTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	a, err := agentFrom(ctx)
	if err != nil {
		return "", err
	}
	ht, ok := t.h.Tool(t.info.Name)
	if !ok {
		return "", fmt.Errorf("%s: tool %q: %w", name, t.info.Name, ErrToolRemoved)
	}
	return ht.Execute(ctx, host.CallContext{Agent: a, CallID: compose.GetToolCallID(ctx)}, inputJSON(args))
}

var _ tool.InvokableTool = (*hostedTool)(nil)
