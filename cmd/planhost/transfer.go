package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/dshgo/planmode/cmd/planhost/internal/transfer"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// exportFlags are the flags of "planhost export".
type exportFlags struct {
	store, out string
	force      bool
}

// export is "planhost export": write a session of any store as a session
// file.
func (p *program) export(args []string) int {
	set := flag.NewFlagSet("export", flag.ContinueOnError)
	var f exportFlags
	set.StringVar(&f.store, "store", wiring.StoreFile, flagSourceStoreHelp)
	set.StringVar(&f.out, "o", "", flagExportOutHelp)
	set.BoolVar(&f.force, "force", false, flagExportForceHelp)
	if code, done := p.parseFlags(set, usageExport, args); done {
		return code
	}
	switch {
	case set.NArg() == 0:
		fmt.Fprintf(p.stderr, errNeedSession, "export")
		return exitUsage
	case set.NArg() > 1:
		return p.extraArgs("export", set.Args()[1:])
	case f.out == "" && p.stdoutTerminal():
		return p.usageError("export", errors.New(errExportToTerminal))
	}
	id, events, usage, err := transfer.Load("export", p.source(f.store), set.Arg(0))
	switch {
	case usage:
		return p.usageError("export", err)
	case err != nil:
		return p.fail("export", err)
	}
	data, err := transfer.Encode(id, events)
	if err != nil {
		return p.fail("export", err)
	}
	if f.out == "" {
		if _, err := p.stdout.Write(data); err != nil {
			return p.fail("export", err)
		}
		return exitOK
	}
	err = transfer.WriteFile(f.out, data, f.force)
	switch {
	case errors.Is(err, transfer.ErrNotRegular), errors.Is(err, fs.ErrExist):
		return p.usageError("export", err)
	case err != nil:
		return p.fail("export", err)
	}
	fmt.Fprintf(p.stderr, lineExported, id, events.Len(), f.out)
	return exitOK
}

// transferLoad reads session arg of the store storeValue for cmd.
func transferLoad(p *program, cmd, storeValue, arg string) (string, host.Log, bool, error) {
	return transfer.Load(cmd, p.source(storeValue), arg)
}

// source is where inspect and export read a session from.
func (p *program) source(storeValue string) transfer.Source {
	return transfer.Source{Store: storeValue, Getenv: p.getenv, Log: p.stderr}
}

// stdoutTerminal reports whether stdout is a terminal, where a session's
// raw text must not go.
func (p *program) stdoutTerminal() bool {
	out, ok := p.stdout.(*os.File)
	return ok && term.IsTerminal(out.Fd())
}

// importFlags are the flags of "planhost import".
type importFlags struct {
	store, sessions, session string
	replace                  bool
}

// importCmd is "planhost import": load a session file into a store.
func (p *program) importCmd(args []string) int {
	set := flag.NewFlagSet("import", flag.ContinueOnError)
	stateDir, stateErr := wiring.StateDir(p.getenv)
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	var f importFlags
	set.StringVar(&f.store, "store", wiring.StoreFile, flagStoreHelp)
	set.StringVar(&f.sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, wiring.AppDir, wiring.SessionsDir)))
	set.StringVar(&f.session, "session", "", flagImportSessionHelp)
	set.BoolVar(&f.replace, "replace", false, flagImportReplaceHelp)
	if code, done := p.parseFlags(set, usageImport, args); done {
		return code
	}
	switch {
	case set.NArg() == 0:
		fmt.Fprintf(p.stderr, errNeedSession, "import")
		return exitUsage
	case set.NArg() > 1:
		return p.extraArgs("import", set.Args()[1:])
	}
	file := set.Arg(0)
	id := f.session
	if id == "" {
		base, ok := strings.CutSuffix(filepath.Base(file), store.FileExt)
		if !ok {
			return p.usageError("import", fmt.Errorf("%s: %w; or name the session with -session ID", file, transfer.ErrNotJSONL))
		}
		id = base
	}
	if err := store.ValidateID(id); err != nil {
		return p.usageError("import", fmt.Errorf("%s: %w", id, err))
	}
	if f.store == wiring.StoreFile && f.sessions == "" {
		if stateErr != nil {
			return p.usageError("import", stateErr)
		}
		f.sessions = filepath.Join(stateDir, wiring.AppDir, wiring.SessionsDir)
	}
	events, err := transfer.ReadImport(file)
	switch {
	case errors.Is(err, transfer.ErrNotRegular), errors.Is(err, fs.ErrNotExist):
		return p.usageError("import", err)
	case err != nil:
		return p.fail("import", err)
	}
	sessions, usage, err := wiring.OpenStore(f.store, f.sessions, p.getenv, 0, nil)
	if usage {
		return p.usageError("import", err)
	} else if err != nil {
		return p.fail("import", err)
	}
	defer sessions.Close()
	if err := wiring.AddPayloadChecks(sessions); err != nil {
		return p.fail("import", err)
	}
	err = sessions.Import(id, events, f.replace)
	if ee, ok := errors.AsType[*wiring.EventError](err); ok {
		return p.fail("import", fmt.Errorf("%s:%d: %w", file, ee.Seq, ee.Err))
	}
	switch {
	case errors.Is(err, host.ErrSessionExists):
		return p.usageError("import", fmt.Errorf(errImportExists, err))
	case err != nil:
		return p.fail("import", err)
	}
	fmt.Fprintf(p.stderr, lineImported, file, events.Len(), id, sessions.Where(id))
	return exitOK
}
