package host_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// fakeLease is a turn lease over one session that a test fences.
type fakeLease struct {
	host.TurnLease // methods the tests do not call
	s              host.Session

	mu     sync.Mutex
	fenced bool
	calls  int
}

func (l *fakeLease) Append(e host.Event) (host.Event, error) {
	e, _, err := l.AppendIf(e, nil)
	return e, err
}

func (l *fakeLease) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.fenced {
		return host.Event{}, false, host.ErrFenced
	}
	return l.s.AppendIf(e, cond)
}

// TestAppendGoesThroughTheTurnLease: host.Append and host.AppendIf write
// through the lease a turn's context carries for the session (fenced: a
// lost turn writes nothing), and append to the session directly without a
// turn's context or for another session.
func TestAppendGoesThroughTheTurnLease(t *testing.T) {
	tests := []struct {
		name        string
		ctx         func(s, other host.Session, l host.TurnLease) context.Context
		fenced      bool
		wantErr     error
		wantThrough bool // the append went through the lease
	}{
		{"no turn", func(host.Session, host.Session, host.TurnLease) context.Context { return context.Background() }, true, nil, false},
		{"the turn holds its lease", func(s, _ host.Session, l host.TurnLease) context.Context {
			return host.WithTurnLease(context.Background(), s, l)
		}, false, nil, true},
		{"the turn lost its lease", func(s, _ host.Session, l host.TurnLease) context.Context {
			return host.WithTurnLease(context.Background(), s, l)
		}, true, host.ErrFenced, true},
		{"a derived context of a lost turn", func(s, _ host.Session, l host.TurnLease) context.Context {
			ctx, cancel := context.WithCancel(host.WithTurnLease(context.Background(), s, l))
			cancel()
			return ctx
		}, true, host.ErrFenced, true},
		{"another session's turn", func(_, other host.Session, l host.TurnLease) context.Context {
			return host.WithTurnLease(context.Background(), other, l)
		}, true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			s, err := st.Create("s")
			if err != nil {
				t.Fatal(err)
			}
			other, err := st.Create("other")
			if err != nil {
				t.Fatal(err)
			}
			l := &fakeLease{s: s, fenced: tt.fenced}
			ctx := tt.ctx(s, other, l)
			_, err = host.Append(ctx, s, host.Event{Type: "test/a"})
			_, ok, errIf := host.AppendIf(ctx, s, host.Event{Type: "test/b"}, func() bool { return true })
			for _, err := range []error{err, errIf} {
				if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
					t.Fatalf("append: %v, want %v", err, tt.wantErr)
				}
			}
			want := 2
			if tt.wantErr != nil {
				want = 0
			}
			if s.Len() != want || ok != (want == 2) {
				t.Fatalf("the log holds %d events (AppendIf %v), want %d", s.Len(), ok, want)
			}
			if through := l.calls == 2; through != tt.wantThrough {
				t.Fatalf("%d appends went through the lease, want through=%v", l.calls, tt.wantThrough)
			}
		})
	}
}
