package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// waitTimeout bounds every wait of a test.
const waitTimeout = 20 * time.Second

// testSection is the plan-mode guidance of the test deployment.
const testSection = "You are in plan mode: explore read-only and present a plan with exit_plan_mode."

// hostParts is the host a test connection drives.
type hostParts struct {
	app        *fx.App
	st         host.Store
	rt         *refhost.Runtime
	plan       *planmode.Controller
	workspaces *acp.Workspaces
}

// newHostParts builds and starts the reference host with plan mode and the
// routing workspace tools, as planhost acp does.
func newHostParts(t *testing.T, st host.Store, model refhost.Model, opts ...fx.Option) *hostParts {
	t.Helper()
	p := &hostParts{st: st, workspaces: acp.NewWorkspaces(workspace.Limits{})}
	app := fx.New(
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(st, fx.As(new(host.Store))),
			fx.Annotate(model, fx.As(new(refhost.Model))),
			planmode.Config{Section: testSection},
		),
		refhost.Module,
		planmode.Module,
		fx.Invoke(func(lc fx.Lifecycle, tools host.Tools) {
			var undo []func()
			lc.Append(fx.Hook{
				OnStart: func(context.Context) error {
					for _, tool := range p.workspaces.Tools() {
						u, err := tools.AddTool(tool)
						if err != nil {
							return err
						}
						undo = append(undo, u)
					}
					return nil
				},
				OnStop: func(context.Context) error {
					for _, u := range undo {
						u()
					}
					return nil
				},
			})
		}),
		fx.Populate(&p.rt, &p.plan),
		fx.Options(opts...),
	)
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p.app = app
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		_ = app.Stop(ctx)
	})
	return p
}

// recorder keeps every line that crossed one direction of the connection.
type recorder struct {
	mu    sync.Mutex
	lines [][]byte
	buf   []byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(r.buf[:i]); len(line) > 0 {
			r.lines = append(r.lines, bytes.Clone(line))
		}
		r.buf = r.buf[i+1:]
	}
	return len(p), nil
}

func (r *recorder) all() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.lines...)
}

// client is the editor side: the SDK's client connection, recording every
// update and answering permission requests with answer.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asks    []sdk.RequestPermissionRequest
	changed chan struct{}
	answer  answerFunc
}

// answerFunc answers a permission request as the client's user does.
type answerFunc = func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)

// selected is the answer choosing the option id.
func selected(id sdk.PermissionOptionId) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: id}}}
}

// cancelled is the answer of a client that withdrew the request.
var cancelled = sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}

func newClient() *client { return &client{changed: make(chan struct{}, 1)} }

func (c *client) note() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	c.note()
	return nil
}

func (c *client) RequestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asks = append(c.asks, req)
	answer := c.answer
	c.mu.Unlock()
	c.note()
	if answer == nil {
		return cancelled, nil
	}
	return answer(ctx, req)
}

func (c *client) setAnswer(f answerFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = f
}

func (c *client) snapshot() ([]sdk.SessionNotification, []sdk.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...), append([]sdk.RequestPermissionRequest(nil), c.asks...)
}

// waitUpdates polls until ok holds for the recorded updates.
func (c *client) waitUpdates(t *testing.T, what string, ok func([]sdk.SessionNotification) bool) {
	t.Helper()
	c.waitFor(t, what, func(us []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool { return ok(us) })
}

// waitFor polls until ok holds for the recorded updates and asks.
func (c *client) waitFor(t *testing.T, what string, ok func([]sdk.SessionNotification, []sdk.RequestPermissionRequest) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		if ok(c.snapshot()) {
			return
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			u, a := c.snapshot()
			t.Fatalf("timed out waiting for %s; updates: %s; asks: %d", what, describeUpdates(u), len(a))
		}
	}
}

var errUnsupported = errors.New("not supported by the test client")

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errUnsupported
}

func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errUnsupported
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errUnsupported
}

func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errUnsupported
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errUnsupported
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errUnsupported
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errUnsupported
}

