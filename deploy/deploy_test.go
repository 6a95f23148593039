package deploy_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
	"go.uber.org/fx"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wantSeparator divides a fixture's YAML input from its expected result.
const wantSeparator = "---- want ----\n"

// fixture is one testdata/*.yaml case: the input and, after the separator,
// either "ok:" and the enabled plugins (comma separated), or one
// "error: SUBSTRING" line per expected error, in order.
type fixture struct {
	input   []byte
	ok      bool
	plugins []string
	errs    []string
}

func readFixture(t *testing.T, path string) fixture {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	input, want, found := bytes.Cut(raw, []byte(wantSeparator))
	if !found {
		t.Fatalf("%s: no %q line", path, strings.TrimSpace(wantSeparator))
	}
	f := fixture{input: input}
	for line := range strings.Lines(string(want)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "ok:"):
			f.ok = true
			for name := range strings.SplitSeq(strings.TrimPrefix(line, "ok:"), ",") {
				if name = strings.TrimSpace(name); name != "" {
					f.plugins = append(f.plugins, name)
				}
			}
		case strings.HasPrefix(line, "error: "):
			f.errs = append(f.errs, strings.TrimPrefix(line, "error: "))
		case line == "":
		default:
			t.Fatalf("%s: want line %q is neither ok: nor error:", path, line)
		}
	}
	if f.ok == (len(f.errs) > 0) {
		t.Fatalf("%s: want exactly one of ok: or error: lines", path)
	}
	return f
}

// leafErrors returns the *Error values joined in err, failing on anything else.
func leafErrors(t testing.TB, err error) []*deploy.Error {
	t.Helper()
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v (%T) is not a joined error", err, err)
	}
	var out []*deploy.Error
	for _, e := range j.Unwrap() {
		de, ok := e.(*deploy.Error)
		if !ok {
			t.Fatalf("joined error %v is a %T, not *deploy.Error", e, e)
		}
		out = append(out, de)
	}
	return out
}

func TestParseFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 20 {
		t.Fatalf("found %d fixtures, want at least 20", len(paths))
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			tt := readFixture(t, path)
			d, err := deploy.Parse(path, tt.input, offered()...)
			if tt.ok {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if d.File != path {
					t.Errorf("File = %q, want %q", d.File, path)
				}
				if strings.Join(d.Plugins, ",") != strings.Join(tt.plugins, ",") {
					t.Errorf("Plugins = %q, want %q", d.Plugins, tt.plugins)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse succeeded with plugins %q, want errors %q", d.Plugins, tt.errs)
			}
			if d != nil {
				t.Errorf("Parse returned a deployment along with errors")
			}
			got := leafErrors(t, err)
			if len(got) != len(tt.errs) {
				t.Fatalf("got %d errors, want %d:\n%v", len(got), len(tt.errs), err)
			}
			for i, want := range tt.errs {
				if !strings.Contains(got[i].Error(), want) {
					t.Errorf("error %d = %q, want it to contain %q", i, got[i].Error(), want)
				}
			}
		})
	}
}

func TestParseSizeCap(t *testing.T) {
	head := "plugins:\n  plain:\n"
	pad := func(n int) []byte {
		b := []byte(head)
		for len(b) < n {
			b = append(b, "# padding padding padding padding padding padding\n"...)
		}
		return b[:n]
	}
	tests := []struct {
		name    string
		give    []byte
		wantErr bool
	}{
		{name: "a file of exactly the cap loads", give: pad(deploy.MaxFileSize)},
		{name: "a file one byte over the cap fails", give: pad(deploy.MaxFileSize + 1), wantErr: true},
		{name: "a file of twice the cap fails", give: pad(2 * deploy.MaxFileSize), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := deploy.Parse("big.yaml", tt.give, offered()...)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			want := "big.yaml:1:1: " + deploy.MsgTooLarge
			if err == nil || err.Error() != want {
				t.Fatalf("Parse error = %v, want %q", err, want)
			}
		})
	}
}

