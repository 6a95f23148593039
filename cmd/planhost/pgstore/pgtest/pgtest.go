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
// fresh database ([NewDB]); tests that stop or kill the server start their
// own ([Start]).
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
)

// Port is the port number in the server's socket name; no TCP port is
// opened.
const Port = 5432

// ErrNoServer means no PostgreSQL binaries were found.
var ErrNoServer = errors.New("pgtest: no PostgreSQL server binaries (initdb, pg_ctl) found; install the postgresql package")

// Server is one private PostgreSQL server.
type Server struct {
	bin  string // directory of initdb, pg_ctl, postgres
	dir  string // temporary directory: data/ and the socket
	user string // system user the server runs as; "" for the current one
	dbs  atomic.Int64
}

// FindBin returns the directory holding initdb and pg_ctl: the newest
// /usr/lib/postgresql/*/bin, else the directory of initdb on $PATH.
func FindBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		d := filepath.Dir(p)
		if isExec(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", ErrNoServer
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Start initializes and starts a new server in a fresh temporary
// directory. Stop it with [Server.Close].
func Start() (*Server, error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		s.user = "postgres"
		u, err := user.Lookup(s.user)
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root needs the %q system user: %w", s.user, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	if err := s.cmd("initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C").run(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.Restart(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// SocketDir is the directory holding the server's Unix socket.
func (s *Server) SocketDir() string { return s.dir }

// Restart starts the server again after [Server.Kill] or a stop. Data
// written by committed transactions survives a kill (fsync is off: the
// server process dies, the machine does not).
func (s *Server) Restart() error {
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -p %d -c fsync=%s -c full_page_writes=off -c shared_buffers=32MB -c max_connections=200", s.dir, Port, fsync())
	return s.cmd("pg_ctl", "start", "-w", "-t", "60", "-D", s.data(), "-l", filepath.Join(s.dir, "server.log"), "-o", opts).run()
}

// fsync is "on" when PLANMODE_PGTEST_FSYNC=1 (for benchmarks that should
// pay for durable commits), else "off".
func fsync() string {
	if os.Getenv("PLANMODE_PGTEST_FSYNC") == "1" {
		return "on"
	}
	return "off"
}

// Kill stops the server at once, as a crash would ("pg_ctl stop -m
// immediate"): connections break and uncommitted work is lost.
func (s *Server) Kill() error {
	return s.cmd("pg_ctl", "stop", "-w", "-m", "immediate", "-D", s.data()).run()
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.cmd("pg_ctl", "stop", "-w", "-m", "fast", "-D", s.data()).run()
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// URL returns the connection string of database db on the server.
func (s *Server) URL(db string) string {
	q := url.Values{"host": {s.dir}, "port": {strconv.Itoa(Port)}, "user": {"postgres"}, "sslmode": {"disable"}}
	return "postgres:///" + db + "?" + q.Encode()
}

// CreateDB creates a new, empty database and returns its URL.
func (s *Server) CreateDB(ctx context.Context) (string, error) {
	name := fmt.Sprintf("db%d", s.dbs.Add(1))
	if err := s.exec(ctx, "postgres", "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.URL(name), nil
}

// CreateSchema creates a new, empty schema in database "postgres" and
// returns a URL whose search_path is that schema. Creating a schema is
// much faster than creating a database; tables, sequences and advisory
// locks are as separate as a test needs, notification channels are shared
// by the database.
func (s *Server) CreateSchema(ctx context.Context) (string, error) {
	name := fmt.Sprintf("s%d", s.dbs.Add(1))
	if err := s.exec(ctx, "postgres", "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("pgtest: create schema: %w", err)
	}
	return s.URL("postgres") + "&search_path=" + name, nil
}

func (s *Server) exec(ctx context.Context, db, sql string) error {
	conn, err := pgx.Connect(ctx, s.URL(db))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// command is a server binary run as the server's user.
type command struct{ *exec.Cmd }

func (s *Server) cmd(name string, args ...string) command {
	prog := filepath.Join(s.bin, name)
	var c *exec.Cmd
	if s.user != "" {
		c = exec.Command("runuser", append([]string{"-u", s.user, "--", prog}, args...)...)
	} else {
		c = exec.Command(prog, args...)
	}
	c.Dir = s.dir
	return command{c}
}

func (c command) run() error {
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return fmt.Errorf("pgtest: %s: %w\n%s", filepath.Base(c.Args[min(len(c.Args)-1, 3)]), err, out.Bytes())
	}
	return nil
}

var (
	shared    *Server
	sharedErr error
	once      sync.Once
)

// Main runs the tests of m with a shared server, stopped afterwards, and
// returns the exit code; call it from TestMain. The server starts on first
// use, so a test binary whose selected tests need none starts none.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Shared returns the test binary's shared server, starting it on first
// use. Without binaries the test is skipped, or failed under CI=true.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	once.Do(func() { shared, sharedErr = Start() })
	check(tb, sharedErr)
	return shared
}

// NewServer starts a private server for tb, closed at its end. Use it for
// tests that stop or kill the server.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start()
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
	case errors.Is(err, ErrNoServer) && os.Getenv("CI") != "true":
		tb.Skip("skipped: " + err.Error() + "; CI=true makes this a failure")
	default:
		tb.Fatal(err)
	}
}

// NewDB returns the URL of a fresh, empty schema on the shared server
// for tb (see [Server.CreateSchema]).
func NewDB(tb testing.TB) string {
	tb.Helper()
	return NewDBOn(tb, Shared(tb))
}

// NewDBOn returns the URL of a fresh, empty schema on s for tb.
func NewDBOn(tb testing.TB, s *Server) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := s.CreateSchema(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}
