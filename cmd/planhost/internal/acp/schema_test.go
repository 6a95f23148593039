package acp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Types of the params and results of each method, as the protocol's JSON
// schema names them.
var (
	// Requests and notifications the client sends, with the agent's result.
	clientMethods = map[string][2]string{
		"initialize":                {"InitializeRequest", "InitializeResponse"},
		"authenticate":              {"AuthenticateRequest", "AuthenticateResponse"},
		"session/new":               {"NewSessionRequest", "NewSessionResponse"},
		"session/load":              {"LoadSessionRequest", "LoadSessionResponse"},
		"session/prompt":            {"PromptRequest", "PromptResponse"},
		"session/set_mode":          {"SetSessionModeRequest", "SetSessionModeResponse"},
		"session/set_config_option": {"SetSessionConfigOptionRequest", "SetSessionConfigOptionResponse"},
		"session/cancel":            {"CancelNotification", ""},
	}
	// Requests and notifications the agent sends, with the client's result.
	agentMethods = map[string][2]string{
		"session/update":             {"SessionNotification", ""},
		"session/request_permission": {"RequestPermissionRequest", "RequestPermissionResponse"},
	}
)

// protocolSchema is one compiled copy of the protocol's JSON schema.
type protocolSchema struct {
	name          string
	compiler      *jsonschema.Compiler
	agent, client *jsonschema.Schema // the whole-message schemas
	mu            sync.Mutex
	defs          map[string]*jsonschema.Schema
}

var schemaCache sync.Map // path → *protocolSchema

// loadSchema compiles the schema file at path (a draft 2020-12 document
// whose top-level anyOf holds the agent's and the client's messages).
func loadSchema(t *testing.T, path string) *protocolSchema {
	t.Helper()
	if s, ok := schemaCache.Load(path); ok {
		return s.(*protocolSchema)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("protocol schema: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("protocol schema %s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	const url = "acp-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s := &protocolSchema{name: path, compiler: c, defs: map[string]*jsonschema.Schema{}}
	// The top-level anyOf holds the messages of each side, by title.
	top, _ := doc.(map[string]any)["anyOf"].([]any)
	for i, v := range top {
		title, _ := v.(map[string]any)["title"].(string)
		switch title {
		case "Agent":
			s.agent, err = c.Compile(fmt.Sprintf("%s#/anyOf/%d", url, i))
		case "Client":
			s.client, err = c.Compile(fmt.Sprintf("%s#/anyOf/%d", url, i))
		}
		if err != nil {
			t.Fatalf("protocol schema %s: %s messages: %v", path, title, err)
		}
	}
	if s.agent == nil || s.client == nil {
		t.Fatalf("protocol schema %s: no Agent or Client message schema at the top", path)
	}
	schemaCache.Store(path, s)
	return s
}

func (s *protocolSchema) def(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.defs[name]; ok {
		return d, nil
	}
	d, err := s.compiler.Compile("acp-schema.json#/$defs/" + name)
	if err != nil {
		return nil, err
	}
	s.defs[name] = d
	return d, nil
}

// goSDKSchema is the schema the Go SDK ships.
func goSDKSchema(t *testing.T) *protocolSchema {
	t.Helper()
	return loadSchema(t, filepath.Join(goModDir(t, "github.com/coder/acp-go-sdk"), "schema", "schema.json"))
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// checkTraffic validates every message both sides sent (see
// trafficProblems), failing t for each problem. It returns the number
// checked.
func checkTraffic(t *testing.T, s *protocolSchema, fromAgent, fromClient [][]byte) int {
	t.Helper()
	n, problems := trafficProblems(s, fromAgent, fromClient)
	for _, p := range problems {
		t.Error(p)
	}
	return n
}

// trafficProblems validates every message both sides sent: the whole
// message against the schema of its sender's messages, and the params and
// results against the types of their method.
func trafficProblems(s *protocolSchema, fromAgent, fromClient [][]byte) (int, []string) {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	clientReqs, agentReqs := map[string]string{}, map[string]string{}
	for _, l := range fromClient {
		var m message
		if json.Unmarshal(l, &m) == nil && m.Method != "" && m.ID != nil {
			clientReqs[string(m.ID)] = m.Method
		}
	}
	for _, l := range fromAgent {
		var m message
		if json.Unmarshal(l, &m) == nil && m.Method != "" && m.ID != nil {
			agentReqs[string(m.ID)] = m.Method
		}
	}
	n := 0
	check := func(side string, whole *jsonschema.Schema, own, peer map[string][2]string, peerReqs map[string]string, l []byte) {
		n++
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(l))
		if err != nil {
			errorf("%s sent invalid JSON %s: %v", side, l, err)
			return
		}
		if err := whole.Validate(v); err != nil {
			errorf("%s message does not match the %s schema (%s): %s\n%v", side, side, s.name, l, err)
		}
		var m message
		_ = json.Unmarshal(l, &m)
		var def string
		var part json.RawMessage
		switch {
		case m.Method != "":
			types, ok := own[m.Method]
			if !ok {
				errorf("%s sent method %q, which this test does not know", side, m.Method)
				return
			}
			def, part = types[0], m.Params
		case m.Result != nil:
			method, ok := peerReqs[string(m.ID)]
			if !ok {
				errorf("%s answered id %s, which the peer never sent", side, m.ID)
				return
			}
			def, part = peer[method][1], m.Result
		default:
			return // an error response: the whole-message check covers it
		}
		if def == "" {
			return
		}
		sch, err := s.def(def)
		if err != nil {
			errorf("schema type %s: %v", def, err)
			return
		}
		pv, err := jsonschema.UnmarshalJSON(bytes.NewReader(part))
		if err != nil {
			errorf("%s: %v", side, err)
			return
		}
		if err := sch.Validate(pv); err != nil {
			errorf("%s %s does not match %s (%s): %s\n%v", side, describeMsg(m), def, s.name, l, err)
		}
	}
	for _, l := range fromAgent {
		check("agent", s.agent, agentMethods, clientMethods, clientReqs, l)
	}
	for _, l := range fromClient {
		check("client", s.client, clientMethods, agentMethods, agentReqs, l)
	}
	return n, problems
}

func describeMsg(m message) string {
	if m.Method != "" {
		return m.Method
	}
	return fmt.Sprintf("response %s", m.ID)
}

func TestSchemaCheckFindsMalformedMessages(t *testing.T) {
	s := goSDKSchema(t)
	fromClient := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)}
	tests := []struct {
		name      string
		fromAgent string
	}{
		{"unknown update", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"bogus"}}}`},
		{"bad tool kind", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":"teleport"}}}`},
		{"result missing session id", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"bad permission kind", `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[{"optionId":"a","name":"A","kind":"maybe"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, problems := trafficProblems(s, [][]byte{[]byte(tt.fromAgent)}, fromClient); len(problems) == 0 {
				t.Errorf("no problem found in %s", tt.fromAgent)
			}
		})
	}
	good := `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`
	if _, problems := trafficProblems(s, [][]byte{[]byte(good)}, fromClient); len(problems) != 0 {
		t.Errorf("problems in a valid response: %v", problems)
	}
}
