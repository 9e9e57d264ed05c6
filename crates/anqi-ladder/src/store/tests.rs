//! The store's tests, each run on both databases: SQLite in a temporary directory, and
//! PostgreSQL in a scratch database of its own (skipped without `ANQI_POSTGRES_URL`; see
//! `scratch`). And two ledgers, two servers, sharing one database.

use super::scratch::ScratchDatabase;
use super::*;
use crate::ledger::Ledger;
use crate::rating::Rating;

/// Where a test's database is: a place it alone uses, removed after.
enum Place {
    Sqlite(tempfile::TempDir),
    Postgres(ScratchDatabase),
}

impl Place {
    fn location(&self) -> String {
        match self {
            Place::Sqlite(dir) => dir.path().join("l.db").to_string_lossy().into_owned(),
            Place::Postgres(db) => db.url().to_string(),
        }
    }

    fn open(&self) -> Store {
        Store::open(self.location()).unwrap()
    }

    fn migrations(&self) -> i64 {
        match self {
            Place::Sqlite(_) => schema::MIGRATIONS.len() as i64,
            Place::Postgres(_) => schema::POSTGRES_MIGRATIONS.len() as i64,
        }
    }
}

/// `test(place)` as two tests, `NAME::sqlite` and `NAME::postgres`.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn sqlite() {
                super::$test(super::Place::Sqlite(tempfile::tempdir().unwrap()));
            }

            #[test]
            fn postgres() {
                if let Some(db) = super::ScratchDatabase::new(concat!(stringify!($test), "::postgres")) {
                    super::$test(super::Place::Postgres(db));
                }
            }
        }
    )*};
}

on_both!(
    a_new_database_is_at_the_latest_schema_and_reopens_unchanged,
    an_old_database_is_upgraded_at_open_and_keeps_its_rows,
    a_database_newer_than_the_program_is_refused,
    names_are_never_reused_and_retiring_keeps_the_games,
    two_connections_adding_one_name_in_two_cases_at_once_make_one_account,
    a_game_and_its_ratings_are_one_transaction_and_a_game_counts_once,
    an_unrated_game_is_indexed_but_changes_no_rating,
    another_connections_commit_changes_the_data_version_and_its_own_does_not,
    copied_accounts_keep_their_numbers_and_new_ones_come_after,
    two_servers_share_one_database_and_each_counts_its_own_games,
    a_game_fitted_while_another_server_counts_one_is_fitted_again_over_both,
    servers_of_two_variants_are_two_ladders_with_the_same_accounts,
);

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

