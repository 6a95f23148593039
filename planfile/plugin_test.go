//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package planfile_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/refhost"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const plan = "# Add retries\n\n1. Wrap the upload.\n2. Test it.\n"

func fileHost(t *testing.T) (*e2etest.Host, *planfile.Plugin) {
	t.Helper()
	var pl *planfile.Plugin
	h := e2etest.New(t,
		fx.Supply(planfile.Config{Dir: filepath.Join(t.TempDir(), "plans")}),
		planfile.Module,
		fx.Populate(&pl),
	)
	return h, pl
}

func approved(t *testing.T, a host.Agent) []planfile.ApprovedPayload {
	t.Helper()
	var out []planfile.ApprovedPayload
	for _, e := range e2etest.Events(a, planfile.EventApproved) {
		var p planfile.ApprovedPayload
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestTheModelDraftsInTheFileAndExitPresentsIt(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(
		e2etest.Call("r0", planfile.ReadToolName, map[string]string{}),
		e2etest.Call("w", planfile.WriteToolName, map[string]string{"plan": plan}),
		e2etest.Call("x", planmode.ExitToolName, map[string]string{}),
		e2etest.Say("working"),
	)
	h.Prompt(a, "plan it")
	if r := e2etest.Result(t, a, "r0"); r.IsError || !strings.Contains(r.Output, "no plan yet") {
		t.Fatalf("read before writing: %+v", r)
	}
	if r := e2etest.Result(t, a, "w"); r.IsError {
		t.Fatalf("write: %+v", r)
	}
	reqs := h.User.Requests()
	if len(reqs) != 1 || reqs[0].Questions[0].Detail != plan {
		t.Fatalf("review requests %+v; want the file's plan as detail", reqs)
	}
	r := e2etest.Result(t, a, "x")
	var res map[string]any
	if r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
		t.Fatalf("exit: %+v", r)
	}
	if res["approved"] != true || res["edited"] != false || res["planFile"] != pl.Path(a) {
		t.Fatalf("exit result %v", res)
	}
	got := approved(t, a)
	if len(got) != 1 || got[0].Title != "Add retries" || got[0].Content != plan || got[0].SHA256 != planfile.Digest(plan) {
		t.Fatalf("plan/approved %+v", got)
	}
	if e2etest.Active(a) {
		t.Fatal("still in plan mode after the approval")
	}
}

func TestAGivenPlanIsWrittenToTheFileFirst(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueAnswers(host.Answer{QuestionID: planmode.ReviewQuestionID, Selected: []string{planmode.ReviewKeepPlanning}, Custom: "more tests"})
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("revising"))
	h.Prompt(a, "plan it")
	if r := e2etest.Result(t, a, "x"); !r.IsError || !strings.Contains(r.Output, "more tests") {
		t.Fatalf("exit: %+v", r)
	}
	doc, err := pl.Store().Read(context.Background(), a.Session().ID())
	if err != nil || doc.Content != plan {
		t.Fatalf("file %q %v", doc.Content, err)
	}
	if len(approved(t, a)) != 0 || !e2etest.Active(a) {
		t.Fatal("a plan that was not approved was recorded, or plan mode ended")
	}
}

func TestTheUsersEditsDuringTheReviewAreTheApprovedPlan(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	release := h.User.Hold()
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("working"))
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.User.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	edited := plan + "3. Ship it behind a flag.\n"
	// The user's editor saves the file (as editors do: write and rename).
	path := pl.Path(a)
	tmp := filepath.Join(filepath.Dir(path), "edit.tmp")
	if err := os.WriteFile(tmp, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	release()
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	r := e2etest.Result(t, a, "x")
	var res map[string]any
	if r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
		t.Fatalf("exit: %+v", r)
	}
	if res["edited"] != true || res["plan"] != edited {
		t.Fatalf("result %v; want edited with the final text", res)
	}
	if got := approved(t, a); len(got) != 1 || got[0].Content != edited {
		t.Fatalf("plan/approved %+v", got)
	}
}

func TestEditReplacesThePlanFileAndTheApprovalReportsIt(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	release := h.User.Hold()
	h.User.QueueAnswers(e2etest.Approve())
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("working"))
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.User.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, err := pl.Plan(ctx, a); err != nil || got != plan {
		t.Fatalf("Plan = %q, %v; want the presented plan", got, err)
	}
	for _, bad := range []string{"nul\x00byte", "\xff not utf-8", strings.Repeat("x", planfile.DefaultMaxBytes+1)} {
		if err := pl.Edit(ctx, a, bad); err == nil {
			t.Fatalf("Edit(%.20q) succeeded; want the store's refusal", bad)
		}
	}
	if got, _ := pl.Plan(ctx, a); got != plan {
		t.Fatalf("a refused edit changed the file to %q", got)
	}
	edited := plan + "3. Ship it behind a flag.\n"
	if err := pl.Edit(ctx, a, edited); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(pl.Path(a)); err != nil || fi.Mode().Perm() != planfile.FileMode {
		t.Fatalf("after Edit the file is %v, %v; want mode %v", fi, err, planfile.FileMode)
	}
	release()
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if r := e2etest.Result(t, a, "x"); r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
		t.Fatalf("exit: %+v", r)
	}
	if res["edited"] != true || res["plan"] != edited {
		t.Fatalf("result %v; want edited with the final text", res)
	}
}

