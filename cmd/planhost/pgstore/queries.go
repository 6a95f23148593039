package pgstore

// notifyChannel is the channel appends notify; the payload is
// "<session id> <seq>".
const notifyChannel = "planmode_events"

// Statements, named after their purpose (errors are wrapped with it).
const (
	sqlCreateSession = `INSERT INTO planmode_sessions (id) VALUES ($1)`
	// sqlLockSession locks the session's row for an append and reads its
	// fencing token: while the row is locked no lease can be granted and
	// no other append commits, so the token checked is the token at the
	// commit and the length read next (sqlEventsLen, a statement of its
	// own so that it sees what committed while this one waited) stays the
	// length.
	sqlLockSession = `SELECT fence FROM planmode_sessions WHERE id = $1 FOR UPDATE`
	sqlEventsLen   = `SELECT coalesce(max(seq), 0) FROM planmode_events WHERE session_id = $1`
	sqlReadEvents  = `SELECT seq, type, at, at_ns, source, data FROM planmode_events
		WHERE session_id = $1 AND seq > $2 ORDER BY seq`
	// sqlInsertEvent inserts event $2 of session $1, under the session's
	// row lock.
	sqlInsertEvent = `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	// sqlNotify sends one notification per payload. It runs after the
	// appends' commits, in its own transaction: PostgreSQL serializes the
	// commits of all transactions that notify (a cluster-wide lock held
	// through the commit's WAL flush), so notifying inside the append
	// would serialize every session's appends.
	sqlNotify     = `SELECT pg_notify('` + notifyChannel + `', p) FROM unnest($1::text[]) AS p`
	sqlForkEvents = `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, source, data)
		SELECT $1, seq, type, at, at_ns, source, data FROM planmode_events
		WHERE session_id = $2 AND seq <= $3`
	// sqlLens reads the sessions of $1 that exist and their lengths, the
	// highest seq of their events (they count up from 1 without a gap).
	sqlLens = `SELECT s.id, coalesce((SELECT max(e.seq) FROM planmode_events e WHERE e.session_id = s.id), 0)
		FROM planmode_sessions s WHERE s.id = ANY($1)`
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
