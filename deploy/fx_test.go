package deploy_test

import (
	"slices"
	"testing"

	"github.com/dshgo/planmode/deploy"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"gopkg.in/yaml.v3"
)

func TestDeploymentOptionComposesIntoFx(t *testing.T) {
	d, err := deploy.Parse("fx.yaml", []byte("plugins:\n  plain:\n  fake:\n    x: hello\n    n: 7\n"), offered()...)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var got fakeConfig
	fxtest.New(t, d.Option(), fx.Populate(&got)).RequireStart().RequireStop()
	if want := (fakeConfig{X: "hello", N: 7}); got != want {
		t.Errorf("fake plugin supplied %+v, want %+v", got, want)
	}
}

func TestDeploymentOptionKeepsFileOrder(t *testing.T) {
	var order []string
	invoker := func(name string) deploy.Plugin {
		return deploy.Plugin{Name: name, Load: func(*yaml.Node) (fx.Option, error) {
			return fx.Invoke(func() { order = append(order, name) }), nil
		}}
	}
	d, err := deploy.Parse("order.yaml", []byte("plugins:\n  b:\n  c:\n  a:\n"), invoker("a"), invoker("b"), invoker("c"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	fxtest.New(t, d.Option()).RequireStart().RequireStop()
	if want := []string{"b", "c", "a"}; !slices.Equal(order, want) || !slices.Equal(d.Plugins, want) {
		t.Errorf("invoked %q with Plugins %q, want both %q", order, d.Plugins, want)
	}
}