fn a_new_database_is_at_the_latest_schema_and_reopens_unchanged(place: Place) {
    let store = place.open();
    assert_eq!(store.schema_version().unwrap(), place.migrations());
    if let Backend::Sqlite(db) = &store.backend {
        let mode: String = db
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    two_accounts(&store);
    drop(store);
    let store = place.open();
    assert_eq!(store.accounts().unwrap().len(), 2);
}

fn an_old_database_is_upgraded_at_open_and_keeps_its_rows(place: Place) {
    {
        let old = Store::open_at(&place.location(), 1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
        let (a, b) = two_accounts(&old);
        old.execute_raw(&format!(
            "INSERT INTO games (server, game_no, variant, records, started_unix_ms, first, second, score, termination, plies)
             VALUES ('anqi', 1, 'standard', 'games.jsonl', 0, {a}, {b}, 1.0, 'resign', 3)"
        ))
        .unwrap();
        // No ratings table yet.
        assert!(old.ratings("standard").is_err());
    }
    let store = place.open();
    assert_eq!(store.schema_version().unwrap(), 2);
    assert_eq!(store.games("standard").unwrap().len(), 1);
    assert!(store.ratings("standard").unwrap().is_empty());
}

fn a_database_newer_than_the_program_is_refused(place: Place) {
    place
        .open()
        .execute_raw("INSERT INTO schema_version (version) VALUES (99)")
        .unwrap();
    match Store::open(place.location()) {
        Err(StoreError::TooNew { found: 99, .. }) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}

fn names_are_never_reused_and_retiring_keeps_the_games(place: Place) {
    let mut store = place.open();
    let (a, b) = two_accounts(&store);
    assert!(matches!(
        store.add_account("alpha", &[3; 32]),
        Err(StoreError::NameTaken(_))
    ));
    // Nor in another case: the error names the account there.
    match store.add_account("ALPHA", &[3; 32]) {
        Err(StoreError::NameTaken(there)) => assert_eq!(there, "alpha"),
        other => panic!("{other:?}"),
    }
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

fn two_connections_adding_one_name_in_two_cases_at_once_make_one_account(place: Place) {
    // Two processes (two connections), each adding the name in its own case, started together
    // round after round: the check and the insert are one write, so one wins each round.
    const ROUNDS: u8 = 20;
    let barrier = std::sync::Barrier::new(2);
    let [first, second]: [Vec<Result<i64, StoreError>>; 2] = std::thread::scope(|s| {
        let adders = [("Bot", 0u8), ("bOT", 100)].map(|(name, key)| {
            let (barrier, store) = (&barrier, place.open());
            s.spawn(move || {
                (0..ROUNDS)
                    .map(|round| {
                        barrier.wait();
                        store.add_account(&format!("{name}{round}"), &[key + round; 32])
                    })
                    .collect()
            })
        });
        adders.map(|a| a.join().unwrap())
    });
    for (round, added) in first.iter().zip(&second).enumerate() {
        let won = [added.0, added.1].iter().filter(|a| a.is_ok()).count();
        assert_eq!(won, 1, "round {round}: {added:?}");
        let lost = [added.0, added.1]
            .into_iter()
            .find_map(|a| a.as_ref().err());
        assert!(matches!(lost, Some(StoreError::NameTaken(_))), "{lost:?}");
    }
    assert_eq!(place.open().accounts().unwrap().len(), ROUNDS as usize);
}

fn a_game_and_its_ratings_are_one_transaction_and_a_game_counts_once(place: Place) {
    let mut store = place.open();
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

fn an_unrated_game_is_indexed_but_changes_no_rating(place: Place) {
    let mut store = place.open();
    let (a, b) = two_accounts(&store);
    store
        .add_game(&game(1, a, b, None), &BTreeMap::new(), &BTreeMap::new())
        .unwrap();
    assert_eq!(store.games("standard").unwrap().len(), 1);
    assert!(store.results("standard").unwrap().is_empty());
    assert!(store.history(a, "standard").unwrap().is_empty());
}

fn another_connections_commit_changes_the_data_version_and_its_own_does_not(place: Place) {
    let ours = place.open();
    let theirs = place.open();
    let before = ours.data_version().unwrap();
    ours.add_account("alpha", &[1; 32]).unwrap();
    ours.retire("alpha").unwrap();
    assert_eq!(ours.data_version().unwrap(), before);
    // A refused write changes nothing either.
    assert!(theirs.add_account("alpha", &[2; 32]).is_err());
    assert_eq!(ours.data_version().unwrap(), before);
    theirs.add_account("beta", &[3; 32]).unwrap();
    assert_ne!(ours.data_version().unwrap(), before);
}

fn copied_accounts_keep_their_numbers_and_new_ones_come_after(place: Place) {
    let from = tempfile::tempdir().unwrap();
    let live = Store::open(from.path().join("live.db")).unwrap();
    two_accounts(&live);
    live.retire("beta").unwrap();
    live.add_account("gamma", &[5; 32]).unwrap();
    let copy = place.open();
    copy.copy_accounts(&live.accounts().unwrap()).unwrap();
    assert_eq!(copy.accounts().unwrap(), live.accounts().unwrap());
    let next = copy.add_account("delta", &[6; 32]).unwrap();
    assert_eq!(next, 4);
}

/// A finished game's record of a ladder, as a server writes it: seat 1 beat seat 2.
fn record(server: &str, game: u64, first: &str, second: &str) -> anqi_core::record::GameRecord {
    serde_json::from_value(serde_json::json!({
        "format": 1, "game": game, "started_unix_ms": 1000 + game,
        "variant": "standard", "variant_source": "",
        "seeds": { "clients": [], "server": "" },
        "players": [
            { "id": 1, "name": first, "seed": "", "colour": null, "time_used_ms": 0 },
            { "id": 2, "name": second, "seed": "", "colour": null, "time_used_ms": 0 },
        ],
        "plies": [], "faults": [],
        "result": {
            "win": "(win 1 0)", "winner": 1, "winner_side": 0, "reason": "capture-all",
            "plies": 30, "turns": 15,
        },
        "final_board": "",
        "ladder": { "server": server },
    }))
    .unwrap()
}

/// Two servers (`east`, `west`) on one database, each with its own ledger, as two `anqi serve`
/// processes have: each counts its own games, game numbers and all, and sees the other's
/// accounts and games once it reads the database again.
fn two_servers_share_one_database_and_each_counts_its_own_games(place: Place) {
    let mut east = Ledger::open(place.open(), "east", "standard", "east.jsonl").unwrap();
    let mut west = Ledger::open(place.open(), "west", "standard", "west.jsonl").unwrap();
    // Accounts made through each server's store (as `anqi ladder add` would).
    east.store().add_account("alpha", &[1; 32]).unwrap();
    east.store().add_account("beta", &[2; 32]).unwrap();
    west.store().add_account("gamma", &[3; 32]).unwrap();
    assert!(east.refresh().unwrap() && west.refresh().unwrap());
    assert!(!east.refresh().unwrap(), "nothing new since");
    assert_eq!(east.seating_accounts().unwrap().len(), 3);

    // Both number their games from 1: the server's name keeps them apart.
    assert!(east
        .count(&record("east", 1, "alpha", "beta"))
        .unwrap()
        .is_some());
    assert!(east
        .count(&record("east", 2, "alpha", "gamma"))
        .unwrap()
        .is_some());
    assert!(west
        .count(&record("west", 1, "gamma", "beta"))
        .unwrap()
        .is_some());
    // Each counts only its own, once.
    assert!(east
        .count(&record("west", 1, "gamma", "beta"))
        .unwrap()
        .is_none());
    assert!(east
        .count(&record("east", 1, "alpha", "beta"))
        .unwrap()
        .is_none());
    assert_eq!(east.recent(10).unwrap().len(), 2);
    assert_eq!(west.recent(10).unwrap().len(), 1);

    // An account added through the other server, and the other's games: seen at refresh.
    west.store().add_account("delta", &[4; 32]).unwrap();
    assert!(east.refresh().unwrap());
    assert!(east
        .seating_accounts()
        .unwrap()
        .iter()
        .any(|a| a.name == "delta"));
    assert_eq!(east.games_counted(), 3);
    west.refresh().unwrap();
    assert_eq!(west.games_counted(), 3);
    assert_eq!(east.ratings(), west.ratings());
    // The ratings are those of all three games, as a fit over them gives.
    let mut all = crate::rating::Games::default();
    let id = |name: &str| east.store().account(name).unwrap().unwrap().id;
    for (a, b) in [("alpha", "beta"), ("alpha", "gamma"), ("gamma", "beta")] {
        all.add(id(a), id(b), 1.0);
    }
    assert_eq!(east.ratings(), &crate::rating::fit(&all));
    // A game of delta's, counted by east, right after west added the account.
    west.store().add_account("epsilon", &[5; 32]).unwrap();
    assert!(east
        .count(&record("east", 3, "epsilon", "delta"))
        .unwrap()
        .is_some());
    // Counting read the database again: the seating still hears of the new account.
    assert!(east.refresh().unwrap());
    assert!(!east.refresh().unwrap());
    let games = east.store().games("standard").unwrap();
    let ids: Vec<(&str, u64)> = games
        .iter()
        .map(|g| (g.server.as_str(), g.game_no))
        .collect();
    assert_eq!(ids, [("east", 1), ("east", 2), ("west", 1), ("east", 3)]);
}

/// East fits its game; west counts one of its own before east writes: east's write is
/// refused, and counting the game fits it again over both, so the ratings written are those
/// of every game (not one game behind).
fn a_game_fitted_while_another_server_counts_one_is_fitted_again_over_both(place: Place) {
    let mut east = Ledger::open(place.open(), "east", "standard", "east.jsonl").unwrap();
    let mut west = Ledger::open(place.open(), "west", "standard", "west.jsonl").unwrap();
    // Made by a third connection (`anqi ladder add`): both servers see them.
    let admin = place.open();
    admin.add_account("alpha", &[1; 32]).unwrap();
    admin.add_account("beta", &[2; 32]).unwrap();
    assert!(east.refresh().unwrap() && west.refresh().unwrap());
    let mine = record("east", 1, "alpha", "beta");
    let fitted = east.fit(&mine).unwrap().unwrap();
    assert!(west
        .count(&record("west", 1, "beta", "alpha"))
        .unwrap()
        .is_some());
    assert!(east.write(fitted, true).unwrap().is_none(), "refused");
    assert_eq!(east.store().games("standard").unwrap().len(), 1);
    assert!(east.count(&mine).unwrap().is_some());
    let id = |name: &str| east.store().account(name).unwrap().unwrap().id;
    let mut both = crate::rating::Games::default();
    both.add(id("beta"), id("alpha"), 1.0);
    both.add(id("alpha"), id("beta"), 1.0);
    let fit = crate::rating::fit(&both);
    let stored = east.store().ratings("standard").unwrap();
    for name in ["alpha", "beta"] {
        let (rating, games) = &stored[&id(name)];
        assert_eq!((rating, *games), (&fit[&id(name)], 2), "{name}");
    }
    // Unchecked, a write goes in whatever came meanwhile (the last of count's fits).
    let later = record("east", 2, "alpha", "beta");
    let fitted = east.fit(&later).unwrap().unwrap();
    assert!(west
        .count(&record("west", 2, "beta", "alpha"))
        .unwrap()
        .is_some());
    assert!(east.write(fitted, false).unwrap().is_some());
    assert_eq!(east.store().games("standard").unwrap().len(), 4);
}

/// Two servers of different variants on one database: the same accounts, two ladders; a game
/// of one variant moves no rating of the other (LADDER.md, One ladder per variant).
fn servers_of_two_variants_are_two_ladders_with_the_same_accounts(place: Place) {
    let mut big = Ledger::open(place.open(), "big", "standard", "big.jsonl").unwrap();
    let mut small = Ledger::open(place.open(), "small", "traditional-2x4", "small.jsonl").unwrap();
    // Made through the ledger (as a registration is): known to it at once.
    big.add_account("alpha", &[1; 32]).unwrap();
    big.add_account("beta", &[2; 32]).unwrap();
    assert!(small.refresh().unwrap());
    assert_eq!(small.seating_accounts().unwrap().len(), 2);
    let mut game = record("small", 1, "beta", "alpha");
    game.variant = "traditional-2x4".into();
    assert!(small.count(&game).unwrap().is_some());
    assert!(big
        .count(&record("big", 1, "alpha", "beta"))
        .unwrap()
        .is_some());
    assert!(big
        .count(&record("big", 2, "alpha", "beta"))
        .unwrap()
        .is_some());
    big.refresh().unwrap();
    small.refresh().unwrap();
    assert_eq!((big.games_counted(), small.games_counted()), (2, 1));
    let id = |name: &str| big.store().account(name).unwrap().unwrap().id;
    // alpha leads the big ladder and trails the small one.
    assert!(big.ratings()[&id("alpha")].rating > big.ratings()[&id("beta")].rating);
    assert!(small.ratings()[&id("alpha")].rating < small.ratings()[&id("beta")].rating);
    assert_eq!(big.store().games("traditional-2x4").unwrap().len(), 1);
}

#[test]
fn a_location_is_a_postgres_url_or_a_path_and_messages_hide_a_password() {
    assert!(is_postgres("postgres://db/ladder") && is_postgres("postgresql://db/ladder"));
    assert!(!is_postgres("postgres.db") && !is_postgres("/var/lib/anqi/ladder.db"));
    assert_eq!(
        describe("postgres://anqi:hunter2@db:5432/ladder"),
        "postgres://anqi:***@db:5432/ladder"
    );
    assert_eq!(
        describe("postgresql://anqi@%2Ftmp:55432/ladder"),
        "postgresql://anqi@%2Ftmp:55432/ladder"
    );
    assert_eq!(describe("ladder.db"), "ladder.db");
}
