package wiring_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// everyPlugin enables every plugin planhost offers; a plugin added to
// wiring.Plugins needs its entry here, or TestPayloadChecksCoverEveryPlugin
// fails.
const everyPlugin = `plugins:
  plan-mode:
    section: Plan first.
  plan-file:
    dir: plans
  plan-entry:
  plan-ask:
  plan-review:
    options: [approve-with-comments, approve-and-clear, abandon]
  plan-gate:
    tools: [write_file]
  plan-steps:
  todo:
`

// recordingStore is a memory store that notes the payload checks the
// plugins register with it.
type recordingStore struct {
	*store.Memory
	mu     sync.Mutex
	checks map[string]host.Validator
}

func (r *recordingStore) AddValidator(name string, v host.Validator) (func(), error) {
	r.mu.Lock()
	r.checks[name] = v
	r.mu.Unlock()
	return r.Memory.AddValidator(name, v)
}

// noModel is never asked: the host is only started and stopped.
type noModel struct{}

func (noModel) Generate(context.Context, refhost.Request) (refhost.Response, error) {
	return refhost.Response{}, errors.New("not asked")
}

// TestPayloadChecksCoverEveryPlugin: the payload checks import, export
// and inspect run are exactly the ones planhost's plugins register when a
// deployment enables them all, so a session they accept opens with any
// deployment.
func TestPayloadChecksCoverEveryPlugin(t *testing.T) {
	file := filepath.Join(t.TempDir(), "deploy.yaml")
	if err := os.WriteFile(file, []byte(everyPlugin), 0o600); err != nil {
		t.Fatal(err)
	}
	dep, err := wiring.LoadDeployment(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range wiring.Plugins() {
		if !slices.Contains(dep.Plugins, p.Name) {
			t.Fatalf("plugin %q is offered but not enabled in this test's deployment: add it to everyPlugin", p.Name)
		}
	}
	st := &recordingStore{Memory: store.NewMemory(), checks: map[string]host.Validator{}}
	app, _ := wiring.New(wiring.Config{Store: st, Model: noModel{}, Deployment: dep.Deployment})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := app.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	got := wiring.PayloadChecks()
	for name, check := range st.checks {
		mine, ok := got[name]
		switch {
		case !ok:
			t.Errorf("plugin %q registers a payload check that PayloadChecks lacks", name)
		case reflect.ValueOf(mine).Pointer() != reflect.ValueOf(check).Pointer():
			t.Errorf("PayloadChecks()[%q] is not the check the plugin registers", name)
		}
	}
	for name := range got {
		if _, ok := st.checks[name]; !ok {
			t.Errorf("PayloadChecks has %q, which no plugin registers", name)
		}
	}
}
