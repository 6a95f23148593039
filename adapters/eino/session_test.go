package eino_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

const thePlan = "# Fix the bug\n\n1. Write a test.\n2. Fix it."

// TestPlanModeSession plays a whole session: /plan enters plan mode, the
// model explores, presents a plan, the user sends it back, the model
// presents it again, the user approves, and the next chat-model call is in
// the default mode. A restart reopens the file store and goes on.
func TestPlanModeSession(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "sessions")
	st, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{t: t, replies: []reply{
		call("c1", "read_file", map[string]string{"path": "main.go"}, inPlanMode(true)),
		call("c2", planmode.ExitToolName, map[string]string{"plan": thePlan}, func(t testing.TB, in []*schema.Message) {
			inPlanMode(true)(t, in)
			last := in[len(in)-1]
			if last.Role != schema.Tool || last.ToolCallID != "c1" || !strings.Contains(last.Content, "package main") {
				t.Errorf("the tool's result is not the last message: %v", last)
			}
		}),
		call("c3", planmode.ExitToolName, map[string]string{"plan": thePlan + "\n3. Add a regression test."}, func(t testing.TB, in []*schema.Message) {
			inPlanMode(true)(t, in)
			if last := in[len(in)-1]; !strings.Contains(last.Content, "Add a regression test first.") {
				t.Errorf("the user's feedback did not reach the model: %v", last)
			}
		}),
		answer("Done.", inPlanMode(false)),
	}}
	q := &answers{roles: []host.Role{host.RoleKeepPlanning, host.RoleApprove}}
	e := newEnv(t, st, m, q)
	sess, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.h.NewAgent(sess)
	if err != nil {
		t.Fatal(err)
	}
	if handled, _, err := a.Execute(ctx, "/plan"); !handled || err != nil {
		t.Fatalf("/plan: handled %v, %v", handled, err)
	}
	if !e.plan.Get(a).Active {
		t.Fatal("/plan did not enter plan mode")
	}
	if errs := run(t, ctx, a, e.ag, "Fix the bug in main.go."); len(errs) > 0 {
		t.Fatalf("run: %v", errs)
	}
	if m.left() != 0 {
		t.Fatalf("%d replies left", m.left())
	}
	if e.plan.Get(a).Active {
		t.Error("plan mode is still on after the approval")
	}
	got := results(sess)
	want := []struct {
		name    string
		outcome string
		isError bool // sending the plan back is an error the model reads
	}{{"read_file", "", false}, {planmode.ExitToolName, string(planmode.ExitKeepPlanning), true}, {planmode.ExitToolName, string(planmode.ExitApproved), false}}
	if len(got) != len(want) {
		t.Fatalf("results %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Outcome != w.outcome || got[i].IsError != w.isError {
			t.Errorf("result %d = %+v, want %s with outcome %q", i, got[i], w.name, w.outcome)
		}
	}
	if n := len(q.asked); n != 2 || q.asked[0].Kind != host.AskReview {
		t.Errorf("asked %d reviews %+v, want 2", n, q.asked)
	}
	// The log pairs each call before its result, within steps of one turn.
	ts := types(sess, 0)
	for _, w := range []string{host.TypeTurnStart, host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader,
		host.TypeAssistantMessage, host.TypeToolCall, host.TypeToolResult, host.TypeStepEnd, host.TypeTurnEnd} {
		if !slices.Contains(ts, w) {
			t.Errorf("log has no %s: %v", w, ts)
		}
	}
	if ts[len(ts)-1] != host.TypeTurnEnd {
		t.Errorf("log ends with %s, want turn/end", ts[len(ts)-1])
	}
	n := sess.Len()

	// Enter plan mode again and restart: a new process reopens the store.
	if _, err := e.plan.Set(a, true); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	m2 := &scripted{t: t, replies: []reply{
		answer("Still planning.", func(t testing.TB, in []*schema.Message) {
			inPlanMode(true)(t, in)
			var users []string
			for _, msg := range in {
				if msg.Role == schema.User {
					users = append(users, msg.Content)
				}
			}
			if len(users) < 2 || users[0] != "Fix the bug in main.go." || users[len(users)-1] != "What next?" {
				t.Errorf("the conversation was not resumed from the log: %q", users)
			}
		}),
	}}
	e2 := newEnv(t, st2, m2, &answers{})
	sess2, err := st2.Open(sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	a2, err := e2.h.NewAgent(sess2)
	if err != nil {
		t.Fatal(err)
	}
	if !e2.plan.Get(a2).Active {
		t.Fatal("plan mode is off after the restart")
	}
	if errs := run(t, ctx, a2, e2.ag, "What next?"); len(errs) > 0 {
		t.Fatalf("run after restart: %v", errs)
	}
	var hdr host.RequestHeader
	for _, ev := range sess2.Events().Range(n, sess2.Len()) {
		if ev.Type == host.TypeRequestHeader {
			_ = json.Unmarshal(ev.Data, &hdr)
			break
		}
	}
	if hdr.Reason != host.HeaderResume || !slices.Contains(hdr.Sections, "plan:policy") {
		t.Errorf("first header after the restart = %+v, want resume with plan:policy", hdr)
	}
}
