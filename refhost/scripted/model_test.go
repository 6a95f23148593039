package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestModel(t *testing.T) {
	errDown := errors.New("down")
	m := scripted.NewModel(
		scripted.Step{Text: "hi", ToolCalls: []host.ToolCall{{ID: "c1", Name: "t", Input: json.RawMessage(`{}`)}}},
		scripted.Step{Err: errDown},
		scripted.Step{Respond: func(_ context.Context, req refhost.Request) (refhost.Response, error) {
			return refhost.Response{Text: "system was " + req.System}, nil
		}},
	)
	ctx := context.Background()
	req := refhost.Request{System: "s", Sections: []string{"a"}, Messages: []refhost.Message{{Role: refhost.RoleUser, Content: []host.Block{host.TextBlock("x")}}}}

	resp, err := m.Generate(ctx, req)
	if err != nil || resp.Text != "hi" || len(resp.ToolCalls) != 1 {
		t.Errorf("first = %+v, %v", resp, err)
	}
	resp.ToolCalls[0].Name = "changed" // must not reach the script
	if _, err := m.Generate(ctx, req); err != errDown {
		t.Errorf("second err = %v, want the scripted error", err)
	}
	if resp, err := m.Generate(ctx, req); err != nil || resp.Text != "system was s" {
		t.Errorf("third = %+v, %v", resp, err)
	}
	if _, err := m.Generate(ctx, req); !errors.Is(err, scripted.ErrScriptExhausted) {
		t.Errorf("fourth err = %v, want ErrScriptExhausted", err)
	}
	req.Messages[0].Content[0].Text = "mutated by the caller"
	reqs := m.Requests()
	if len(reqs) != 4 || m.Calls() != 4 || m.Remaining() != 0 {
		t.Fatalf("recorded %d requests, calls %d, remaining %d", len(reqs), m.Calls(), m.Remaining())
	}
	if got := reqs[0].Messages[0].Content[0].Text; got != "x" {
		t.Errorf("recorded request changed with the caller's: %q", got)
	}
	reqs[0].Sections[0] = "mutated by the reader"
	if got := m.Requests()[0].Sections[0]; got != "a" {
		t.Errorf("Requests returned shared storage: %q", got)
	}

	m.Add(scripted.Step{Text: "more"})
	if resp, err := m.Generate(ctx, req); err != nil || resp.Text != "more" {
		t.Errorf("after Add = %+v, %v", resp, err)
	}
}

func TestModelBlock(t *testing.T) {
	m := scripted.NewModel(scripted.Step{Block: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := m.Generate(ctx, refhost.Request{})
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if err := m.WaitCalls(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want Canceled", err)
	}
	short, scancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer scancel()
	if err := m.WaitCalls(short, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a call that never comes: err = %v", err)
	}
}

func TestModelFromYAML(t *testing.T) {
	steps, err := scripted.ParseScript([]byte("steps:\n  - text: hi\n  - error: boom\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.NewModel(steps...)
	if resp, err := m.Generate(context.Background(), refhost.Request{}); err != nil || resp.Text != "hi" {
		t.Errorf("first = %+v, %v", resp, err)
	}
	if _, err := m.Generate(context.Background(), refhost.Request{}); err == nil || err.Error() != "boom" {
		t.Errorf("second err = %v", err)
	}
	if _, err := scripted.ParseScript([]byte("steps: 3")); !errors.Is(err, scripted.ErrBadScript) {
		t.Errorf("bad script: err = %v", err)
	}
}
