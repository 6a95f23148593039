package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// Values of -store.
const (
	storeFile     = "file"
	storePostgres = "postgres"
	envDatabase   = "DATABASE_URL"
	// storeOpenTimeout bounds connecting and migrating at start.
	storeOpenTimeout = 30 * time.Second
)

// sessionStore is where planhost keeps sessions: a directory of files or
// a PostgreSQL database.
type sessionStore interface {
	host.Store
	// Close releases the store.
	Close() error
	// where names the place of session id for the user (never a password).
	where(id string) string
	// documents opens the agent documents (the todo list) that go with
	// the sessions: the directory dir for the file store ("" keeps them in
	// memory), the same database for PostgreSQL.
	documents(dir string) (host.Documents, error)
	// latest is the ID of the session changed last, for -continue.
	latest() (string, error)
	// importLog stores events (numbered from 1) as session id, whole or
	// not at all; an existing session is host.ErrSessionExists unless
	// replace is true. A refused event is an *eventError.
	importLog(id string, events host.Log, replace bool) error
}

// fileStore is the default store.
type fileStore struct{ *store.Dir }

func (fileStore) documents(dir string) (host.Documents, error) { return openDocuments(dir) }

func (f fileStore) where(id string) string {
	if id == "" {
		return filepath.Dir(f.Path("x"))
	}
	return f.Path(id)
}

// pgStore keeps sessions in PostgreSQL.
type pgStore struct {
	*pgstore.Store
	label string
}

func (p pgStore) where(string) string { return p.label }

// documents keeps the agent documents in the sessions' database, so that
// every planhost sharing it shares the agents' todo lists too.
func (p pgStore) documents(string) (host.Documents, error) { return p.Documents(), nil }

// openStore opens the store -store names: "file" (the default) keeps
// sessions in -sessions, opened with dirOpts; "postgres" connects to
// $DATABASE_URL; a postgres:// or postgresql:// URL connects there. Any
// other value is a usage error (usage true).
func (p *program) openStore(value, sessionsDir string, dirOpts ...store.Option) (s sessionStore, usage bool, err error) {
	url := value
	switch {
	case value == storeFile:
		d, err := store.OpenDir(sessionsDir, dirOpts...)
		if err != nil {
			return nil, false, err
		}
		return fileStore{d}, false, nil
	case value == storePostgres:
		url = p.getenv(envDatabase)
		if url == "" {
			return nil, true, fmt.Errorf(errStoreNoDatabaseURL, envDatabase)
		}
	case strings.HasPrefix(value, "postgres://"), strings.HasPrefix(value, "postgresql://"):
	default:
		return nil, true, fmt.Errorf(errStoreValue, redactDSN(value))
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, true, fmt.Errorf("-store: %w", err) // pgx masks the password
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
	defer cancel()
	var opts []pgstore.Option
	if p.leaseExpiry != 0 {
		opts = append(opts, pgstore.WithLeaseExpiry(p.leaseExpiry))
	}
	st, err := pgstore.Open(ctx, url, opts...)
	if err != nil {
		return nil, false, err
	}
	return pgStore{Store: st, label: fmt.Sprintf(lineStorePostgres, cfg.Database, cfg.Host)}, false, nil
}

// passwordKV matches a password (or sslpassword) keyword of a
// keyword/value connection string in the spellings pgx's redaction leaves
// alone: any case, spaces around '=', a quoted value with escapes. It is
// applied to URLs too, where it may mask more than the password.
var passwordKV = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// pgxMask is the mask pgx puts in place of a password.
const pgxMask = "xxxxx"

// redactDSN returns a -store value fit to show: its passwords masked the
// way pgx masks them in its own errors. A value that only looks like a
// postgres URL (another case, leading spaces, "postgresql:" without the
// slashes) is masked as one, and a keyword/value password is masked in any
// spelling. When pgx's masking cannot be used, nothing of the value is
// shown.
func redactDSN(value string) string {
	trimmed := strings.TrimLeft(value, " \t\r\n\f\v")
	lower := strings.ToLower(trimmed)
	for _, scheme := range []string{"postgresql:", "postgres:"} {
		if strings.HasPrefix(lower, scheme) {
			rest := strings.TrimLeft(trimmed[len(scheme):], "/")
			r, ok := pgxRedact("postgresql://" + rest)
			if !ok {
				return errStoreHidden
			}
			return passwordKV.ReplaceAllString(value[:len(value)-len(rest)]+strings.TrimPrefix(r, "postgresql://"), "${1}"+pgxMask)
		}
	}
	r, ok := pgxRedact(value)
	if !ok {
		return errStoreHidden
	}
	return passwordKV.ReplaceAllString(r, "${1}"+pgxMask)
}

// pgxRedact masks the passwords of connection string s with pgx's own
// redaction (the text of its parse errors). It reports false when that
// text does not have the form it reads.
func pgxRedact(s string) (string, bool) {
	text := pgconn.NewParseConfigError(s, "", nil).Error()
	rest, ok := strings.CutPrefix(text, "cannot parse `")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, "`: ")
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}
