package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Environment variables of the plan-mode model; each falls back to the
// default model's setting as planConfig describes.
const (
	envPlanBaseURL = "PLAN_OPENAI_BASE_URL"
	envPlanModel   = "PLAN_OPENAI_MODEL"
	envPlanAPIKey  = "PLAN_OPENAI_API_KEY"
)

// planModelFlags name the model that answers in plan mode.
type planModelFlags struct {
	model, baseURL, apiKey string
}

// planConfig is the plan-mode model's configuration: def (the default
// mode's) with pf's model name. A plan base URL of its own takes the key
// only from pf (never def's key, which belongs to another endpoint);
// without one, the plan model uses def's endpoint and def's key unless pf
// names a key. ok is false when no plan model is named.
func planConfig(def openaimodel.Config, pf planModelFlags) (cfg openaimodel.Config, ok bool) {
	if pf.model == "" {
		return openaimodel.Config{}, false
	}
	cfg = def
	cfg.Model = pf.model
	switch {
	case pf.baseURL != "":
		cfg.BaseURL, cfg.APIKey = pf.baseURL, pf.apiKey
	case pf.apiKey != "":
		cfg.APIKey = pf.apiKey
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
	mode atomic.Pointer[planmode.Controller]
}

// newModelRouter routes between two models with distinct names.
func newModelRouter(def refhost.Model, defName string, plan refhost.Model, planName string) (*modelRouter, error) {
	if defName == planName {
		return nil, fmt.Errorf(errPlanModelSame, planName)
	}
	return &modelRouter{def: def, plan: plan, defName: defName, planName: planName}, nil
}

// bindRouter gives a router among the models the host's plan-mode
// controller; a plan-mode model without plan mode is a configuration
// error. Other models need nothing.
func bindRouter(m refhost.Model, parts *hostParts) error {
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
func (r *modelRouter) bind(c *planmode.Controller) { r.mode.Store(c) }

// ChooseModel implements [refhost.ModelChooser].
func (r *modelRouter) ChooseModel(agent host.Agent) string {
	if c := r.mode.Load(); c != nil && c.Get(agent).Active {
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
