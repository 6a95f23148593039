package main

import (
	"fmt"
	"strings"
	"unicode"
)

// visible makes text from the model, a tool or the log safe to show:
// control characters (C0 but newline and tab, DEL, C1), carriage returns,
// and bidirectional overrides and isolates are shown escaped ("\x1b",
// "\u202e"), so that text cannot move the cursor, recolour the terminal
// or hide part of a line.
//
// Engineer C adds the project's sanitizer for issue 12; when it lands this
// function calls it.
func visible(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == unicode.ReplacementChar:
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isHidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || isHidden(r) {
			return true
		}
	}
	return false
}

// isHidden reports C1 controls and the bidi controls that reorder text.
func isHidden(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
