package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/host"
)

// ErrBadScript means a YAML script does not have the documented shape.
var ErrBadScript = errors.New("bad script")

// YAML tags of the scalars a script uses.
const (
	tagStr  = "!!str"
	tagBool = "!!bool"
)

// ParseScript reads a YAML script (see the package doc) into steps. Errors
// wrap ErrBadScript (or the YAML syntax error) and name the line, the key
// and what was expected.
func ParseScript(data []byte) ([]Step, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("scripted: script: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("scripted: script: empty document, want a mapping with key steps: %w", ErrBadScript)
	}
	root := doc.Content[0]
	fields, err := mapping(root, "script", "steps")
	if err != nil {
		return nil, err
	}
	seq, ok := fields["steps"]
	if !ok {
		return nil, bad(root, "script", "key steps is missing")
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, bad(seq, "steps", "want a list of steps")
	}
	steps := make([]Step, 0, len(seq.Content))
	for i, n := range seq.Content {
		s, err := parseStep(n, i+1)
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// LoadScript reads the YAML script at path.
func LoadScript(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	steps, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return steps, nil
}

func parseStep(n *yaml.Node, num int) (Step, error) {
	where := fmt.Sprintf("steps[%d]", num)
	fields, err := mapping(n, where, "text", "reasoning", "toolCalls", "error", "block")
	if err != nil {
		return Step{}, err
	}
	var s Step
	if v, ok := fields["text"]; ok {
		if s.Text, err = str(v, where+".text"); err != nil {
			return Step{}, err
		}
	}
	if v, ok := fields["reasoning"]; ok {
		if s.Reasoning, err = str(v, where+".reasoning"); err != nil {
			return Step{}, err
		}
	}
	if v, ok := fields["toolCalls"]; ok {
		if s.ToolCalls, err = parseCalls(v, where+".toolCalls", num); err != nil {
			return Step{}, err
		}
	}
	if v, ok := fields["error"]; ok {
		msg, err := str(v, where+".error")
		if err != nil {
			return Step{}, err
		}
		if msg == "" {
			return Step{}, bad(v, where+".error", "want a non-empty message")
		}
		s.Err = errors.New(msg)
	}
	if v, ok := fields["block"]; ok {
		if v.Kind != yaml.ScalarNode || v.Tag != tagBool {
			return Step{}, bad(v, where+".block", "want true or false")
		}
		if err := v.Decode(&s.Block); err != nil {
			return Step{}, bad(v, where+".block", err.Error())
		}
	}
	has := func(key string) bool { _, ok := fields[key]; return ok }
	hasErr, hasBlock := has("error"), has("block")
	switch response := has("text") || has("toolCalls") || has("reasoning"); {
	case !response && !hasErr && !hasBlock:
		return Step{}, bad(n, where, "empty; want text, toolCalls, error or block")
	case hasErr && (response || hasBlock), hasBlock && response:
		return Step{}, bad(n, where, "mixes a response, an error and a block; use one")
	case hasBlock && !s.Block:
		return Step{}, bad(n, where, "block: false does nothing; remove it or set true")
	}
	return s, nil
}

func parseCalls(n *yaml.Node, where string, step int) ([]host.ToolCall, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, bad(n, where, "want a list of tool calls")
	}
	calls := make([]host.ToolCall, 0, len(n.Content))
	for i, cn := range n.Content {
		cw := fmt.Sprintf("%s[%d]", where, i+1)
		fields, err := mapping(cn, cw, "id", "name", "input")
		if err != nil {
			return nil, err
		}
		c := host.ToolCall{ID: fmt.Sprintf("call-%d-%d", step, i+1), Input: json.RawMessage("{}")}
		if v, ok := fields["id"]; ok {
			if c.ID, err = str(v, cw+".id"); err != nil {
				return nil, err
			}
			if c.ID == "" {
				return nil, bad(v, cw+".id", "want a non-empty string")
			}
		}
		v, ok := fields["name"]
		if !ok {
			return nil, bad(cn, cw, "key name is missing")
		}
		if c.Name, err = str(v, cw+".name"); err != nil {
			return nil, err
		}
		if c.Name == "" {
			return nil, bad(v, cw+".name", "want a non-empty string")
		}
		if v, ok := fields["input"]; ok {
			if c.Input, err = inputJSON(v, cw+".input"); err != nil {
				return nil, err
			}
		}
		calls = append(calls, c)
	}
	ids := make([]string, len(calls))
	for i, c := range calls {
		if slices.Contains(ids[:i], c.ID) {
			return nil, bad(n.Content[i], fmt.Sprintf("%s[%d].id", where, i+1), fmt.Sprintf("id %q repeats an earlier call's", c.ID))
		}
		ids[i] = c.ID
	}
	return calls, nil
}

// inputJSON converts a tool call's input mapping to JSON.
func inputJSON(n *yaml.Node, where string) (json.RawMessage, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, where, "want a mapping of arguments")
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, bad(n, where, err.Error())
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, bad(n, where, "not representable as JSON (keys must be strings, numbers finite): "+err.Error())
	}
	return js, nil
}

// mapping checks that n is a mapping with only the allowed, distinct keys
// and returns its values by key.
func mapping(n *yaml.Node, where string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, where, "want a mapping")
	}
	fields := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !slices.Contains(allowed, k.Value) {
			return nil, bad(k, where, fmt.Sprintf("unknown key %q; want one of %v", k.Value, allowed))
		}
		if _, dup := fields[k.Value]; dup {
			return nil, bad(k, where, fmt.Sprintf("key %q appears twice", k.Value))
		}
		fields[k.Value] = v
	}
	return fields, nil
}

// str returns a string scalar's value.
func str(n *yaml.Node, where string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != tagStr {
		return "", bad(n, where, fmt.Sprintf("want a string, got %s (quote it)", describe(n)))
	}
	return n.Value, nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("%s %q", n.Tag, n.Value)
}

func bad(n *yaml.Node, where, what string) error {
	return fmt.Errorf("scripted: script line %d: %s: %s: %w", n.Line, where, what, ErrBadScript)
}
