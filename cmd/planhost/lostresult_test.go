package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestRunLostApprovalIsShown runs "planhost run" on PostgreSQL with the
// insert of the approved exit_plan_mode result failing once: the user is
// told that the plan is not approved and why, plan mode stays on, and the
// next turn works.
func TestRunLostApprovalIsShown(t *testing.T) {
	url := pgtest.NewDB(t)
	dir := newRunDir(t)
	review := "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\nDo it.\"}\n  - text: Still here.\n"
	script := writeScript(t, dir, "s.yaml", review)

	// The first run creates the tables; the trigger then fails the first
	// insert of an exit_plan_mode result of the second.
	mustMain(t, exitOK, "", runArgs(dir, script, "-store", url)...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `
		CREATE SEQUENCE fault_seq;
		CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.type = 'tool/result' AND NEW.data::text LIKE '%"exit_plan_mode"%' AND nextval('fault_seq') = 1 THEN
				RAISE EXCEPTION 'injected: could not extend file: No space left on device' USING ERRCODE = 'disk_full';
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER fault BEFORE INSERT ON planmode_events FOR EACH ROW EXECUTE FUNCTION fault();`); err != nil {
		t.Fatal(err)
	}

	out, errOut := mustMain(t, exitOK, "/plan Go\na\nNext?\n", runArgs(dir, script, "-store", url)...)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"Plan not approved:",
		"could not be recorded in the session log",
		"No space left on device",
		"the plan is not approved and plan mode stays on",
		"assistant: Still here.",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	// The warning on stderr says it at once, even while the store keeps
	// failing and nothing reaches the log.
	if !strings.Contains(errOut, "approval is withdrawn and plan mode stays on") {
		t.Errorf("stderr lacks the warning:\n%s", errOut)
	}
	if strings.Contains(out, "Plan approved") {
		t.Errorf("the output says the plan was approved:\n%s", out)
	}
}

// TestRunResumesALogWithAnUnansweredCallInside resumes a session whose log
// has a tool call without a result in an earlier, closed turn (an append
// that failed in an older version) against an endpoint that refuses
// unanswered tool calls, as OpenAI does: the turn works, and the log gets
// the missing result.
func TestRunResumesALogWithAnUnansweredCallInside(t *testing.T) {
	dir := newRunDir(t)
	sessions := filepath.Join(dir, "sessions")
	d, err := store.OpenDir(sessions)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := d.Create("broken")
	if err != nil {
		t.Fatal(err)
	}
	add := func(typ string, payload any) {
		if _, err := sess.Append(host.Event{Type: typ, Data: mustJSON(t, payload)}); err != nil {
			t.Fatal(err)
		}
	}
	call := host.ToolCall{ID: "call_1", Name: "list_files", Input: json.RawMessage(`{}`)}
	add(host.TypeTurnStart, host.TurnStart{Turn: 1})
	add(host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("What is here?")}})
	add(host.TypeAssistantMessage, host.AssistantMessage{Text: "Looking.", ToolCalls: []host.ToolCall{call}})
	add(host.TypeToolCall, call)
	add(host.TypeTurnEnd, host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: "disk full"})
	add(host.TypeTurnStart, host.TurnStart{Turn: 2})
	add(host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("Hello?")}})
	add(host.TypeAssistantMessage, host.AssistantMessage{Text: "Hi."})
	add(host.TypeTurnEnd, host.TurnEnd{Turn: 2, Reason: host.TurnCompleted})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	srv := fakeopenai.New(fakeopenai.Options{Strict: true, APIKey: "k"}, fakeopenai.Reply{Text: "Fine."})
	defer srv.Close()
	env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "strict", "OPENAI_API_KEY": "k"}
	out, errOut := mustMainEnv(t, env, exitOK, "Next?\n", openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"), "-session", "broken")...)
	if !strings.Contains(out, "assistant: Fine.") || strings.Contains(out, "ended: error") {
		t.Fatalf("the resumed turn failed:\n%s\nstderr:\n%s", out, errOut)
	}
	raw := readFile(t, filepath.Join(sessions, "broken.jsonl"))
	if !strings.Contains(string(raw), `"callId":"call_1"`) {
		t.Fatalf("the resumed log has no result for call_1:\n%s", raw)
	}
}
