package refhost_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func texts(n int) []scripted.Step {
	s := make([]scripted.Step, n)
	for i := range s {
		s[i] = scripted.Step{Text: "ok"}
	}
	return s
}

func TestHeaders(t *testing.T) {
	f := newFixture(t, texts(6)...)
	must[func()](t)(f.rt.AddSection(host.Section{Name: "b", Order: 10, Text: func(host.AssembleContext) string { return "B" }}))
	must[func()](t)(f.rt.AddSection(host.Section{Name: "a", Order: 10, Text: func(host.AssembleContext) string { return "A" }}))
	must[func()](t)(f.rt.AddSection(host.Section{Name: "z", Order: 1, Text: func(host.AssembleContext) string { return "Z" }}))
	must[func()](t)(f.rt.AddSection(host.Section{Name: "empty", Text: func(host.AssembleContext) string { return "" }}))
	a := f.agent()

	f.steer(a, "one") // initial
	f.steer(a, "two") // unchanged: no header
	dropTool := must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	f.steer(a, "three") // tools changed
	dropTool()
	f.steer(a, "four") // tools changed back

	ctx := ctxTimeout(t)
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	b := must[*refhost.Agent](t)(f.rt.NewAgent("", must[host.Session](t)(f.store.Open(a.Session().ID()))))
	f.steer(b, "five") // resume
	f.steer(b, "six")  // unchanged

	headers := payloads[host.RequestHeader](t, b.Session(), host.TypeRequestHeader)
	reasons := make([]host.HeaderReason, len(headers))
	for i, h := range headers {
		reasons[i] = h.Reason
	}
	want := []host.HeaderReason{host.HeaderInitial, host.HeaderChange, host.HeaderChange, host.HeaderResume}
	if !slices.Equal(reasons, want) {
		t.Fatalf("header reasons = %v, want %v", reasons, want)
	}
	h := headers[0]
	const system = "Z\n\nA\n\nB"
	sum := sha256.Sum256([]byte(system))
	if !slices.Equal(h.Sections, []string{"z", "a", "b"}) || h.SystemDigest != hex.EncodeToString(sum[:]) {
		t.Errorf("header = %+v, want sections [z a b] and the digest of %q", h, system)
	}
	if headers[0].ToolsDigest != headers[2].ToolsDigest || headers[0].ToolsDigest == headers[1].ToolsDigest {
		t.Errorf("tools digests = %s %s %s: want a change and a change back", headers[0].ToolsDigest, headers[1].ToolsDigest, headers[2].ToolsDigest)
	}
	reqs := f.model.Requests()
	if reqs[0].System != system || !slices.Equal(reqs[0].Sections, h.Sections) {
		t.Errorf("request system = %q sections %v", reqs[0].System, reqs[0].Sections)
	}
	if len(reqs[2].Tools) != 1 || reqs[2].Tools[0].Name != "echo" || len(reqs[3].Tools) != 0 {
		t.Errorf("tools per request: %d, %d", len(reqs[2].Tools), len(reqs[3].Tools))
	}
}

func TestHeaderInitialOnNonEmptySession(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	s := must[host.Session](t)(f.store.Create(""))
	must[host.Event](t)(s.Append(host.Event{Type: "plan/mode", Data: json.RawMessage(`{"active":true}`)}))
	a := must[*refhost.Agent](t)(f.rt.NewAgent("", s))
	f.steer(a, "hi")
	headers := payloads[host.RequestHeader](t, s, host.TypeRequestHeader)
	if len(headers) != 1 || headers[0].Reason != host.HeaderInitial {
		t.Errorf("headers = %+v, want one initial header: the session never had one", headers)
	}
}

func TestTranscriptKinds(t *testing.T) {
	f := newFixture(t, texts(2)...)
	must[func()](t)(f.rt.DeclareEventType(host.EventType{Name: "note/hidden", Kind: host.LogOnly}))
	a := f.agent()
	s := a.Session()
	content := json.RawMessage(`{"content":[{"type":"text","text":"secret"}]}`)
	for _, typ := range []string{"note/hidden", "note/undeclared", "note/shown", host.TypeCommandRun} {
		must[host.Event](t)(s.Append(host.Event{Type: typ, Data: content}))
	}
	f.steer(a, "hi")
	if got := f.model.Requests()[0].Messages; len(got) != 1 || got[0].Content[0].Text != "hi" {
		t.Fatalf("messages = %+v, want only the user's: log-only and undeclared types never reach the model", got)
	}

	// Declaring a type later makes its events part of the transcript.
	must[func()](t)(f.rt.DeclareEventType(host.EventType{Name: "note/shown", Kind: host.Transcript}))
	f.steer(a, "again")
	var got []string
	for _, m := range f.model.Requests()[1].Messages {
		if m.Role == refhost.RoleUser {
			got = append(got, m.Content[0].Text)
		}
	}
	if want := []string{"secret", "hi", "again"}; !slices.Equal(got, want) {
		t.Errorf("user texts = %v, want %v", got, want)
	}
}

func TestCompaction(t *testing.T) {
	f := newFixture(t, texts(2)...)
	a := f.agent()
	f.steer(a, "before")
	must[host.Event](t)(a.Session().Append(host.Event{Type: host.TypeCompactionSummary, Data: json.RawMessage(`{"summary":"we said hello"}`)}))
	f.steer(a, "after")
	got := f.model.Requests()[1].Messages
	want := []refhost.Message{
		{Role: refhost.RoleUser, Text: "we said hello"},
		{Role: refhost.RoleUser, Content: []host.Block{host.TextBlock("after")}},
	}
	if len(got) != len(want) || got[0].Text != want[0].Text || got[1].Content[0].Text != want[1].Content[0].Text {
		t.Errorf("messages = %+v, want %+v", got, want)
	}
	if first := f.model.Requests()[0].Messages; len(first) != 1 || first[0].Content[0].Text != "before" {
		t.Errorf("the first request changed after the compaction: %+v", first)
	}
}

func TestAssemble(t *testing.T) {
	f := newFixture(t)
	var seen host.Agent = &refhost.Agent{}
	must[func()](t)(f.rt.AddSection(host.Section{Name: "who", Text: func(ac host.AssembleContext) string {
		seen = ac.Agent
		return "x"
	}}))
	must[func()](t)(f.rt.AddTool(echoTool{name: "b"}))
	must[func()](t)(f.rt.AddTool(echoTool{name: "a"}))
	p := f.rt.Assemble(host.AssembleContext{})
	if seen != nil || p.System != "x" || len(p.Tools) != 2 || p.Tools[0].Name != "a" || p.ToolsDigest == "" {
		t.Errorf("prompt = %+v (agent %v)", p, seen)
	}
}

func TestEachRequestRendersTheSectionsAgain(t *testing.T) {
	f := newFixture(t, texts(3)...)
	text := "one"
	must[func()](t)(f.rt.AddSection(host.Section{Name: "s", Text: func(host.AssembleContext) string { return text }}))
	a := f.agent()
	f.steer(a, "1")
	text = "two" // the loop goroutine is idle; WaitIdle orders this write
	f.steer(a, "2")
	text = ""
	f.steer(a, "3")
	var systems []string
	for _, r := range f.model.Requests() {
		systems = append(systems, r.System)
	}
	if want := []string{"one", "two", ""}; !slices.Equal(systems, want) {
		t.Errorf("systems = %q, want %q", systems, want)
	}
	headers := payloads[host.RequestHeader](t, a.Session(), host.TypeRequestHeader)
	if len(headers) != 3 || len(headers[2].Sections) != 0 {
		t.Errorf("headers = %+v, want three, the last with no sections", headers)
	}
}
