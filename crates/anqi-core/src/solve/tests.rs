use super::*;
use crate::rules::{Game, Variant};
use file::Header;

/// traditional-2x4's rules on a smaller board with other pieces, and another no-progress
/// limit.
fn like_2x4(board: &str, pieces: &str, no_progress: u32) -> Variant {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../protocol/variants/traditional-2x4.sexp"
    ))
    .unwrap()
    .replace("(name traditional-2x4)", "(name small)")
    .replace("(rectangle 2 4)", &format!("(rectangle {board})"))
    .replace("(pieces KPPPkppp)", &format!("(pieces {pieces})"))
    .replace("(no-progress 180)", &format!("(no-progress {no_progress})"));
    Variant::parse(&text).unwrap()
}

/// traditional-2x4's rules on a 2x2 board with KPkp: solved in a moment.
fn small() -> Variant {
    like_2x4("2 2", "KPkp", 180)
}

fn solved(v: &Variant) -> (Solver, Score) {
    let mut solver = Solver::new(v).unwrap();
    let start = solver.start().unwrap();
    let value = solver.value(&start);
    (solver, value)
}

#[test]
fn a_solution_file_reads_back_and_verifies() {
    let v = small();
    let (solver, value) = solved(&v);
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, solver.scale(), value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    assert_eq!(header.value, value);
    assert_eq!(&values, solver.values());
    let done = file::verify(&header, &values, |_| {}).unwrap();
    assert_eq!(done.states, values.len() as u64);
}

#[test]
fn a_changed_value_fails_the_check() {
    let v = small();
    let (solver, value) = solved(&v);
    let scale = solver.scale();
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, scale, value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    // Every seventh state's value changed by a little, then its plies: each change is caught.
    let mut keys: Vec<Key> = values.keys().copied().collect();
    keys.sort_unstable();
    for key in keys.iter().step_by(7) {
        let mut wrong = values.clone();
        let e = wrong[key];
        let value = if e.value > 0 { e.value - 1 } else { 1 };
        wrong.insert(*key, Entry { value, ..e });
        assert!(
            file::verify(&header, &wrong, |_| {}).is_err(),
            "a value changed at {:032x} went unseen",
            key.0
        );
        wrong.insert(
            *key,
            Entry {
                plies: e.plies + 1,
                ..e
            },
        );
        assert!(
            file::verify(&header, &wrong, |_| {}).is_err(),
            "plies changed at {:032x} went unseen",
            key.0
        );
    }
}

#[test]
fn values_held_up_by_a_cycle_fail_the_check() {
    // A component where both sides can only shuffle (a king each, nothing else face-up or
    // down, neither able to take the other) is a draw; claiming a win for all of it is
    // consistent move by move, but reached by nobody.
    let v = small();
    let (solver, value) = solved(&v);
    let scale = solver.scale();
    let cells = solver.cells();
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, scale, value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    // Find a component of draws: states worth a draw with nothing face-down.
    let draws: Vec<Key> = values
        .iter()
        .filter(|(k, e)| e.value == scale.draw() && k.material(cells).0 == 0)
        .map(|(k, _)| *k)
        .collect();
    assert!(!draws.is_empty(), "the small game has drawn endings");
    let mut wrong = values.clone();
    for k in &draws {
        wrong.insert(
            *k,
            Entry {
                value: scale.win(),
                plies: 1,
            },
        );
    }
    let err = file::verify(&header, &wrong, |_| {}).unwrap_err();
    assert!(matches!(err, SolutionError::Wrong { .. }), "{err}");
    let err = err.to_string();
    assert!(
        err.contains("stored") || err.contains("plies"),
        "unexpected error: {err}"
    );
}

