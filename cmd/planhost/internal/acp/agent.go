package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
)

// stopTimeout bounds how long the agent waits for a cancelled turn to end
// and for the last updates to reach the client.
const stopTimeout = 10 * time.Second

// Config is what [Serve] drives.
type Config struct {
	// Runtime is the started reference host. Serve attaches itself as its
	// user-question provider for the connection's lifetime.
	Runtime *refhost.Runtime
	// Plan is the started plan-mode controller; nil when the deployment
	// does not enable plan mode (the sessions then offer no modes).
	Plan *planmode.Controller
	// Store creates and opens the sessions.
	Store host.Store
	// Workspaces binds each session's workspace; its Tools must be
	// registered with the runtime.
	Workspaces *Workspaces
	// Logger receives diagnostics; nil discards them. It must not write to
	// the connection's output.
	Logger *slog.Logger
	// Version is the agent version the initialize response names.
	Version string
	// Catalog holds the words the client shows; nil for English.
	Catalog *present.Catalog
	// ToolKinds adds to (or overrides) [DefaultToolKinds].
	ToolKinds map[string]sdk.ToolKind
	// Plans, when set, turns the log into the protocol's plan updates (the
	// todo list, tracked plan steps).
	Plans PlanFeed
	// Leases, when set, shows the client the turn-lease notices of
	// sessions several processes share, for the connection's lifetime.
	Leases *LeaseNotices
}

// PlanFeed follows session logs and reports the protocol's plan entries
// whenever they change: the todo list and tracked plan steps of the
// companion plugins.
type PlanFeed interface {
	// Follow returns a follower for one session's log. It is called with
	// every event of the log, in order, from the first on (a loaded
	// session's history included); it reports the complete entries and true
	// when the event changed them. It runs while the session's append lock
	// is held, so it must be fast and must not call into the session.
	Follow(sessionID string) func(e host.Event) (entries []sdk.PlanEntry, changed bool)
}

// Serve runs the agent on one connection: it reads the client's messages
// from in and writes the agent's to out until in ends or ctx is done, then
// stops the connection's agents (their sessions stay in the store), unbinds
// their workspaces and returns. One connection at a time may serve a
// runtime: Serve attaches itself as the runtime's question provider. Lines that are not JSON-RPC 2.0 messages are answered with an
// error and skipped; notifications the agent has no handler for are
// dropped.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	switch {
	case cfg.Runtime == nil:
		return errors.New("acp: config: Runtime is nil")
	case cfg.Store == nil:
		return errors.New("acp: config: Store is nil")
	case cfg.Workspaces == nil:
		return errors.New("acp: config: Workspaces is nil")
	}
	a := newAgent(cfg)
	unset, err := cfg.Runtime.Questions().SetProvider(a)
	if err != nil {
		return fmt.Errorf("acp: %w", err)
	}
	defer unset()
	if cfg.Leases != nil {
		defer cfg.Leases.attach(a)()
	}
	a.out = newOutput(out)
	pr, pw := io.Pipe()
	// The client's answers reach the connection only for requests it was
	// sent (see requestIDs).
	ids := newRequestIDs(a.log)
	answers := ids.responses(pr)
	a.conn = sdk.NewAgentSideConnection(a, ids.requests(a.out), answers)
	a.conn.SetLogger(a.log)
	a.cancels = newCancelGate(a.conn.Done())
	// Nothing reaches the connection before the filter starts, so no
	// handler runs before a.conn and a.cancels are set.
	filtered := make(chan struct{})
	go func() {
		defer close(filtered)
		filter(in, pw, a.out, a.log, a.cancels)
	}()
	select {
	case <-ctx.Done():
		pr.CloseWithError(ctx.Err())
		<-a.conn.Done()
	case <-a.conn.Done():
	}
	answers.Close()
	a.shutdown()
	select {
	case <-filtered:
	default:
		// in is still open (ctx ended the connection): the filter ends
		// when in does.
	}
	return nil
}