func TestPlanWriteWorksOnlyInPlanModeAndPlanReadAlways(t *testing.T) {
	h, _ := fileHost(t)
	a := h.Agent()
	h.Model.Add(
		e2etest.Call("w", planfile.WriteToolName, map[string]string{"plan": plan}),
		e2etest.Call("r", planfile.ReadToolName, map[string]string{}),
		e2etest.Say("ok"),
	)
	h.Prompt(a, "write")
	if r := e2etest.Result(t, a, "w"); !r.IsError || !strings.Contains(r.Output, "only while plan mode is on") {
		t.Fatalf("write in the default mode: %+v", r)
	}
	if r := e2etest.Result(t, a, "r"); r.IsError {
		t.Fatalf("read in the default mode: %+v", r)
	}
}

func TestExitWithoutAPlanAndWithoutAFileFails(t *testing.T) {
	h, _ := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{}), e2etest.Say("ok"))
	h.Prompt(a, "exit")
	if r := e2etest.Result(t, a, "x"); !r.IsError || !strings.Contains(r.Output, "holds none") {
		t.Fatalf("exit: %+v", r)
	}
	if len(h.User.Requests()) != 0 {
		t.Fatal("the user was asked")
	}
}

func TestAnUnsafePlanFileFailsTheExitAndPlanModeStays(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.Model.Add(e2etest.Call("w", planfile.WriteToolName, map[string]string{"plan": plan}), e2etest.Say("ok"))
	h.Prompt(a, "draft")
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("# Victim"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pl.Path(a)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, pl.Path(a)); err != nil {
		t.Fatal(err)
	}
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{}), e2etest.Say("ok"))
	h.Prompt(a, "exit")
	if r := e2etest.Result(t, a, "x"); !r.IsError || !strings.Contains(r.Output, "symbolic link") {
		t.Fatalf("exit: %+v", r)
	}
	if !e2etest.Active(a) || len(h.User.Requests()) != 0 {
		t.Fatal("plan mode ended or the user was asked")
	}
}

func lastRequest(h *e2etest.Host) refhost.Request {
	reqs := h.Model.Requests()
	return reqs[len(reqs)-1]
}

func TestTheSectionShowsThePathAndTheReturningReminder(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.Model.Add(e2etest.Say("default"))
	h.Prompt(a, "hi")
	if req := lastRequest(h); slices.Contains(req.Sections, planfile.SectionName) {
		t.Fatalf("section in the default mode: %v", req.Sections)
	}
	h.EnterPlanMode(a)
	h.Model.Add(e2etest.Call("w", planfile.WriteToolName, map[string]string{"plan": plan}), e2etest.Say("drafted"))
	h.Prompt(a, "plan")
	reqs := h.Model.Requests()
	first := reqs[len(reqs)-2]
	if !slices.Contains(first.Sections, planfile.SectionName) || !strings.Contains(first.System, pl.Path(a)) ||
		!strings.Contains(first.System, "holds no plan yet") {
		t.Fatalf("first plan-mode request: %v\n%s", first.Sections, first.System)
	}
	if second := lastRequest(h); !strings.Contains(second.System, "already holds a plan") {
		t.Fatalf("after the write:\n%s", second.System)
	}
	if _, err := h.Plan.Set(a, false); err != nil {
		t.Fatal(err)
	}
	h.EnterPlanMode(a)
	h.Model.Add(e2etest.Say("back"))
	h.Prompt(a, "again")
	if req := lastRequest(h); !strings.Contains(req.System, "You are back in plan mode") {
		t.Fatalf("returning:\n%s", req.System)
	}
}

