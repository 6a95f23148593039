package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
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
	p0, _, errOut0, _ := testProgram(t, "")
	if code := p0.main(runArgs(dir, script, "-store", url)); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut0)
	}
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

	p, out, errOut, _ := testProgram(t, "/plan Go\na\nNext?\n")
	if code := p.main(runArgs(dir, script, "-store", url)); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"← Plan not approved",
		"could not be recorded in the session log",
		"No space left on device",
		"the plan is not approved and plan mode stays on",
		"assistant: Still here.",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	if strings.Contains(out.String(), "Plan approved") {
		t.Errorf("the output says the plan was approved:\n%s", out)
	}
}
