package planmode

import "strings"

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

// planTitle returns the text of the plan's first Markdown heading of any
// level with a non-empty text, outside fenced code blocks and indented at
// most three spaces; "Plan" when there is none.
func planTitle(plan string) string {
	var fence string // the opening fence while inside a fenced block
	for line := range strings.Lines(plan) {
		line = strings.TrimRight(line, "\r\n")
		body := strings.TrimLeft(line, " ")
		if len(line)-len(body) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(body, fence) && strings.TrimRight(body, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpening(body); f != "" {
			fence = f
			continue
		}
		if level, title := atxHeading(body); level > 0 && title != "" {
			return title
		}
	}
	return cardTitleDefault
}

// fenceOpening returns the run of backticks or tildes (three or more) that
// opens a fenced code block on line, or "".
func fenceOpening(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}
