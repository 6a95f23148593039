package planreview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// Config keys.
const (
	keyOptions  = "options"
	keyHeadless = "headless"
)

// Config is the plugin's configuration:
//
//	plugins:
//	  plan-review:
//	    options: [approve-with-comments, approve-and-clear, abandon]
//	    headless: keep-planning   # optional: approve or keep-planning
type Config struct {
	// Options are the extra review answers, offered in this order between
	// Approve and Keep planning: a non-empty list of distinct values among
	// approve-with-comments, approve-and-clear and abandon.
	Options []string `yaml:"options"`
	// Headless answers a review when no user is attached: "approve" or
	// "keep-planning". Empty keeps the behaviour with no companion enabled (the call fails).
	Headless string `yaml:"headless"`
}

// Validate checks a Config built by hand.
func (c Config) Validate() error {
	var errs []error
	if len(c.Options) == 0 {
		errs = append(errs, fmt.Errorf("%s: must list at least one of %s", keyOptions, strings.Join(allOptions, ", ")))
	}
	for i, o := range c.Options {
		if !slices.Contains(allOptions, o) || slices.Index(c.Options, o) != i {
			errs = append(errs, fmt.Errorf("%s[%d]: %q is unknown or repeated", keyOptions, i, o))
		}
	}
	if c.Headless != "" && c.Headless != HeadlessApprove && c.Headless != HeadlessKeepPlanning {
		errs = append(errs, fmt.Errorf("%s: %q is not approve or keep-planning", keyHeadless, c.Headless))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: config: %w", PluginName, errors.Join(errs...))
	}
	return nil
}

// DecodeConfig decodes the plugin's YAML node strictly.
func DecodeConfig(node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node, keyOptions, keyHeadless)
	var cfg Config
	if m.Require(keyOptions, whatOptions) {
		cfg.Options = m.Strings(keyOptions, allOptions...)
	}
	cfg.Headless = m.OneOf(keyHeadless, HeadlessApprove, HeadlessKeepPlanning)
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// Module is the plugin as an fx module: it supplies its exit extension to
// the plan-mode controller.
var Module = fx.Module(PluginName,
	fx.Provide(New),
	fx.Invoke(func(*Plugin) {}),
	companion.RequirePlanMode(PluginName),
)

// DeployPlugin returns the plugin's entry for the deployment loader.
func DeployPlugin() deploy.Plugin {
	return deploy.ModulePlugin(PluginName, []string{planmode.PluginName}, DecodeConfig, Module)
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the validated configuration.
	Config Config
	// Validators receives the payload check of plan/policy.
	Validators host.Validators
	// EventTypes receives its declaration (log-only).
	EventTypes host.EventTypes
	// Compactor is the host's compaction seam; approve-and-clear needs it.
	Compactor host.Compactor `optional:"true"`
	// Lifecycle runs Start and Stop; without fx leave it nil.
	Lifecycle fx.Lifecycle `optional:"true"`
}

// Result is the output of [New].
type Result struct {
	fx.Out

	// Plugin is the plan-review service.
	Plugin *Plugin
	// Exit is the plugin's part in exit_plan_mode; pass it in
	// planmode.Params.ExitExtensions when not using fx.
	Exit planmode.ExitExtension `group:"planmode.exit"`
}

// Plugin is the plan-review service.
type Plugin struct {
	p   Params
	run companion.Lifecycle
}

// New builds the plugin; it registers nothing until Start.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	if slices.Contains(p.Config.Options, OptionApproveAndClear) && p.Compactor == nil {
		return Result{}, fmt.Errorf("%s: %w", PluginName, ErrNoCompactor)
	}
	pl := &Plugin{p: p}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return Result{Plugin: pl, Exit: pl.extension()}, nil
}

// Start registers the plan/policy event type and its payload check.
func (pl *Plugin) Start(context.Context) error {
	return pl.run.Start(PluginName, func(r *companion.Registrar) {
		r.LogOnly(pl.p.EventTypes, EventPolicy)
		r.Validator(pl.p.Validators, PluginName, CheckPayload)
	})
}

// Stop undoes the registrations.
func (pl *Plugin) Stop(ctx context.Context) error { return pl.run.Stop(ctx) }

