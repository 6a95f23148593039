package main

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/dshgo/planmode/host"
)

// BenchmarkPrinterToolCall measures printing one tool call and its result,
// the console's most frequent work.
func BenchmarkPrinterToolCall(b *testing.B) {
	md, err := newMarkdown(styleNoTTY)
	if err != nil {
		b.Fatal(err)
	}
	p := newPrinter(io.Discard, md, newPresenters(), true)
	call, _ := json.Marshal(host.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"greeter.go"}`)})
	result, _ := json.Marshal(host.ToolResult{CallID: "c1", Name: "read_file", Output: "package greeter\n\nfunc Hello() {}\n"})
	events := []host.Event{{Seq: 1, Type: host.TypeToolCall, Data: call}, {Seq: 2, Type: host.TypeToolResult, Data: result}}
	logged := host.LogOf(events)
	log := func() host.Log { return logged }
	b.ReportAllocs()
	for b.Loop() {
		p.event(events[0], log)
		p.event(events[1], log)
	}
}
