// Package pgtest runs a private PostgreSQL server for tests, from the
// binaries of the system's PostgreSQL package (initdb, pg_ctl, postgres).
//
// The server listens only on a Unix socket in its own temporary directory.
// PostgreSQL refuses to run as root, so when the test runs as root the
// server runs as the "postgres" system user (through runuser) on a
// directory that user owns. When the binaries are missing, tests skip,
// except under CI=true, where they fail.
//
// A test binary shares one server ([Main] starts it) and gives each test a
// fresh schema ([NewDB]); tests that stop or kill the server start their
// own ([NewServer]).
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// port is the port number in the server's socket name; no TCP port is
// opened.
const port = 5432

var errNoServer = errors.New("pgtest: no PostgreSQL server binaries (initdb, pg_ctl) found; install the postgresql package")

// Server is one private PostgreSQL server.
type Server struct {
	bin     string // directory of initdb, pg_ctl, postgres
	dir     string // temporary directory: data/ and the socket
	user    string // system user the server runs as; "" for the current one
	schemas atomic.Int64
}

// findBin returns the directory holding initdb and pg_ctl: the newest
// /usr/lib/postgresql/*/bin, else the directory of pg_ctl on $PATH.
func findBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	version := func(bin string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
		return n
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		_, err1 := exec.LookPath(filepath.Join(d, "initdb"))
		_, err2 := exec.LookPath(filepath.Join(d, "pg_ctl"))
		if err1 == nil && err2 == nil {
			return d, nil
		}
	}
	return "", errNoServer
}

// start initializes and starts a new server in a fresh temporary
// directory. Stop it with [Server.Close].
func start() (_ *Server, err error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	s := &Server{bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		s.user = "postgres"
		u, err := user.Lookup(s.user)
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root needs the %q system user: %w", s.user, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	if err := s.run("initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return nil, err
	}
	return s, s.Restart()
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// SocketDir is the directory holding the server's Unix socket.
func (s *Server) SocketDir() string { return s.dir }

// Restart starts the server again after [Server.Kill]. Data written by
// committed transactions survives a kill (fsync is off unless
// PLANMODE_PGTEST_FSYNC=1: the server process dies, the machine does not).
func (s *Server) Restart() error {
	fsync := "off"
	if os.Getenv("PLANMODE_PGTEST_FSYNC") == "1" {
		fsync = "on" // for benchmarks that should pay for durable commits
	}
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -p %d -c fsync=%s -c full_page_writes=off -c shared_buffers=32MB -c max_connections=200", s.dir, port, fsync)
	return s.run("pg_ctl", "start", "-w", "-t", "60", "-D", s.data(), "-l", filepath.Join(s.dir, "server.log"), "-o", opts)
}

// Kill stops the server at once, as a crash would ("pg_ctl stop -m
// immediate"): connections break and uncommitted work is lost.
func (s *Server) Kill() error {
	return s.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", s.data())
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	return errors.Join(s.run("pg_ctl", "stop", "-w", "-m", "fast", "-D", s.data()), os.RemoveAll(s.dir))
}

// run runs a server binary as the server's user.
func (s *Server) run(name string, args ...string) error {
	c := exec.Command(filepath.Join(s.bin, name), args...)
	if s.user != "" {
		c = exec.Command("runuser", append([]string{"-u", s.user, "--", c.Path}, args...)...)
	}
	var out bytes.Buffer
	c.Dir, c.Stdout, c.Stderr = s.dir, &out, &out
	if err := c.Run(); err != nil {
		return fmt.Errorf("pgtest: %s: %w\n%s", name, err, out.Bytes())
	}
	return nil
}

// createSchema creates a new, empty schema in database "postgres" and
// returns a URL whose search_path is that schema. Creating a schema is
// much faster than creating a database; tables, sequences and advisory
// locks are as separate as a test needs, notification channels are shared
// by the database.
func (s *Server) createSchema(ctx context.Context) (string, error) {
	name := fmt.Sprintf("s%d", s.schemas.Add(1))
	q := url.Values{"host": {s.dir}, "port": {strconv.Itoa(port)}, "user": {"postgres"}, "sslmode": {"disable"}}
	u := "postgres:///postgres?" + q.Encode()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("pgtest: create schema: %w", err)
	}
	return u + "&search_path=" + name, nil
}

var (
	shared    *Server
	sharedErr error
	once      sync.Once
)

// Main runs the tests of m with a shared server, stopped afterwards, then
// fails them if goroutines leaked, and returns the exit code; call it from
// TestMain. The server starts on first use, so a test binary whose
// selected tests need none starts none.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak: "+err.Error())
			code = 1
		}
	}
	return code
}

// Shared returns the test binary's shared server, starting it on first
// use. Without binaries the test is skipped, or failed under CI=true.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	once.Do(func() { shared, sharedErr = start() })
	check(tb, sharedErr)
	return shared
}

// NewServer starts a private server for tb, closed at its end. Use it for
// tests that stop or kill the server.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := start()
	check(tb, err)
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

func check(tb testing.TB, err error) {
	tb.Helper()
	switch {
	case err == nil:
	case errors.Is(err, errNoServer) && os.Getenv("CI") != "true":
		tb.Skip("skipped: " + err.Error() + "; CI=true makes this a failure")
	default:
		tb.Fatal(err)
	}
}

// NewDB returns the URL of a fresh, empty schema on the shared server
// for tb.
func NewDB(tb testing.TB) string {
	tb.Helper()
	return NewDBOn(tb, Shared(tb))
}

// NewDBOn returns the URL of a fresh, empty schema on s for tb.
func NewDBOn(tb testing.TB, s *Server) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := s.createSchema(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}
