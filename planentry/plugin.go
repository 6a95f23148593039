package planentry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
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
	p     Params
	run   companion.Lifecycle
	goals *companion.Folds[GoalPayload] // the latest consented entry's goal
}

// New builds the plugin; it registers nothing until Start.
func New(p Params) (*Plugin, error) {
	if p.Controller == nil {
		return nil, fmt.Errorf("%s: %w", PluginName, ErrNeedsPlanMode)
	}
	pl := &Plugin{p: p, goals: companion.NewFolds(func(g *GoalPayload, e host.Event) {
		if e.Type == EventGoal {
			if p, err := decodeGoal(e.Data); err == nil {
				*g = p
			}
		}
	})}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return pl, nil
}

// Start registers the event type, the payload check, the section and the
// tool.
func (pl *Plugin) Start(context.Context) error {
	return pl.run.Start(PluginName, func(r *companion.Registrar) {
		r.Add("session folds", pl.goals.Open)
		r.LogOnly(pl.p.EventTypes, EventGoal)
		r.Validator(pl.p.Validators, PluginName, CheckPayload)
		r.Section(pl.p.Sections, host.Section{Name: SectionName, Order: SectionOrder, Text: pl.sectionText})
		r.Tools(pl.p.Tools, companion.Tool{
			Def: host.ToolDefinition{Name: ToolName, Description: ToolDescription, InputSchema: json.RawMessage(InputSchema)},
			Run: pl.enter,
		})
	})
}

// Stop undoes every registration and fails a consent question still open.
func (pl *Plugin) Stop(ctx context.Context) error { return pl.run.Stop(ctx) }

// sectionText renders plan:goal while plan mode is on and an entry's goal
// is logged.
func (pl *Plugin) sectionText(ac host.AssembleContext) string {
	if ac.Agent == nil || ac.Agent.Session() == nil || !pl.p.Controller.Get(ac.Agent).Active {
		return ""
	}
	g, err := pl.goals.Get(ac.Agent.Session())
	if err != nil || g.Goal == "" {
		return ""
	}
	text := fmt.Sprintf(sectionGoal, g.Goal)
	if g.Scope != "" {
		text += fmt.Sprintf(sectionScope, g.Scope)
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

// enter is enter_plan_mode. It checks, in order: a calling agent; the
// session is not in plan mode or entering it; the input and a non-blank
// goal; a question channel. Then it asks the user. Consent (exactly one
// answer selecting exactly [OptionEnter], no custom text) records the goal
// and a silent pending entry; anything else declines.
func (pl *Plugin) enter(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	host.SetOutcome(ctx, OutcomeRefused) // until the user is asked
	agent := call.Agent
	if agent == nil || agent.Session() == nil {
		return "", errNoAgent
	}
	if st := pl.p.Controller.Get(agent); st.Active || st.Pending == planmode.SelectionActive {
		return "", errAlready
	}
	goal, err := decodeInput(input)
	if err != nil {
		return "", err
	}
	if pl.p.Questions == nil {
		return "", errNoChannel
	}
	q := consentQuestion(goal)
	answers, err := pl.run.Ask(ctx, pl.p.Questions, host.AskRequest{
		Agent: agent, Kind: host.AskConsent, Purpose: Purpose, Questions: []host.Question{q},
	}, errReloaded)
	switch {
	case errors.Is(err, errReloaded):
		host.SetOutcome(ctx, OutcomeFailed)
		return "", errReloaded
	case errors.Is(err, host.ErrDismissed):
		host.SetOutcome(ctx, OutcomeDismissed)
		return "", errDismissed
	case errors.Is(err, host.ErrNoProvider):
		return "", errNoChannel
	case errors.Is(err, host.ErrDelegatedAgent):
		return "", errDelegated
	case err != nil:
		host.SetOutcome(ctx, OutcomeFailed)
		return "", fmt.Errorf("%s: %w", textAskFailed, err)
	}
	ok, words := approval.Read(q, answers)
	if !ok {
		host.SetOutcome(ctx, OutcomeDeclined)
		if words != "" {
			return fmt.Sprintf(textDeclinedWords, words), nil
		}
		return textDeclined, nil
	}
	data, err := json.Marshal(goal)
	if err != nil {
		return "", err
	}
	if _, err := host.Append(ctx, agent.Session(), host.Event{Type: EventGoal, Data: data}); err != nil {
		return "", fmt.Errorf(textEnterFail, err)
	}
	if err := pl.p.Controller.Enter(agent); err != nil {
		if errors.Is(err, planmode.ErrPlanMode) {
			return "", errAlready
		}
		return "", fmt.Errorf(textEnterFail, err)
	}
	host.SetOutcome(ctx, OutcomeEntered)
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

// decodeInput reads {"goal": string, "scope"?: string}.
func decodeInput(input json.RawMessage) (GoalPayload, error) {
	var in struct {
		Goal  *string `json:"goal"`
		Scope string  `json:"scope"`
	}
	switch err := jsonin.Strict("the input", input, &in); {
	case err != nil:
		return GoalPayload{}, fmt.Errorf(textBadInput, err)
	case in.Goal == nil:
		return GoalPayload{}, fmt.Errorf(textBadInput, `"goal" is missing`)
	case strings.TrimSpace(*in.Goal) == "":
		return GoalPayload{}, errBlankGoal
	case len(*in.Goal) > MaxGoalSize:
		return GoalPayload{}, fmt.Errorf(textGoalTooLong, len(*in.Goal))
	case len(in.Scope) > MaxScopeSize:
		return GoalPayload{}, fmt.Errorf(textBadInput, "the scope is longer than 4096 bytes")
	}
	return GoalPayload{Goal: *in.Goal, Scope: strings.TrimSpace(in.Scope)}, nil
}
