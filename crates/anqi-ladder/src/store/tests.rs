use super::*;
use crate::rating::Rating;

fn game(no: u64, first: i64, second: i64, score: Option<f64>) -> GameRow {
    GameRow {
        server: "anqi".into(),
        game_no: no,
        variant: "standard".into(),
        records: "games.jsonl".into(),
        started_unix_ms: 1000 + no,
        first,
        second,
        score,
        termination: "capture-all".into(),
        plies: 40,
    }
}

fn two_accounts(store: &Store) -> (i64, i64) {
    (
        store.add_account("alpha", &[1; 32]).unwrap(),
        store.add_account("beta", &[2; 32]).unwrap(),
    )
}

#[test]
fn a_new_database_is_at_the_latest_schema_and_reopens_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ladder.db");
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        schema::MIGRATIONS.len() as i64
    );
    let mode: String = store
        .conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    two_accounts(&store);
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.accounts().unwrap().len(), 2);
}

#[test]
fn an_old_database_is_upgraded_at_open_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ladder.db");
    {
        let conn = Connection::open(&path).unwrap();
        let mut old = Store { conn };
        old.migrate_to(1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
        let (a, b) = two_accounts(&old);
        old.conn
            .execute(
                "INSERT INTO games (server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies)
                 VALUES ('anqi', 1, 'standard', 'games.jsonl', 0, ?1, ?2, 1.0, 'resign', 3)",
                params![a, b],
            )
            .unwrap();
        // No ratings table yet.
        assert!(old.ratings("standard").is_err());
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 2);
    assert_eq!(store.games("standard").unwrap().len(), 1);
    assert!(store.ratings("standard").unwrap().is_empty());
}

#[test]
fn a_database_newer_than_the_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ladder.db");
    drop(Store::open(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    conn.execute("INSERT INTO schema_version (version) VALUES (99)", [])
        .unwrap();
    drop(conn);
    match Store::open(&path) {
        Err(StoreError::TooNew { found: 99, .. }) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn names_are_never_reused_and_retiring_keeps_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("l.db")).unwrap();
    let (a, b) = two_accounts(&store);
    assert!(matches!(
        store.add_account("alpha", &[3; 32]),
        Err(StoreError::NameTaken(_))
    ));
    store
        .add_game(
            &game(1, a, b, Some(1.0)),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap();
    store.retire("alpha").unwrap();
    assert!(matches!(
        store.retire("nobody"),
        Err(StoreError::NoAccount(_))
    ));
    assert!(store
        .account("alpha")
        .unwrap()
        .unwrap()
        .retired_unix_ms
        .is_some());
    assert!(matches!(
        store.add_account("alpha", &[4; 32]),
        Err(StoreError::NameTaken(_))
    ));
    assert_eq!(store.games("standard").unwrap().len(), 1);
}

#[test]
fn a_game_and_its_ratings_are_one_transaction_and_a_game_counts_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("l.db")).unwrap();
    let (a, b) = two_accounts(&store);
    let ratings: BTreeMap<i64, Rating> = [
        (
            a,
            Rating {
                rating: 1600.0,
                interval: 300.0,
            },
        ),
        (
            b,
            Rating {
                rating: 1400.0,
                interval: 300.0,
            },
        ),
    ]
    .into();
    let counts: BTreeMap<i64, u64> = [(a, 1), (b, 1)].into();
    store
        .add_game(&game(7, a, b, Some(1.0)), &ratings, &counts)
        .unwrap();
    assert!(store.has_game("anqi", 7).unwrap());
    // The same game again: refused, and nothing of it written.
    let changed: BTreeMap<i64, Rating> = [(
        a,
        Rating {
            rating: 9.0,
            interval: 1.0,
        },
    )]
    .into();
    assert!(store
        .add_game(&game(7, a, b, Some(0.0)), &changed, &counts)
        .is_err());
    let now = store.ratings("standard").unwrap();
    assert_eq!(now[&a].0.rating, 1600.0);
    assert_eq!(store.history(a, "standard").unwrap().len(), 1);
    // Results, an account's games and opponents, from both seats.
    store
        .add_game(&game(8, b, a, Some(0.5)), &ratings, &counts)
        .unwrap();
    let results = store.results("standard").unwrap();
    assert_eq!(
        results[&a],
        Wdl {
            wins: 1,
            draws: 1,
            losses: 0
        }
    );
    assert_eq!(
        results[&b],
        Wdl {
            wins: 0,
            draws: 1,
            losses: 1
        }
    );
    let (games, total) = store.games_of(b, "standard", 0, 10).unwrap();
    assert_eq!(total, 2);
    assert_eq!(
        (games[0].game_no, games[0].seat, games[0].score),
        (8, 1, Some(0.5))
    );
    assert_eq!(
        (games[1].game_no, games[1].seat, games[1].score),
        (7, 2, Some(0.0))
    );
    assert_eq!(games[1].opponent, "alpha");
    assert_eq!(store.opponents(a, "standard").unwrap()["beta"], results[&a]);
    assert_eq!(store.recent("anqi", 10).unwrap(), vec![(a, b), (b, a)]);
}

#[test]
fn an_unrated_game_is_indexed_but_changes_no_rating() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("l.db")).unwrap();
    let (a, b) = two_accounts(&store);
    store
        .add_game(&game(1, a, b, None), &BTreeMap::new(), &BTreeMap::new())
        .unwrap();
    assert_eq!(store.games("standard").unwrap().len(), 1);
    assert!(store.results("standard").unwrap().is_empty());
    assert!(store.history(a, "standard").unwrap().is_empty());
}
