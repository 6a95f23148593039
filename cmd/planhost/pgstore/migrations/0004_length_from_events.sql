-- A session's length is the highest seq of its events (they count 1, 2,
-- 3, ... without a gap): appends no longer update the session's row, they
-- share-lock it (which a lease grant waits for) and the events' primary
-- key refuses a seq taken twice. The column is dropped rather than left
-- stale, so that a process of an earlier version fails at its first
-- append instead of trusting it.
ALTER TABLE planmode_sessions DROP COLUMN len;
