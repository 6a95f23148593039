package hosttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
)

// TestDocuments runs the conformance suite of [host.Documents]. newDocs
// returns an empty store for one subtest; the suite never assumes files, so
// a database-backed store passes it the same way. Stores that must be
// closed clean up with t.Cleanup.
func TestDocuments(t *testing.T, newDocs func(t testing.TB) host.Documents) {
	t.Helper()
	ctx := context.Background()
	const agent, name = "agent-1", "todo"
	// stored checks that put, what a Put returned, and a Get now both hold
	// data at version.
	stored := func(t *testing.T, d host.Documents, put host.Document, data string, version int64) {
		t.Helper()
		mustDoc(t, put, data, version)
		mustDoc(t, mustGet(t, d, agent, name), data, version)
	}

	t.Run("a document never written is not found", func(t *testing.T) {
		d := newDocs(t)
		_, err := d.Get(ctx, agent, name)
		mustIs(t, err, host.ErrDocumentNotFound)
	})

	t.Run("the first put with version 0 creates version 1", func(t *testing.T) {
		d := newDocs(t)
		stored(t, d, mustPut(t, d, agent, name, []byte("one"), 0), "one", 1)
	})

	t.Run("a put naming the current version replaces the content and counts up", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, agent, name, []byte("one"), 0)
		mustPut(t, d, agent, name, []byte("two"), 1)
		stored(t, d, mustPut(t, d, agent, name, []byte("three"), 2), "three", 3)
	})

	t.Run("a put naming another version conflicts and changes nothing", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, agent, name, []byte("one"), 0)
		mustPut(t, d, agent, name, []byte("two"), 1)
		for _, v := range []int64{0, 1, 3, 100, -1} {
			_, err := d.Put(ctx, agent, name, []byte("lost"), v)
			mustIs(t, err, host.ErrVersionConflict)
		}
		mustDoc(t, mustGet(t, d, agent, name), "two", 2)
	})

	t.Run("a put with a version other than 0 on a missing document conflicts", func(t *testing.T) {
		d := newDocs(t)
		_, err := d.Put(ctx, agent, name, []byte("x"), 1)
		mustIs(t, err, host.ErrVersionConflict)
		_, err = d.Get(ctx, agent, name)
		mustIs(t, err, host.ErrDocumentNotFound)
	})

	t.Run("empty content is a document", func(t *testing.T) {
		d := newDocs(t)
		stored(t, d, mustPut(t, d, agent, name, nil, 0), "", 1)
	})

	t.Run("content is stored byte for byte", func(t *testing.T) {
		d := newDocs(t)
		data := make([]byte, 0, 512)
		for i := range 256 {
			data = append(data, byte(i), byte(255-i))
		}
		mustPut(t, d, agent, name, data, 0)
		if got := mustGet(t, d, agent, name); !bytes.Equal(got.Data, data) {
			t.Fatalf("Get returned %d bytes that differ from the %d put", len(got.Data), len(data))
		}
	})

	t.Run("the store keeps no memory shared with callers", func(t *testing.T) {
		d := newDocs(t)
		data := []byte("abc")
		put := mustPut(t, d, agent, name, data, 0)
		data[0] = 'X'
		if len(put.Data) > 0 {
			put.Data[1] = 'Y'
		}
		got := mustGet(t, d, agent, name)
		got.Data[2] = 'Z'
		mustDoc(t, mustGet(t, d, agent, name), "abc", 1)
	})

	t.Run("documents are scoped by agent and by name", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, "a", "x", []byte("a/x"), 0)
		mustPut(t, d, "b", "x", []byte("b/x"), 0)
		mustPut(t, d, "a", "y", []byte("a/y"), 0)
		mustDoc(t, mustGet(t, d, "a", "x"), "a/x", 1)
		mustDoc(t, mustGet(t, d, "b", "x"), "b/x", 1)
		mustDoc(t, mustGet(t, d, "a", "y"), "a/y", 1)
		_, err := d.Get(ctx, "b", "y")
		mustIs(t, err, host.ErrDocumentNotFound)
	})

	t.Run("agent ids of any text are distinct keys", func(t *testing.T) {
		d := newDocs(t)
		ids := []string{
			"plain", "Plain", "PLAIN", "with space", "../escape", "a/b", `a\b`, ".", "..", "~plain",
			"con", "NUL", "-dash", "日本語", "emoji 🙂", strings.Repeat("x", host.MaxDocumentAgentIDLen),
		}
		keptApart(t, d, len(ids), func(i int) (string, string) { return ids[i], name })
	})

	t.Run("names of every allowed form are distinct keys", func(t *testing.T) {
		d := newDocs(t)
		names := []string{"todo", "todo.v2", "todo-v2", "todo_v2", "0", "con", "nul", strings.Repeat("n", host.MaxDocumentNameLen)}
		keptApart(t, d, len(names), func(i int) (string, string) { return agent, names[i] })
	})

	t.Run("bad keys are refused", func(t *testing.T) {
		d := newDocs(t)
		tests := []struct{ agent, name string }{
			{"", name},
			{strings.Repeat("x", host.MaxDocumentAgentIDLen+1), name},
			{"bad\nid", name},
			{"bad\x00id", name},
			{"\xff", name},
			{agent, ""},
			{agent, "Todo"},
			{agent, ".todo"},
			{agent, "-todo"},
			{agent, "to/do"},
			{agent, "to do"},
			{agent, strings.Repeat("n", host.MaxDocumentNameLen+1)},
		}
		for _, tt := range tests {
			_, err := d.Put(ctx, tt.agent, tt.name, []byte("x"), 0)
			mustIs(t, err, host.ErrBadDocumentKey)
			_, err = d.Get(ctx, tt.agent, tt.name)
			mustIs(t, err, host.ErrBadDocumentKey)
		}
	})

	t.Run("content over the limit is refused and nothing changes", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, agent, name, []byte("kept"), 0)
		_, err := d.Put(ctx, agent, name, make([]byte, host.MaxDocumentSize+1), 1)
		mustIs(t, err, host.ErrDocumentTooLarge)
		mustDoc(t, mustGet(t, d, agent, name), "kept", 1)
		got := mustPut(t, d, agent, name, make([]byte, host.MaxDocumentSize), 1)
		if got.Version != 2 || len(got.Data) != host.MaxDocumentSize {
			t.Fatalf("a put of exactly MaxDocumentSize bytes stored version %d with %d bytes", got.Version, len(got.Data))
		}
	})

	t.Run("a cancelled context fails get and put and changes nothing", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, agent, name, []byte("kept"), 0)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := d.Get(cctx, agent, name)
		mustIs(t, err, context.Canceled)
		_, err = d.Put(cctx, agent, name, []byte("lost"), 1)
		mustIs(t, err, context.Canceled)
		mustDoc(t, mustGet(t, d, agent, name), "kept", 1)
	})

	t.Run("concurrent read-modify-write loops lose no update", func(t *testing.T) {
		d := newDocs(t)
		const writers, each = 4, 15
		errs := make(chan error, writers)
		stWriters(writers, each, func(w, i int) bool {
			if err := appendLine(ctx, d, agent, name, fmt.Sprintf("w%d-%d", w, i)); err != nil {
				errs <- err
				return false
			}
			return true
		})()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got := mustGet(t, d, agent, name)
		lines := strings.Fields(string(got.Data))
		if len(lines) != writers*each || got.Version != writers*each {
			t.Fatalf("after %d updates the document has %d lines at version %d", writers*each, len(lines), got.Version)
		}
		seen := map[string]bool{}
		for _, l := range lines {
			seen[l] = true
		}
		for w := range writers {
			for i := range each {
				if l := fmt.Sprintf("w%d-%d", w, i); !seen[l] {
					t.Errorf("update %s was lost", l)
				}
			}
		}
	})

	t.Run("of concurrent puts naming the same version exactly one wins", func(t *testing.T) {
		d := newDocs(t)
		mustPut(t, d, agent, name, []byte("base"), 0)
		const n = 8
		var wg sync.WaitGroup
		results := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = d.Put(ctx, agent, name, []byte(strconv.Itoa(i)), 1)
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range results {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("puts %d and %d both won", winner, i)
			case err == nil:
				winner = i
			default:
				mustIs(t, err, host.ErrVersionConflict)
			}
		}
		if winner < 0 {
			t.Fatal("no put won")
		}
		mustDoc(t, mustGet(t, d, agent, name), strconv.Itoa(winner), 2)
	})
}

