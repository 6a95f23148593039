package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestPTYClarifyingForm answers ask_user's form in the real binary's
// terminal UI: a number and Enter, two toggles, the text row, and Esc.
func TestPTYClarifyingForm(t *testing.T) {
	dir := newRunDir(t)
	s := startPTY(t, 100, 30, nil, ptyRunArgs(t, dir, filepath.Join("testdata", "ask", "ask.yaml"),
		"-config", filepath.Join("testdata", "ask", "deploy.yaml"))...)
	s.waitScreen("shift+tab")
	s.send("/plan Greet in more languages\r")
	s.waitScreen("Question 1 of 2 · Storage")
	s.answer("2")
	s.send("\r")
	s.waitScreen("Question 2 of 2 · Languages")
	s.answer("1")
	s.send("3")
	s.waitScreen("[x] 3 French")
	s.send("\r")
	s.waitScreen("Question 1 of 2 · Tests")
	s.answer("\x1b[A") // up: the text row
	s.send("Both, behind a flag")
	s.waitScreen("Both, behind a flag")
	s.send("\r")
	s.waitScreen("Question 2 of 2 · Docs")
	s.answer("\x1b") // esc: skip
	s.waitScreen("Planned with your answers.")
	s.quit()
	res := askResults(t, dir)
	if len(res) != 2 || !slices.Equal(res[0].Answers[0].Selected, []string{"In a file"}) ||
		!slices.Equal(res[0].Answers[1].Selected, []string{"English", "French"}) ||
		res[1].Answers[0].Other != "Both, behind a flag" || !res[1].Answers[1].Skipped {
		t.Fatalf("results %+v", res)
	}
}