// Agent is the ACP agent of one connection; it implements the SDK's Agent
// and AgentLoader and the host's user-question provider.
type Agent struct {
	cfg   Config
	cat   *present.Catalog
	log   *slog.Logger
	kinds map[string]sdk.ToolKind
	conn  *sdk.AgentSideConnection
	out   *output
	// cancels bounds the session/cancel messages on their way to Cancel.
	cancels *cancelGate

	handlers sync.WaitGroup // running method handlers
	senders  sync.WaitGroup // the sessions' update senders
	closing  chan struct{}  // closed when the connection ends

	mu          sync.Mutex
	initialized bool
	closed      bool
	sessions    map[string]*session
}

func newAgent(cfg Config) *Agent {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kinds := DefaultToolKinds()
	for k, v := range cfg.ToolKinds {
		kinds[k] = v
	}
	return &Agent{cfg: cfg, cat: cmp.Or(cfg.Catalog, present.English), log: log, kinds: kinds, closing: make(chan struct{}), sessions: map[string]*session{}}
}

// track counts a running handler; the returned func ends it.
func (a *Agent) track() func() {
	a.handlers.Add(1)
	return a.handlers.Done
}

// shutdown stops every session once the connection has ended.
func (a *Agent) shutdown() {
	a.mu.Lock()
	a.closed = true
	sessions := slices.Collect(maps.Values(a.sessions))
	a.mu.Unlock()
	close(a.closing)
	a.out.openAll()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	for _, s := range sessions {
		s.close(ctx)
	}
	a.handlers.Wait()
	a.senders.Wait()
	for _, s := range sessions {
		a.cfg.Workspaces.Unbind(s.id)
	}
}

// ready fails when initialize has not been called.
func (a *Agent) ready(method string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.initialized {
		return sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(errNotInitialized, method)})
	}
	return nil
}

// session returns the connection's session id.
func (a *Agent) session(method string, id sdk.SessionId) (*session, error) {
	if err := a.ready(method); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errUnknownSession, id)})
	}
	return s, nil
}

// Initialize implements the SDK's Agent: it negotiates the protocol version
// (the client's when it is ours, else ours) and advertises session loading
// and image and embedded-context prompts.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	defer a.track()()
	a.mu.Lock()
	a.initialized = true
	a.mu.Unlock()
	version := sdk.ProtocolVersion(sdk.ProtocolVersionNumber)
	if p.ProtocolVersion != version {
		a.log.Info("acp: client asked for another protocol version; offering ours", "client", p.ProtocolVersion, "agent", version)
	}
	return sdk.InitializeResponse{
		ProtocolVersion: version,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
		},
		AgentInfo:   &sdk.Implementation{Name: agentName, Title: sdk.Ptr(agentTitle), Version: cmp.Or(a.cfg.Version, "devel")},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements the SDK's Agent. The agent offers no
// authentication methods, so there is nothing to do.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	defer a.track()()
	return sdk.AuthenticateResponse{}, nil
}

// NewSession implements the SDK's Agent: a new session in the store, its
// workspace rooted at cwd.
func (a *Agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	defer a.track()()
	if err := a.ready(sdk.AgentMethodSessionNew); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	sess, err := a.cfg.Store.Create("")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.open(sess, p.Cwd, true)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	resp := sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id)}
	if a.cfg.Plan != nil {
		resp.Modes, resp.ConfigOptions = modeState(a.cat, s.loggedMode()), configOptions(a.cat, s.loggedMode())
	}
	return resp, nil
}

// LoadSession implements the SDK's AgentLoader: it opens the stored
// session (or takes the one this connection already has open), replays
// its history as updates and then answers.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	defer a.track()()
	if err := a.ready(sdk.AgentMethodSessionLoad); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	id := string(p.SessionId)
	a.mu.Lock()
	s, ok := a.sessions[id]
	a.mu.Unlock()
	if ok {
		if !s.prompt.TryLock() {
			return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(errSessionBusyLoad, id)})
		}
		defer s.prompt.Unlock()
		if err := a.cfg.Workspaces.Bind(id, p.Cwd); err != nil {
			return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		s.replayAll()
	} else {
		sess, err := a.cfg.Store.Open(id)
		switch {
		case errors.Is(err, host.ErrSessionNotFound), errors.Is(err, host.ErrBadSessionID):
			return sdk.LoadSessionResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"error": err.Error()}}
		case err != nil:
			return sdk.LoadSessionResponse{}, err
		}
		if s, err = a.open(sess, p.Cwd, false); err != nil {
			return sdk.LoadSessionResponse{}, err
		}
	}
	s.pushCommands(a.cfg.Runtime.CommandList())
	if err := s.q.flush(ctx); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	var resp sdk.LoadSessionResponse
	if a.cfg.Plan != nil {
		resp.Modes, resp.ConfigOptions = modeState(a.cat, s.loggedMode()), configOptions(a.cat, s.loggedMode())
	}
	return resp, nil
}

