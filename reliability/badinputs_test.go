package reliability_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// update rewrites testdata/bad-inputs.md from what the code answers now.
var update = flag.Bool("update", false, "rewrite testdata/bad-inputs.md")

// badInputsGolden is the table of bad inputs and their errors. The
// reliability pages carry the same error texts.
var badInputsGolden = filepath.Join("testdata", "bad-inputs.md")

// reliabilityPages are the doc pages that report the bad-input table.
var reliabilityPages = []string{
	filepath.Join("..", "docs", "reliability.md"),
	filepath.Join("..", "docs", "reliability.zh.md"),
}

// badInput is one hostile or broken input and how the code must refuse it.
type badInput struct {
	area string // what takes the input, for example "deployment file"
	give string // the input, as the table shows it
	// try feeds the input, checks that it was refused and that nothing
	// stored changed, and returns the error (or tool error) it got.
	try func(t *testing.T) error
}

// allBadInputs are the inputs of the table, in table order.
func allBadInputs() [][]badInput {
	return [][]badInput{
		deploymentInputs(),
		configInputs(),
		storeInputs(),
		sessionIDInputs(),
		commandInputs(),
		exitToolInputs(),
		reviewInputs(),
		scriptInputs(),
	}
}

// TestBadInputs feeds every bad input of the table, checks that each is
// refused with an error and changes nothing stored, and compares the exact
// errors with testdata/bad-inputs.md (rewrite it with -update). The
// reliability pages must quote every error of the table.
func TestBadInputs(t *testing.T) {
	var table bytes.Buffer
	table.WriteString("| What | Input | Error |\n|---|---|---|\n")
	for _, group := range allBadInputs() {
		for _, in := range group {
			var msg string
			t.Run(in.area+": "+in.give, func(t *testing.T) {
				err := in.try(t)
				if err == nil {
					t.Fatal("accepted")
				}
				msg = normalize(t, err.Error())
			})
			fmt.Fprintf(&table, "| %s | %s | %s |\n", in.area, cell(in.give), cell(msg))
		}
	}
	if *update {
		if err := os.WriteFile(badInputsGolden, table.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(badInputsGolden)
	if err != nil {
		t.Fatalf("%v (create it with go test ./reliability -run TestBadInputs -update)", err)
	}
	if !bytes.Equal(table.Bytes(), want) {
		t.Fatalf("the errors changed; check them and run go test ./reliability -run TestBadInputs -update\n got:\n%s\nwant:\n%s", &table, want)
	}
	for _, page := range reliabilityPages {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(table.String()) {
			cells := strings.Split(strings.TrimSpace(line), " | ")
			msg := strings.TrimSuffix(cells[len(cells)-1], " |")
			if strings.HasPrefix(msg, "`") && !bytes.Contains(doc, []byte(msg)) {
				t.Errorf("%s does not quote the error %s; copy the rows of %s", page, msg, badInputsGolden)
			}
		}
	}
}

// tempDir matches the temporary directories of the tests in error texts.
var tempDir = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/[^: ]*?/[0-9]{3}`)

// lineBytes matches the size of an over-limit event line in an error; it
// varies by a byte or two with the event's timestamp.
var lineBytes = regexp.MustCompile(`\b[0-9]+ bytes, limit `)

// normalize makes an error text stable across runs: temporary directories
// read $DIR, the size of an over-limit line $N. An error that echoes a
// large input is a finding of its own.
func normalize(t *testing.T, msg string) string {
	t.Helper()
	if len(msg) > 2000 {
		t.Errorf("the error text is %d bytes long: it echoes the input", len(msg))
		msg = msg[:200] + fmt.Sprintf("… (%d bytes)", len(msg))
	}
	msg = tempDir.ReplaceAllString(msg, "$$DIR")
	return lineBytes.ReplaceAllString(msg, "$$N bytes, limit ")
}

// cell renders text as one Markdown table cell in code.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", "⏎").Replace(s)
	return "`" + s + "`"
}