#[test]
fn the_tiny_game_is_symmetric_and_its_values_are_exact() {
    let v = small();
    let (mut solver, value) = solved(&v);
    let scale = solver.scale();
    let start = solver.start().unwrap();
    // Every first reveal of the 2x2 board is alike (each cell is a corner), and each colour
    // turned up is worth the same as the other.
    let first: Vec<Score> = (0..4).map(|c| solver.reveal_value(&start, c)).collect();
    assert!(first.iter().all(|&f| f == value), "{first:?} vs {value}");
    let outcomes = solver.reveal_outcomes(&start, 0);
    assert_eq!(outcomes.len(), 4);
    let by: std::collections::HashMap<char, Score> =
        outcomes.iter().map(|(p, _, v)| (p.letter(), *v)).collect();
    assert_eq!(by[&'K'], by[&'k']);
    assert_eq!(by[&'P'], by[&'p']);
    // The average of the four outcomes is the value, exactly.
    assert_eq!(outcomes.iter().map(|o| o.2).sum::<Score>(), 4 * value);
    assert!(value <= scale.win());
}

#[test]
fn variants_the_solver_cannot_hold_are_refused_with_the_reason() {
    for (name, why) in [
        ("strategic-2x4", "bag"),
        ("2v2", "players"),
        ("single", "two-player"),
        ("traditional", "at most 16"),
    ] {
        let v = Variant::shipped(name).unwrap();
        let err = Solver::new(&v)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(why), "{name}: {err}");
    }
}

/// A state of `table` with every piece face-up, won by player 1 (to move) in `plies` quiet
/// plies or more.
fn a_slow_win(
    table: &std::collections::HashMap<Key, Entry>,
    scale: Scale,
    cells: usize,
    plies: u16,
) -> Key {
    let mut found: Vec<Key> = table
        .iter()
        .filter(|(k, e)| {
            e.value == scale.win()
                && e.plies >= plies
                && k.material(cells).0 == 0
                && k.position(cells).turn_place == 0
        })
        .map(|(k, _)| *k)
        .collect();
    found.sort_unstable();
    *found.first().expect("a win that takes quiet plies")
}

/// Plays `game` to its end with both sides perfect by `table`.
fn play_out(scale: Scale, table: &std::collections::HashMap<Key, Entry>, game: &mut Game) {
    for _ in 0..1000 {
        let Some(best) = children::best_action(scale, table, game).unwrap() else {
            return;
        };
        let mover = game.to_move();
        game.play(mover, best.action).unwrap();
    }
    panic!("perfect play went on for 1,000 plies");
}

#[test]
fn perfect_play_wins_what_the_table_says_and_where_the_referee_differs() {
    // traditional-2x4's rules on 2x3 with KPPkpp.
    let v = like_2x4("2 3", "KPPkpp", 180);
    let (solver, _) = solved(&v);
    let (scale, cells) = (solver.scale(), solver.cells());
    let table = solver.values().clone();
    let key = a_slow_win(&table, scale, cells, 3);
    let position = key.position(cells);
    // Under the variant's own rules (no-progress 180), perfect play wins it.
    let mut game = Game::from_position(Arc::new(v.clone()), &position).unwrap();
    play_out(scale, &table, &mut game);
    assert_eq!(
        game.outcome().unwrap().winner,
        Some(0),
        "{:?}",
        game.outcome()
    );
    // With a no-progress limit of 2 plies, the referee draws before the win comes: the solver's
    // values hold from a state whose no-progress count leaves room for the longest forced
    // quiet play, not nearer the limit (protocol/SOLVING.md).
    let tight = like_2x4("2 3", "KPPkpp", 2);
    let mut game = Game::from_position(Arc::new(tight), &position).unwrap();
    play_out(scale, &table, &mut game);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (None, crate::rules::Termination::NoProgress)
    );
}

