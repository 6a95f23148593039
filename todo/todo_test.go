package todo_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
)

func item(id, status string) string {
	return fmt.Sprintf(`{"id":%q,"content":"do %s","status":%q,"priority":"medium"}`, id, id, status)
}

func list(items ...string) string { return `{"todos":[` + strings.Join(items, ",") + `]}` }

func TestWriteReplacesTheList(t *testing.T) {
	f := newFixture(t)
	got := f.write(t, "a", list(item("1", "in_progress"), item("2", "pending")))
	if want := []string{"1:in_progress", "2:pending"}; !slices.Equal(summary(got), want) {
		t.Fatalf("stored %v, want %v", summary(got), want)
	}
	if read := f.read(t, "a"); !slices.Equal(summary(read), summary(got)) {
		t.Fatalf("todo_read returned %v after writing %v", summary(read), summary(got))
	}
}

func TestLeftOutItemsAreKeptAsCompleted(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a", list(item("1", "completed"), item("2", "in_progress"), item("3", "pending")))
	got := f.write(t, "a", list(item("3", "in_progress")))
	want := []string{"3:in_progress", "1:completed", "2:completed"}
	if !slices.Equal(summary(got), want) {
		t.Fatalf("after leaving out 1 and 2: %v, want %v", summary(got), want)
	}
}

func TestAllCompletedWriteStartsFromACleanSlate(t *testing.T) {
	tests := []struct {
		name string
		give string
		want []string
	}{
		{"every written item completed", list(item("3", "completed")), []string{"3:completed"}},
		{"an empty list", list(), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "a", list(item("1", "pending"), item("2", "in_progress"), item("3", "pending")))
			if got := f.write(t, "a", tt.give); !slices.Equal(summary(got), tt.want) {
				t.Fatalf("got %v, want %v", summary(got), tt.want)
			}
		})
	}
}

func TestTwoItemsInProgressAreRefusedAndNothingIsStored(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a", list(item("1", "pending")))
	_, err := f.call(t, "a", todo.WriteToolName, list(item("1", "in_progress"), item("2", "in_progress")))
	if !errors.Is(err, todo.ErrBadWrite) || !strings.Contains(err.Error(), "items 1 and 2 are both in_progress") {
		t.Fatalf("error %v", err)
	}
	if got := f.read(t, "a"); !slices.Equal(summary(got), []string{"1:pending"}) {
		t.Fatalf("the refused write changed the list to %v", summary(got))
	}
}

func TestTimestampsAreOwnedByThePlugin(t *testing.T) {
	f := newFixture(t)
	t0 := f.clock.now()
	f.write(t, "a", list(item("1", "pending"), item("2", "pending")))
	f.clock.advance(time.Minute)
	t1 := f.clock.now()
	// The model sends back made-up timestamps and changes only item 2.
	got := f.write(t, "a", list(
		`{"id":"1","content":"do 1","status":"pending","priority":"medium","created_at":"1999-01-01T00:00:00Z","updated_at":"1999-01-01T00:00:00Z"}`,
		item("2", "in_progress"), item("3", "pending")))
	want := []struct {
		id               string
		created, updated time.Time
	}{{"1", t0, t0}, {"2", t0, t1}, {"3", t1, t1}}
	for i, w := range want {
		if got[i].ID != w.id || !got[i].CreatedAt.Equal(w.created) || !got[i].UpdatedAt.Equal(w.updated) {
			t.Errorf("item %s: created %v updated %v, want %v and %v", got[i].ID, got[i].CreatedAt, got[i].UpdatedAt, w.created, w.updated)
		}
	}
}

