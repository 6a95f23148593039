-- Agent-scoped documents (host.Documents): one row per agent and name.
CREATE TABLE planmode_documents (
    agent_id text NOT NULL,
    name     text NOT NULL,
    -- version counts the writes; a Put names the version it read.
    version  bigint NOT NULL CHECK (version >= 1),
    data     bytea NOT NULL,
    updated  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, name)
);
