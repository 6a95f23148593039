package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/exitresult"
)

// Three plans: 1 approved, 2 sent back, 3 approved after the user edited it.
const (
	reopenPlan1       = "# One\n\nfirst"
	reopenPlan2       = "# Two\n\nsecond"
	reopenPlan3       = "# Three\n\nthird"
	reopenPlan3Edited = "# Three\n\nthird, as the user edited it"
)

// presentPlan logs an exit_plan_mode call for plan and, unless outcome is
// "", its result with that outcome and output.
func presentPlan(t *testing.T, s host.Session, id, plan string, outcome planmode.ExitOutcome, output string) {
	t.Helper()
	input, _ := json.Marshal(map[string]string{"plan": plan})
	must(appendJSON(s, host.TypeToolCall, nil, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: input}))
	if outcome != "" {
		must(appendJSON(s, host.TypeToolResult, nil, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: output, Outcome: string(outcome)}))
	}
}

func threePlans(t *testing.T, _ *planmode.Controller, a *fakeAgent) {
	s := a.Session()
	presentPlan(t, s, "c1", reopenPlan1, planmode.ExitApproved, `{"approved":true}`)
	presentPlan(t, s, "c2", reopenPlan2, planmode.ExitKeepPlanning, "keep planning")
	edited, _ := json.Marshal(map[string]any{exitresult.EditedByUser: true, exitresult.EditedPlan: reopenPlan3Edited})
	presentPlan(t, s, "c3", reopenPlan3, planmode.ExitApproved, string(edited))
}

// reopens returns the payloads of the plan/reopen events.
func reopens(t *testing.T, s host.Session) []planmode.ReopenPayload {
	t.Helper()
	return payloads[planmode.ReopenPayload](t, s, planmode.EventPlanReopen, 0)
}

// reopenMessages returns the texts of the logged reopen messages.
func reopenMessages(t *testing.T, s host.Session) []string {
	t.Helper()
	var out []string
	for _, e := range s.Events().All() {
		if e.Type != host.TypeUserMessage || e.Source == nil || e.Source.Form != planmode.ReopenForm {
			continue
		}
		var m host.UserMessage
		if err := json.Unmarshal(e.Data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Content[0].Text)
	}
	return out
}

// TestPlanReopenFailuresCarryTheirDetails: a failed reopen carries what a
// front end words it with (how many plans there are, the plan's number)
// in its fields, not only in its English message.
func TestPlanReopenFailuresCarryTheirDetails(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, c *planmode.Controller, a *fakeAgent)
		args  string
		want  planmode.Error
	}{
		{name: "no plan 4 of 3", setup: threePlans, args: "reopen 4", want: planmode.Error{Code: "no-such-plan", Plans: 3}},
		{name: "not a number", setup: threePlans, args: "reopen two", want: planmode.Error{Code: "no-such-plan", Plans: 3}},
		{name: "no plans at all", args: "reopen 1", want: planmode.Error{Code: "no-such-plan"}},
		{name: "a plan whose text the log lacks", setup: func(t *testing.T, c *planmode.Controller, a *fakeAgent) {
			threePlans(t, c, a)
			presentPlan(t, a.Session(), "c4", "", planmode.ExitApproved, `{"approved":true}`)
		}, args: "reopen", want: planmode.Error{Code: "plan-not-logged", Plan: 4, Plans: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			if tt.setup != nil {
				tt.setup(t, c, a)
			}
			_, err := planCommand(t, h).Run(context.Background(), host.Invocation{Agent: a, Args: tt.args})
			var got *planmode.Error
			if !errors.As(err, &got) || got.Code != tt.want.Code || got.Plan != tt.want.Plan || got.Plans != tt.want.Plans {
				t.Fatalf("/plan %s = %#v, want code %s, plan %d of %d", tt.args, err, tt.want.Code, tt.want.Plan, tt.want.Plans)
			}
		})
	}
}

