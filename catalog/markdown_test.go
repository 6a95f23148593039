package catalog_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

func TestHeadings(t *testing.T) {
	tests := []struct {
		name string
		give string
		want []catalog.Heading
	}{
		{"levels and closing hashes", "# One\ntext\n## Two ##\n### C#\n",
			[]catalog.Heading{{1, "One", 1}, {2, "Two", 3}, {3, "C#", 4}}},
		{"not headings", "#hashtag\n####### seven\n    # indented code\n",
			nil},
		{"up to three spaces of indent", "   ## Indented\n", []catalog.Heading{{2, "Indented", 1}}},
		{"fenced lines are skipped", "# A\n```sh\n# comment\n```\n~~~\n# b\n~~~\n## C\n",
			[]catalog.Heading{{1, "A", 1}, {2, "C", 8}}},
		{"an empty heading", "#\n", []catalog.Heading{{1, "", 1}}},
		{"underlined headings", "Title\n=====\n\nTwo\nlines\n---\n", []catalog.Heading{{1, "Title", 1}, {2, "Two lines", 4}}},
		{"a fence in a list item ends with the item", "- item\n\n  ```\n# After\n",
			[]catalog.Heading{{1, "After", 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := catalog.Headings([]byte(tt.give)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Headings = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestHandWrittenDropsOnlyTheRegion(t *testing.T) {
	page := "a\n" + catalog.BeginMarker + "\ngenerated\n" + catalog.EndMarker + "\nb\n"
	got, err := catalog.HandWritten([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n" + catalog.BeginMarker + "\n" + catalog.EndMarker + "\nb\n"; string(got) != want {
		t.Errorf("HandWritten = %q, want %q", got, want)
	}
}

func TestHandWrittenOfAPageWithoutMarkersIsThePage(t *testing.T) {
	page := "# Host\n\n```\n" + catalog.BeginMarker + "\n```\n"
	got, err := catalog.HandWritten([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != page {
		t.Errorf("HandWritten = %q, want the page", got)
	}
}

func TestHandWrittenReportsBrokenMarkers(t *testing.T) {
	_, err := catalog.HandWritten([]byte(catalog.EndMarker + "\n" + catalog.BeginMarker + "\n"))
	if !errors.Is(err, catalog.ErrMarkersInverted) {
		t.Errorf("HandWritten error = %v, want %v", err, catalog.ErrMarkersInverted)
	}
}

func TestProseDigest(t *testing.T) {
	base := "# Page\n\n" + catalog.BeginMarker + "\nv1\n" + catalog.EndMarker + "\n\nProse.\n"
	regenerated, err := catalog.Inject([]byte(base), []byte("v2, much longer\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		give string
		same bool
	}{
		{"same page", base, true},
		{"region regenerated", string(regenerated), true},
		{"prose edited", base + "More prose.\n", false},
		{"one byte of white space", base + "\n", false},
	}
	want, err := catalog.ProseDigest([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := catalog.ProseDigest([]byte(tt.give))
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("ProseDigest = %s, base %s, want same=%v", got, want, tt.same)
			}
		})
	}
}
