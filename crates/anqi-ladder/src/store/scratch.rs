//! A throwaway PostgreSQL database for tests, this crate's and the `anqi` program's: made
//! fresh (a unique name) on the server `ANQI_POSTGRES_URL` points at, and dropped after, so
//! tests running at once never meet. `.ci/postgres.sh` starts such a server and sets the
//! variable (protocol/LADDER.md, Several servers).
//!
//! Without `ANQI_POSTGRES_URL` a test says it was skipped, and passes, unless
//! `ANQI_POSTGRES_TESTS=require` (as in CI), where it fails: a skip must not pass for a run.

use postgres::{Client, NoTls};
use std::sync::atomic::{AtomicU64, Ordering};

/// A database of its own, dropped with this.
pub struct ScratchDatabase {
    server: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// A fresh database for the test `test`; `None` (having said SKIPPED) without a server.
    ///
    /// # Panics
    /// When none is configured but `ANQI_POSTGRES_TESTS=require`, or the server refuses.
    pub fn new(test: &str) -> Option<ScratchDatabase> {
        super::pg::unblocked(|| ScratchDatabase::make(test))
    }

    fn make(test: &str) -> Option<ScratchDatabase> {
        let server = std::env::var("ANQI_POSTGRES_URL").unwrap_or_default();
        if server.is_empty() {
            assert!(
                std::env::var("ANQI_POSTGRES_TESTS").as_deref() != Ok("require"),
                "{test}: ANQI_POSTGRES_TESTS=require, but ANQI_POSTGRES_URL is not set"
            );
            eprintln!("{test}: SKIPPED: no PostgreSQL (set ANQI_POSTGRES_URL)");
            return None;
        }
        static MADE: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "anqi_test_{}_{}_{nanos}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut client = Client::connect(&server, NoTls).unwrap_or_else(|e| {
            panic!(
                "{test}: cannot connect to ANQI_POSTGRES_URL ({}): {e}",
                super::describe(&server)
            )
        });
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("{test}: cannot make a database: {e}"));
        let url = with_database(&server, &name);
        Some(ScratchDatabase { server, name, url })
    }

    /// Where the database is, for `Store::open` and `anqi serve --ladder`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        // FORCE: a server under test may still hold a connection.
        super::pg::unblocked(|| {
            if let Ok(mut client) = Client::connect(&self.server, NoTls) {
                let _ = client.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    self.name
                ));
            }
        });
    }
}

/// The URL `url` with its database replaced by `name` (its query, if any, kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let base = match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_of_a_url_is_replaced() {
        assert_eq!(
            with_database("postgresql://root@%2Ftmp:55432/postgres", "t1"),
            "postgresql://root@%2Ftmp:55432/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@host/db?sslmode=disable", "t2"),
            "postgres://u:p@host/t2?sslmode=disable"
        );
        assert_eq!(with_database("postgres://host", "t3"), "postgres://host/t3");
    }
}
