-- The users of the Hub-style token routes, kept in the index several nodes share, so that a user added on one node
-- authenticates on every node (Users; a node of its own keeps them in users.json). Only a SHA-256 of each token.

CREATE TABLE users (
    name         TEXT   PRIMARY KEY,
    token_sha256 TEXT   NOT NULL UNIQUE,
    repos        TEXT   NOT NULL, -- repository patterns, one per line
    access       TEXT   NOT NULL,
    updated_at   BIGINT NOT NULL
);