func TestParseEncoding(t *testing.T) {
	tests := []struct {
		name string
		give string
		want string
	}{
		{name: "invalid UTF-8 is located", give: "plugins:\n  plain: {a: \"x\xffy\"}\n", want: "enc.yaml:2:16: " + deploy.MsgBadUTF8},
		{name: "a NUL byte is located", give: "plugins:\n  pl\x00ain:\n", want: "enc.yaml:2:5: " + fmt.Sprintf(deploy.MsgControlChar, 0)},
		{name: "an escape character is located", give: "plugins: {}\n\x1b[31m\n", want: "enc.yaml:2:1: " + fmt.Sprintf(deploy.MsgControlChar, 0x1b)},
		{name: "columns count characters, not bytes", give: "plugins: {é: \x01}\n", want: "enc.yaml:1:14: " + fmt.Sprintf(deploy.MsgControlChar, 1)},
		{name: "a UTF-16 file is named as such", give: "\xff\xfep\x00l\x00", want: "enc.yaml:1:1: " + deploy.MsgUTF16},
		{name: "a big-endian UTF-16 file is named as such", give: "\xfe\xff\x00p", want: "enc.yaml:1:1: " + deploy.MsgUTF16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := deploy.Parse("enc.yaml", []byte(tt.give), offered()...)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Parse error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseAcceptsUTF8BOM(t *testing.T) {
	d, err := deploy.Parse("bom.yaml", []byte("\xef\xbb\xbfplugins:\n  plain:\n"), offered()...)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := strings.Join(d.Plugins, ","); got != "plain" {
		t.Errorf("Plugins = %q, want plain", got)
	}
}

func TestParseCapsTheNumberOfErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("plugins: {}\n")
	for i := range deploy.MaxErrors + 10 {
		fmt.Fprintf(&b, "key%d: 1\n", i)
	}
	_, err := deploy.Parse("many.yaml", []byte(b.String()), offered()...)
	got := leafErrors(t, err)
	if len(got) != deploy.MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(got), deploy.MaxErrors+1)
	}
	if want := fmt.Sprintf(deploy.MsgUnknownTopKey, fmt.Sprint("key", deploy.MaxErrors-1)); got[deploy.MaxErrors-1].Problem != want {
		t.Errorf("last kept error = %q, want %q", got[deploy.MaxErrors-1].Problem, want)
	}
	last := got[deploy.MaxErrors]
	if want := fmt.Sprintf(deploy.MsgTooManyErrors, deploy.MaxErrors); last.Problem != want || last.Line != deploy.MaxErrors+2 {
		t.Errorf("final error = %v, want %q at line %d", last, want, deploy.MaxErrors+2)
	}
}

func TestParseRejectsADeepAliasBombQuickly(t *testing.T) {
	// 40 levels of nine aliases each would expand to 9^40 strings.
	var b strings.Builder
	b.WriteString("plugins:\n  fake:\n    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 40; i++ {
		p := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "    l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+", ", 9), ", "))
	}
	b.WriteString("    x: *l39\n")
	_, err := deploy.Parse("bomb.yaml", []byte(b.String()), offered()...)
	want := "bomb.yaml:3:9: fake: l0: " + fmt.Sprintf(deploy.MsgAnchor, "l0")
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error = %v, want %q", err, want)
	}
}

func TestParseWithNoOfferedPlugins(t *testing.T) {
	_, err := deploy.Parse("none.yaml", []byte("plugins:\n  plan-mode:\n"))
	want := "none.yaml:2:3: plugins: " + fmt.Sprintf(deploy.MsgNoKnownPlugins, "plan-mode")
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error = %v, want %q", err, want)
	}
	d, err := deploy.Parse("none.yaml", []byte("plugins: {}\n"))
	if err != nil || len(d.Plugins) != 0 {
		t.Fatalf("Parse = %v, %v; want an empty deployment", d, err)
	}
}

func TestParseRejectsBadPluginLists(t *testing.T) {
	load := fakePlugin().Load
	tests := []struct {
		name string
		give []deploy.Plugin
	}{
		{name: "a plugin without a name", give: []deploy.Plugin{{Load: load}}},
		{name: "a plugin without a Load func", give: []deploy.Plugin{{Name: "x"}}},
		{name: "two plugins with the same name", give: []deploy.Plugin{{Name: "x", Load: load}, {Name: "x", Load: load}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := deploy.Parse("p.yaml", []byte("plugins: {}\n"), tt.give...)
			if !errors.Is(err, deploy.ErrBadPlugin) {
				t.Fatalf("Parse error = %v, want ErrBadPlugin", err)
			}
		})
	}
}

