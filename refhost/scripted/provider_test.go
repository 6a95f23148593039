package scripted_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
)

func ask(ids ...string) host.AskRequest {
	req := host.AskRequest{}
	for _, id := range ids {
		req.Questions = append(req.Questions, host.Question{ID: id, Options: []host.Option{{Label: "A"}}})
	}
	return req
}

func TestProviderAnswers(t *testing.T) {
	p := scripted.NewProvider()
	ctx := context.Background()
	p.QueueAnswers(
		host.Answer{QuestionID: "q1", Selected: []string{"A"}},
		host.Answer{QuestionID: "q2", Custom: "first"},
		host.Answer{QuestionID: "q2", Custom: "second"},
	)
	got, err := p.Ask(ctx, ask("q1", "q2"))
	if err != nil || len(got) != 2 || got[0].QuestionID != "q1" || got[1].Custom != "first" {
		t.Errorf("first = %+v, %v", got, err)
	}
	got, err = p.Ask(ctx, ask("q1", "q2"))
	if err != nil || len(got) != 1 || got[0].Custom != "second" {
		t.Errorf("second = %+v, %v (q1 has nothing left, q2 its second)", got, err)
	}
	if _, err := p.Ask(ctx, ask("q1")); !errors.Is(err, scripted.ErrNoScriptedAnswer) {
		t.Errorf("nothing queued: err = %v", err)
	}

	// Whole replies take precedence, in order.
	dismissed := errors.Join(host.ErrDismissed, errors.New("typing"))
	p.QueueAnswers(host.Answer{QuestionID: "q1", Custom: "by id"})
	p.QueueReply(scripted.Reply{Answers: []host.Answer{{QuestionID: "q1", Custom: "whole"}}}, scripted.Reply{Err: dismissed})
	if got, err := p.Ask(ctx, ask("q1")); err != nil || got[0].Custom != "whole" {
		t.Errorf("reply 1 = %+v, %v", got, err)
	}
	if _, err := p.Ask(ctx, ask("q1")); !errors.Is(err, host.ErrDismissed) {
		t.Errorf("reply 2 err = %v, want ErrDismissed", err)
	}
	if got, err := p.Ask(ctx, ask("q1")); err != nil || got[0].Custom != "by id" {
		t.Errorf("after replies = %+v, %v", got, err)
	}
	reqs := p.Requests()
	if len(reqs) != 6 || reqs[0].Questions[1].ID != "q2" {
		t.Errorf("recorded %d requests: %+v", len(reqs), reqs)
	}
}

func TestProviderHold(t *testing.T) {
	p := scripted.NewProvider()
	p.QueueAnswers(host.Answer{QuestionID: "q", Selected: []string{"A"}})
	release := p.Hold()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()

	t.Run("a held ask returns when its context is cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := p.Ask(ctx, ask("q"))
			done <- err
		}()
		if err := p.WaitRequests(wctx, 1); err != nil {
			t.Fatal(err)
		}
		cancel()
		err := <-done
		if !errors.Is(err, host.ErrAborted) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want ErrAborted and Canceled", err)
		}
	})
	t.Run("a held ask answers once released", func(t *testing.T) {
		done := make(chan []host.Answer)
		go func() {
			got, _ := p.Ask(context.Background(), ask("q"))
			done <- got
		}()
		if err := p.WaitRequests(wctx, 2); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
			t.Fatal("answered while held")
		case <-time.After(10 * time.Millisecond):
		}
		release()
		release()
		if got := <-done; len(got) != 1 || got[0].Selected[0] != "A" {
			t.Errorf("answers = %+v", got)
		}
	})
	t.Run("a cancelled context aborts even when not held", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := p.Ask(ctx, ask("q")); !errors.Is(err, host.ErrAborted) {
			t.Errorf("err = %v", err)
		}
	})
}
