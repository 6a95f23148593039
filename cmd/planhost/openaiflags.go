package main

import (
	"flag"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
)

// defaultOpenAIRetries is -openai-retries' default.
const defaultOpenAIRetries = 2

// addOpenAIFlags adds the -openai-* flags of run to fs, filling cfg. The
// key and the base URL (which may carry a password) are never flag
// defaults, so that -h and a usage error cannot print them: call the
// returned finish after parsing to take them from env unless a flag set
// them.
func addOpenAIFlags(fs *flag.FlagSet, cfg *openaimodel.Config, env openaimodel.Config) (finish func()) {
	fs.StringVar(&cfg.BaseURL, "openai-base-url", "", flagBaseURLHelp)
	fs.StringVar(&cfg.Model, "openai-model", env.Model, flagModelNameHelp)
	fs.StringVar(&cfg.APIKey, "openai-api-key", "", flagAPIKeyHelp)
	fs.IntVar(&cfg.Retries, "openai-retries", defaultOpenAIRetries, flagRetriesHelp)
	fs.DurationVar(&cfg.Timeout, "openai-timeout", openaimodel.DefaultTimeout, flagTimeoutHelp)
	fs.Int64Var(&cfg.MaxResponseBytes, "openai-max-response", openaimodel.DefaultMaxResponseBytes, flagMaxResponseHelp)
	return func() {
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if !set["openai-base-url"] {
			cfg.BaseURL = env.BaseURL
		}
		if !set["openai-api-key"] {
			cfg.APIKey = env.APIKey
		}
	}
}

// addPlanModelFlags adds the -plan-* flags of run to fs, filling pf. As
// with addOpenAIFlags, the key and the base URL are never flag defaults:
// call the returned finish after parsing to take them from env (getenv)
// unless a flag set them.
func addPlanModelFlags(fs *flag.FlagSet, pf *wiring.PlanModel, getenv func(string) string) (finish func()) {
	fs.StringVar(&pf.Model, "plan-model", getenv(wiring.EnvPlanModel), flagPlanModelHelp)
	fs.StringVar(&pf.BaseURL, "plan-base-url", "", flagPlanBaseURLHelp)
	fs.StringVar(&pf.APIKey, "plan-api-key", "", flagPlanAPIKeyHelp)
	return func() {
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if !set["plan-base-url"] {
			pf.BaseURL = getenv(wiring.EnvPlanBaseURL)
		}
		if !set["plan-api-key"] {
			pf.APIKey = getenv(wiring.EnvPlanAPIKey)
		}
	}
}