// checkCwd refuses a cwd that is not an absolute path to a directory.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errBadCwd, cwd)})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errBadCwd, cwd)})
	}
	return nil
}

// open binds sess to an agent and a workspace, replays its log into the
// update queue and starts the session's sender. A new session's updates
// wait for its session/new response.
func (a *Agent) open(sess host.Session, cwd string, fresh bool) (*session, error) {
	id := sess.ID()
	if err := a.cfg.Workspaces.Bind(id, cwd); err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	agent, err := a.cfg.Runtime.NewAgent("", sess)
	if err != nil {
		a.cfg.Workspaces.Unbind(id)
		return nil, err
	}
	s := newSession(a, id, agent)
	var gate <-chan struct{}
	if fresh {
		gate = a.out.gate(id)
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		stopCtx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		_ = agent.Stop(stopCtx)
		a.cfg.Workspaces.Unbind(id)
		return nil, sdk.NewInternalError(map[string]any{"error": "the connection is closing"})
	}
	a.sessions[id] = s
	a.senders.Add(1)
	a.mu.Unlock()
	go func() {
		defer a.senders.Done()
		s.q.run(s.done, gate, s.send)
	}()
	s.follow()
	if fresh {
		s.pushCommands(a.cfg.Runtime.CommandList())
	}
	return s, nil
}

