package main

import (
	"context"
	"fmt"
	"path/filepath"
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
		return nil, true, fmt.Errorf(errStoreValue, value)
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, true, fmt.Errorf("-store: %w", err) // pgx masks the password
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
	defer cancel()
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		return nil, false, err
	}
	return pgStore{Store: st, label: fmt.Sprintf(lineStorePostgres, cfg.Database, cfg.Host)}, false, nil
}
