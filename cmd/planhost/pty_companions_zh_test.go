package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// companionTools are the companion tools' names a Chinese screen may show.
var companionTools = []string{todo.WriteToolName, todo.ReadToolName, plansteps.StepCompleteToolName, plansteps.CompleteToolName, plansteps.ModifyToolName, plansteps.StatusToolName}

// TestPTYCompanionsInChinese runs a session with plan-steps and todo in
// the Chinese terminal UI: the todo box, the steps boxes from the first
// step to the completed plan, the review and a step change in the
// catalog's words all show, and no English word reaches the screen
// outside the allowed names (tool names, keys).
func TestPTYCompanionsInChinese(t *testing.T) {
	dir := newRunDir(t)
	s := startPTY(t, 100, 60, nil, ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "companions.zh.yaml"), "-lang", "zh",
		"-config", filepath.Join("testdata", "pty", "companions-deploy.yaml"), "-documents", filepath.Join(dir, "documents"))...)
	var screens []string
	screens = append(screens, s.waitScreen("shift+tab"))
	s.send("/plan 添加告别函数\r")
	screens = append(screens, s.waitScreen("接下来？"))
	s.answer("a")
	// The step change: the catalog's question and options, and the
	// plugin's fields under the catalog's labels.
	change := s.waitScreen("修改已批准计划中的这一步吗？")
	screens = append(screens, change)
	checkHas(t, "the step change", change, "[1] 批准修改", "[2] 保留原步骤", "步骤：2", "原因：表格测试覆盖得更好。", "修改后：用表格测试问候函数和告别函数", "修改后的验证：运行表格测试")
	s.answer("1")
	end := s.waitScreen("完成。")
	screens = append(screens, end)
	checkHas(t, "the screen", end, "下一步：第 2 步", "用表格测试问候函数和告别函数", "验证：运行表格测试", "已完成：2 步中完成 2 步，1 处偏离", "已完成 1/3", "已完成 2/3", "[高]", "─ 待办 ─")
	s.quit()
	for _, sc := range screens {
		words := slices.DeleteFunc(englishWords(sc), func(w string) bool { return slices.Contains(companionTools, w) })
		if len(words) > 0 {
			t.Errorf("English on the Chinese screen: %q\n%s", words, sc)
		}
	}
}
