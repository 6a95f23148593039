-- Turn leases: the process writing a session's open turn holds its lease
-- until lease_until (renewed while the turn runs). fence, the fencing
-- token, grows by one with every grant; an append made under an older
-- token is refused.
ALTER TABLE planmode_sessions
    ADD COLUMN fence       bigint NOT NULL DEFAULT 0,
    ADD COLUMN lease_host  text NOT NULL DEFAULT '',
    ADD COLUMN lease_pid   integer NOT NULL DEFAULT 0,
    ADD COLUMN lease_since timestamptz,
    ADD COLUMN lease_until timestamptz;
