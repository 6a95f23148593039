package tui

// ReviewBodyForTest returns the whole of what the viewport shows of the
// review open in m, at width.
func ReviewBodyForTest(m any, width int) string {
	mm := m.(Model)
	return mm.reviewBody(width)
}
