package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema change, "migrations/NNNN_name.sql".
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their numbers must
// count 1, 2, 3, ...
func migrations() ([]migration, error) {
	files, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, f := range files {
		num, name, ok := strings.Cut(strings.TrimSuffix(f.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(ms)+1 {
			return nil, fmt.Errorf("pgstore: migration file %s: want NNNN_name.sql numbered %d", f.Name(), len(ms)+1)
		}
		b, err := migrationFiles.ReadFile("migrations/" + f.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	return ms, nil
}

// migrate applies the migrations the database lacks, in one transaction
// holding an advisory lock, so that processes starting together apply each
// once. A database whose schema is newer than this package's is refused.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return inTx(ctx, pool, pgx.TxOptions{}, "pgstore: migrate", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlMigrationLock, int64(migrationLockKey)); err != nil {
			return fmt.Errorf("pgstore: migrate: take migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, sqlMigrationsTable); err != nil {
			return fmt.Errorf("pgstore: migrate: create migrations table: %w", err)
		}
		var have int
		if err := tx.QueryRow(ctx, sqlMigrationVersion).Scan(&have); err != nil {
			return fmt.Errorf("pgstore: migrate: read schema version: %w", err)
		}
		if have > len(ms) {
			return fmt.Errorf("pgstore: migrate: database schema version %d is newer than this program's %d: %w", have, len(ms), ErrSchemaTooNew)
		}
		for _, m := range ms[have:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("pgstore: migrate: apply %04d_%s: %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, sqlMigrationRecord, m.version, m.name); err != nil {
				return fmt.Errorf("pgstore: migrate: record %04d_%s: %w", m.version, m.name, err)
			}
		}
		return nil
	})
}

// inTx runs fn in a transaction, wrapping the errors of begin and commit
// with purpose; fn wraps its own.
func inTx(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, purpose string, fn func(pgx.Tx) error) error {
	tx, err := begin(ctx, pool, opts)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", purpose, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: commit: %w", purpose, err)
	}
	return nil
}

// begin starts a transaction. A connection the server ended while it sat
// idle in the pool (a restart, pg_terminate_backend, an idle timeout)
// fails at its first use, and the pool then drops it; nothing was done on
// it, so begin tries again on another connection, at most once per
// connection the pool may hold. A failure to connect at all, or a done
// ctx, is returned at once.
func begin(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions) (pgx.Tx, error) {
	for i := 1; ; i++ {
		tx, err := pool.BeginTx(ctx, opts)
		if err == nil || !retry(ctx, pool, i, err) {
			return tx, err
		}
	}
}

// retry reports whether an operation that did nothing on the database (a
// begin, a read) should be tried again after its try-th attempt failed
// with err: not when ctx is done, the server could not be reached or the
// pool's every connection was tried.
func retry(ctx context.Context, pool *pgxpool.Pool, try int, err error) bool {
	var ce *pgconn.ConnectError
	return try <= int(pool.Config().MaxConns) && ctx.Err() == nil && !errors.As(err, &ce) && !pgconn.Timeout(err)
}