// appendLine adds line to the document the way a plugin updates one: read,
// change, put naming the version read, and start over on a conflict.
func appendLine(ctx context.Context, d host.Documents, agent, name, line string) error {
	for {
		var data []byte
		var version int64
		doc, err := d.Get(ctx, agent, name)
		switch {
		case errors.Is(err, host.ErrDocumentNotFound):
		case err != nil:
			return err
		default:
			data, version = doc.Data, doc.Version
		}
		data = append(data, line+"\n"...)
		_, err = d.Put(ctx, agent, name, data, version)
		if errors.Is(err, host.ErrVersionConflict) {
			continue
		}
		return err
	}
}

func mustPut(t testing.TB, d host.Documents, agent, name string, data []byte, v int64) host.Document {
	t.Helper()
	doc, err := d.Put(context.Background(), agent, name, data, v)
	if err != nil {
		t.Fatalf("Put(%q, %q, version %d): %v", agent, name, v, err)
	}
	return doc
}

func mustGet(t testing.TB, d host.Documents, agent, name string) host.Document {
	t.Helper()
	doc, err := d.Get(context.Background(), agent, name)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", agent, name, err)
	}
	return doc
}

func mustDoc(t testing.TB, got host.Document, data string, version int64) {
	t.Helper()
	if string(got.Data) != data || got.Version != version {
		t.Fatalf("document is %q at version %d, want %q at version %d", got.Data, got.Version, data, version)
	}
}

func mustIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

// keptApart puts document i under key(i) for i below n and reads each
// back: the keys must not overwrite one another.
func keptApart(t testing.TB, d host.Documents, n int, key func(i int) (agentID, name string)) {
	t.Helper()
	for i := range n {
		a, name := key(i)
		mustPut(t, d, a, name, []byte(strconv.Itoa(i)), 0)
	}
	for i := range n {
		a, name := key(i)
		mustDoc(t, mustGet(t, d, a, name), strconv.Itoa(i), 1)
	}
}
