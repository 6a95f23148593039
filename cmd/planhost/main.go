// Command planhost is a runnable agent host with the plan-mode plugin: a
// scripted demo, an interactive terminal session, a deployment validator and
// a session inspector. It is also the reference for wiring the plugin into a
// real host: see newHost.
//
// Usage:
//
//	planhost demo
//	planhost run -config FILE [-session ID] [-sessions DIR] [-store file|postgres|URL] [-model scripted:FILE|openai]
//	planhost validate -config FILE
//	planhost inspect [-json] [-html OUT] [-store file|postgres|URL] SESSION
//	planhost export [-store file|postgres|URL] [-o FILE [-force]] SESSION
//	planhost import [-store file|postgres|URL] [-sessions DIR] [-session ID] [-replace] FILE.jsonl
//
// Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/dshgo/planmode/internal/safetext"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program: it parses args, runs the subcommand and returns
// the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newProgram(stdin, stdout, stderr).main(args)
}

// program holds what the subcommands take from the process, so that tests
// can replace it.
type program struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// tempDir is where the demo makes its directory ("" for the system's).
	tempDir string
	// terminal reports whether stdin and stdout are a terminal.
	terminal func() bool
	// notifyInterrupt delivers Ctrl-C (SIGINT) on the returned channel
	// until stop is called.
	notifyInterrupt func() (c <-chan os.Signal, stop func())
	// leaseExpiry is the turn-lease expiry of a PostgreSQL store (the
	// -lease flag); zero keeps the store's default.
	leaseExpiry time.Duration
}

func newProgram(stdin io.Reader, stdout, stderr io.Writer) *program {
	return &program{
		stdin:  stdin,
		stdout: stdout,
		stderr: stderr,
		getenv: os.Getenv,
		terminal: func() bool {
			return isTerminal(stdin) && isTerminal(stdout)
		},
		notifyInterrupt: func() (<-chan os.Signal, func()) {
			c := make(chan os.Signal, 1)
			signal.Notify(c, os.Interrupt)
			return c, func() { signal.Stop(c) }
		},
	}
}

// main dispatches to the subcommand.
func (p *program) main(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(p.stderr, errNoCommand+usageMain)
		return exitUsage
	}
	switch args[0] {
	case "demo":
		return p.demo(args[1:])
	case "run":
		return p.run(args[1:])
	case "validate":
		return p.validate(args[1:])
	case "inspect":
		return p.inspect(args[1:])
	case "export":
		return p.export(args[1:])
	case "import":
		return p.importCmd(args[1:])
	case "acp":
		return p.acp(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(p.stdout, usageMain)
		return exitOK
	}
	fmt.Fprintf(p.stderr, errUnknownCommand, args[0])
	fmt.Fprint(p.stderr, usageMain)
	return exitUsage
}

// parseFlags parses a subcommand's flags. done is true when the caller
// should return code at once: -h printed the usage (exit 0), or the flags
// were wrong (exit 2, usage on stderr).
func (p *program) parseFlags(fs *flag.FlagSet, usage string, args []string) (code int, done bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := parseInterspersed(fs, args)
	printUsage := func(w io.Writer) {
		fs.SetOutput(w)
		fmt.Fprint(w, usage)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(p.stdout)
		return exitOK, true
	case err != nil:
		fmt.Fprintf(p.stderr, errPrefix, fs.Name(), err)
		printUsage(p.stderr)
		return exitUsage, true
	}
	return exitOK, false
}

// fail prints a runtime failure and returns its exit code.
func (p *program) fail(cmd string, err error) int {
	fmt.Fprint(p.stderr, safetext.Escape(fmt.Sprintf(errPrefix, cmd, err)))
	return exitFailure
}

// usageError prints a usage or configuration error and returns its code.
func (p *program) usageError(cmd string, err error) int {
	fmt.Fprint(p.stderr, safetext.Escape(fmt.Sprintf(errPrefix, cmd, err)))
	return exitUsage
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}
