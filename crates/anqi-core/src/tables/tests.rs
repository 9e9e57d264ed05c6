use super::*;
use crate::rules::playout::SplitMix64;
use crate::rules::{Board, Colour, Game, Piece, Position, Square, Variant};
use crate::solve::Solver;
use std::collections::HashMap;

/// traditional-2x4's rules with other pieces (and so cannons and guards) on a 2x4 board.
fn like_2x4(pieces: &str) -> Arc<Variant> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../protocol/variants/traditional-2x4.sexp"
    ))
    .unwrap()
    .replace("(name traditional-2x4)", "(name small)")
    .replace("(pieces KPPPkppp)", &format!("(pieces {pieces})"));
    Arc::new(Variant::parse(&text).unwrap())
}

/// A random position of `m` (red to move as the tables store it), as a board.
fn random_board(m: Material, cells: usize, rng: &mut SplitMix64) -> Board {
    let mut board = Board::parse(&".".repeat(cells)).unwrap();
    let counts = m.counts();
    for (i, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            loop {
                let c = rng.below(cells as u32) as usize;
                if board.get(c) == Square::Empty {
                    board.set(c, Square::Up(Piece::from_index(i)));
                    break;
                }
            }
        }
    }
    board
}

/// A game at `board` with `mover`'s side to move (side 0 plays red).
fn game_at(v: &Arc<Variant>, board: &Board, mover: Colour) -> Game {
    let position = Position {
        squares: board.squares().to_vec(),
        face_down: Vec::new(),
        turn_place: mover.index(),
        side_colours: vec![Some(Colour::Red), Some(Colour::Black)],
    };
    Game::from_position(v.clone(), &position).unwrap()
}

/// Every stored value follows from its children's: a win in `d` has a child lost in `d - 1`
/// and none sooner, a loss in `d` only children won, the latest in `d - 1`, a draw no child
/// lost and a child drawn. Distances going down ground every win and loss.
fn check_from_children(v: &Arc<Variant>, tables: &Tables, solved: &HashMap<Material, Table>) {
    let syms = &tables.rules().symmetries;
    let mut pieces = Vec::new();
    let mut checked = 0;
    for (m, table) in solved {
        for i in 0..table.layout().len() {
            if !table.layout().decode(i, syms, &mut pieces) {
                continue;
            }
            let mut board = Board::parse(&".".repeat(v.topology.size())).unwrap();
            for &(p, c) in &pieces {
                board.set(
                    usize::from(c),
                    Square::Up(Piece::from_index(usize::from(p))),
                );
            }
            let game = game_at(v, &board, Colour::Red);
            let stored = Verdict::of_code(table.values()[i as usize]).unwrap();
            let mut best: Option<Verdict> = None;
            for a in game.legal_actions() {
                let mut next = game.clone();
                next.play(game.to_move(), a).unwrap();
                let child = match next.outcome() {
                    Some(o) if o.winner == Some(0) => Verdict::Win { plies: 1 },
                    Some(o) => panic!("{m}: a move ends the game as {o:?}"),
                    None => match tables.probe_game(&next).unwrap().unwrap().flipped() {
                        Verdict::Win { plies } => Verdict::Win { plies: plies + 1 },
                        Verdict::Loss { plies } => Verdict::Loss { plies: plies + 1 },
                        Verdict::Draw => Verdict::Draw,
                    },
                };
                if best.is_none_or(|b| child.rank() > b.rank()) {
                    best = Some(child);
                }
            }
            let derived = best.unwrap_or(Verdict::Loss { plies: 0 });
            assert_eq!(stored, derived, "{m} {board}: stored against its children");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} positions checked");
}

#[test]
fn tables_agree_with_the_solver_and_with_their_children() {
    // Kings, guards, cannons and pawns: every capture rule (the king-pawn exception, the
    // cannon's jump and its no step capture) on a board small enough for the solver.
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    assert_eq!(rules.symmetries.len(), 4);
    let solved = build_all(&rules, 4);
    let tables = Tables::in_memory(rules.clone(), 4, solved.values().cloned().collect());
    check_from_children(&v, &tables, &solved);
    // The solver (expectimax with its own retrograde pass, no tables) on random positions,
    // both colours to move.
    let mut solver = Solver::new(&v).unwrap();
    let scale = solver.scale();
    let mut rng = SplitMix64::new(7);
    let materials: Vec<Material> = solved.keys().copied().collect();
    let mut seen = [0; 3];
    for k in 0..400 {
        let m = materials[rng.below(materials.len() as u32) as usize];
        let board = random_board(m, 8, &mut rng);
        let mover = if k % 2 == 0 {
            Colour::Red
        } else {
            Colour::Black
        };
        let game = game_at(&v, &board, mover);
        if game.outcome().is_some() {
            continue;
        }
        let verdict = tables.probe(&board, mover).unwrap().unwrap();
        let value = solver.value(&game); // player 1's (red's) score
        let red = if mover == Colour::Red {
            verdict
        } else {
            verdict.flipped()
        };
        let expected = match red {
            Verdict::Win { .. } => scale.win(),
            Verdict::Draw => scale.draw(),
            Verdict::Loss { .. } => 0,
        };
        assert_eq!(
            value, expected,
            "{m} {board} {mover:?} to move: tables {red:?}"
        );
        seen[match red {
            Verdict::Win { .. } => 0,
            Verdict::Draw => 1,
            Verdict::Loss { .. } => 2,
        }] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 10),
        "wins, draws, losses seen: {seen:?}"
    );
}

