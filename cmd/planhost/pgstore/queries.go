package pgstore

// notifyChannel is the channel appends notify; the payload is
// "<session id> <seq>".
const notifyChannel = "planmode_events"

// Statements, named after their purpose (errors are wrapped with it).
const (
	sqlCreateSession = `INSERT INTO planmode_sessions (id) VALUES ($1)`
	sqlSessionLen    = `SELECT len FROM planmode_sessions WHERE id = $1`
	// sqlLockSession locks the session's row for an append and reads its
	// length and fencing token: while the row is locked no lease can be
	// granted, so the token checked is the token at the commit.
	sqlLockSession = `SELECT len, fence FROM planmode_sessions WHERE id = $1 FOR UPDATE`
	sqlReadEvents  = `SELECT seq, type, at, at_ns, source, data FROM planmode_events
		WHERE session_id = $1 AND seq > $2 ORDER BY seq`
	// sqlInsertEvent inserts event $2 of session $1 and sets the
	// session's length to it, in one round trip.
	sqlInsertEvent = `WITH ins AS (
		INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
	)
	UPDATE planmode_sessions SET len = $2 WHERE id = $1`
	// sqlAppendOne appends event $2 of session $1 in one statement (one
	// round trip, committed on its own) when the session still has $2-1
	// events and, for $8 other than 0, fencing token $8: the row lock the
	// UPDATE takes makes both checks hold at the commit. No row inserted
	// means the log grew elsewhere, the token is stale or the session is
	// gone; the locking append then finds out which.
	sqlAppendOne = `WITH s AS (
		UPDATE planmode_sessions SET len = $2
		WHERE id = $1 AND len = $2 - 1 AND ($8::bigint = 0 OR fence = $8::bigint)
		RETURNING id
	)
	INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
	SELECT s.id, $2, $3, $4, $5, $6, $7 FROM s`
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
	sqlLens = `SELECT id, len FROM planmode_sessions WHERE id = ANY($1)`
	// sqlLeaseGrant grants the turn lease of session $1 to host $2, pid $3
	// for $4 microseconds, when no live lease is held, and returns the new
	// fencing token. The database's clock decides expiry, so the hosts'
	// clocks need not agree.
	sqlLeaseGrant = `UPDATE planmode_sessions SET fence = fence + 1, lease_host = $2, lease_pid = $3,
		lease_since = clock_timestamp(), lease_until = clock_timestamp() + $4 * interval '1 microsecond'
		WHERE id = $1 AND (lease_until IS NULL OR lease_until <= clock_timestamp())
		RETURNING fence, lease_since, lease_until`
	// sqlLeaseHolder reads who holds the lease of session $1.
	sqlLeaseHolder = `SELECT lease_host, lease_pid, lease_since, lease_until, COALESCE(lease_until > clock_timestamp(), false)
		FROM planmode_sessions WHERE id = $1`
	// sqlLeaseRenew extends the lease of session $1 granted with token $2
	// by $3 microseconds from now; no row means another grant came since.
	sqlLeaseRenew = `UPDATE planmode_sessions SET lease_until = clock_timestamp() + $3 * interval '1 microsecond'
		WHERE id = $1 AND fence = $2 RETURNING lease_until`
	// sqlLeaseRelease gives up the lease of session $1 granted with $2.
	sqlLeaseRelease = `UPDATE planmode_sessions SET lease_until = NULL, lease_host = '', lease_pid = 0, lease_since = NULL
		WHERE id = $1 AND fence = $2`
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
