package wiring

import (
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/refhost"
)

// TestPlanConfig checks where the plan-mode model's endpoint and key come
// from: the default's unless named, and never the default's key for an
// endpoint of its own.
func TestPlanConfig(t *testing.T) {
	def := openaimodel.Config{BaseURL: "https://a.example/v1", Model: "doer", APIKey: "def-key", Retries: 3}
	tests := []struct {
		name        string
		pf          PlanModel
		ok          bool
		url, key    string
		wantRetries int
	}{
		{"none", PlanModel{}, false, "", "", 0},
		{"same endpoint", PlanModel{Model: "planner"}, true, "https://a.example/v1", "def-key", 3},
		{"own key", PlanModel{Model: "planner", APIKey: "p"}, true, "https://a.example/v1", "p", 3},
		{"own endpoint, no key", PlanModel{Model: "planner", BaseURL: "https://b.example/v1"}, true, "https://b.example/v1", "", 3},
		{"own endpoint and key", PlanModel{Model: "planner", BaseURL: "https://b.example/v1", APIKey: "p"}, true, "https://b.example/v1", "p", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := PlanConfig(def, tt.pf)
			if ok != tt.ok || cfg.BaseURL != tt.url || cfg.APIKey != tt.key || cfg.Retries != tt.wantRetries {
				t.Errorf("planConfig = %+v, %v; want %s %s retries %d, %v", cfg, ok, tt.url, tt.key, tt.wantRetries, tt.ok)
			}
			if ok && cfg.Model != tt.pf.Model {
				t.Errorf("model = %q; want %q", cfg.Model, tt.pf.Model)
			}
		})
	}
}

// TestOwnReasoning checks which messages keep their reasoning for a model.
func TestOwnReasoning(t *testing.T) {
	msgs := []refhost.Message{
		{Role: refhost.RoleAssistant, Reasoning: "a", Model: "thinker"},
		{Role: refhost.RoleAssistant, Reasoning: "b"},
		{Role: refhost.RoleAssistant, Model: "doer"},
	}
	tests := []struct {
		model string
		want  []string
	}{
		{"thinker", []string{"a", "b", ""}},
		{"doer", []string{"", "b", ""}},
	}
	for _, tt := range tests {
		got := ownReasoning(msgs, tt.model)
		var r []string
		for _, m := range got {
			r = append(r, m.Reasoning)
		}
		if strings.Join(r, "|") != strings.Join(tt.want, "|") {
			t.Errorf("for %s: reasoning = %q; want %q", tt.model, r, tt.want)
		}
	}
	if msgs[0].Reasoning != "a" {
		t.Errorf("the loop's messages were changed: %+v", msgs)
	}
}