#[test]
fn a_tables_file_reads_back_the_values_and_refuses_other_rules() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 3);
    let mut built: Vec<Table> = solved.values().cloned().collect();
    built.sort_by_key(|t| t.layout().material());
    let path = std::env::temp_dir().join(format!("anqi-tables-test-{}.tables", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    let header = file::write(&mut file, &rules, 3, 0.0, &built).unwrap();
    drop(file);
    assert_eq!(header.materials.len(), built.len());
    let read = Tables::open(&path, rules.clone()).unwrap();
    let memory = Tables::in_memory(rules, 3, built);
    let mut rng = SplitMix64::new(3);
    for m in solved.keys() {
        for _ in 0..20 {
            let board = random_board(*m, 8, &mut rng);
            for mover in Colour::ALL {
                assert_eq!(
                    read.probe(&board, mover).unwrap(),
                    memory.probe(&board, mover).unwrap()
                );
            }
        }
    }
    // Other capture rules (a pawn no longer takes the king): refused by the digest.
    let other = Variant::parse(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../protocol/variants/traditional-2x4.sexp"
        ))
        .unwrap()
        .replace(" (allow (P K))", ""),
    )
    .unwrap();
    let err = Tables::open(&path, TableRules::new(Arc::new(other)).unwrap()).unwrap_err();
    assert!(err.contains("other rules"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn symmetric_positions_and_swapped_colours_probe_alike() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 4);
    let tables = Tables::in_memory(rules.clone(), 4, solved.values().cloned().collect());
    let maps = board_maps(&v.topology);
    assert_eq!(maps.len(), 4);
    let mut rng = SplitMix64::new(11);
    let materials: Vec<Material> = solved.keys().copied().collect();
    for _ in 0..300 {
        let m = materials[rng.below(materials.len() as u32) as usize];
        let board = random_board(m, 8, &mut rng);
        let verdict = tables.probe(&board, Colour::Red).unwrap();
        for map in &maps {
            let mut image = Board::parse(&".".repeat(8)).unwrap();
            let mut swapped = Board::parse(&".".repeat(8)).unwrap();
            for (c, &to) in map.iter().enumerate() {
                image.set(usize::from(to), board.get(c));
                if let Square::Up(p) = board.get(c) {
                    let other = Piece::new(p.colour.other(), p.kind);
                    swapped.set(usize::from(to), Square::Up(other));
                }
            }
            assert_eq!(tables.probe(&image, Colour::Red).unwrap(), verdict);
            assert_eq!(tables.probe(&swapped, Colour::Black).unwrap(), verdict);
        }
    }
}

#[test]
fn adjudication_waits_for_a_win_the_no_progress_rule_could_spoil() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 3);
    let tables = Tables::in_memory(rules, 3, solved.values().cloned().collect());
    // A win for red, to move, of 3 plies or more.
    let mut rng = SplitMix64::new(5);
    let materials: Vec<Material> = solved.keys().copied().collect();
    let (board, plies) = (0..100_000)
        .find_map(|_| {
            let m = materials[rng.below(materials.len() as u32) as usize];
            let board = random_board(m, 8, &mut rng);
            match tables.probe(&board, Colour::Red).unwrap() {
                Some(Verdict::Win { plies }) if plies >= 3 => Some((board, plies)),
                _ => None,
            }
        })
        .expect("a win of 3 plies or more");
    let game = game_at(&v, &board, Colour::Red);
    assert_eq!(
        tables.adjudication(&game).unwrap(),
        Some((Some(0), Verdict::Win { plies }))
    );
    // The same position with fewer quiet plies left than the win takes: play on.
    let mut tight = (*v).clone();
    tight.draw.no_progress = Some(plies - 1);
    let game = game_at(&Arc::new(tight), &board, Colour::Red);
    assert_eq!(tables.adjudication(&game).unwrap(), None);
    // With a face-down piece, the tables hold nothing.
    let mut hidden = board.clone();
    let empty = (0..8).find(|&c| hidden.get(c) == Square::Empty).unwrap();
    hidden.set(empty, Square::Hidden);
    assert_eq!(tables.probe(&hidden, Colour::Red).unwrap(), None);
}