/// The bound protocol/SOLVING.md gives: a value is the referee's from a state whose
/// no-progress count is at most the limit less its plies less one. The favoured side's plies
/// quiet moves bring the count to the limit less one, and its next ply (a reveal, a capture or
/// the end) comes before the draw; with a limit one ply shorter the referee draws first.
#[test]
fn a_win_after_plies_quiet_plies_needs_a_limit_of_one_more() {
    let v = like_2x4("2 3", "KPPkpp", 180);
    let (solver, _) = solved(&v);
    let (scale, cells) = (solver.scale(), solver.cells());
    let table = solver.values().clone();
    let with_limit = |limit: u32| Arc::new(like_2x4("2 3", "KPPkpp", limit));
    // The longest run of quiet plies perfect play makes from `key` (nothing face-down, so the
    // same line every time) under the variant's own limit.
    let longest_run = |key: Key| {
        let mut game = Game::from_position(with_limit(180), &key.position(cells)).unwrap();
        let mut longest = 0;
        while let Some(best) = children::best_action(scale, &table, &game).unwrap() {
            longest = longest.max(game.quiet_plies());
            game.play(game.to_move(), best.action).unwrap();
        }
        (longest, game.outcome().unwrap().winner)
    };
    // A win whose longest quiet run is its first: its plies.
    let mut wins: Vec<(Key, Entry)> = table
        .iter()
        .filter(|(k, e)| {
            e.value == scale.win()
                && e.plies >= 2
                && k.material(cells).0 == 0
                && k.position(cells).turn_place == 0
        })
        .map(|(k, e)| (*k, *e))
        .collect();
    wins.sort_unstable_by_key(|(k, _)| *k);
    let (key, entry) = wins
        .into_iter()
        .find(|(k, e)| longest_run(*k) == (u32::from(e.plies), Some(0)))
        .expect("a win whose first quiet run is its longest");
    let plies = u32::from(entry.plies);
    let outcome = |limit: u32| {
        let mut game = Game::from_position(with_limit(limit), &key.position(cells)).unwrap();
        play_out(scale, &table, &mut game);
        let o = game.outcome().unwrap();
        (o.winner, o.reason)
    };
    // From a count of 0: 0 = limit - plies - 1 wins, 0 = limit - plies draws.
    assert_eq!(outcome(plies + 1).0, Some(0), "{plies} plies");
    assert_eq!(
        outcome(plies),
        (None, crate::rules::Termination::NoProgress),
        "{plies} plies"
    );
}

#[test]
fn a_perfect_player_never_scores_below_the_value_against_a_random_one() {
    // Player 1 perfect, player 2 random, from the start of the 2x2 game over every deal: the
    // mean score is at least the value (the random player only gives away).
    let v = like_2x4("2 3", "KPPkpp", 180);
    let (solver, value) = solved(&v);
    let scale = solver.scale();
    let table = solver.values().clone();
    let mut rng = crate::rules::playout::SplitMix64::new(7);
    let games = 400u64;
    let mut total: u64 = 0;
    for g in 0..games {
        let deal = crate::rules::SeedInputs {
            clients: vec![],
            server: format!("perfect/{g}"),
        }
        .deal_for(&v);
        let mut game = Game::new(Arc::new(v.clone()), deal);
        while game.outcome().is_none() && game.ply() < 1000 {
            let mover = game.to_move();
            let action = if mover == 1 {
                children::best_action(scale, &table, &game)
                    .unwrap()
                    .unwrap()
                    .action
            } else {
                let legal = game.legal_actions();
                legal[rng.below(legal.len() as u32) as usize]
            };
            game.play(mover, action).unwrap();
        }
        total += children::ended(scale, &game).unwrap_or(scale.draw());
    }
    // The mean is an average of 400 games: allow 3 standard errors (scores are in [0, 1]).
    let mean = total as f64 / games as f64 / scale.denominator as f64;
    let floor = scale.decimal(value) - 3.0 * 0.5 / (games as f64).sqrt();
    assert!(
        mean >= floor,
        "perfect player scored {mean:.3}, value {:.3}",
        scale.decimal(value)
    );
}

#[test]
fn a_key_gives_back_its_position() {
    // Random games of traditional-2x4: every state's key, read back as a position and built
    // into a game, has the same key, the same legal actions and the same unseen pieces.
    let v = Arc::new(Variant::shipped("traditional-2x4").unwrap());
    let mut rng = crate::rules::playout::SplitMix64::new(11);
    for g in 0..50 {
        let deal = crate::rules::SeedInputs {
            clients: vec![],
            server: format!("keys/{g}"),
        }
        .deal_for(&v);
        let mut game = Game::new(v.clone(), deal);
        while game.outcome().is_none() && game.ply() < 200 {
            let key = Key::of(&game);
            let back = Game::from_position(v.clone(), &key.position(8)).unwrap();
            assert_eq!(Key::of(&back), key);
            assert_eq!(back.legal_actions(), game.legal_actions());
            assert_eq!(back.face_down_counts(), game.face_down_counts());
            assert_eq!(back.to_move(), game.to_move());
            let legal = game.legal_actions();
            let mover = game.to_move();
            game.play(mover, legal[rng.below(legal.len() as u32) as usize])
                .unwrap();
        }
    }
}

