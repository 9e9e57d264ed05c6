//! The database's schema, as numbered migrations: a database is upgraded at open by running,
//! in order and each in its own transaction, every migration past the version it records
//! (`schema_version`). A migration, once released, is never edited: a change is a new one.
//!
//! SQLite and PostgreSQL each have their own list (their types differ: `INTEGER`/`BIGINT`,
//! `REAL`/`DOUBLE PRECISION`, `BLOB`/`BYTEA`), numbered alike in the same `schema_version`
//! table, with the same tables and columns.

/// Every SQLite migration, version 1 first.
pub const MIGRATIONS: &[&str] = &[
    // 1: the accounts and the index of the ladder's games.
    "CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        secret_sha256 BLOB NOT NULL UNIQUE,
        created_unix_ms INTEGER NOT NULL,
        retired_unix_ms INTEGER
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        server TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        variant TEXT NOT NULL,
        records TEXT NOT NULL,
        started_unix_ms INTEGER NOT NULL,
        first INTEGER NOT NULL REFERENCES accounts (id),
        second INTEGER NOT NULL REFERENCES accounts (id),
        score REAL,
        termination TEXT NOT NULL,
        plies INTEGER NOT NULL,
        UNIQUE (server, game_no)
    );
    CREATE INDEX games_first ON games (first);
    CREATE INDEX games_second ON games (second);",
    // 2: the ratings, and each rated game's ratings of its two players after it.
    "CREATE TABLE ratings (
        account INTEGER NOT NULL REFERENCES accounts (id),
        variant TEXT NOT NULL,
        rating REAL NOT NULL,
        interval REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (account, variant)
    );
    CREATE TABLE rating_history (
        game INTEGER NOT NULL REFERENCES games (id),
        account INTEGER NOT NULL REFERENCES accounts (id),
        rating REAL NOT NULL,
        interval REAL NOT NULL,
        PRIMARY KEY (game, account)
    );",
];

/// Every PostgreSQL migration, version 1 first: the same tables as SQLite's, plus `changes`,
/// the number of write transactions ever committed (each bumps it first, which also makes the
/// writers of the database take turns): a server sees another's accounts and games by it
/// (SQLite has `PRAGMA data_version` for that).
pub const POSTGRES_MIGRATIONS: &[&str] = &[
    // 1: the accounts, the index of the ladder's games, and the count of changes.
    "CREATE TABLE accounts (
        id BIGSERIAL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        secret_sha256 BYTEA NOT NULL UNIQUE,
        created_unix_ms BIGINT NOT NULL,
        retired_unix_ms BIGINT
    );
    CREATE TABLE games (
        id BIGSERIAL PRIMARY KEY,
        server TEXT NOT NULL,
        game_no BIGINT NOT NULL,
        variant TEXT NOT NULL,
        records TEXT NOT NULL,
        started_unix_ms BIGINT NOT NULL,
        first BIGINT NOT NULL REFERENCES accounts (id),
        second BIGINT NOT NULL REFERENCES accounts (id),
        score DOUBLE PRECISION,
        termination TEXT NOT NULL,
        plies BIGINT NOT NULL,
        UNIQUE (server, game_no)
    );
    CREATE INDEX games_first ON games (first);
    CREATE INDEX games_second ON games (second);
    CREATE TABLE changes (n BIGINT NOT NULL);
    INSERT INTO changes (n) VALUES (0);",
    // 2: the ratings, and each rated game's ratings of its two players after it.
    "CREATE TABLE ratings (
        account BIGINT NOT NULL REFERENCES accounts (id),
        variant TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        \"interval\" DOUBLE PRECISION NOT NULL,
        games BIGINT NOT NULL,
        PRIMARY KEY (account, variant)
    );
    CREATE TABLE rating_history (
        game BIGINT NOT NULL REFERENCES games (id),
        account BIGINT NOT NULL REFERENCES accounts (id),
        rating DOUBLE PRECISION NOT NULL,
        \"interval\" DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game, account)
    );",
];
