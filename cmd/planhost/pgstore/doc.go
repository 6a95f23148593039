// Package pgstore is a [host.Store] keeping session logs in PostgreSQL, so
// that many host processes (behind a load balancer, on many machines) can
// share sessions: a session's next prompt may land on another process, and
// a user's /plan may arrive while another process runs the turn. The
// guarantees across processes are set out in docs/host.md ("Sessions in
// PostgreSQL"); in short:
//
// The schema is created and upgraded by numbered migrations embedded in
// the package (migrations/NNNN_name.sql), applied at [Open] in one
// transaction under an advisory lock. Table planmode_sessions holds one row
// per session, with its turn lease; planmode_events holds one row per
// event, keyed by (session_id, seq). A session's length is its highest seq:
// the events count 1, 2, 3, ... without a gap. Payload and source are json
// (not jsonb), so an event reads back byte for byte, and the time is kept
// to the nanosecond.
//
// Every append runs one transaction: it locks the session's row (which
// serializes the session's appends across processes), reads and delivers
// the events other processes committed, runs the condition and the
// validators, and inserts the event; the events' primary key refuses a
// seq taken twice. So a condition sees every event any process committed
// before it. After the commit the event is delivered locally and announced
// with a NOTIFY, batched in a statement of its own (PostgreSQL serializes
// the commits of notifying transactions). A failed or rejected append
// leaves nothing behind.
//
// Sessions implement [host.TurnLeaser]: the lease lives in the session's
// row, is granted by one UPDATE by the database's clock, renewed every
// third of [WithLeaseExpiry], and fences appends with a token checked
// under the row lock the append takes ([host.ErrFenced]).
//
// Each process's copy of a session follows the database: a listening
// connection receives the notifications of other processes' commits,
// which carry the new length and, when they fit in the payload, the events
// ([WithNotifyEvents] turns that off). A notification is outside input:
// a carried event is added only when it is the next of the log and passes
// the checks of an event read from the table. Otherwise the session reads
// the events after its last seq from the table, so a lost notification,
// a restarted server or a reconnect never causes a gap or a double
// delivery; after each reconnect, and every [WithPollInterval], open
// sessions catch up. Pending selections stay in the memory of the process
// that took them, as with every store.
//
// Every event read from the table passes the checks of an append (package
// eventcheck, then the validators). A row another program wrote that fails
// them is refused with an error naming the row; the store never skips,
// rewrites or deletes it, and no append goes past it. (The table has no
// such check: a PL/pgSQL check walking the payload halved the appends per
// second of 32 concurrent sessions when measured.)
//
// [Store.Documents] keeps host.Documents in planmode_documents, each Put
// one compare-and-swap statement.
//
// Every call is bounded by [WithTimeout] and the server's
// statement_timeout. Errors name the session and the statement's purpose
// and never contain the password. When the connection breaks during a
// commit, the append returns an error, and a commit that did happen
// reaches every process through catching up, once, at its place.
package pgstore
