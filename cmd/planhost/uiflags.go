package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/store"
)

// uiFlags are the flags of "planhost run" for the terminal and streaming.
type uiFlags struct {
	stream  bool
	lang    string
	cont    bool
	verbose bool
}

func (u *uiFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&u.stream, "stream", true, flagStreamHelp)
	fs.StringVar(&u.lang, "lang", "", flagLangHelp)
	fs.BoolVar(&u.cont, "continue", false, flagContinueHelp)
	fs.BoolVar(&u.verbose, "verbose", false, flagVerboseHelp)
}

// resolveSession turns -session (an ID, or a session file's path ending in
// .jsonl) into the session ID and its directory, and refuses -session with
// -continue (see continueSession).
func (f *runFlags) resolveSession() error {
	switch {
	case f.ui.cont && f.session != "":
		return errors.New(errContinueAndSession)
	case f.ui.cont, f.session == "":
		return nil
	case strings.HasSuffix(f.session, store.FileExt):
		dir, base := filepath.Split(f.session)
		id := strings.TrimSuffix(base, store.FileExt)
		if err := store.ValidateID(id); err != nil {
			return fmt.Errorf("-session %s: %w", f.session, err)
		}
		if dir != "" {
			f.sessions = filepath.Clean(dir)
		}
		f.session = id
		return nil
	}
	if err := store.ValidateID(f.session); err != nil {
		return fmt.Errorf("-session: %w", err)
	}
	return nil
}

// continueSession finds the session -continue names in the file store,
// once the sessions directory is settled, before the store makes the
// directory. Another store is asked once it is open.
func (f *runFlags) continueSession() error {
	if !f.ui.cont || f.store != wiring.StoreFile {
		return nil
	}
	id, err := wiring.LatestSession(f.sessions)
	if err != nil {
		return fmt.Errorf("-continue: %w", err)
	}
	f.session = id
	return nil
}
