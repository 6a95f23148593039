package refhost_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		give     string
		wantName string
		wantArgs string
		wantOK   bool
	}{
		{give: "/plan", wantName: "plan", wantOK: true},
		{give: "/plan off", wantName: "plan", wantArgs: "off", wantOK: true},
		{give: "/plan  two spaces ", wantName: "plan", wantArgs: " two spaces ", wantOK: true},
		{give: "/plan\nline two", wantName: "plan", wantArgs: "line two", wantOK: true},
		{give: "/plan\u3000wide", wantName: "plan", wantArgs: "wide", wantOK: true},
		{give: "plan", wantOK: false},
		{give: " /plan", wantOK: false},
		{give: "/", wantOK: false},
		{give: "/ plan", wantOK: false},
		{give: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.give), func(t *testing.T) {
			name, args, ok := refhost.ParseCommand(tt.give)
			if name != tt.wantName || args != tt.wantArgs || ok != tt.wantOK {
				t.Errorf("got (%q, %q, %v), want (%q, %q, %v)", name, args, ok, tt.wantName, tt.wantArgs, tt.wantOK)
			}
		})
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/plan", "/plan off", "/x\ty", "plain", "/", "/\u00a0x", "/é ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, args, ok := refhost.ParseCommand(line)
		if !ok {
			if name != "" || args != "" {
				t.Errorf("not ok but got (%q, %q)", name, args)
			}
			return
		}
		if name == "" || len(name)+len(args)+1 > len(line) || line[1:1+len(name)] != name {
			t.Errorf("ParseCommand(%q) = (%q, %q)", line, name, args)
		}
	})
}

func TestExecute(t *testing.T) {
	image := host.Block{Type: host.BlockImage, MediaType: "image/png", Data: []byte{1}}
	var got host.Invocation
	record := func(_ context.Context, inv host.Invocation) (string, error) {
		got = inv
		return "done: " + inv.Args, nil
	}
	tests := []struct {
		name        string
		cmd         host.Command
		line        string
		attachments []host.Block
		wantHandled bool
		wantReply   string
		wantErr     error
		wantDone    *host.CommandDone // nil: nothing logged
		wantRan     bool
	}{
		{
			name: "a plain line is not handled", cmd: host.Command{Name: "x", Run: record},
			line: "hello /x",
		},
		{
			name: "an unknown command is not handled", cmd: host.Command{Name: "x", Run: record},
			line: "/y args",
		},
		{
			name: "a command runs and is logged", cmd: host.Command{Name: "x", Run: record},
			line: "/x a b", wantHandled: true, wantReply: "done: a b",
			wantDone: &host.CommandDone{OK: true, Text: "done: a b"}, wantRan: true,
		},
		{
			name: "a failing command is logged as failed", cmd: host.Command{Name: "x", Run: func(context.Context, host.Invocation) (string, error) {
				return "", errNoMode
			}},
			line: "/x", wantHandled: true, wantErr: errNoMode,
			wantDone: &host.CommandDone{Text: "no such mode"},
		},
		{
			name: "images are refused before the handler", cmd: host.Command{Name: "x", Run: record},
			line: "/x", attachments: []host.Block{image}, wantHandled: true, wantErr: refhost.ErrImagesRefused,
			wantDone: &host.CommandDone{Text: fmt.Sprintf(refhost.TextImagesRefused, "x")},
		},
		{
			name: "images reach a command that accepts them", cmd: host.Command{Name: "x", AcceptsImages: true, Run: record},
			line: "/x look", attachments: []host.Block{image}, wantHandled: true, wantReply: "done: look",
			wantDone: &host.CommandDone{OK: true, Text: "done: look"}, wantRan: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = host.Invocation{}
			f := newFixture(t)
			must[func()](t)(f.rt.AddCommand(tt.cmd))
			a := f.agent()
			handled, reply, err := f.rt.Execute(context.Background(), a, tt.line, tt.attachments)
			if handled != tt.wantHandled || reply != tt.wantReply {
				t.Errorf("got (%v, %q), want (%v, %q)", handled, reply, tt.wantHandled, tt.wantReply)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("err = %v", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantDone == nil {
				if n := a.Session().Len(); n != 0 {
					t.Errorf("%d events logged, want none", n)
				}
				return
			}
			if got, want := types(a.Session()), []string{host.TypeCommandRun, host.TypeCommandDone}; !slices.Equal(got, want) {
				t.Fatalf("log = %v, want %v", got, want)
			}
			run := payloads[host.CommandRun](t, a.Session(), host.TypeCommandRun)[0]
			done := payloads[host.CommandDone](t, a.Session(), host.TypeCommandDone)[0]
			wantDone := *tt.wantDone
			wantDone.ID = run.ID
			if run.ID == "" || run.Name != tt.cmd.Name || done != wantDone {
				t.Errorf("run %+v done %+v, want done %+v", run, done, wantDone)
			}
			if ran := got.Agent != nil; ran != tt.wantRan {
				t.Errorf("handler ran: %v, want %v", ran, tt.wantRan)
			}
			if tt.wantRan && (got.Agent != a || len(got.Attachments) != len(tt.attachments)) {
				t.Errorf("invocation = %+v", got)
			}
		})
	}
}

var errNoMode = errors.New("no such mode")

func TestExecuteWithoutAgent(t *testing.T) {
	f := newFixture(t)
	must[func()](t)(f.rt.AddCommand(host.Command{Name: "x", Run: func(context.Context, host.Invocation) (string, error) { return "", nil }}))
	if handled, _, err := f.rt.Execute(context.Background(), nil, "/x", nil); !handled || !errors.Is(err, refhost.ErrNoAgent) {
		t.Errorf("got (%v, %v), want handled with ErrNoAgent", handled, err)
	}
}

func TestCommandIDsAreUnique(t *testing.T) {
	f := newFixture(t)
	must[func()](t)(f.rt.AddCommand(host.Command{Name: "x", Run: func(context.Context, host.Invocation) (string, error) { return "", nil }}))
	a := f.agent()
	for range 20 {
		if _, _, err := f.rt.Execute(context.Background(), a, "/x", nil); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, r := range payloads[host.CommandRun](t, a.Session(), host.TypeCommandRun) {
		if seen[r.ID] {
			t.Fatalf("run id %q repeats", r.ID)
		}
		seen[r.ID] = true
	}
}
