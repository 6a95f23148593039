package tui

// EditedForTest is the message the editor's end sends with the saved text.
func EditedForTest(text string) any { return editedMsg{text: text} }

// RenderedForTest returns the transcript as the viewport gets it.
func RenderedForTest(m any) []string {
	mm := m.(Model)
	return []string{mm.transcript(mm.width)}
}

// EditFailedForTest is the message of an editor that failed.
func EditFailedForTest(err error) any { return editedMsg{err: err} }