// Prompt implements the SDK's Agent: a line starting with "/" runs the
// host's command of that name; anything else is steered to the agent. It
// waits for the turns it started, logs a mode switch still pending when
// they end, waits for their updates to reach the client, and answers with
// the stop reason of the last turn.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	defer a.track()()
	s, err := a.session(sdk.AgentMethodSessionPrompt, p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	msg, text, err := promptMessage(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	// The SDK cancels a session's running prompt when a new one arrives;
	// the new one runs once the cancelled one has answered.
	s.prompt.Lock()
	defer s.prompt.Unlock()
	from := s.agent.Session().Len()
	line := strings.TrimSpace(text)
	if strings.HasPrefix(line, "/") {
		var images []host.Block
		for _, b := range msg.Content {
			if b.Type == host.BlockImage {
				images = append(images, b)
			}
		}
		handled, reply, err := a.cfg.Runtime.Execute(ctx, s.agent, line, images)
		name, _, _ := refhost.ParseCommand(line)
		if !handled {
			s.q.push(sdk.UpdateAgentMessageText(fmt.Sprintf(a.cat.ACP.UnknownCommand, name, a.commandNames())))
		} else {
			// The reply in the user's words, as every front end says it;
			// the logged reply is shown only when a session is loaded.
			var st planmode.State
			if a.cfg.Plan != nil {
				st = a.cfg.Plan.Get(s.agent)
			}
			reopened := present.Reopened(s.agent.Session().Events(), from)
			for _, it := range a.cat.CommandReply(name, true, reply, err, st, a.cfg.Plan != nil, reopened) {
				s.q.push(sdk.UpdateAgentMessageText(shownEntry(it.Text))) // escaped, as on load
			}
		}
	} else if err := s.agent.Steer(msg); err != nil {
		return sdk.PromptResponse{}, err
	}
	if err := s.agent.WaitIdle(ctx); err != nil {
		s.agent.Cancel()
		wctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		_ = s.agent.WaitIdle(wctx)
		cancel()
	}
	// A mode switch made after the turn's last step is logged now, so its
	// current_mode_update goes out before the response.
	if a.cfg.Plan != nil {
		if _, err := a.cfg.Plan.LandPending(s.agent); err != nil {
			a.log.Warn("acp: the pending mode switch was not logged", "session", s.id, "err", err)
		}
	}
	fctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_ = s.q.flush(fctx)
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	return stopReason(s.agent.Session().Events(), from)
}

// stopReason reads the last turn end among the events from index from on.
func stopReason(events host.Log, from int) (sdk.PromptResponse, error) {
	for i, e := range events.Backward(events.Len()) {
		if i < from {
			break
		}
		if e.Type != host.TypeTurnEnd {
			continue
		}
		var end host.TurnEnd
		if err := json.Unmarshal(e.Data, &end); err != nil {
			return sdk.PromptResponse{}, err
		}
		switch end.Reason {
		case host.TurnCompleted:
			return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
		case host.TurnCancelled:
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case host.TurnBlocked:
			return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
		case host.TurnStepsExhausted:
			return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
		}
		if legacyStepsExhausted(end) {
			return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
		}
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": fmt.Sprintf(errTurnFailed, end.Error)})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// legacyStepsExhausted reports whether end is how refhost logged an
// exhausted step budget before the reason steps-exhausted: an error whose
// whole text is [refhost.ErrStepsExhausted]'s with the step ("... (N)").
// A model's error that merely quotes those words is still an error.
func legacyStepsExhausted(end host.TurnEnd) bool {
	rest, ok := strings.CutPrefix(end.Error, refhost.ErrStepsExhausted.Error()+" (")
	step, closed := strings.CutSuffix(rest, ")")
	_, err := strconv.Atoi(step)
	return end.Reason == host.TurnError && ok && closed && err == nil
}

// commandNames lists the host's commands.
func (a *Agent) commandNames() string {
	cmds := a.cfg.Runtime.CommandList()
	if len(cmds) == 0 {
		return a.cat.ACP.NoCommands
	}
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = "/" + c.Name
	}
	return strings.Join(names, ", ")
}

// Cancel implements the SDK's Agent: it cancels the session's running
// turn; the prompt then answers "cancelled".
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	a.cancels.give()
	defer a.track()()
	s, err := a.session(sdk.AgentMethodSessionCancel, p.SessionId)
	if err != nil {
		return err
	}
	s.agent.Cancel()
	return nil
}

// SetSessionMode implements the SDK's Agent: "plan" or "default" through
// the plan-mode controller's Set. When a turn is open the change waits for
// its next step, or for the turn's end when no step follows (Prompt lands
// it then); the current_mode_update follows the logged change.
func (a *Agent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	defer a.track()()
	s, err := a.session(sdk.AgentMethodSessionSetMode, p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := a.setMode(s, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption implements the SDK's Agent for the one option,
// "mode"; the answer carries the selected mode (pending until the next step
// when a turn is open).
func (a *Agent) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	defer a.track()()
	if p.Boolean != nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errBoolConfig, p.Boolean.ConfigId, ModeDefault, ModePlan)})
	}
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errUnknownConfig, "", ConfigMode)})
	}
	s, err := a.session(sdk.AgentMethodSessionSetConfigOption, p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if p.ValueId.ConfigId != ConfigMode {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errUnknownConfig, p.ValueId.ConfigId, ConfigMode)})
	}
	if err := a.setMode(s, string(p.ValueId.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	st := a.cfg.Plan.Get(s.agent)
	active := st.Active
	if st.Pending != planmode.SelectionNone {
		active = st.Pending == planmode.SelectionActive
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: configOptions(a.cat, active)}, nil
}

func (a *Agent) setMode(s *session, mode string) error {
	if a.cfg.Plan == nil {
		return sdk.NewInvalidRequest(map[string]any{"error": errNoPlanMode})
	}
	if mode != ModeDefault && mode != ModePlan {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errUnknownMode, mode, ModeDefault, ModePlan)})
	}
	outcome, err := a.cfg.Plan.Set(s.agent, mode == ModePlan)
	if err != nil {
		return err
	}
	a.log.Debug("acp: mode set", "session", s.id, "mode", mode, "outcome", outcome.String())
	return nil
}

// ListSessions implements the SDK's Agent; the capability is not
// advertised.
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	defer a.track()()
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession implements the SDK's Agent; the capability is not
// advertised (session/load is).
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	defer a.track()()
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// CloseSession implements the SDK's Agent; the capability is not
// advertised.
func (a *Agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	defer a.track()()
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

var (
	_ sdk.Agent          = (*Agent)(nil)
	_ sdk.AgentLoader    = (*Agent)(nil)
	_ refhost.Provider   = (*Agent)(nil)
	_ host.UserQuestions = (*Agent)(nil)
)
