package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
)

// stepBox is the box planhost prints after a plan/steps event with the
// given title and step descriptions, without styles.
func stepBox(t *testing.T, title string, descriptions ...string) string {
	t.Helper()
	p := plansteps.StepsPayload{Title: title, Source: plansteps.SourceMarkdown}
	for i, d := range descriptions {
		p.Steps = append(p.Steps, plansteps.Step{ID: i + 1, Description: d})
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	v := companionView{plain: true, set: true}
	return v.Show(host.Event{Seq: 1, Type: plansteps.EventSteps, Data: data})
}

// boxText is the text inside a box's borders, its lines joined by spaces.
func boxText(box string) string {
	var parts []string
	for _, l := range strings.Split(render.Plain(box), "\n") {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "│"), "│")
		parts = append(parts, strings.TrimSpace(l))
	}
	return strings.Join(parts, " ")
}

func TestStepBoxShowsTextWithoutMarkdownMarks(t *testing.T) {
	box := stepBox(t, "Fix `parse`", "Run `go test ./...` in **upload**", "Build\n1. compile\n2. link\n\n```sh\nmake\n```")
	for _, want := range []string{"Fix parse", "1. Run go test ./... in upload", "2. Build 1. compile 2. link sh make"} {
		if !strings.Contains(strings.Join(strings.Fields(boxText(box)), " "), want) {
			t.Errorf("box lacks %q:\n%s", want, box)
		}
	}
	if strings.ContainsAny(box, "`*") {
		t.Errorf("box shows Markdown marks:\n%s", box)
	}
}

func TestStepBoxShowsEveryWord(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			box := stepBox(t, "Plan", c.Plan)
			if m := hidetest.Missing(boxText(box), c.Words); len(m) > 0 {
				t.Errorf("missing %q in\n%s", m, box)
			}
		})
	}
}
