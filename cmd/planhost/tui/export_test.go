package tui

// EditedForTest is the message the editor's end sends with the saved text.
func EditedForTest(text string) any { return editedMsg{text: text} }
