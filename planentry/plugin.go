package planentry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
	"github.com/dshgo/planmode/internal/sessfold"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// Config is the plugin's configuration. It has no keys: enable the plugin
// with an empty entry ("plan-entry:" or "plan-entry: {}").
type Config struct{}

// DecodeConfig decodes the plugin's YAML node: null or an empty mapping;
// any key is an error.
func DecodeConfig(node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node)
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return Config{}, nil
}

// Module is the plugin as an fx module.
var Module = fx.Module(PluginName, fx.Provide(New), fx.Invoke(func(*Plugin) {}))

// DeployPlugin returns the plugin's entry for the deployment loader.
func DeployPlugin() deploy.Plugin {
	return deploy.ModulePlugin(PluginName, []string{planmode.PluginName}, DecodeConfig, Module)
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the (empty) configuration.
	Config Config `optional:"true"`
	// Controller is the plan-mode service; without it New fails with
	// [ErrNeedsPlanMode].
	Controller *planmode.Controller `optional:"true"`
	// Sections receives plan:goal.
	Sections host.Sections
	// Tools receives enter_plan_mode.
	Tools host.Tools
	// Validators receives the payload check of plan/goal.
	Validators host.Validators
	// EventTypes receives its declaration (log-only).
	EventTypes host.EventTypes
	// Questions is the channel the consent question goes through; without
	// it the tool fails closed.
	Questions host.UserQuestions `optional:"true"`
	// Lifecycle runs Start and Stop; without fx leave it nil.
	Lifecycle fx.Lifecycle `optional:"true"`
}

// Plugin is the plan-entry service.
type Plugin struct {
	p Params

	mu    sync.Mutex
	undo  []func()
	folds *sessfold.Folds[State]
	done  chan struct{} // closed by Stop
}

// New builds the plugin; it registers nothing until Start.
func New(p Params) (*Plugin, error) {
	if p.Controller == nil {
		return nil, fmt.Errorf("%s: %w", PluginName, ErrNeedsPlanMode)
	}
	pl := &Plugin{p: p}
	if p.Lifecycle != nil {
		p.Lifecycle.Append(fx.StartStopHook(pl.Start, pl.Stop))
	}
	return pl, nil
}

// Start registers the event type, the payload check, the section and the
// tool.
func (pl *Plugin) Start(context.Context) error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.folds != nil {
		return fmt.Errorf("%s: start: already running", PluginName)
	}
	folds := sessfold.New(func(s *State, e host.Event) { *s = Fold(*s, e) })
	regs := []companion.Registration{
		{What: "event type " + EventGoal, Add: func() (func(), error) {
			return pl.p.EventTypes.DeclareEventType(host.EventType{Name: EventGoal, Kind: host.LogOnly})
		}},
		{What: "payload check", Add: func() (func(), error) {
			return pl.p.Validators.AddValidator(PluginName, CheckPayload)
		}},
		{What: "section", Add: func() (func(), error) {
			return pl.p.Sections.AddSection(host.Section{Name: SectionName, Order: SectionOrder, Text: pl.sectionText})
		}},
		{What: "tool " + ToolName, Add: func() (func(), error) { return pl.p.Tools.AddTool(&tool{pl: pl}) }},
	}
	undo, err := companion.Registrations(PluginName, regs)
	if err != nil {
		folds.Close()
		return err
	}
	pl.folds, pl.undo, pl.done = folds, undo, make(chan struct{})
	return nil
}

// Stop undoes every registration and fails a consent question still open.
func (pl *Plugin) Stop(context.Context) error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.folds == nil {
		return nil
	}
	companion.Undo(pl.undo)
	pl.folds.Close()
	close(pl.done)
	pl.folds, pl.undo, pl.done = nil, nil, nil
	return nil
}

func (pl *Plugin) running() (*sessfold.Folds[State], chan struct{}) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.folds, pl.done
}

// sectionText renders plan:goal while plan mode is on and an entry's goal
// is logged.
func (pl *Plugin) sectionText(ac host.AssembleContext) string {
	folds, _ := pl.running()
	if folds == nil || ac.Agent == nil || ac.Agent.Session() == nil {
		return ""
	}
	s, err := folds.Get(ac.Agent.Session())
	if err != nil || !s.Active || s.Goal.Goal == "" {
		return ""
	}
	text := fmt.Sprintf(sectionGoal, s.Goal.Goal)
	if s.Goal.Scope != "" {
		text += fmt.Sprintf(sectionScope, s.Goal.Scope)
	}
	return text
}

// Tool errors.
var (
	errNoAgent   = errors.New(textNoAgent)
	errAlready   = errors.New(textAlready)
	errBlankGoal = errors.New(textBlankGoal)
	errNoChannel = errors.New(textNoChannel)
	errDelegated = errors.New(textDelegated)
	errDismissed = errors.New(textDismissed)
	errReloaded  = errors.New(textReloaded)
)

// tool is enter_plan_mode.
type tool struct{ pl *Plugin }

// Definition implements [host.Tool].
func (t *tool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: ToolName, Description: ToolDescription, InputSchema: json.RawMessage(InputSchema)}
}