func TestPlanReopen(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(t *testing.T, c *planmode.Controller, a *fakeAgent)
		args        string
		images      bool
		wantErr     error
		wantReply   string
		wantState   planmode.State
		wantNumber  int
		wantPlan    string
		wantSteered bool
	}{
		{name: "bare reopen takes the last approved plan, as edited", setup: threePlans, args: "reopen",
			wantReply: fmt.Sprintf(planmode.ReplyReopened, 3),
			wantState: planmode.State{Active: true}, wantNumber: 3, wantPlan: reopenPlan3Edited},
		{name: "reopen N takes plan N, even one sent back", setup: threePlans, args: " reopen  2 ",
			wantReply: fmt.Sprintf(planmode.ReplyReopened, 2),
			wantState: planmode.State{Active: true}, wantNumber: 2, wantPlan: reopenPlan2},
		{name: "reopen in plan mode keeps it on", setup: chain(threePlans, enter), args: "reopen 1",
			wantReply: fmt.Sprintf(planmode.ReplyReopened, 1),
			wantState: planmode.State{Active: true}, wantNumber: 1, wantPlan: reopenPlan1},
		{name: "reopen during a turn is queued and steers the draft", setup: chain(threePlans, openTurn), args: "reopen 1",
			wantReply: fmt.Sprintf(planmode.ReplyReopening, 1),
			wantState: planmode.State{Pending: planmode.SelectionActive}, wantNumber: 1, wantPlan: reopenPlan1, wantSteered: true},
		{name: "no such plan", setup: threePlans, args: "reopen 4", wantErr: planmode.ErrNoSuchPlan},
		{name: "plan 0", setup: threePlans, args: "reopen 0", wantErr: planmode.ErrNoSuchPlan},
		{name: "not a number", setup: threePlans, args: "reopen two", wantErr: planmode.ErrNoSuchPlan},
		{name: "two numbers are no message", setup: threePlans, args: "reopen 1 2", wantErr: planmode.ErrNoSuchPlan},
		{name: "words after reopen are no message", setup: chain(threePlans, openTurn), args: " reopen  1  and fix the tests", wantErr: planmode.ErrNoSuchPlan},
		{name: "no plans at all", args: "reopen 1", wantErr: planmode.ErrNoSuchPlan},
		{name: "a plan whose text the log lacks", setup: func(t *testing.T, _ *planmode.Controller, a *fakeAgent) {
			presentPlan(t, a.Session(), "c1", "", planmode.ExitApproved, `{"approved":true}`)
		}, args: "reopen", wantErr: planmode.ErrPlanNotLogged},
		{name: "no approved plan", setup: func(t *testing.T, _ *planmode.Controller, a *fakeAgent) {
			presentPlan(t, a.Session(), "c1", reopenPlan1, planmode.ExitKeepPlanning, "no")
		}, args: "reopen", wantErr: planmode.ErrNoApprovedPlan},
		{name: "attachments are refused", setup: threePlans, args: "reopen", images: true, wantErr: planmode.ErrReopenWithImages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c, a := startAgent(t)
			if tt.setup != nil {
				tt.setup(t, c, a)
			}
			before := c.Get(a)
			var atts []host.Block
			if tt.images {
				atts = append(atts, image(1))
			}
			reply, err := planCommand(t, h).Run(context.Background(), host.Invocation{Agent: a, Args: tt.args, Attachments: atts})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || reply != "" {
					t.Fatalf("/plan %q = %q, %v; want %v", tt.args, reply, err, tt.wantErr)
				}
				wantState(t, c, a, before)
				if got := reopens(t, a.Session()); len(got) != 0 {
					t.Fatalf("a failed reopen logged %+v", got)
				}
				if q := a.Queued(); len(q) != 0 {
					t.Fatalf("a failed reopen steered %+v", q)
				}
				return
			}
			if err != nil || reply != tt.wantReply {
				t.Fatalf("/plan %q = %q, %v; want %q", tt.args, reply, err, tt.wantReply)
			}
			wantState(t, c, a, tt.wantState)
			got := reopens(t, a.Session())
			want := planmode.ReopenPayload{Number: tt.wantNumber, Title: strings.TrimPrefix(strings.SplitN(tt.wantPlan, "\n", 2)[0], "# "),
				Digest: host.DigestDetail(tt.wantPlan), Plan: tt.wantPlan}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("plan/reopen = %+v, want %+v", got, want)
			}
			wantText := fmt.Sprintf(planmode.NoticeReopened, tt.wantNumber) + tt.wantPlan
			logged, steered := reopenMessages(t, a.Session()), a.Queued()
			if tt.wantSteered {
				if len(logged) != 0 || len(steered) != 1 || steered[0].Content[0].Text != wantText || steered[0].Source.Form != planmode.ReopenForm {
					t.Fatalf("logged %q, steered %+v; want the draft steered", logged, steered)
				}
			} else if len(logged) != 1 || logged[0] != wantText || len(steered) != 0 {
				t.Fatalf("logged %q, steered %+v; want the draft logged", logged, steered)
			}
			plans := planmode.Plans(a.Session().Events())
			for _, p := range plans {
				if p.Reopened != (p.Number == tt.wantNumber) {
					t.Fatalf("plan %d Reopened = %v", p.Number, p.Reopened)
				}
			}
		})
	}
}