// policyOption marks a verdict the headless policy gave; no review option
// has this label, so no answer can produce it.
const policyOption = "\x00headless-policy"

// extension is the plugin's part in exit_plan_mode.
func (pl *Plugin) extension() planmode.ExitExtension {
	var opts []host.Option
	for _, o := range pl.p.Config.Options {
		opts = append(opts, labels[o])
	}
	x := planmode.ExitExtension{
		Name:    PluginName,
		Order:   ExitOrder,
		Options: opts,
		ResultProperties: map[string]json.RawMessage{
			ResultComments: json.RawMessage(schemaComments),
			ResultCleared:  json.RawMessage(schemaCleared),
			"policy":       json.RawMessage(schemaPolicy),
			"message":      json.RawMessage(schemaMessage),
		},
		Decide: pl.decide,
		Finish: pl.finish,
	}
	if pl.p.Config.Headless != "" {
		x.Unattended = pl.unattended
	}
	return x
}

// decide handles an answer that selects a configured option of the
// plugin; every other answer is left to the core's rule. Consent is
// exactly one answer with exactly one selection.
func (pl *Plugin) decide(x *planmode.ExitCall, answers []host.Answer) (planmode.ExitVerdict, bool) {
	o, a, ok := x.Chosen(answers)
	if !ok || !slices.ContainsFunc(pl.p.Config.Options, func(c string) bool { return labels[c].Role == o.Role }) {
		return planmode.ExitVerdict{}, false
	}
	keep := planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning}
	words := strings.TrimSpace(a.Custom) != ""
	switch o.Role {
	case host.RoleApproveWithComments:
		switch {
		case !words:
			return keep, true
		case len(a.Custom) > MaxCommentsSize:
			keep.Err = fmt.Errorf(textCommentsTooLarge, len(a.Custom), MaxCommentsSize)
			return keep, true
		}
		return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: LabelApproveWithComments, Comments: a.Custom}, true
	case host.RoleApproveAndClear:
		if words {
			keep.Feedback = a.Custom
			return keep, true
		}
		return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: LabelApproveAndClear}, true
	default: // host.RoleAbandon
		if words {
			keep.Err = fmt.Errorf(textAbandonWithWords, a.Custom)
			return keep, true
		}
		return planmode.ExitVerdict{Kind: planmode.VerdictAbandon, Option: LabelAbandon}, true
	}
}

// errPolicyKeepPlanning is the fixed error of the keep-planning policy.
var errPolicyKeepPlanning = errors.New(textPolicyKeepPlanning)

// unattended answers for an absent user with the configured policy.
func (pl *Plugin) unattended(context.Context, *planmode.ExitCall) (planmode.ExitVerdict, bool) {
	switch pl.p.Config.Headless {
	case HeadlessApprove:
		return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: policyOption}, true
	case HeadlessKeepPlanning:
		return planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning, Err: errPolicyKeepPlanning}, true
	}
	return planmode.ExitVerdict{}, false
}

// finish adds the plugin's result fields, logs a policy's approval, and
// schedules the compaction of approve-and-clear.
func (pl *Plugin) finish(ctx context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	switch {
	case v.Kind == planmode.VerdictAbandon:
		x.Result["message"] = textAbandoned
	case v.Option == policyOption:
		data, _ := json.Marshal(PolicyPayload{Policy: keyHeadless, Decision: HeadlessApprove})
		if _, err := host.Append(ctx, x.Agent.Session(), host.Event{Type: EventPolicy, Data: data}); err != nil {
			return fmt.Errorf("%s: log %s: %w", PluginName, EventPolicy, err)
		}
		x.Result["policy"] = keyHeadless + ": " + HeadlessApprove
		x.Result["message"] = textPolicyApproved
	case v.Option == LabelApproveWithComments:
		x.Result[ResultComments] = v.Comments
		x.Result["message"] = textApprovedWithComments
	case v.Option == LabelApproveAndClear:
		if err := pl.p.Compactor.CompactBeforeNextRequest(x.Agent, clearSummaryIntro+x.Plan); err != nil {
			return fmt.Errorf("%s: %w", PluginName, err)
		}
		x.Result[ResultCleared] = true
		x.Result["message"] = textApprovedAndCleared
	}
	return nil
}