#[test]
fn positions_that_no_game_of_the_variant_has_are_refused() {
    use crate::rules::{Colour, Piece, Position, Square};
    let v = Arc::new(Variant::shipped("traditional-2x4").unwrap());
    let p = |c| Piece::from_letter(c).unwrap();
    let good = Position {
        squares: vec![Square::Hidden; 8],
        face_down: "KPPPkppp".chars().map(p).collect(),
        turn_place: 0,
        side_colours: vec![None, None],
    };
    assert!(Game::from_position(v.clone(), &good).is_ok());
    let refused = |position: Position, why: &str| {
        let err = Game::from_position(v.clone(), &position).unwrap_err().0;
        assert!(err.contains(why), "{err}");
    };
    refused(
        Position {
            squares: vec![Square::Hidden; 7],
            ..good.clone()
        },
        "7 squares",
    );
    refused(
        Position {
            face_down: "KPPPkpp".chars().map(p).collect(),
            ..good.clone()
        },
        "8 face-down cells and 7",
    );
    refused(
        Position {
            face_down: "KKPPkppp".chars().map(p).collect(),
            ..good.clone()
        },
        "more K",
    );
    refused(
        Position {
            turn_place: 2,
            ..good.clone()
        },
        "turn place",
    );
    refused(
        Position {
            side_colours: vec![Some(Colour::Red)],
            ..good.clone()
        },
        "colours",
    );
    let bag = Arc::new(Variant::shipped("strategic-2x4").unwrap());
    let err = Game::from_position(bag, &good).unwrap_err().0;
    assert!(err.contains("bag"), "{err}");
}

/// The small variant's solution file, as bytes: its header line and its states.
fn solution_bytes() -> (Header, Vec<u8>, Vec<[u8; file::RECORD_BYTES]>) {
    let v = small();
    let (solver, value) = solved(&v);
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, solver.scale(), value, solver.values()).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let header: Header = serde_json::from_slice(&bytes[..end]).unwrap();
    let records = bytes[end..]
        .chunks_exact(file::RECORD_BYTES)
        .map(|c| c.try_into().unwrap())
        .collect();
    (header, bytes[..end].to_vec(), records)
}

/// A solution file of `header` (as JSON) and `records`.
fn assembled(header: &serde_json::Value, records: &[[u8; file::RECORD_BYTES]]) -> Vec<u8> {
    let mut out = serde_json::to_vec(header).unwrap();
    out.push(b'\n');
    for r in records {
        out.extend_from_slice(r);
    }
    out
}