func TestAKeptItemIsUpdatedOnlyWhenItsStatusChanges(t *testing.T) {
	f := newFixture(t)
	t0 := f.clock.now()
	f.write(t, "a", list(item("1", "completed"), item("2", "pending"), item("3", "pending")))
	f.clock.advance(time.Hour)
	got := f.write(t, "a", list(item("3", "in_progress")))
	byID := map[string]todo.Item{}
	for _, it := range got {
		byID[it.ID] = it
	}
	if !byID["1"].UpdatedAt.Equal(t0) {
		t.Errorf("item 1 was completed already; updated_at moved to %v", byID["1"].UpdatedAt)
	}
	if !byID["2"].UpdatedAt.Equal(f.clock.now()) {
		t.Errorf("item 2 became completed; updated_at stayed %v", byID["2"].UpdatedAt)
	}
}

func TestBadWritesNameTheProblem(t *testing.T) {
	long := strings.Repeat("x", todo.MaxContentSize+1)
	tests := []struct {
		name, give, want string
	}{
		{"not an object", `[1]`, "not a JSON object"},
		{"unknown top-level field", `{"todos":[],"extra":1}`, `unknown fields "extra"`},
		{"todos missing", `{}`, `"todos" is missing`},
		{"todos not a list", `{"todos":{}}`, `"todos" is not a list`},
		{"todos null", `{"todos":null}`, `"todos" is not a list`},
		{"item not an object", `{"todos":[1]}`, "item 1: is not a JSON object"},
		{"unknown item field", list(`{"id":"1","content":"c","status":"pending","priority":"low","due":"x"}`), `item 1: unknown fields "due"`},
		{"id missing", list(`{"content":"c","status":"pending","priority":"low"}`), `item 1: "id" is missing`},
		{"id a number", list(`{"id":1,"content":"c","status":"pending","priority":"low"}`), `item 1: "id" is not a string`},
		{"id blank", list(`{"id":" ","content":"c","status":"pending","priority":"low"}`), `"id" is blank`},
		{"id with a control character", list(`{"id":"a\u001b","content":"c","status":"pending","priority":"low"}`), "control characters"},
		{"content blank", list(`{"id":"1","content":"","status":"pending","priority":"low"}`), `"content" is blank`},
		{"content too long", list(`{"id":"1","content":"` + long + `","status":"pending","priority":"low"}`), "4097 bytes, more than the 4096-byte"},
		{"content with an escape", list(`{"id":"1","content":"a\u001b[2J","status":"pending","priority":"low"}`), "control characters"},
		{"bad status", list(`{"id":"1","content":"c","status":"done","priority":"low"}`), `"status" is "done"`},
		{"bad priority", list(`{"id":"1","content":"c","status":"pending","priority":"urgent"}`), `"priority" is "urgent"`},
		{"duplicate id", list(item("1", "pending"), item("2", "pending"), item("1", "pending")), `item 3 has the id "1" of item 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := todo.DecodeWrite([]byte(tt.give), todo.MaxItems)
			if !errors.Is(err, todo.ErrBadWrite) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestContentOfExactlyTheLimitIsAccepted(t *testing.T) {
	c := strings.Repeat("é", todo.MaxContentSize/2)
	items, err := todo.DecodeWrite([]byte(list(`{"id":"1","content":"`+c+`","status":"pending","priority":"low"}`)), todo.MaxItems)
	if err != nil || len(items) != 1 {
		t.Fatal(err)
	}
}

func TestItemLimits(t *testing.T) {
	many := func(n int, status string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = item(fmt.Sprint(i), status)
		}
		return list(items...)
	}
	t.Run("a write over the limit is refused", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.call(t, "a", todo.WriteToolName, many(todo.MaxItems+1, "pending")); err == nil || !strings.Contains(err.Error(), "201 items, more than the 200") {
			t.Fatalf("error %v", err)
		}
		if got := f.write(t, "a", many(todo.MaxItems, "pending")); len(got) != todo.MaxItems {
			t.Fatalf("a write of %d items stored %d", todo.MaxItems, len(got))
		}
	})
	t.Run("kept items count toward the limit", func(t *testing.T) {
		f := start(t, store.NewMemoryDocuments(), todo.Config{MaxItems: 3})
		f.write(t, "a", list(item("1", "pending"), item("2", "pending")))
		_, err := f.call(t, "a", todo.WriteToolName, list(item("3", "pending"), item("4", "pending")))
		if err == nil || !strings.Contains(err.Error(), "4 items (2 written, 2 kept") {
			t.Fatalf("error %v", err)
		}
		if got := f.write(t, "a", list(item("3", "completed"), item("4", "completed"))); len(got) != 2 {
			t.Fatalf("a clean slate stored %v", summary(got))
		}
	})
}

func TestListsBelongToTheAgent(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a", list(item("1", "pending")))
	if got := f.read(t, "b"); len(got) != 0 {
		t.Fatalf("agent b sees %v", summary(got))
	}
	if _, err := f.call(t, "", todo.ReadToolName, `{}`); !errors.Is(err, host.ErrBadDocumentKey) {
		t.Fatalf("an empty agent id: %v", err)
	}
	_, err := todo.New(todo.Params{Config: todo.DefaultConfig(), Tools: newTools()})
	if !errors.Is(err, todo.ErrMissingDependency) {
		t.Fatalf("New without documents: %v", err)
	}
}

func TestToolsRefuseCallsWithoutAnAgent(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{todo.ReadToolName, todo.WriteToolName} {
		_, err := f.tools.get(t, name).Execute(context.Background(), host.CallContext{}, []byte(`{"todos":[]}`))
		if err == nil || !strings.Contains(err.Error(), "no agent") {
			t.Errorf("%s without an agent: %v", name, err)
		}
	}
	if _, err := f.call(t, "a", todo.ReadToolName, `{"x":1}`); err == nil {
		t.Error("todo_read accepted input")
	}
}

// Two sessions of one agent are two plugin instances (two processes) over
// one directory; each adds its own items one write at a time, sending its
// whole view. Compare-and-swap keeps every item.
func TestConcurrentWritersOfOneAgentLoseNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	open := func() host.Documents {
		d, err := store.OpenDirDocuments(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sessions := []*fixture{start(t, open(), todo.DefaultConfig()), start(t, open(), todo.DefaultConfig())}
	const each = 12
	var wg sync.WaitGroup
	for s, f := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			for i := range each {
				mine = append(mine, item(fmt.Sprintf("s%d-%d", s, i), "pending"))
				if _, err := f.call(t, "agent", todo.WriteToolName, list(mine...)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := sessions[0].read(t, "agent")
	ids := map[string]bool{}
	for _, it := range got {
		ids[it.ID] = true
	}
	for s := range sessions {
		for i := range each {
			if id := fmt.Sprintf("s%d-%d", s, i); !ids[id] {
				t.Errorf("item %s was lost", id)
			}
		}
	}
	if len(got) != 2*each {
		t.Errorf("the list holds %d items, want %d", len(got), 2*each)
	}
}

func TestTheListSurvivesARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	d1, err := store.OpenDirDocuments(dir)
	if err != nil {
		t.Fatal(err)
	}
	f1 := start(t, d1, todo.DefaultConfig())
	before := f1.write(t, "agent", list(item("1", "in_progress"), item("2", "pending")))
	if err := f1.p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	d2, err := store.OpenDirDocuments(dir)
	if err != nil {
		t.Fatal(err)
	}
	after := start(t, d2, todo.DefaultConfig()).read(t, "agent")
	if !slices.EqualFunc(before, after, func(a, b todo.Item) bool {
		return a.ID == b.ID && a.Content == b.Content && a.Status == b.Status && a.CreatedAt.Equal(b.CreatedAt)
	}) {
		t.Fatalf("after the restart %v, before %v", after, before)
	}
}

func TestStartAndStopRegisterAndRemoveTheTools(t *testing.T) {
	f := newFixture(t)
	if err := f.p.Start(context.Background()); !errors.Is(err, todo.ErrAlreadyRunning) {
		t.Fatalf("second Start: %v", err)
	}
	if err := f.p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.tools.byName); n != 0 {
		t.Fatalf("%d tools left after Stop", n)
	}
}
