use super::*;
use crate::rules::{Game, Variant};

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
        let err = Solver::new(&v).err().map(|e| e.0).unwrap_or_default();
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
