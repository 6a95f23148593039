package planmode

import (
	"strings"

	"github.com/dshgo/planmode/internal/planmd"
)

// hasPlanHeading reports whether plan, trimmed, begins with a level-1
// Markdown heading that names it: a first line of "#", then at least one
// space or tab, then a title with some non-space text. "## Title",
// "#Title", "#", "# " and a plan without a heading do not.
func hasPlanHeading(plan string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(plan), "\n")
	level, title := atxHeading(first)
	return level == 1 && title != ""
}

// atxHeading reads line as a Markdown ATX heading: 1 to 6 "#", then a
// space, a tab or the end of the line. It returns the level and the trimmed
// text after the "#"s, and level 0 when line is no heading.
func atxHeading(line string) (level int, title string) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := line[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	return n, strings.TrimSpace(rest)
}

// planTitle returns the plan's title, the one every front end shows: the
// text of its first heading of any level that is a block of the plan
// itself (see planmd.Title); "Plan" when there is none.
func planTitle(plan string) string {
	if t := planmd.Title(plan); t != "" {
		return t
	}
	return cardTitleDefault
}
