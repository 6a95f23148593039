package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/reviewfault"
	"github.com/dshgo/planmode/refhost"
)

// sqlFaults installs a trigger that fails the n-th insert into the events
// table once (fault_at.n; 0 disarms), with the error a full disk gives. The
// count lives in a sequence, which a failed transaction does not roll back.
const sqlFaults = `
CREATE SEQUENCE fault_seq;
CREATE TABLE fault_at (n bigint NOT NULL);
INSERT INTO fault_at VALUES (0);
CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
	SELECT n INTO k FROM fault_at;
	IF k > 0 AND nextval('fault_seq') = k THEN
		RAISE EXCEPTION 'injected: could not extend file: No space left on device' USING ERRCODE = 'disk_full';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER fault BEFORE INSERT ON planmode_events FOR EACH ROW EXECUTE FUNCTION fault();
`

// endpointModel is the suite's script served by the strict fake endpoint
// through the OpenAI adapter: each request gets the script's answer.
type endpointModel struct {
	srv *fakeopenai.Server
	m   *openaimodel.Model
}

func (e endpointModel) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	r := reviewfault.Respond(req)
	rep := fakeopenai.Reply{Text: r.Text}
	for _, c := range r.ToolCalls {
		rep.Calls = append(rep.Calls, fakeopenai.Call{ID: c.ID, Name: c.Name, Arguments: string(c.Input)})
	}
	e.srv.SetReplies(rep)
	return e.m.Generate(ctx, req)
}

// TestReviewTurnAppendFaults fails each insert of a plan review turn once
// with a PostgreSQL error: plan mode is left only once the approval is in
// the database, a lost approval leaves plan mode on and says why, and the
// next turns (the last from a second store, as after a restart) succeed
// against an endpoint that refuses unanswered tool calls, as OpenAI does.
func TestReviewTurnAppendFaults(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Strict: true})
	t.Cleanup(srv.Close)
	om, err := openaimodel.New(openaimodel.Config{BaseURL: srv.BaseURL(), Model: "fake", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	model := endpointModel{srv: srv, m: om}
	reviewfault.Run(t, func(t *testing.T) reviewfault.Env {
		url := pgtest.NewDB(t)
		st := open(t, url)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		if _, err := conn.Exec(ctx, sqlFaults); err != nil {
			t.Fatal(err)
		}
		exec := func(sql string, args ...any) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := conn.Exec(ctx, sql, args...); err != nil {
				t.Fatal(err)
			}
		}
		return reviewfault.Env{
			Store: st,
			Model: model,
			FailAt: func(n int) {
				exec(`UPDATE fault_at SET n = $1`, n)
				exec(`SELECT setval('fault_seq', 1, false)`)
			},
			Fired: func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var fired bool
				if err := conn.QueryRow(ctx, `SELECT s.is_called AND s.last_value >= f.n FROM fault_seq s, fault_at f`).Scan(&fired); err != nil {
					t.Fatal(err)
				}
				return fired
			},
			Reopen: func() host.Store { return open(t, url) },
		}
	})
}
