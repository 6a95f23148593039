package sessfold_test

import (
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/sessfold"
	"github.com/dshgo/planmode/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFoldsFollowTheLogUntilClosed(t *testing.T) {
	st := store.NewMemory()
	sess, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Append(host.Event{Type: "a"}); err != nil {
		t.Fatal(err)
	}
	f := sessfold.New(func(n *int, e host.Event) { *n++ })
	if n, err := f.Get(sess); err != nil || n != 1 {
		t.Fatalf("first Get: %d %v", n, err)
	}
	if _, err := sess.Append(host.Event{Type: "b"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Get(sess); n != 2 {
		t.Fatalf("after an append: %d", n)
	}
	if err := f.Update(sess, func(n *int) { *n += 10 }); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Get(sess); n != 12 {
		t.Fatalf("after Update: %d", n)
	}
	f.Close()
	if _, err := f.Get(sess); !errors.Is(err, sessfold.ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	if _, err := sess.Append(host.Event{Type: "c"}); err != nil {
		t.Fatal(err)
	}
}
