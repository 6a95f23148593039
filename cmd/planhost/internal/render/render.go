// Package render draws the status lists of the companion plugins (the todo
// list, the plan's steps): an ANSI box for terminals and an HTML list for
// pages, from text the model wrote. Model text is untrusted: control
// characters never reach a terminal (they are shown as U+FFFD, line breaks
// and tabs as spaces), characters that hide or reorder text are shown as
// escapes (see [Sanitize]), and every HTML string is escaped.
package render

import (
	"fmt"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Status is a row's state, which picks its icon and style.
type Status int

const (
	// Pending rows show ○ in the plain style.
	Pending Status = iota
	// InProgress rows show ▶ in bold.
	InProgress
	// Completed rows show ✓ struck through.
	Completed
)

// Icons of the statuses.
const (
	IconPending    = "○"
	IconInProgress = "▶"
	IconCompleted  = "✓"
)

// CSS classes of the HTML lists: every list has ClassList, every item
// ClassItem and one status class.
const (
	ClassList       = "pm-list"
	ClassItem       = "pm-item"
	ClassPending    = "pm-pending"
	ClassInProgress = "pm-in-progress"
	ClassCompleted  = "pm-completed"
	ClassIcon       = "pm-icon"
	ClassText       = "pm-text"
	ClassNote       = "pm-note"
	ClassTitle      = "pm-title"
)

// Stylesheet styles the HTML lists: pending items plain, the item in
// progress bold, completed items struck through and dimmed.
const Stylesheet = `.pm-list{list-style:none;margin:.5em 0;padding:.5em 1em;border:1px solid #bbb;border-radius:6px;font-family:system-ui,sans-serif}
.pm-title{font-weight:600;margin:0 0 .25em}
.pm-item{margin:.2em 0}
.pm-icon{display:inline-block;width:1.4em}
.pm-pending{color:#333}
.pm-in-progress{font-weight:bold;color:#0550ae}
.pm-completed{color:#6e7781}
.pm-completed .pm-text{text-decoration:line-through}
.pm-note{display:block;margin-left:1.4em;font-size:.9em;color:#57606a}
`

// Row is one line of a list.
type Row struct {
	Status Status
	// Text is the row's text (untrusted).
	Text string
	// Note is an optional second line (untrusted), shown dimmed.
	Note string
}

// ANSI escapes used by the box.
const (
	sgrBold        = "\x1b[1m"
	sgrStrike      = "\x1b[9m"
	sgrDim         = "\x1b[2m"
	sgrReset       = "\x1b[0m"
	boxTopLeft     = "╭"
	boxTopRight    = "╮"
	boxBottomLeft  = "╰"
	boxBottomRight = "╯"
	boxHorizontal  = "─"
	boxVertical    = "│"
)

// MinWidth and MaxWidth bound the box's outer width in columns.
const (
	MinWidth = 24
	MaxWidth = 200
)

// Box draws rows in a rounded box of the given outer width (clamped to
// [MinWidth, MaxWidth]) with title in its top border and footer, when not
// empty, as its last line. Completed rows are struck through, the row in
// progress is bold; long text wraps. Each line ends in "\n".
func Box(title string, rows []Row, footer string, width int) string {
	width = min(max(width, MinWidth), MaxWidth)
	inner := width - 4 // "│ " and " │"
	var b strings.Builder
	t := truncate(Sanitize(title), inner-2)
	b.WriteString(boxTopLeft + boxHorizontal + " " + t + " ")
	b.WriteString(strings.Repeat(boxHorizontal, max(width-5-Width(t), 0)))
	b.WriteString(boxTopRight + "\n")
	line := func(s, sgr string) {
		pad := inner - Width(s)
		b.WriteString(boxVertical + " ")
		if sgr != "" {
			b.WriteString(sgr + s + sgrReset)
		} else {
			b.WriteString(s)
		}
		b.WriteString(strings.Repeat(" ", max(pad, 0)) + " " + boxVertical + "\n")
	}
	for _, r := range rows {
		icon, sgr := IconPending, ""
		switch r.Status {
		case InProgress:
			icon, sgr = IconInProgress, sgrBold
		case Completed:
			icon, sgr = IconCompleted, sgrStrike
		}
		for i, l := range wrap(Sanitize(r.Text), inner-2) {
			prefix := "  "
			if i == 0 {
				prefix = icon + " "
			}
			pad := inner - 2 - Width(l)
			b.WriteString(boxVertical + " " + prefix)
			if sgr != "" {
				b.WriteString(sgr + l + sgrReset)
			} else {
				b.WriteString(l)
			}
			b.WriteString(strings.Repeat(" ", max(pad, 0)) + " " + boxVertical + "\n")
		}
		if r.Note != "" {
			for _, l := range wrap(Sanitize(r.Note), inner-4) {
				b.WriteString(boxVertical + "     " + sgrDim + l + sgrReset)
				b.WriteString(strings.Repeat(" ", max(inner-4-Width(l), 0)) + " " + boxVertical + "\n")
			}
		}
	}
	if footer != "" {
		for _, l := range wrap(Sanitize(footer), inner) {
			line(l, "")
		}
	}
	b.WriteString(boxBottomLeft + strings.Repeat(boxHorizontal, width-2) + boxBottomRight + "\n")
	return b.String()
}

// HTML renders rows as an ordered or unordered list with the classes of
// this package; title, when not empty, is a heading above the items. Text is
// sanitized (see [Sanitize]) and escaped.
func HTML(title, listClass string, ordered bool, rows []Row) string {
	tag := "ul"
	if ordered {
		tag = "ol"
	}
	var b strings.Builder
	b.WriteString(`<div class="` + ClassList + " " + html.EscapeString(listClass) + `">` + "\n")
	if title != "" {
		b.WriteString(`<p class="` + ClassTitle + `">` + html.EscapeString(Sanitize(title)) + "</p>\n")
	}
	b.WriteString("<" + tag + ` style="list-style:none;margin:0;padding:0">` + "\n")
	for _, r := range rows {
		icon, class := IconPending, ClassPending
		switch r.Status {
		case InProgress:
			icon, class = IconInProgress, ClassInProgress
		case Completed:
			icon, class = IconCompleted, ClassCompleted
		}
		b.WriteString(`<li class="` + ClassItem + " " + class + `"><span class="` + ClassIcon + `">` + icon +
			`</span><span class="` + ClassText + `">` + html.EscapeString(Sanitize(r.Text)) + "</span>")
		if r.Note != "" {
			b.WriteString(`<span class="` + ClassNote + `">` + html.EscapeString(Sanitize(r.Note)) + "</span>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</" + tag + ">\n</div>\n")
	return b.String()
}

// Plain returns a box drawn by Box, or text a Markdown renderer styled,
// without its style escapes (ESC [ parameters m, the parameters digits,
// semicolons and colons), for output that is not a terminal. A box holds
// no other escapes: Box sanitizes the text it draws.
func Plain(box string) string {
	var b strings.Builder
	for i := 0; i < len(box); i++ {
		if box[i] == 0x1b && i+1 < len(box) && box[i+1] == '[' {
			j := i + 2
			for j < len(box) && (box[j] >= '0' && box[j] <= '9' || box[j] == ';' || box[j] == ':') {
				j++
			}
			if j < len(box) && box[j] == 'm' {
				i = j
				continue
			}
		}
		b.WriteByte(box[i])
	}
	return b.String()
}

// Sanitize makes untrusted text safe for a terminal line: line breaks and
// tabs become spaces, other control characters (C0, DEL, C1, which start
// escape sequences) and invalid UTF-8 become U+FFFD, and the characters
// that hide or reorder text (Unicode format characters such as bidi
// controls and zero-width spaces, but the zero-width joiner and
// non-joiner; line and paragraph separators) are shown as escapes such as
// \u202e, in boxes and pages alike.
func Sanitize(s string) string {
	ok := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError || hides(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		case hides(r):
			b.WriteString(escape(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hides reports whether r is invisible and can hide or reorder text.
func hides(r rune) bool {
	if r == 0x200c || r == 0x200d { // zero-width non-joiner and joiner: scripts and emoji need them
		return false
	}
	return r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// escape is the visible form of r: \uXXXX, or \UXXXXXXXX above U+FFFF.
func escape(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Width is the number of terminal columns s takes: wide East Asian
// characters and emoji count two, combining marks none.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// wrap splits s into lines of at most width columns, at spaces where it
// can; it always returns at least one line.
func wrap(s string, width int) []string {
	width = max(width, 1)
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.Split(s, " ") {
		ww := Width(word)
		if curW > 0 && curW+1+ww > width {
			flush()
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		for ww > width-curW && ww > 0 {
			// A word longer than the line: break it.
			var part strings.Builder
			pw := 0
			rest := word
			for _, r := range word {
				if pw+runeWidth(r) > width-curW {
					break
				}
				part.WriteRune(r)
				pw += runeWidth(r)
				rest = rest[utf8.RuneLen(r):]
			}
			if pw == 0 && curW == 0 { // a rune wider than the line
				_, size := utf8.DecodeRuneInString(word)
				part.WriteString(word[:size])
				rest = word[size:]
			}
			cur.WriteString(part.String())
			flush()
			word, ww = rest, Width(rest)
		}
		cur.WriteString(word)
		curW += ww
	}
	if cur.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// truncate cuts s to at most width columns, ending in "…" when cut.
func truncate(s string, width int) string {
	if Width(s) <= width {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		if w+runeWidth(r) > width-1 {
			break
		}
		b.WriteRune(r)
		w += runeWidth(r)
	}
	return b.String() + "…"
}