func TestAForkGetsACopyOfItsParentsPlanFile(t *testing.T) {
	h, pl := fileHost(t)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.Model.Add(e2etest.Call("w", planfile.WriteToolName, map[string]string{"plan": plan}), e2etest.Say("drafted"))
	h.Prompt(a, "plan")
	fork, err := a.Session().Fork(a.Session().Len())
	if err != nil {
		t.Fatal(err)
	}
	b := h.AgentOn(fork)
	h.Model.Add(e2etest.Call("r", planfile.ReadToolName, map[string]string{}), e2etest.Say("read"))
	h.Prompt(b, "read")
	if r := e2etest.Result(t, b, "r"); r.IsError || r.Output != plan {
		t.Fatalf("fork read %+v", r)
	}
	if pl.Path(b) == pl.Path(a) {
		t.Fatal("the fork shares its parent's file")
	}
	marks := e2etest.Events(b, planfile.EventFile)
	if len(marks) != 2 || !strings.Contains(string(marks[1].Data), fork.ID()) {
		t.Fatalf("markers %d", len(marks))
	}
}

func TestTheToolsStayRegisteredInBothModes(t *testing.T) {
	h, _ := fileHost(t)
	a := h.Agent()
	h.Model.Add(e2etest.Say("a"), e2etest.Say("b"))
	h.Prompt(a, "1")
	h.EnterPlanMode(a)
	h.Prompt(a, "2")
	reqs := h.Model.Requests()
	names := func(r refhost.Request) []string {
		var out []string
		for _, d := range r.Tools {
			out = append(out, d.Name)
		}
		return out
	}
	if !slices.Equal(names(reqs[0]), names(reqs[1])) || !slices.Contains(names(reqs[0]), planfile.WriteToolName) {
		t.Fatalf("tools %v then %v", names(reqs[0]), names(reqs[1]))
	}
}

func TestThePayloadCheckRejectsBadApprovedEvents(t *testing.T) {
	h, _ := fileHost(t)
	a := h.Agent()
	for _, data := range []string{`{}`, `{"title":"T","sha256":"00","content":"x"}`, `{"title":"","sha256":"","content":""}`, `[]`} {
		_, err := a.Session().Append(host.Event{Type: planfile.EventApproved, Data: json.RawMessage(data)})
		if !errors.Is(err, planfile.ErrBadPayload) {
			t.Errorf("%s: %v", data, err)
		}
	}
	good, _ := json.Marshal(planfile.ApprovedPayload{Title: "T", SHA256: planfile.Digest("x"), Content: "x"})
	if _, err := a.Session().Append(host.Event{Type: planfile.EventApproved, Data: good}); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name, give, want string // want: the dir, or an error substring after "error:"
	}{
		{"a relative dir resolves against the file's directory", "dir: plans", "/etc/agent/plans"},
		{"an absolute dir", "dir: /var/plans\nmax_bytes: 2048", "/var/plans"},
		{"missing dir", "max_bytes: 2048", "error:dir: is required"},
		{"blank dir", "dir: ' '", "error:must not be blank"},
		{"a number as dir", "dir: 3", "error:must be a string"},
		{"max_bytes too small", "dir: p\nmax_bytes: 10", "error:between 1024 and 16777216"},
		{"max_bytes too large", "dir: p\nmax_bytes: 99999999", "error:between 1024 and 16777216"},
		{"max_bytes a string", "dir: p\nmax_bytes: big", "error:whole number"},
		{"an unknown key", "dir: p\nmode: 0700", "error:unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(tt.give), &n); err != nil {
				t.Fatal(err)
			}
			cfg, err := planfile.DecodeConfig("/etc/agent/deploy.yaml", &n)
			if want, isErr := strings.CutPrefix(tt.want, "error:"); isErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v; want %q", err, want)
				}
				return
			}
			if err != nil || cfg.Dir != tt.want {
				t.Fatalf("dir %q, error %v", cfg.Dir, err)
			}
		})
	}
}

func TestTheLoaderRequiresPlanModeAndReportsPositions(t *testing.T) {
	_, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-file:\n    dir: p\n"), planmode.DeployPlugin(), planfile.DeployPlugin())
	if err == nil || !strings.Contains(err.Error(), `deploy.yaml:2:3: plan-file: needs the plugin "plan-mode"`) {
		t.Fatalf("error %v", err)
	}
	_, err = deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-mode:\n    section: s\n  plan-file:\n    dir: p\n    max_bytes: 1\n"), planmode.DeployPlugin(), planfile.DeployPlugin())
	if err == nil || !strings.Contains(err.Error(), "deploy.yaml:6:16: plan-file: max_bytes: must be between") {
		t.Fatalf("error %v", err)
	}
}

func TestWithoutPlanModeTheModuleFailsToStart(t *testing.T) {
	app := fx.New(fx.NopLogger,
		fx.Supply(planfile.Config{Dir: t.TempDir()}),
		fx.Provide(func() (host.Sections, host.Tools, host.PreStepChain, host.Validators, host.EventTypes) {
			return nil, nil, nil, nil, nil
		}),
		planfile.Module,
	)
	if err := app.Err(); !errors.Is(err, planfile.ErrNeedsPlanMode) {
		t.Fatalf("app error %v", err)
	}
}
