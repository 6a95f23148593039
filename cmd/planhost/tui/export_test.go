package tui

// EditedForTest is the message the editor's end sends with the saved text.
func EditedForTest(text string) any { return editedMsg{text: text} }

// RenderedForTest returns the transcript as the viewport gets it.
func RenderedForTest(m any) []string {
	mm := m.(Model)
	return []string{mm.transcript(mm.width)}
}
