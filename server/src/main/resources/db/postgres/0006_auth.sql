-- Revocation of users (a generation the CAS tokens minted for a user carry) and openxet's own signing keys, rotated
-- by key id, kept where every node reads them (AuthStore; a node of its own keeps them in keys.json).

ALTER TABLE users ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN revoked BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE signing_keys (
    kid        TEXT   PRIMARY KEY,
    use        TEXT   NOT NULL, -- token or url
    algorithm  TEXT   NOT NULL,
    secret     TEXT   NOT NULL, -- the private JWK: this table is as secret as secrets.properties
    created_at BIGINT NOT NULL, -- epoch milliseconds
    retired_at BIGINT NOT NULL  -- epoch milliseconds, 0 while in use
);
