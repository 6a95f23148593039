package main

import (
	"fmt"

	"go.uber.org/fx"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/planfile"
)

// planned is a loaded deployment and, when it enables plan-file, the plan
// directory it configures: planhost keeps the workspace apart from it and
// the workspace tools out of it, as from its own state.
type planned struct {
	dep     *deploy.Deployment
	planDir string // "" without plan-file
}

// loadDeployment loads the deployment file at path with the offered
// plugins and notes its plan directory.
func loadDeployment(path string) (planned, error) {
	var dir string
	dep, err := deploy.Load(path, offeredPluginsNoting(&dir)...)
	return planned{dep: dep, planDir: dir}, err
}

// parseDeployment is loadDeployment for a deployment held in memory; name
// stands for its file (relative directories resolve against it).
func parseDeployment(name string, data []byte) (planned, error) {
	var dir string
	dep, err := deploy.Parse(name, data, offeredPluginsNoting(&dir)...)
	return planned{dep: dep, planDir: dir}, err
}

// offeredPluginsNoting is offeredPlugins with plan-file's entry noting the
// plan directory of the configuration it loads in *planDir.
func offeredPluginsNoting(planDir *string) []deploy.Plugin {
	plugins := offeredPlugins()
	for i, p := range plugins {
		if p.Name != planfile.PluginName {
			continue
		}
		load := p.LoadFile
		plugins[i].LoadFile = func(file string, node *yaml.Node) (fx.Option, error) {
			opt, err := load(file, node)
			if err != nil {
				return nil, err
			}
			cfg, err := planfile.DecodeConfig(file, node)
			if err != nil {
				return nil, err
			}
			*planDir = cfg.Dir
			return opt, nil
		}
	}
	return plugins
}

// checkPlansApart refuses a workspace that holds the plan directory, or
// lies inside it: the model's write_file could otherwise rewrite a plan
// while the user reviews it. Symbolic links are resolved as far as the
// paths exist. No plan directory ("") passes.
func checkPlansApart(workspace, planDir, deployFile string) error {
	if planDir == "" {
		return nil
	}
	ws, err := realPath(workspace)
	if err != nil {
		return fmt.Errorf("-workspace: %w", err)
	}
	dir, err := realPath(planDir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", stateWhatPlans, planDir, err)
	}
	switch {
	case within(dir, ws):
		return fmt.Errorf(errPlansInWorkspace, planDir, deployFile, workspace)
	case within(ws, dir):
		return fmt.Errorf(errWorkspaceInPlans, workspace, planDir, deployFile)
	}
	return nil
}