func TestPlansReadsOutcomesEditsAndNumbers(t *testing.T) {
	_, c, a := startAgent(t)
	threePlans(t, c, a)
	presentPlan(t, a.Session(), "c4", "# Four", "", "")
	got := planmode.Plans(a.Session().Events())
	want := []struct {
		title, plan string
		outcome     planmode.ExitOutcome
		edited      bool
	}{
		{"One", reopenPlan1, planmode.ExitApproved, false},
		{"Two", reopenPlan2, planmode.ExitKeepPlanning, false},
		{"Three", reopenPlan3Edited, planmode.ExitApproved, true},
		{"Four", "# Four", "", false},
	}
	if len(got) != len(want) {
		t.Fatalf("Plans = %+v", got)
	}
	for i, w := range want {
		p := got[i]
		if p.Number != i+1 || p.Title != w.title || p.Plan != w.plan || p.Outcome != w.outcome || p.Edited != w.edited || p.Reopened {
			t.Fatalf("plan %d = %+v, want %+v", i+1, p, w)
		}
		// ResultSeq is the Seq of the call's own tool/result.
		var result host.Event
		for _, e := range a.Session().Events().All() {
			var r host.ToolResult
			if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil && r.CallID == p.CallID {
				result = e
			}
		}
		if p.ResultSeq != result.Seq {
			t.Errorf("plan %d: ResultSeq = %d, want %d (its tool/result)", i+1, p.ResultSeq, result.Seq)
		}
	}
}

func TestCheckPayloadRejectsBadReopen(t *testing.T) {
	good := planmode.ReopenPayload{Number: 1, Digest: host.DigestDetail("# A"), Plan: "# A"}
	tests := []struct {
		name string
		data string
		ok   bool
	}{
		{"good", string(mustMarshal(good)), true},
		{"not an object", `[1]`, false},
		{"number 0", `{"number":0,"digest":"` + good.Digest + `","plan":"# A"}`, false},
		{"wrong digest", `{"number":1,"digest":"00","plan":"# A"}`, false},
		{"too large", string(mustMarshal(planmode.ReopenPayload{Number: 1, Plan: strings.Repeat("x", 256<<10+1),
			Digest: host.DigestDetail(strings.Repeat("x", 256<<10+1))})), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := planmode.CheckPayload(host.Event{Type: planmode.EventPlanReopen, Data: json.RawMessage(tt.data)})
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, planmode.ErrBadPayload)) {
				t.Fatalf("CheckPayload = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	must(err)
	return b
}

// FuzzReopenPayload: the payload check never panics, and what it accepts
// is a plan/reopen that Plans and the review read back whole.
func FuzzReopenPayload(f *testing.F) {
	f.Add(string(mustMarshal(planmode.ReopenPayload{Number: 1, Digest: host.DigestDetail("# A"), Plan: "# A"})))
	f.Add(`{"number":-1}`)
	f.Add(`null`)
	f.Add(`{"number":1,"digest":"","plan":""}`)
	f.Fuzz(func(t *testing.T, data string) {
		err := planmode.CheckPayload(host.Event{Type: planmode.EventPlanReopen, Data: json.RawMessage(data)})
		if err != nil {
			return
		}
		var p planmode.ReopenPayload
		if json.Unmarshal([]byte(data), &p) != nil || p.Number < 1 || p.Digest != host.DigestDetail(p.Plan) {
			t.Fatalf("accepted %q", data)
		}
	})
}
