package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// A host opens its sessions directory once, creates or opens sessions in
// it, and closes it on shutdown.
func ExampleOpenDir() {
	tmp, err := os.MkdirTemp("", "sessions-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "sessions")

	d, err := store.OpenDir(dir, store.WithSyncPolicy(store.SyncTurnEnd))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := d.Create("demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, e := range []host.Event{
		{Type: host.TypeTurnStart, Time: at, Data: []byte(`{"turn":1}`)},
		{Type: host.TypeTurnEnd, Time: at, Data: []byte(`{"turn":1, "reason":"completed"}`)},
	} {
		if _, err := s.Append(e); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := d.Close(); err != nil {
		fmt.Println(err)
		return
	}

	b, _ := os.ReadFile(filepath.Join(dir, "demo.jsonl"))
	fmt.Print(string(b))

	d, _ = store.OpenDir(dir)
	defer d.Close()
	s, err = d.Open("demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reopened:", s.Len(), "events")
	// Output:
	// {"seq":1,"type":"turn/start","time":"2025-01-02T03:04:05Z","data":{"turn":1}}
	// {"seq":2,"type":"turn/end","time":"2025-01-02T03:04:05Z","data":{"turn":1,"reason":"completed"}}
	// reopened: 2 events
}
