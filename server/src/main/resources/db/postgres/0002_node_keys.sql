-- The fingerprint of the token and URL keys every node sharing this index must hold (Index.sharedKeyFingerprint):
-- a node started with other keys would refuse the tokens and signed URLs its peers hand out. At most one row.

CREATE TABLE node_keys (
    id          SMALLINT PRIMARY KEY CHECK (id = 1),
    fingerprint BYTEA  NOT NULL,
    recorded_at BIGINT NOT NULL
);
