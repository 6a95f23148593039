package wiring

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/dshgo/planmode/internal/safetext"
)

// repairHandler is the slog.Handler planhost gives the session store: each
// record (a repair the store made when it opened a file: a torn last line
// cut, a missing final newline added, a file mode tightened) becomes one
// plain line for the user, such as
//
//	planhost run: repaired /home/u/.local/state/planhost/sessions/x.jsonl: store: cut torn final line (line 9, bytes 41)
//
// rename maps the store's file path to the one to show (inspect reads a
// private copy).
type repairHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	cmd    string
	note   string
	rename func(string) string
	attrs  []slog.Attr
}

// RepairLogger returns the store's logger for subcommand cmd; note is
// appended to every line (empty for none).
func RepairLogger(w io.Writer, cmd, note string, rename func(string) string) *slog.Logger {
	if rename == nil {
		rename = func(s string) string { return s }
	}
	return slog.New(&repairHandler{mu: new(sync.Mutex), w: w, cmd: cmd, note: note, rename: rename})
}

func (h *repairHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *repairHandler) Handle(_ context.Context, r slog.Record) error {
	file := ""
	var details []string
	add := func(a slog.Attr) bool {
		if a.Key == "file" {
			file = h.rename(a.Value.String())
		} else {
			details = append(details, a.Key+" "+a.Value.String())
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	line := fmt.Sprintf("planhost %s: repaired %s: %s", h.cmd, file, r.Message)
	if len(details) > 0 {
		line += " (" + strings.Join(details, ", ") + ")"
	}
	line += h.note
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := fmt.Fprintln(h.w, safetext.Escape(line))
	return err
}

func (h *repairHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &c
}

func (h *repairHandler) WithGroup(string) slog.Handler { return h }