func TestErrorsAreUsableWithErrorsAs(t *testing.T) {
	_, err := deploy.Parse("as.yaml", []byte("plugins:\n  fake:\n    x: 1\n  plain:\n    fail: now\n"), offered()...)
	var de *deploy.Error
	if !errors.As(err, &de) {
		t.Fatalf("errors.As(%v, *Error) = false", err)
	}
	want := deploy.Error{File: "as.yaml", Line: 3, Column: 8, Plugin: "fake", Key: "x", Problem: "must be a non-empty string"}
	if de.File != want.File || de.Line != want.Line || de.Column != want.Column || de.Plugin != want.Plugin || de.Key != want.Key || de.Problem != want.Problem {
		t.Errorf("first error = %+v, want %+v", *de, want)
	}
	var fe *deploy.FieldError
	if !errors.As(err, &fe) || fe.Key != "x" {
		t.Errorf("errors.As(err, *FieldError) = %v, want the plugin's FieldError for x", fe)
	}
	got := leafErrors(t, err)
	if len(got) != 2 || got[1].Plugin != "plain" || got[1].Unwrap() == nil || got[1].Unwrap().Error() != "cannot start\n  now" {
		t.Errorf("second error = %+v, want the plain plugin's own error unwrappable", got[len(got)-1])
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		give deploy.Error
		want string
	}{
		{name: "all parts", give: deploy.Error{File: "d.yaml", Line: 7, Column: 5, Plugin: "plan-mode", Key: "section", Problem: "must be a string"}, want: "d.yaml:7:5: plan-mode: section: must be a string"},
		{name: "no key", give: deploy.Error{File: "d.yaml", Line: 2, Column: 3, Plugin: "plan-mode", Problem: "bad"}, want: "d.yaml:2:3: plan-mode: bad"},
		{name: "no plugin", give: deploy.Error{File: "d.yaml", Line: 2, Column: 3, Key: "plugins", Problem: "bad"}, want: "d.yaml:2:3: plugins: bad"},
		{name: "file level", give: deploy.Error{File: "d.yaml", Line: 1, Column: 1, Problem: "bad"}, want: "d.yaml:1:1: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.give.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFieldErrorText(t *testing.T) {
	tests := []struct {
		name string
		give deploy.FieldError
		want string
	}{
		{name: "position and key", give: deploy.FieldError{Line: 3, Column: 8, Key: "x", Problem: "bad"}, want: "3:8: x: bad"},
		{name: "no key", give: deploy.FieldError{Line: 3, Column: 8, Problem: "bad"}, want: "3:8: bad"},
		{name: "no position", give: deploy.FieldError{Key: "x", Problem: "bad"}, want: "x: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.give.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFieldErrorWithoutPositionIsPlacedAtTheEntry(t *testing.T) {
	p := deploy.Plugin{Name: "p", Load: func(*yaml.Node) (fx.Option, error) {
		return nil, errors.Join(&deploy.FieldError{Key: "k", Problem: "first"}, deploy.FieldErrorAt(nil, "", "second"))
	}}
	_, err := deploy.Parse("pos.yaml", []byte("plugins:\n  p: {k: 1}\n"), p)
	want := "pos.yaml:2:3: p: k: first\npos.yaml:2:3: p: second"
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error = %v, want %q", err, want)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{give: "{a: 1}", want: "a mapping"},
		{give: "[1]", want: "a list"},
		{give: "hi", want: "a string"},
		{give: "'5'", want: "a string"},
		{give: "5", want: "a number"},
		{give: "5.5", want: "a number"},
		{give: "true", want: "a boolean"},
		{give: "~", want: "null"},
		{give: "2024-01-02", want: "a timestamp"},
		{give: "!thing x", want: "a value tagged !thing"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.give), &doc); err != nil {
				t.Fatal(err)
			}
			if got := deploy.Describe(doc.Content[0]); got != tt.want {
				t.Errorf("Describe(%s) = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Run("a good file loads", func(t *testing.T) {
		path := write("good.yaml", []byte("plugins:\n  fake: {x: y}\n"))
		d, err := deploy.Load(path, offered()...)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if d.File != path || strings.Join(d.Plugins, ",") != "fake" {
			t.Errorf("Load = %+v, want file %s with plugin fake", d, path)
		}
	})
	t.Run("errors name the path", func(t *testing.T) {
		path := write("bad.yaml", []byte("plugins:\n  nope:\n"))
		_, err := deploy.Load(path, offered()...)
		if err == nil || !strings.HasPrefix(err.Error(), path+":2:3: plugins: ") {
			t.Fatalf("Load error = %v, want it at %s:2:3", err, path)
		}
	})
	t.Run("an oversize file fails", func(t *testing.T) {
		path := write("big.yaml", bytes.Repeat([]byte("# padding\n"), deploy.MaxFileSize/5))
		_, err := deploy.Load(path, offered()...)
		if want := path + ":1:1: " + deploy.MsgTooLarge; err == nil || err.Error() != want {
			t.Fatalf("Load error = %v, want %q", err, want)
		}
	})
	t.Run("a missing file gives the os error", func(t *testing.T) {
		_, err := deploy.Load(filepath.Join(dir, "missing.yaml"), offered()...)
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("Load error = %v, want os.ErrNotExist", err)
		}
		var de *deploy.Error
		if errors.As(err, &de) {
			t.Errorf("a read error should not be a *deploy.Error")
		}
	})
}

func TestDeepKeyPathsAreShortened(t *testing.T) {
	var b strings.Builder
	b.WriteString("plugins:\n  plain: ")
	for i := 1; i <= 14; i++ {
		fmt.Fprintf(&b, "{k%d: ", i)
	}
	b.WriteString("{dup: 1, dup: 2}" + strings.Repeat("}", 14) + "\n")
	_, err := deploy.Parse("deep.yaml", []byte(b.String()), offered()...)
	got := leafErrors(t, err)
	if want := "k1.k2.k3.k4.….k8.k9.k10.k11.k12.k13.k14.dup"; len(got) != 1 || got[0].Key != want {
		t.Fatalf("errors = %v, want one with key %q", err, want)
	}
}

func TestKeyPathsQuoteAwkwardKeys(t *testing.T) {
	_, err := deploy.Parse("quote.yaml", []byte("plugins:\n  plain:\n    \"a.b\": {\"\": 1, \"\": 2}\n"), offered()...)
	got := leafErrors(t, err)
	if want := `"a.b".""`; len(got) != 1 || got[0].Key != want {
		t.Fatalf("errors = %v, want one with key %q", err, want)
	}
}

// CRLF line endings are tested here rather than in a fixture because
// .gitattributes normalizes *.yaml to LF.
func TestParseAcceptsCRLF(t *testing.T) {
	d, err := deploy.Parse("crlf.yaml", []byte("plugins:\r\n  fake:\r\n    x: hi\r\n"), offered()...)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := strings.Join(d.Plugins, ","); got != "fake" {
		t.Errorf("Plugins = %q, want fake", got)
	}
	_, err = deploy.Parse("crlf.yaml", []byte("plugins:\r\n\tfake:\r\n"), offered()...)
	if want := "crlf.yaml:2:1: " + deploy.MsgTab; err == nil || err.Error() != want {
		t.Errorf("Parse error = %v, want %q", err, want)
	}
}

func TestTooDeepValueIsReportedAtTheBracketPastTheLimit(t *testing.T) {
	const limit = 10000 // yaml.v3's nesting limit
	tests := []struct {
		name     string
		give     string
		wantLine int
		wantCol  int
	}{
		{
			name:     "on the key's line",
			give:     "plugins:\n  plain:\n    d: " + strings.Repeat("[", limit+1) + "1" + strings.Repeat("]", limit+1) + "\n",
			wantLine: 3,
			wantCol:  len("    d: ") + limit + 1,
		},
		{
			name:     "on a later line",
			give:     "plugins:\n  plain:\n    d:\n      - ok\n      - " + strings.Repeat("{a: ", 20) + "\n        " + strings.Repeat("[", limit) + "\n",
			wantLine: 6,
			wantCol:  len("        ") + limit - 20 + 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := deploy.Parse("deep.yaml", []byte(tt.give), offered()...)
			var de *deploy.Error
			if !errors.As(err, &de) {
				t.Fatalf("Parse error = %v, want a *deploy.Error", err)
			}
			if de.Line != tt.wantLine || de.Column != tt.wantCol {
				t.Fatalf("error at %d:%d (%v), want %d:%d", de.Line, de.Column, de.Problem, tt.wantLine, tt.wantCol)
			}
		})
	}
}
