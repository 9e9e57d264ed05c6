//! The database's schema, as numbered migrations: a database is upgraded at open by running,
//! in order and each in its own transaction, every migration past the version it records
//! (`schema_version`). A migration, once released, is never edited: a change is a new one.
//!
//! The SQL is the common subset of SQLite and PostgreSQL (integer keys, `TEXT`, `REAL`,
//! `BLOB`/`BYTEA` aside), so that one schema can serve both.

/// Every migration, version 1 first.
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
