-- Session logs: one row per session, one row per event.
CREATE TABLE planmode_sessions (
    id      text PRIMARY KEY,
    -- len is the number of events; appends lock this row, so it also
    -- serializes the appends of one session across processes.
    len     bigint NOT NULL DEFAULT 0 CHECK (len >= 0),
    created timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE planmode_events (
    session_id text NOT NULL REFERENCES planmode_sessions (id) ON DELETE CASCADE,
    seq        bigint NOT NULL CHECK (seq >= 1),
    type       text NOT NULL,
    -- at holds the time to the microsecond, at_ns the nanoseconds below it,
    -- so that an event reads back exactly as it was appended.
    at         timestamptz NOT NULL,
    at_ns      smallint NOT NULL CHECK (at_ns BETWEEN 0 AND 999),
    -- json (not jsonb) keeps the payload's text byte for byte.
    source     json,
    data       json,
    PRIMARY KEY (session_id, seq)
);