// conn is one connection between the test client and acp.Serve.
type conn struct {
	t        *testing.T
	c        *client
	cs       *sdk.ClientSideConnection
	toAgent  io.WriteCloser // raw lines to the agent (through the recorder)
	fromSide *recorder      // what the agent wrote
	toSide   *recorder      // what the client wrote
	served   chan error
	closed   bool
}

// connect serves one connection on h and connects the SDK client to it.
func connect(t *testing.T, h *hostParts, opts ...func(*acp.Config)) *conn {
	t.Helper()
	cfg := acp.Config{Runtime: h.rt, Plan: h.plan, Store: h.st, Workspaces: h.workspaces, Version: "test"}
	for _, o := range opts {
		o(&cfg)
	}
	clientToAgentR, clientToAgentW := io.Pipe()
	agentToClientR, agentToClientW := io.Pipe()
	k := &conn{t: t, c: newClient(), fromSide: &recorder{}, toSide: &recorder{}, served: make(chan error, 1)}
	go func() {
		k.served <- acp.Serve(context.Background(), cfg, clientToAgentR, io.MultiWriter(agentToClientW, k.fromSide))
		agentToClientW.Close()
	}()
	k.toAgent = clientToAgentW
	k.cs = sdk.NewClientSideConnection(k.c, writerFunc(func(p []byte) (int, error) {
		k.toSide.Write(p)
		return clientToAgentW.Write(p)
	}), agentToClientR)
	k.cs.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(k.close)
	return k
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// close ends the connection and waits for Serve to return.
func (k *conn) close() {
	if k.closed {
		return
	}
	k.closed = true
	k.toAgent.Close()
	select {
	case err := <-k.served:
		if err != nil {
			k.t.Errorf("Serve: %v", err)
		}
	case <-time.After(waitTimeout):
		k.t.Errorf("Serve did not return after the client closed")
	}
	select {
	case <-k.cs.Done():
	case <-time.After(waitTimeout):
		k.t.Errorf("client connection did not close")
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

func (k *conn) initialize() sdk.InitializeResponse {
	k.t.Helper()
	resp, err := k.cs.Initialize(ctxT(k.t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientInfo: &sdk.Implementation{Name: "test", Version: "1"}})
	if err != nil {
		k.t.Fatalf("initialize: %v", err)
	}
	return resp
}

func (k *conn) newSession(cwd string) sdk.NewSessionResponse {
	k.t.Helper()
	resp, err := k.cs.NewSession(ctxT(k.t), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		k.t.Fatalf("session/new: %v", err)
	}
	return resp
}

func (k *conn) prompt(id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return k.cs.Prompt(ctxT(k.t), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// load loads the session id in dir.
func (k *conn) load(id sdk.SessionId, dir string) sdk.LoadSessionResponse {
	k.t.Helper()
	resp, err := k.cs.LoadSession(ctxT(k.t), sdk.LoadSessionRequest{SessionId: id, Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		k.t.Fatalf("session/load: %v", err)
	}
	return resp
}

func (k *conn) setMode(id sdk.SessionId, mode string) {
	k.t.Helper()
	if _, err := k.cs.SetSessionMode(ctxT(k.t), sdk.SetSessionModeRequest{SessionId: id, ModeId: sdk.SessionModeId(mode)}); err != nil {
		k.t.Fatalf("session/set_mode %s: %v", mode, err)
	}
}

// testSession is a client connected to a host, with one session open in
// a new workspace.
type testSession struct {
	*conn
	h   *hostParts
	id  sdk.SessionId
	dir string
}

// openSession connects a client to h with the connection options opts,
// initializes it and opens a session in a new workspace.
func openSession(t *testing.T, h *hostParts, opts ...func(*acp.Config)) *testSession {
	t.Helper()
	k := connect(t, h, opts...)
	k.initialize()
	dir := workspaceDir(t)
	return &testSession{conn: k, h: h, id: k.newSession(dir).SessionId, dir: dir}
}

// planMode switches the session to plan mode, the client answering each
// permission request with answer (nil: cancelled).
func (s *testSession) planMode(answer answerFunc) {
	s.t.Helper()
	s.c.setAnswer(answer)
	s.setMode(s.id, "plan")
}

// mustPrompt prompts the session with text; the turn must end end_turn.
func (s *testSession) mustPrompt(text string) {
	s.t.Helper()
	if resp, err := s.prompt(s.id, text); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		s.t.Fatalf("prompt %q = %v, %v; want end_turn", text, resp.StopReason, err)
	}
}

// promptResult is how a prompt ended.
type promptResult struct {
	resp sdk.PromptResponse
	err  error
}

// startPrompt prompts the session with text in the background.
func (s *testSession) startPrompt(text string) <-chan promptResult {
	done := make(chan promptResult, 1)
	go func() {
		resp, err := s.prompt(s.id, text)
		done <- promptResult{resp, err}
	}()
	return done
}

// cancel sends session/cancel.
func (s *testSession) cancel() {
	s.t.Helper()
	if err := s.cs.Cancel(ctxT(s.t), sdk.CancelNotification{SessionId: s.id}); err != nil {
		s.t.Fatal(err)
	}
}

// open opens the session in the host's store.
func (s *testSession) open() host.Session {
	s.t.Helper()
	hs, err := s.h.st.Open(string(s.id))
	if err != nil {
		s.t.Fatal(err)
	}
	return hs
}

// workspaceDir makes a workspace with one Go file.
func workspaceDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greeter.go"), []byte("package greeter\n\nfunc Hello() string { return \"hi\" }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// describeUpdates lists the kinds of the updates, for failure messages.
func describeUpdates(us []sdk.SessionNotification) string {
	var b strings.Builder
	for i, u := range us {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(updateKind(u.Update))
	}
	return "[" + b.String() + "]"
}

func updateKind(u sdk.SessionUpdate) string {
	switch {
	case u.UserMessageChunk != nil:
		return "user_message_chunk"
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.ToolCall != nil:
		return "tool_call(" + string(u.ToolCall.Kind) + ")"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update(" + string(u.CurrentModeUpdate.CurrentModeId) + ")"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	}
	return "other"
}

// modeUpdates returns the modes of the current_mode_updates, in order.
func modeUpdates(us []sdk.SessionNotification) []string {
	var out []string
	for _, u := range us {
		if m := u.Update.CurrentModeUpdate; m != nil {
			out = append(out, string(m.CurrentModeId))
		}
	}
	return out
}

// agentText joins the agent_message_chunk texts.
func agentText(us []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if m := u.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// newStore opens a file store in a temporary directory.
func newStore(t *testing.T) *store.Dir {
	t.Helper()
	st, err := store.OpenDir(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// approve answers a permission request with its allow_once option.
func approve(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return choose(req, sdk.PermissionOptionKindAllowOnce)
}

// keepPlanning answers with the reject_once option.
func keepPlanning(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return choose(req, sdk.PermissionOptionKindRejectOnce)
}

func choose(req sdk.RequestPermissionRequest, kind sdk.PermissionOptionKind) (sdk.RequestPermissionResponse, error) {
	for _, o := range req.Options {
		if o.Kind == kind {
			return selected(o.OptionId), nil
		}
	}
	return sdk.RequestPermissionResponse{}, fmt.Errorf("no %s option among %v", kind, req.Options)
}

// optionName is the name of a permission option with these words, as the
// client shows it in English.
func optionName(w present.OptionWords) string {
	return fmt.Sprintf(present.English.ACP.Option, w.Label, w.Description)
}

// keepPlanningName is the name of a review's Keep planning option, which
// carries no feedback over ACP.
var keepPlanningName = fmt.Sprintf(present.English.ACP.Option, present.English.Review.Options[host.RoleKeepPlanning].Label, present.English.ACP.KeepPlanning)

// goModDir returns the directory of a module of the build list.
func goModDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

// lines reads the agent's raw output lines into a channel (for tests that
// talk to Serve without the SDK).
func lines(r io.Reader) <-chan []byte {
	ch := make(chan []byte, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			ch <- bytes.Clone(sc.Bytes())
		}
	}()
	return ch
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