/// `file::read` of `bytes`, and `file::open` of them written to a file: both refuse them
/// with a short text containing `why`.
fn refused(bytes: &[u8], why: &str) {
    let path = std::env::temp_dir().join(format!(
        "anqi-solution-refused-{}-{}.solution",
        std::process::id(),
        why.len()
    ));
    std::fs::write(&path, bytes).unwrap();
    for e in [
        file::read(&mut &bytes[..]).map(|_| ()).unwrap_err(),
        file::open(&path).map(|_| ()).unwrap_err(),
    ]
    .map(|e| e.to_string())
    {
        assert!(e.contains(why), "{why:?}: {e}");
        assert!(e.len() < 400, "{} bytes: {e}", e.len());
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_solution_file_whose_header_or_order_does_not_hold_is_refused_as_it_is_read() {
    let (header, _, records) = solution_bytes();
    let json = serde_json::to_value(&header).unwrap();
    let with = |key: &str, value: serde_json::Value| {
        let mut h = json.clone();
        h[key] = value;
        assemble_with(h, &records)
    };
    fn assemble_with(h: serde_json::Value, records: &[[u8; file::RECORD_BYTES]]) -> Vec<u8> {
        assembled(&h, records)
    }
    // As written, it reads.
    let good = assembled(&json, &records);
    file::read(&mut &good[..]).unwrap();
    // Two states swapped (which a lookup by bisection then cannot find), or one twice.
    let mut swapped = records.clone();
    swapped.swap(3, 4);
    refused(&assembled(&json, &swapped), "state 4 (key");
    refused(&assembled(&json, &swapped), "not sorted by key");
    let mut twice = records.clone();
    twice[4] = twice[3];
    refused(&assembled(&json, &twice), "not after the one before it");
    // Every header field.
    refused(
        &with("semantics", "every quiet play is a win".into()),
        "semantics",
    );
    refused(
        &with("format", "anqi-tables".into()),
        "this anqi reads anqi-solution version 1",
    );
    refused(&with("version", 2.into()), "version 2");
    refused(
        &with("denominator", 7.into()),
        "denominator 7 where the variant's is 48",
    );
    refused(
        &with("value", 49.into()),
        "the start's value 49 is more than the denominator",
    );
    refused(&with("states", 0.into()), "no states");
    refused(
        &with("variant", "(name x)".into()),
        "the header's variant does not read",
    );
    refused(
        &with("variant", "x".repeat(1 << 20).into()),
        "the header's variant does not read",
    );
    // A state's value past the denominator.
    let mut big = records.clone();
    big[2][16..24].copy_from_slice(&49u64.to_le_bytes());
    refused(
        &assembled(&json, &big),
        "value 49 is more than the denominator 48",
    );
    // More states than a file holds: refused before anything is allocated for them (it
    // aborted `anqi solve --verify`).
    for states in [1_000_000_000_000_000u64, u64::MAX] {
        let bytes = with("states", states.into());
        let e = file::read(&mut &bytes[..]).unwrap_err().to_string();
        assert!(e.contains(&format!("of {states}")), "{e}");
        let path = std::env::temp_dir().join(format!(
            "anqi-solution-huge-{}.solution",
            std::process::id()
        ));
        std::fs::write(&path, &bytes).unwrap();
        let e = file::open(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("where the {states} states the header says take")),
            "{e}"
        );
        std::fs::remove_file(&path).unwrap();
    }
    // A header that never ends, and no JSON: a short text, nothing of the file quoted.
    let mut endless = b"{\"format\": \"".to_vec();
    endless.resize(file::MAX_HEADER_BYTES as usize + 100, b'z');
    refused(&endless, "no header line ended");
    let mut junk = b"{\"format\": \"".to_vec();
    junk.extend(std::iter::repeat_n(b'z', 100_000));
    junk.extend_from_slice(b"\n");
    refused(&junk, "not a solution file's header");
}

#[test]
fn a_state_whose_key_sets_bits_no_position_has_fails_the_check() {
    // On the 2x2 board a key's cells are bits 0-15: a state with bit 40 set too reads back as
    // the same position, and so would pass a check of values alone.
    let (header, _, records) = solution_bytes();
    let mut changed: Vec<[u8; file::RECORD_BYTES]> = records.clone();
    let mut extra = changed[changed.len() - 1];
    extra[5] |= 1;
    changed.push(extra);
    changed.sort_by_key(|r| u128::from_le_bytes(r[..16].try_into().unwrap()));
    let mut json = serde_json::to_value(&header).unwrap();
    json["states"] = (changed.len() as u64).into();
    let bytes = assembled(&json, &changed);
    let (header, values) = file::read(&mut &bytes[..]).unwrap();
    let e = file::verify(&header, &values, |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not the key of its position"), "{e}");
    // The start's value must be the header's.
    let (header, _, records) = solution_bytes();
    let mut json = serde_json::to_value(&header).unwrap();
    json["value"] = (header.value + 1).into();
    let bytes = assembled(&json, &records);
    let (header, values) = file::read(&mut &bytes[..]).unwrap();
    let e = file::verify(&header, &values, |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not the start's stored value"), "{e}");
}
