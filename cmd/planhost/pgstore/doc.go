// Package pgstore is a [host.Store] keeping session logs in PostgreSQL, so
// that many host processes (behind a load balancer, on many machines) can
// share sessions: a session's next prompt may land on another process, and
// a user's /plan may arrive while another process runs the turn.
//
// # Schema
//
// The schema is created and upgraded by numbered migrations embedded in
// the package (migrations/NNNN_name.sql), applied at [Open] in one
// transaction under an advisory lock; the applied versions are recorded in
// planmode_migrations. Table planmode_sessions holds one row per session
// (with its turn lease); planmode_events holds one row per event, keyed by
// (session_id, seq). A session's length is its highest seq: the events
// count 1, 2, 3, ... without a gap (migration 4 dropped the length column
// that appends once updated). The payload and source are stored as json (not
// jsonb), so an event reads back byte for byte as it was appended, and the
// time is kept to the nanosecond.
//
// # Appends
//
// An Append made while this process holds the whole log (no other
// process appended since it last looked) is one statement that commits on
// its own: it inserts the event as the next of the log this process
// holds, only where the previous event is there and (under a turn lease)
// the fencing token is the newest, share-locking the session's row as the
// events' foreign key check does anyway; the events' primary key refuses
// a seq another process took meanwhile. It writes nothing to the
// session's row, so it costs about what a plain INSERT does. When it
// inserts nothing, and for every AppendIf, the append runs one
// transaction: lock the session's row (SELECT ... FOR UPDATE, which waits
// for the one-statement appends under way and holds off the others, so
// it serializes the appends of a session across all processes), read the
// length, read and deliver the events other processes committed since
// this process last looked, run the condition, assign the next seq and the
// time, run the validators, insert the event, commit. Only then is the event added to the process's copy of the log and
// delivered to its subscribers, and a NOTIFY goes out (batched, in its own
// statement: PostgreSQL serializes the commits of notifying transactions,
// which would serialize every session's appends). A failed or rejected append
// leaves nothing behind, and no reader anywhere sees part of one.
//
// AppendIf's condition therefore sees every event any process committed
// before it: the plugin's fold, a subscriber, has folded them by then. A
// process that was behind cannot commit "between turns" inside a turn
// another process opened, and cannot apply a selection that is already in
// the log.
//
// # Turn leases
//
// Sessions implement [host.TurnLeaser]: a turn is written by the process
// that holds the session's turn lease, kept in the session's row (columns
// fence, lease_host, lease_pid, lease_since, lease_until; migration 3). One
// UPDATE grants it when no live lease is held, by the database's clock,
// and increments fence, the fencing token. The holder renews it every
// third of [WithLeaseExpiry] and clears it at the end of the turn. An
// append under a lease checks fence in its own statement, under the row
// lock it takes (a share lock in the one-statement append, which the
// grant's UPDATE waits for; FOR UPDATE in the locking one), and fails
// with host.ErrFenced when a newer grant exists, so a process that was paused or cut off past its lease
// writes nothing into the turn of the process that took over.
//
// # Following other processes
//
// Each process's copy of a session (Events, Len, the subscribers) follows
// the database: a listening connection receives the notifications of
// other processes' commits. A notification carries the session's new
// length and, when they fit in its payload (under 8000 bytes), the events
// themselves, as JSON event objects; a batch that does not fit is split
// over several. The session adds a carried event only when it is the next
// of its log and passes the checks of an event read from the table
// (package eventcheck and the validators): a notification is outside
// input, which any client allowed to LISTEN and NOTIFY can send (and
// read: [WithNotifyEvents] turns the carried events off). Otherwise
// (an event too large, one refused, a gap), and whenever its log is still
// shorter than announced, the session reads the events after its last seq
// from the table and delivers them in order. Reading by position means a
// lost notification, a restarted server or a reconnect never causes a gap
// or a double delivery. After the listener reconnects it
// catches up every open session, and every poll interval
// ([WithPollInterval]) it compares the open sessions' lengths with the
// database. So another process's plan/mode change reaches Get within one
// notification round trip.
//
// Pending selections (plan mode's selections made while a turn is open)
// live in the memory of the process that took them, as with every store:
// they are not shared, and a selection made on one process is applied at
// that process's next accepted pre-step. The log rebuilds them where the
// specification says so (a /plan whose command completed but whose
// plan/mode never reached the log).
//
// # Events other writers commit
//
// Every event read from the table, at Open and each time a session catches
// up, passes the same checks as an append (package eventcheck: JSON that
// holds one value of valid UTF-8 with unique names, the type, source and
// time; then the validators). PostgreSQL's json type accepts duplicate
// names, so a row written by another program can break them. Such a row
// is refused with an error naming the session, the event and what is
// wrong: it is neither delivered nor folded, and no append goes past it
// (the append reads it first), so a refused row stays the last event of
// the log. Nothing stored is lost or changed: the store never skips,
// rewrites or deletes a row; the session opens again, with every event it
// had, once whoever wrote the row corrects or deletes it.
//
// The table itself has no such check: PostgreSQL before 16 has no IS JSON
// WITH UNIQUE KEYS, and a PL/pgSQL check constraint walking the payload
// halved the appends per second of 32 concurrent sessions when measured.
//
// # Agent documents
//
// [Store.Documents] keeps the agent-scoped documents of host.Documents (a
// todo list, say) in table planmode_documents, keyed by agent and name,
// shared by every process on the database. A Put is one statement that
// compares the version and writes (an insert that does nothing when the
// row exists, or an update only while the row has the version named).
//
// # Failures
//
// Every call is bounded by the store's timeout ([WithTimeout]) and by the
// server's statement_timeout when the connection string sets one. Errors
// name the session and the statement's purpose ("lock session", "insert",
// "commit", "read events") and never contain the password. While the
// server is unreachable appends fail with such errors; the pool and the
// listener reconnect when it returns, and sessions catch up. When the
// connection breaks during a commit, the client cannot know whether it
// happened: the append returns an error, and a commit that did happen
// reaches every process through catching up, once, at its place.
package pgstore
