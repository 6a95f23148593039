// Package store holds session stores for hosts: [Memory], an in-memory
// store for tests and embedded use, and [Dir], a durable store keeping one
// JSONL file per session. Both implement host.Store and share one session
// core, so they behave alike: appends are serialized by one append lock per
// session, validators see each event with its Seq and Time already set, and
// events are kept in a canonical form (time in UTC, data as compact JSON,
// no memory shared with the caller) that a file stores and reads back
// exactly.
//
// # File format
//
// Session id lives in <dir>/<id>.jsonl (see [ValidateID] for the IDs
// accepted; none can name a path outside the directory). Each line is one
// host.Event as a JSON object followed by '\n':
//
//	{"seq":1,"type":"user/message","time":"2025-01-02T03:04:05.123456789Z","source":{"kind":"user"},"data":{"content":[{"type":"text","text":"hi"}]}}
//
// seq counts 1, 2, 3, ... from the first line; time is RFC 3339 in UTC;
// source is present when set; data is the payload, omitted when empty.
// There are no blank lines, headers or trailers, so line n holds event n.
// The store writes compact JSON; when reading it also accepts whitespace
// around and inside a line's value, and ignores unknown keys. A line is at
// most [DefaultMaxLineSize] bytes, its newline not counted (see
// [WithMaxLineSize]); Memory has no such limit.
// Every string in a line is valid UTF-8 and no object has two equal keys;
// the data of an appended event nests at most [MaxDataDepth] deep. Append
// refuses an event that breaks one of these ([ErrBadEvent]), so the store
// never writes a line that it would refuse to read back. Both stores of
// this package and pgstore make the same check, at append and at read
// (package eventcheck), in one pass per line.
// The directory is created with mode 0700 and an existing one that lets
// group or other users in is refused; files are created 0600, and a file
// found with a broader mode is set to 0600 when it is opened.
//
// # Durability
//
// Append encodes the event and writes its line with a single write call on
// a file opened with O_APPEND, all before it updates the in-memory log and
// returns, so a crash of the process never loses an appended event. When
// the line reaches stable storage depends on the [SyncPolicy]. Under the
// default, [SyncGroup] (group commit), the session's Sync method
// (host.Syncer, called through host.Sync) makes every event appended
// before it durable with one fsync, shared by concurrent callers and run
// without the append lock; a "turn/end" and closing the session sync too.
// A host calls Sync at each point where something is shown: before a
// model request, before a reply, command result or question reaches the
// user. Under [SyncEveryAppend] each event is on stable storage before
// Append returns. If the write fails, the file is truncated back to the
// last committed line and the append fails with nothing changed; if that
// truncation or an fsync fails, the session is marked failed
// ([ErrSessionFailed]) and takes no more appends, since its file and its
// in-memory log might disagree. Create makes the empty file at once and
// syncs the directory; Fork writes the whole prefix to a new file under a
// fresh ID and syncs it before returning; CloseSession and Close sync
// before closing. Under [SyncNever] none of these syncs happen.
//
// # Recovery
//
// Opening a session replays its file and checks it: every line must decode
// to an event, seq must count up from 1 with no gap, every line must fit
// the size limit, and every event must pass the store's validators.
// The file is read line by line, in one pass, and each line is decoded by
// json v2 (github.com/go-json-experiment/json), so a file edited by hand
// (whitespace, escapes, unknown keys) reads as the store's own lines do;
// keys are matched exactly. Invalid UTF-8 and duplicate keys anywhere in a
// line are corruption too.
// Failures are errors of the form "store: FILE:LINE: ..." ([ErrCorrupt],
// [ErrLineTooLong], or the validator's error). The one repair is at the
// very end of the file. A final line with no newline that does not start
// with a complete JSON value (cut short, possibly mid-UTF-8, or with bytes
// a crashed filesystem zeroed) is what a crash during an append leaves, so
// it is cut off (the file is truncated) and [LogTornLine] is logged. A
// final line that does start with a complete value is never cut: a valid
// event lacking only its newline is kept and the newline added, anything
// else is an error. A newline-terminated line is never dropped, so a
// repair never hides a complete event.
//
// # Sharing
//
// Subscribers are called with the append lock held, so a subscriber must
// not call Append, AppendIf, Subscribe, Fork or its own unsubscribe func on
// the same session, nor the store's methods: it should record the event
// and return. Once unsubscribe returns, the subscriber is not running and
// is never called again.
//
// At open and before each sync (whatever the policy: a Sync call, a
// "turn/end" under SyncGroup or SyncTurnEnd, every append under
// SyncEveryAppend), a Dir checks that the session's path still names the
// file it holds open with a single link: a session whose file was
// replaced, removed or renamed ([ErrFileReplaced]) or gained another hard
// link ([ErrHardLinked]) fails that sync and takes no more appends (the
// events appended since the last sync are then in memory only), and a
// file with more than one link is not opened, as a symlink is not.
// Appends between syncs do not look at the path.
//
// A Dir returns one session object per ID, so all writers in a process
// share one append lock. Each open session file carries an exclusive
// flock(2) where the system has it; a second Dir (in this or another
// process) opening the same session gets [ErrLocked], as a [*LockedError]
// that says which host and process hold it and since when, from the owner
// record the holder keeps beside the file ("ID.jsonl.owner", removed when
// the session is closed). A record that names a process of this host that
// is gone is reported as stale.
package store
