package pgstore

// notifyChannel is the channel appends notify; the payload is
// "<session id> <seq>".
const notifyChannel = "planmode_events"

// Statements, named after their purpose (errors are wrapped with it).
const (
	sqlCreateSession = `INSERT INTO planmode_sessions (id) VALUES ($1)`
	sqlSessionLen    = `SELECT len FROM planmode_sessions WHERE id = $1`
	sqlLockSession   = `SELECT len FROM planmode_sessions WHERE id = $1 FOR UPDATE`
	sqlReadEvents    = `SELECT seq, type, at, at_ns, source, data FROM planmode_events
		WHERE session_id = $1 AND seq > $2 ORDER BY seq`
	// sqlInsertEvent inserts event $2 of session $1 and sets the
	// session's length to it, in one round trip.
	sqlInsertEvent = `WITH ins AS (
		INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
	)
	UPDATE planmode_sessions SET len = $2 WHERE id = $1`
	// sqlNotify sends one notification per payload. It runs after the
	// appends' commits, in its own transaction: PostgreSQL serializes the
	// commits of all transactions that notify (a cluster-wide lock held
	// through the commit's WAL flush), so notifying inside the append
	// would serialize every session's appends.
	sqlNotify      = `SELECT pg_notify('` + notifyChannel + `', p) FROM unnest($1::text[]) AS p`
	sqlForkSession = `INSERT INTO planmode_sessions (id, len) VALUES ($1, $2)`
	sqlForkEvents  = `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
		SELECT $1, seq, type, at, at_ns, source, data FROM planmode_events
		WHERE session_id = $2 AND seq <= $3`
	sqlLens   = `SELECT id, len FROM planmode_sessions WHERE id = ANY($1)`
	sqlListen = `LISTEN ` + notifyChannel
)

// Migration statements.
const (
	// migrationLockKey is the transaction-scoped advisory lock that
	// serializes the migrations of processes starting together.
	migrationLockKey   = 0x706c616e6d6f6465 // "planmode"
	sqlMigrationLock   = `SELECT pg_advisory_xact_lock($1)`
	sqlMigrationsTable = `CREATE TABLE IF NOT EXISTS planmode_migrations (
		version integer PRIMARY KEY,
		name    text NOT NULL,
		applied timestamptz NOT NULL DEFAULT now()
	)`
	sqlMigrationVersion = `SELECT coalesce(max(version), 0) FROM planmode_migrations`
	sqlMigrationRecord  = `INSERT INTO planmode_migrations (version, name) VALUES ($1, $2)`
)
