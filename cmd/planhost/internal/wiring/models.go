package wiring

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// Environment variables of the plan-mode model; each falls back to the
// default model's setting as PlanConfig describes.
const (
	EnvPlanBaseURL = "PLAN_OPENAI_BASE_URL"
	EnvPlanModel   = "PLAN_OPENAI_MODEL"
	EnvPlanAPIKey  = "PLAN_OPENAI_API_KEY"
)

// Texts of the model choices.
const (
	errPlanModelSame     = "-plan-model %q: the default mode's model has the same name; name another model, or leave -plan-model out"
	errPlanModelScripted = "-plan-model (or PLAN_OPENAI_MODEL): needs -model openai"
	errPlanModelNoPlan   = "-plan-model: the deployment does not enable plan-mode"
)

// PlanModel names the model that answers in plan mode (the -plan-*
// flags), when it is not the default mode's.
type PlanModel struct {
	Model, BaseURL, APIKey string
}

// PlanConfig is the plan-mode model's configuration: def (the default
// mode's) with pf's model name. A plan base URL of its own takes the key
// only from pf (never def's key, which belongs to another endpoint);
// without one, the plan model uses def's endpoint and def's key unless pf
// names a key. ok is false when no plan model is named.
func PlanConfig(def openaimodel.Config, pf PlanModel) (cfg openaimodel.Config, ok bool) {
	if pf.Model == "" {
		return openaimodel.Config{}, false
	}
	cfg = def
	cfg.Model = pf.Model
	switch {
	case pf.BaseURL != "":
		cfg.BaseURL, cfg.APIKey = pf.BaseURL, pf.APIKey
	case pf.APIKey != "":
		cfg.APIKey = pf.APIKey
	}
	return cfg, true
}

// modelRouter answers each step with the plan-mode model while the agent's
// logged plan mode is on, and with the default model otherwise. It reads
// the mode when the loop asks after the pre-step listeners (ChooseModel),
// so a switch takes effect at the step that lands it, as the plugin's
// notice does.
type modelRouter struct {
	def, plan         refhost.Model
	defName, planName string
	// mode is the plan-mode controller, set once the host is built (the
	// controller depends on the runtime, which depends on the model).
	mu   sync.Mutex
	mode *planmode.Controller
}

// newModelRouter routes between two models with distinct names.
func newModelRouter(def refhost.Model, defName string, plan refhost.Model, planName string) (*modelRouter, error) {
	if defName == planName {
		return nil, fmt.Errorf(errPlanModelSame, planName)
	}
	return &modelRouter{def: def, plan: plan, defName: defName, planName: planName}, nil
}

// BindRouter gives a router among the models the host's plan-mode
// controller; a plan-mode model without plan mode is a configuration
// error. Other models need nothing.
func BindRouter(m refhost.Model, parts *Parts) error {
	r, ok := m.(*modelRouter)
	if !ok {
		return nil
	}
	if parts.Plan == nil {
		return errors.New(errPlanModelNoPlan)
	}
	r.bind(parts.Plan)
	return nil
}

// bind gives the router the plan-mode controller it reads the mode from.
func (r *modelRouter) bind(c *planmode.Controller) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mode = c
}

// ChooseModel implements [refhost.ModelChooser].
func (r *modelRouter) ChooseModel(agent host.Agent) string {
	r.mu.Lock()
	c := r.mode
	r.mu.Unlock()
	if c != nil && c.Get(agent).Active {
		return r.planName
	}
	return r.defName
}

// Generate implements [refhost.Model]: the request goes to the model the
// loop recorded for the step, with the reasoning of messages another model
// wrote left out (see ownReasoning).
func (r *modelRouter) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	req.Messages = ownReasoning(req.Messages, req.Model)
	if req.Model == r.planName {
		return r.plan.Generate(ctx, req)
	}
	return r.def.Generate(ctx, req)
}

// ownReasoning returns msgs with the reasoning of every message that names
// a model other than model cleared: a thinking model's reasoning (DeepSeek's
// reasoning_content) goes back to that model, which requires it with tool
// calls, and never to another, which may refuse the field. A message that
// names no model (written before the host chose among several) keeps its
// reasoning. msgs is shared with the loop and left unchanged: a copy is
// returned when something is cleared.
func ownReasoning(msgs []refhost.Message, model string) []refhost.Message {
	var out []refhost.Message
	for i, m := range msgs {
		if m.Reasoning == "" || m.Model == "" || m.Model == model {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i].Reasoning = ""
	}
	if out == nil {
		return msgs
	}
	return out
}

var (
	_ refhost.Model        = (*modelRouter)(nil)
	_ refhost.ModelChooser = (*modelRouter)(nil)
)

// Model choices of -model.
const (
	ModelOpenAI         = "openai"
	modelScriptedPrefix = "scripted:"
)

// Model builds the model -model names (choice): "openai", with plan
// naming another model for plan mode (a router between the two, see
// BindRouter), or "scripted:FILE", a refhost/scripted script.
func Model(choice string, openai openaimodel.Config, plan PlanModel) (refhost.Model, error) {
	pc, routed := PlanConfig(openai, plan)
	switch {
	case choice == ModelOpenAI:
		m, err := openaimodel.New(openai)
		if err != nil {
			return nil, fmt.Errorf("-model openai: %w", err)
		}
		if !routed {
			return m, nil
		}
		pm, err := openaimodel.New(pc)
		if err != nil {
			return nil, fmt.Errorf("-plan-model: %w", err)
		}
		return newModelRouter(m, openai.Model, pm, pc.Model)
	case routed:
		return nil, errors.New(errPlanModelScripted)
	case strings.HasPrefix(choice, modelScriptedPrefix) && len(choice) > len(modelScriptedPrefix):
		steps, err := scripted.LoadScript(strings.TrimPrefix(choice, modelScriptedPrefix))
		if err != nil {
			return nil, fmt.Errorf("-model %s: %w", choice, err)
		}
		return scripted.NewModel(steps...), nil
	}
	return nil, fmt.Errorf("-model %q: want scripted:FILE or openai", choice)
}

// Routed reports whether m routes between a model per mode: the review
// then offers to carry the plan out with the default mode's model.
func Routed(m refhost.Model) bool {
	_, ok := m.(*modelRouter)
	return ok
}

// Endpoint is a model's base URL as the user may see it: no user info,
// query or fragment.
func Endpoint(base string) string {
	if base == "" {
		base = openaimodel.DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
