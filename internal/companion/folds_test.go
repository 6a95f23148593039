package companion_test

import (
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFoldsFollowTheLogBetweenOpenAndClose(t *testing.T) {
	st := store.NewMemory()
	sess, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Append(host.Event{Type: "a"}); err != nil {
		t.Fatal(err)
	}
	f := companion.NewFolds(func(n *int, e host.Event) { *n++ })
	if _, err := f.Get(sess); !errors.Is(err, companion.ErrNotRunning) {
		t.Fatalf("Get before Open: %v", err)
	}
	closeFolds, _ := f.Open()
	if n, err := f.Get(sess); err != nil || n != 1 {
		t.Fatalf("first Get: %d %v", n, err)
	}
	if _, err := sess.Append(host.Event{Type: "b"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Get(sess); n != 2 {
		t.Fatalf("after an append: %d", n)
	}
	if n, err := f.Update(sess, func(n *int) { *n += 10 }); err != nil || n != 12 {
		t.Fatalf("Update: %d %v", n, err)
	}
	refused, err := f.AppendIf(t.Context(), sess, host.Event{Type: "c"}, func(n int) error {
		if n != 12 {
			return errors.New("stale")
		}
		return nil
	})
	if refused != nil || err != nil {
		t.Fatalf("AppendIf: %v %v", refused, err)
	}
	no := errors.New("no")
	if refused, err := f.AppendIf(t.Context(), sess, host.Event{Type: "d"}, func(int) error { return no }); refused != no || err != nil || sess.Len() != 3 {
		t.Fatalf("a refused AppendIf: %v %v, %d events", refused, err, sess.Len())
	}
	closeFolds()
	if _, err := f.Get(sess); !errors.Is(err, companion.ErrNotRunning) {
		t.Fatalf("Get after Close: %v", err)
	}
	if _, err := sess.Append(host.Event{Type: "e"}); err != nil {
		t.Fatal(err)
	}
}