// Execute implements [host.Tool]. It checks, in order: a calling agent;
// the session is not in plan mode or entering it; the input and a
// non-blank goal; a question channel. Then it asks the user. Consent
// (exactly one answer selecting exactly [OptionEnter], no custom text)
// records the goal and a silent pending entry; anything else declines.
func (t *tool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	agent := call.Agent
	if agent == nil || agent.Session() == nil {
		return "", errNoAgent
	}
	_, done := t.pl.running()
	if done == nil {
		return "", errReloaded
	}
	if st := t.pl.p.Controller.Get(agent); st.Active || st.Pending == planmode.SelectionActive {
		return "", errAlready
	}
	goal, err := decodeInput(input)
	if err != nil {
		return "", err
	}
	if t.pl.p.Questions == nil {
		return "", errNoChannel
	}
	q := consentQuestion(goal)
	answers, err := t.ask(ctx, done, agent, q)
	switch {
	case errors.Is(err, errReloaded):
		return "", errReloaded
	case errors.Is(err, host.ErrDismissed):
		return "", errDismissed
	case errors.Is(err, host.ErrNoProvider):
		return "", errNoChannel
	case errors.Is(err, host.ErrDelegatedAgent):
		return "", errDelegated
	case err != nil:
		return "", fmt.Errorf("%s: %w", textAskFailed, err)
	}
	ok, words := approval.Read(q, answers)
	if !ok {
		if words != "" {
			return fmt.Sprintf(textDeclinedWords, words), nil
		}
		return textDeclined, nil
	}
	data, err := json.Marshal(goal)
	if err != nil {
		return "", err
	}
	if _, err := agent.Session().Append(host.Event{Type: EventGoal, Data: data}); err != nil {
		return "", fmt.Errorf(textEnterFail, err)
	}
	if err := t.pl.p.Controller.Enter(agent); err != nil {
		if errors.Is(err, planmode.ErrPlanMode) {
			return "", errAlready
		}
		return "", fmt.Errorf(textEnterFail, err)
	}
	return textEntered, nil
}

// consentQuestion is the one question of the consent request: the goal
// and scope as its detail and fields, and the options with their roles.
func consentQuestion(goal GoalPayload) host.Question {
	detail := fmt.Sprintf(detailGoal, goal.Goal)
	fields := []host.Field{{Key: FieldGoal, Value: goal.Goal}}
	if goal.Scope != "" {
		detail += fmt.Sprintf(detailScope, goal.Scope)
		fields = append(fields, host.Field{Key: FieldScope, Value: goal.Scope})
	}
	return host.Question{
		ID: QuestionID, Header: questionHeader, Question: questionText, Detail: detail, Fields: fields,
		Options: []host.Option{
			{Label: OptionEnter, Description: optionEnterDesc, Role: host.RoleApprove},
			{Label: OptionDecline, Description: optionDeclDesc, Role: host.RoleDecline},
		},
	}
}

// ask puts the consent question q; it fails with errReloaded when the
// plugin stops while the question is open.
func (t *tool) ask(ctx context.Context, done <-chan struct{}, agent host.Agent, q host.Question) ([]host.Answer, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-done:
			cancel(errReloaded)
		case <-ctx.Done():
		}
	}()
	answers, err := t.pl.p.Questions.Ask(ctx, host.AskRequest{
		Agent: agent, Kind: host.AskConsent, Purpose: Purpose, Questions: []host.Question{q},
	})
	select {
	case <-done:
		return nil, errReloaded
	default:
		return answers, err
	}
}

// decodeInput reads {"goal": string, "scope"?: string}.
func decodeInput(input json.RawMessage) (GoalPayload, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil || fields == nil {
		return GoalPayload{}, fmt.Errorf(textBadInput, "got "+companion.QuoteJSON(input))
	}
	for k := range fields {
		if k != "goal" && k != "scope" {
			return GoalPayload{}, fmt.Errorf(textBadInput, fmt.Sprintf("unknown field %q", k))
		}
	}
	str := func(k string) (string, bool, error) {
		raw, ok := fields[k]
		if !ok {
			return "", false, nil
		}
		var s string
		if jsonin.IsNull(raw) || json.Unmarshal(raw, &s) != nil {
			return "", true, fmt.Errorf(textBadInput, fmt.Sprintf("%q is not a string", k))
		}
		return s, true, nil
	}
	goal, ok, err := str("goal")
	if err != nil {
		return GoalPayload{}, err
	}
	if !ok {
		return GoalPayload{}, fmt.Errorf(textBadInput, `"goal" is missing`)
	}
	scope, _, err := str("scope")
	if err != nil {
		return GoalPayload{}, err
	}
	switch {
	case strings.TrimSpace(goal) == "":
		return GoalPayload{}, errBlankGoal
	case len(goal) > MaxGoalSize:
		return GoalPayload{}, fmt.Errorf(textGoalTooLong, len(goal))
	case len(scope) > MaxScopeSize:
		return GoalPayload{}, fmt.Errorf(textBadInput, "the scope is longer than 4096 bytes")
	}
	return GoalPayload{Goal: goal, Scope: strings.TrimSpace(scope)}, nil
}

var _ host.Tool = (*tool)(nil)
