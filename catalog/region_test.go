package catalog_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got, the output of what, with the golden file, or
// rewrites the file under -update.
func checkGolden(t *testing.T, what string, got []byte, golden string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./catalog -run %s -update to create it)", err, strings.Split(t.Name(), "/")[0])
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s =\n%s\nwant (%s)\n%s", what, got, golden, want)
	}
}

// regionContent is what the golden tests inject.
const regionContent = "\ngenerated text\n\n"

// TestInjectGolden injects regionContent into every testdata/region/*.md and
// compares the page, or the error, with the .golden file beside it.
func TestInjectGolden(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("testdata", "region", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no golden inputs under testdata/region")
	}
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			got, err := catalog.Inject(in, []byte(regionContent))
			if err != nil {
				got = []byte("error: " + err.Error() + "\n")
			}
			checkGolden(t, "Inject("+page+")", got, strings.TrimSuffix(page, ".md")+".golden")
		})
	}
}

func TestInjectAlreadyCurrentChangesNothing(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "region", "already-current.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := catalog.Inject(in, []byte(regionContent))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, in) {
		t.Errorf("injecting the current region changed the page:\n%s", got)
	}
}

func TestInjectErrors(t *testing.T) {
	b, e := catalog.BeginMarker, catalog.EndMarker
	tests := []struct {
		name    string
		give    string
		content string
		want    error
	}{
		{"no markers", "text\n", "x\n", catalog.ErrMarkerMissing},
		{"no begin marker", "text\n" + e + "\n", "x\n", catalog.ErrMarkerMissing},
		{"no end marker", b + "\ntext\n", "x\n", catalog.ErrMarkerMissing},
		{"begin marker twice", b + "\n" + b + "\n" + e + "\n", "x\n", catalog.ErrMarkerDuplicated},
		{"end marker twice", b + "\n" + e + "\n" + e + "\n", "x\n", catalog.ErrMarkerDuplicated},
		{"end before begin", e + "\n" + b + "\n", "x\n", catalog.ErrMarkersInverted},
		{"begin marker on the last line without newline", e + "\n" + b, "x\n", catalog.ErrMarkersInverted},
		{"content holding a marker line", b + "\n" + e + "\n", "x\n" + e + "\n", catalog.ErrMarkerInContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Inject([]byte(tt.give), []byte(tt.content))
			if !errors.Is(err, tt.want) {
				t.Errorf("Inject error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestInjectKeepsCRLFOutsideTheRegion(t *testing.T) {
	page := "# Page\r\n\r\n" + catalog.BeginMarker + "\r\nold\r\n" + catalog.EndMarker + "\r\nOutro.\r\n"
	got, err := catalog.Inject([]byte(page), []byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Page\r\n\r\n" + catalog.BeginMarker + "\r\nnew\n" + catalog.EndMarker + "\r\nOutro.\r\n"
	if string(got) != want {
		t.Errorf("Inject = %q, want %q", got, want)
	}
}

func TestInjectRefusesContentWithoutFinalNewline(t *testing.T) {
	page := catalog.BeginMarker + "\n" + catalog.EndMarker + "\n"
	if _, err := catalog.Inject([]byte(page), []byte("no newline")); err == nil {
		t.Error("Inject accepted content that would glue the end marker to its last line")
	}
}

func TestCurrentReturnsTheRegionText(t *testing.T) {
	page := "a\n" + catalog.BeginMarker + "\nregion\n" + catalog.EndMarker + "\nb\n"
	got, err := catalog.Current([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "region\n" {
		t.Errorf("Current = %q, want %q", got, "region\n")
	}
}

// FuzzInject checks that injecting is idempotent and never changes a byte
// outside the markers.
func FuzzInject(f *testing.F) {
	pages, err := filepath.Glob(filepath.Join("testdata", "region", "*.md"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte(regionContent))
	}
	f.Add([]byte(catalog.BeginMarker+"\n"+catalog.EndMarker), []byte("```\n"+catalog.EndMarker+"\n```\n"))
	f.Add([]byte("```\n"+catalog.BeginMarker+"\n```\n"+catalog.BeginMarker+"\r\n"+catalog.EndMarker+"\r\n"), []byte(""))
	f.Fuzz(func(t *testing.T, page, content []byte) {
		out, err := catalog.Inject(page, content)
		if err != nil {
			return
		}
		r, err := catalog.FindRegion(page)
		if err != nil {
			t.Fatalf("Inject succeeded but FindRegion failed: %v", err)
		}
		if !bytes.HasPrefix(out, page[:r.Start]) {
			t.Fatalf("bytes before the region changed:\n%q\n%q", page[:r.Start], out)
		}
		if !bytes.HasSuffix(out, page[r.End:]) {
			t.Fatalf("bytes after the region changed:\n%q\n%q", page[r.End:], out)
		}
		if len(out) != r.Start+len(content)+len(page)-r.End {
			t.Fatalf("output length %d, want %d", len(out), r.Start+len(content)+len(page)-r.End)
		}
		if got := out[r.Start : r.Start+len(content)]; !bytes.Equal(got, content) {
			t.Fatalf("region = %q, want %q", got, content)
		}
		again, err := catalog.Inject(out, content)
		if err != nil {
			t.Fatalf("second Inject failed: %v", err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("second Inject changed the page:\n%q\n%q", out, again)
		}
		hw1, err1 := catalog.HandWritten(page)
		hw2, err2 := catalog.HandWritten(out)
		if err1 != nil || err2 != nil || !bytes.Equal(hw1, hw2) {
			t.Fatalf("hand-written text changed by injecting: %q (%v) vs %q (%v)", hw1, err1, hw2, err2)
		}
	})
}
