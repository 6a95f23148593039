package openaimodel

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/dshgo/planmode/refhost"
)

// Reasoning fields: providers that return a model's reasoning separately
// from its answer name the field in one of these ways (DeepSeek and vLLM
// reasoning_content, OpenRouter and Ollama reasoning). The SDK keeps both
// among a message's extra fields.
const (
	fieldReasoningContent = "reasoning_content"
	fieldReasoning        = "reasoning"
)

// reasoning reads the first reasoning field among a message's or a
// delta's extra fields that holds a string. (The SDK marks fields it has no
// Go field for as not valid but keeps their raw JSON.)
func reasoning(extra map[string]respjson.Field) string {
	for _, name := range []string{fieldReasoningContent, fieldReasoning} {
		f, ok := extra[name]
		if !ok || f.Raw() == "" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// setReasoning sends an assistant message's reasoning back as
// reasoning_content when the message made tool calls: DeepSeek's thinking
// mode refuses a request without it there (HTTP 400), and ignores it on
// messages without tool calls, where its older reasoner refuses it. A
// message without reasoning (a provider that never sent any) gets nothing.
func setReasoning(a *openai.ChatCompletionAssistantMessageParam, msg refhost.Message) {
	if msg.Reasoning == "" || len(msg.ToolCalls) == 0 {
		return
	}
	a.SetExtraFields(map[string]any{fieldReasoningContent: msg.Reasoning})
}
