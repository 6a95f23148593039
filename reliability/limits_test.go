package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// deployFile is the name the deployment inputs are parsed under.
const deployFile = "deploy.yaml"

// parseDeployment parses a deployment offering the plan-mode plugin and
// checks that a refused file yields no deployment.
func parseDeployment(t *testing.T, data string) error {
	t.Helper()
	d, err := deploy.Parse(deployFile, []byte(data), planmode.DeployPlugin())
	if err != nil && d != nil {
		t.Errorf("Parse returned a deployment with the error %v", err)
	}
	return err
}

// mustParseDeployment checks that a deployment at a limit still loads.
func mustParseDeployment(t *testing.T, data string) {
	t.Helper()
	if _, err := deploy.Parse(deployFile, []byte(data), planmode.DeployPlugin()); err != nil {
		t.Fatalf("a deployment at the limit was refused: %v", err)
	}
}

// withSection is a deployment whose plan-mode section is the YAML text v.
func withSection(v string) string {
	return "plugins:\n  plan-mode:\n    section: " + v + "\n"
}

// padded pads a valid deployment with a comment to n bytes.
func padded(n int) string {
	base := withSection("Plan first.")
	return base + "#" + strings.Repeat("x", n-len(base)-2) + "\n"
}

// billionLaughs nests aliases nine levels deep: expanded, it has 10^9
// leaves.
func billionLaughs(indent string) string {
	var b strings.Builder
	b.WriteString(indent + "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [", indent, i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func deploymentInputs() []badInput {
	const area = "deployment file"
	return []badInput{
		{area, "1 MiB + 1 byte", func(t *testing.T) error {
			mustParseDeployment(t, padded(deploy.MaxFileSize))
			return parseDeployment(t, padded(deploy.MaxFileSize+1))
		}},
		{area, "1 MiB + 1 byte, read from disk", func(t *testing.T) error {
			path := filepath.Join(t.TempDir(), deployFile)
			if err := os.WriteFile(path, []byte(padded(deploy.MaxFileSize+1)), 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := deploy.Load(path, planmode.DeployPlugin())
			if d != nil {
				t.Error("Load returned a deployment")
			}
			return err
		}},
		{area, "an anchor and an alias", func(t *testing.T) error {
			return parseDeployment(t, "plugins:\n  plan-mode:\n    section: &s Plan first.\n    other: *s\n")
		}},
		{area, "nine nested aliases (a billion expanded leaves)", func(t *testing.T) error {
			return parseDeployment(t, "plugins:\n  plan-mode:\n"+billionLaughs("    "))
		}},
		{area, "a misspelt plugin name", func(t *testing.T) error {
			return parseDeployment(t, "plugins:\n  plan-mod:\n    section: Plan first.\n")
		}},
		{area, "a second document", func(t *testing.T) error {
			return parseDeployment(t, withSection("Plan first.")+"---\nplugins: {}\n")
		}},
		{area, "empty file", func(t *testing.T) error { return parseDeployment(t, "") }},
		{area, "invalid UTF-8", func(t *testing.T) error { return parseDeployment(t, withSection("Plan \xff first.")) }},
	}
}

func configInputs() []badInput {
	const area = "plan-mode config"
	return []badInput{
		{area, "section of 65537 characters", func(t *testing.T) error {
			mustParseDeployment(t, withSection(strings.Repeat("x", maxSectionLen)))
			mustParseDeployment(t, withSection(strings.Repeat("é", maxSectionLen)))
			return parseDeployment(t, withSection(strings.Repeat("x", maxSectionLen+1)))
		}},
		{area, "Config{Section: 65537 characters}.Validate()", func(t *testing.T) error {
			return planmode.Config{Section: strings.Repeat("x", maxSectionLen+1)}.Validate()
		}},
		{area, "no section", func(t *testing.T) error { return parseDeployment(t, "plugins:\n  plan-mode:\n") }},
		{area, "section: 42", func(t *testing.T) error { return parseDeployment(t, withSection("42")) }},
		{area, "section: [a, b]", func(t *testing.T) error { return parseDeployment(t, withSection("[a, b]")) }},
		{area, `section: "   "`, func(t *testing.T) error { return parseDeployment(t, withSection(`"   "`)) }},
		{area, "an unknown key", func(t *testing.T) error {
			return parseDeployment(t, withSection("Plan first.")+"    strict: true\n")
		}},
		{area, "section given as an alias (the plugin's decoder)", func(t *testing.T) error {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte("section: *s\n"), &doc); err == nil {
				t.Fatal("yaml accepted an undefined alias")
			}
			if err := yaml.Unmarshal([]byte("- &s Plan first.\n- section: *s\n"), &doc); err != nil {
				t.Fatal(err)
			}
			opt, err := planmode.DeployPlugin().Load(doc.Content[0].Content[1])
			if opt != nil {
				t.Errorf("the plugin's decoder returned an option with an error")
			}
			return err
		}},
	}
}

// storeSession is a durable session holding a plan/mode and two other
// events, in a store served by a running plan-mode controller.
func storeSession(t *testing.T, opts ...store.Option) (*store.Dir, host.Session) {
	t.Helper()
	d := openDir(t, filepath.Join(t.TempDir(), "sessions"), opts...)
	h := startHost(t, d, scripted.NewModel(), nil)
	sess, err := d.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := h.ctl.Set(logAgent{sess}, true); err != nil || out != planmode.Committed {
		t.Fatalf("Set = %v, %v", out, err)
	}
	for _, typ := range []string{"test/a", "test/b"} {
		if _, err := sess.Append(host.Event{Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	return d, sess
}

// refusedAppend appends e to sess, which must refuse it and change neither
// the log nor the file.
func refusedAppend(t *testing.T, d *store.Dir, sess host.Session, e host.Event) error {
	t.Helper()
	before, _ := os.ReadFile(d.Path(sess.ID()))
	n := sess.Len()
	_, err := sess.Append(e)
	after, _ := os.ReadFile(d.Path(sess.ID()))
	if sess.Len() != n || !bytes.Equal(before, after) {
		t.Errorf("a refused append changed the log: Len %d → %d, file %d → %d bytes", n, sess.Len(), len(before), len(after))
	}
	if !planmode.FoldPlanMode(sess.Events(), sess.Len()) {
		t.Error("a refused append changed the plan-mode state")
	}
	return err
}

// refusedOpen rewrites line n (1-based) of the session file, reopens the
// store and checks that the open fails and leaves the file as it was.
func refusedOpen(t *testing.T, line int, give string, opts ...store.Option) error {
	t.Helper()
	d, sess := storeSession(t)
	path := d.Path(sess.ID())
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[line-1] = give + "\n"
	broken := []byte(strings.Join(lines, ""))
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	d2, err := store.OpenDir(filepath.Dir(path), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d2.Close() })
	startController(t, mustRuntime(t, d2), d2) // the payload check
	_, err = d2.Open(sess.ID())
	if after, _ := os.ReadFile(path); !bytes.Equal(after, broken) {
		t.Error("a refused open changed the file")
	}
	return err
}

func storeInputs() []badInput {
	const area = "session log"
	return []badInput{
		{area, "an event whose line is over 4 MiB", func(t *testing.T) error {
			d, sess := storeSession(t)
			big, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", store.DefaultMaxLineSize)})
			err := refusedAppend(t, d, sess, host.Event{Type: host.TypeUserMessage, Data: big})
			if !errors.Is(err, store.ErrLineTooLong) {
				t.Errorf("err = %v, want ErrLineTooLong", err)
			}
			return err
		}},
		{area, `plan/mode {"active":"yes"} appended`, func(t *testing.T) error {
			d, sess := storeSession(t)
			err := refusedAppend(t, d, sess, host.Event{Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":"yes"}`)})
			if !errors.Is(err, planmode.ErrBadPayload) {
				t.Errorf("err = %v, want ErrBadPayload", err)
			}
			return err
		}},
		{area, "plan/mode whose data is not JSON", func(t *testing.T) error {
			d, sess := storeSession(t)
			err := refusedAppend(t, d, sess, host.Event{Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":fal`)})
			if !errors.Is(err, store.ErrBadEvent) {
				t.Errorf("err = %v, want ErrBadEvent", err)
			}
			return err
		}},
		{area, "file: line 2 is not JSON", func(t *testing.T) error {
			err := refusedOpen(t, 2, `{"seq":2,"type":"test/a",`)
			if !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
			return err
		}},
		{area, "file: line 2 has seq 3", func(t *testing.T) error {
			err := refusedOpen(t, 2, `{"seq":3,"type":"test/a","time":"2025-01-02T03:04:05Z"}`)
			if !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
			return err
		}},
		{area, `file: plan/mode {"active":1}`, func(t *testing.T) error {
			err := refusedOpen(t, 1, `{"seq":1,"type":"plan/mode","time":"2025-01-02T03:04:05Z","data":{"active":1}}`)
			if !errors.Is(err, planmode.ErrBadPayload) {
				t.Errorf("err = %v, want ErrBadPayload", err)
			}
			return err
		}},
		{area, "file: line 2 over the line limit (200 bytes here)", func(t *testing.T) error {
			err := refusedOpen(t, 2, `{"seq":2,"type":"test/a","time":"2025-01-02T03:04:05Z","data":"`+strings.Repeat("x", 200)+`"}`, store.WithMaxLineSize(200))
			if !errors.Is(err, store.ErrLineTooLong) {
				t.Errorf("err = %v, want ErrLineTooLong", err)
			}
			return err
		}},
	}
}

// commandSession is an agent in plan mode on a durable store, with the
// command registry.
func commandSession(t *testing.T) (*testHost, host.Agent) {
	t.Helper()
	d := openDir(t, filepath.Join(t.TempDir(), "sessions"))
	h := startHost(t, d, scripted.NewModel(), nil)
	a := h.newAgent(t, "cmd")
	if out, err := h.ctl.Set(a, true); err != nil || out != planmode.Committed {
		t.Fatalf("Set = %v, %v", out, err)
	}
	return h, a
}

// refusedCommand runs a /plan line that must fail and leave the plan-mode
// state and any selection as they were.
func refusedCommand(t *testing.T, line string, images []host.Block, wantLogged bool) error {
	t.Helper()
	h, a := commandSession(t)
	n := a.Session().Len()
	handled, reply, err := h.rt.Execute(context.Background(), a, line, images)
	if !handled || reply != "" {
		t.Errorf("Execute = handled %v, reply %q", handled, reply)
	}
	if s := h.ctl.Get(a); s != (planmode.State{Active: true}) {
		t.Errorf("after a refused /plan: Get = %+v, want plan mode and nothing pending", s)
	}
	events := a.Session().Events().Slice()
	for _, e := range events[n:] {
		if e.Type == planmode.EventPlanMode {
			t.Errorf("a refused /plan appended plan/mode %s", e.Data)
		}
	}
	if p := planmode.Project(host.LogOf(events)); p != (planmode.State{Active: true}) {
		t.Errorf("after a refused /plan: Project = %+v", p)
	}
	if logged := len(events) > n; logged != wantLogged {
		t.Errorf("the log grew from %d to %d events; want the run logged: %v", n, len(events), wantLogged)
	}
	return err
}

func commandInputs() []badInput {
	const area = "/plan"
	image := []host.Block{{Type: host.BlockImage, MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}
	return []badInput{
		{area, "/plan off with an image", func(t *testing.T) error {
			return refusedCommand(t, "/"+planmode.CommandName+" "+argOff, image, true)
		}},
		{area, "/plan with a 4 MiB message", func(t *testing.T) error {
			return refusedCommand(t, "/"+planmode.CommandName+" "+strings.Repeat("x", store.DefaultMaxLineSize), nil, false)
		}},
	}
}

func scriptInputs() []badInput {
	const area = "scripted model script"
	return []badInput{
		{area, "a tool call input with nine nested aliases", func(t *testing.T) error {
			script := "steps:\n  - toolCalls:\n      - name: t\n        input:\n" + billionLaughs("          ")
			steps, err := scripted.ParseScript([]byte(script))
			if steps != nil {
				t.Errorf("ParseScript returned %d steps with the error", len(steps))
			}
			return err
		}},
		{area, "a step with text and an error", func(t *testing.T) error {
			_, err := scripted.ParseScript([]byte("steps:\n  - text: hi\n    error: boom\n"))
			return err
		}},
	}
}
