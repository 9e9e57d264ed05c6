//! The generator held to itself and to the check: every representation against the listing,
//! `nth_action`, the counts and `check_move`, on boards built to hit its rare cases and on
//! positions of real games of every shipped variant.

use crate::rules::action::{Action, ActionCounts, ActionKind};
use crate::rules::board::tests::random_board;
use crate::rules::board::Board;
use crate::rules::capture::CaptureRules;
use crate::rules::cell_set::Cell;
use crate::rules::piece::{Colour, Control, Kind, Piece};
use crate::rules::topology::{LineOrder, Topology};
use crate::rules::{Game, SeedInputs, Variant, SHIPPED};
use std::sync::Arc;

fn setup(board: &str) -> (Topology, CaptureRules, Board) {
    (
        Topology::rectangle(4, 8).unwrap(),
        CaptureRules::standard(),
        Board::parse(board).unwrap(),
    )
}

/// A 4x8 board from four 8-character rows.
fn rows(r: [&str; 4]) -> String {
    r.concat()
}

#[test]
fn cannon_jumps_over_a_face_down_screen() {
    let b = rows(["C.X..r..", "........", "........", "........"]);
    let (t, r, b) = setup(&b);
    assert_eq!(
        b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 5),
        Ok(ActionKind::Jump)
    );
    let jumps: Vec<_> = b
        .legal_actions(&t, &r, Control::Colour(Colour::Red))
        .into_iter()
        .filter(|a| matches!(a, Action::Move { to: 5, .. }))
        .collect();
    assert_eq!(jumps, vec![Action::Move { from: 0, to: 5 }]);
}

#[test]
fn cannon_over_two_pieces_is_illegal() {
    let b = rows(["C.Xp.r..", "........", "........", "........"]);
    let (t, r, b) = setup(&b);
    let e = b
        .check_move(&t, &r, Control::Colour(Colour::Red), 0, 5)
        .unwrap_err();
    assert!(e.0.contains("found 2"), "{e}");
    assert!(!b
        .legal_actions(&t, &r, Control::Colour(Colour::Red))
        .contains(&Action::Move { from: 0, to: 5 }));
    // ...but the first piece beyond the screen is a target.
    assert_eq!(
        b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 3),
        Ok(ActionKind::Jump)
    );
}

#[test]
fn cannon_onto_a_face_down_piece_is_illegal() {
    let b = rows(["C.p.X...", "........", "........", "........"]);
    let (t, r, b) = setup(&b);
    let e = b
        .check_move(&t, &r, Control::Colour(Colour::Red), 0, 4)
        .unwrap_err();
    assert!(e.0.contains("face-down"), "{e}");
    assert!(!b
        .legal_actions(&t, &r, Control::Colour(Colour::Red))
        .iter()
        .any(|a| matches!(a, Action::Move { from: 0, to: 4 })));
}

#[test]
fn cannon_jumps_vertically_and_not_without_a_screen() {
    // Cannon at 1, screen at 9, target at 25 (two empty cells between screen and target).
    let b = rows([".C......", ".P......", "........", ".k......"]);
    let (t, r, b) = setup(&b);
    assert_eq!(
        b.check_move(&t, &r, Control::Colour(Colour::Red), 1, 25),
        Ok(ActionKind::Jump)
    );
    let b2 = Board::parse(&rows([".C......", "........", "........", ".k......"])).unwrap();
    let e = b2
        .check_move(&t, &r, Control::Colour(Colour::Red), 1, 25)
        .unwrap_err();
    assert!(e.0.contains("found 0"), "{e}");
    // A cannon steps but never captures by a step.
    let b3 = Board::parse(&rows([".Cp.....", "........", "........", "........"])).unwrap();
    assert!(b3
        .check_move(&t, &r, Control::Colour(Colour::Red), 1, 2)
        .is_err());
    assert_eq!(
        b3.check_move(&t, &r, Control::Colour(Colour::Red), 1, 0),
        Ok(ActionKind::Step)
    );
}

#[test]
fn steps_and_captures_follow_ranks() {
    let b = rows(["KpG.....", "g.......", "........", "........"]);
    let (t, r, b) = setup(&b);
    // King cannot take the pawn, can take the guard.
    assert!(b
        .check_move(&t, &r, Control::Colour(Colour::Red), 0, 1)
        .is_err());
    assert_eq!(
        b.check_move(&t, &r, Control::Colour(Colour::Red), 0, 8),
        Ok(ActionKind::Step)
    );
    // The black pawn takes the king; the guard at 2 is out of its reach by rank.
    assert_eq!(
        b.check_move(&t, &r, Control::Colour(Colour::Black), 1, 0),
        Ok(ActionKind::Step)
    );
    assert!(b
        .check_move(&t, &r, Control::Colour(Colour::Black), 1, 2)
        .is_err());
    // Moving the opponent's piece, or before owning a colour, is refused.
    assert!(b
        .check_move(&t, &r, Control::Colour(Colour::Black), 0, 8)
        .is_err());
    assert!(b.check_move(&t, &r, Control::Nothing, 0, 8).is_err());
}

#[test]
fn counts_split_moves_jumps_and_reveals() {
    let b = rows(["C.X..r..", "X.......", "........", "........"]);
    let (t, r, b) = setup(&b);
    let c = b.count_actions(&t, &r, Control::Colour(Colour::Red));
    // Cannon at 0: step to 1 (8 is face-down); jump to 5. Reveals: cells 2 and 8.
    assert_eq!(
        c,
        ActionCounts {
            moves: 1,
            jumps: 1,
            reveals: 2,
            ..Default::default()
        }
    );
    let none = b.count_actions(&t, &r, Control::Nothing);
    assert_eq!(
        none,
        ActionCounts {
            moves: 0,
            jumps: 0,
            reveals: 2,
            ..Default::default()
        }
    );
}

/// Every action as a sortable tuple: (from, to, kind), a reveal as (cell, cell, 0).
fn keyed(a: Action, kind: ActionKind) -> (Cell, Cell, u8) {
    match (a, kind) {
        (Action::Reveal(c), _) => (c, c, 0),
        (Action::Move { from, to }, ActionKind::Step) => (from, to, 1),
        (Action::Move { from, to }, _) => (from, to, 2),
        _ => unreachable!("a board gives reveals and moves"),
    }
}

/// Checks the generator on one board against the listing and against `check_move`
/// (which shares none of its code), and returns the listing.
fn listed_and_checked(
    t: &Topology,
    r: &CaptureRules,
    b: &Board,
    control: Control,
) -> Vec<(Cell, Cell, u8)> {
    let mut listed = Vec::new();
    b.for_each_action(t, r, control, |a, kind| listed.push((a, kind)));
    for (k, &(a, kind)) in listed.iter().enumerate() {
        assert_eq!(
            b.nth_action(t, r, control, k),
            Some((a, kind)),
            "action {k}"
        );
    }
    assert_eq!(b.nth_action(t, r, control, listed.len()), None);
    let mut counts = ActionCounts::default();
    listed.iter().for_each(|&(_, kind)| counts.add(kind));
    assert_eq!(b.count_actions(t, r, control), counts);
    assert_eq!(b.has_action(t, r, control), !listed.is_empty());
    // The moves as ids, in the listing's order, numbered `from * n + to` by both tables, and
    // the reveals as a set.
    let n = b.len();
    let pair_ids: Vec<u32> = (0..n * n).map(|p| p as u32).collect();
    let row_ids: Vec<[u32; 4]> = (0..n)
        .map(|c| match t.step_row(c) {
            Some(row) => row.map(|to| (c * n + usize::from(to)) as u32),
            None => [u32::MAX; 4],
        })
        .collect();
    let mut out = vec![u32::MAX; n * n + 4];
    let count = b.move_ids(t, r, control, &row_ids, &pair_ids, &mut out);
    // Steps first, then jumps, each in the listing's order.
    let want: Vec<u32> = [ActionKind::Step, ActionKind::Jump]
        .iter()
        .flat_map(|&of| {
            listed.iter().filter_map(move |&(a, kind)| match a {
                Action::Move { from, to } if kind == of => Some((from * n + to) as u32),
                _ => None,
            })
        })
        .collect();
    assert_eq!(out[..count], want[..], "the moves as ids");
    if let Some(set) = b.face_down_set() {
        let reveals: Vec<Cell> = listed
            .iter()
            .filter_map(|&(a, _)| match a {
                Action::Reveal(c) => Some(c),
                _ => None,
            })
            .collect();
        let bits: Vec<Cell> = (0..n).filter(|&c| set >> c & 1 == 1).collect();
        assert_eq!(bits, reveals, "the face-down set");
    }
    let mut moves = Vec::new();
    for from in 0..b.len() {
        for to in 0..b.len() {
            if let Ok(kind) = b.check_move(t, r, control, from, to) {
                moves.push(keyed(Action::Move { from, to }, kind));
            }
        }
    }
    let mut keys: Vec<_> = listed.iter().map(|&(a, kind)| keyed(a, kind)).collect();
    keys.sort_unstable();
    let listed_moves: Vec<_> = keys.iter().copied().filter(|k| k.2 > 0).collect();
    assert_eq!(listed_moves, moves, "the moves check_move accepts");
    keys
}

/// The set-based generator's rare cases: a board numbered so that cannon lines neither
/// rise nor fall (a 4x8 rectangle with its cells renumbered), and one whose cells have
/// more than four neighbours (no step rows). The renumbered board gives the rectangle's
/// actions, renumbered; both agree with the listing and with `check_move`.
#[test]
fn boards_numbered_out_of_line_or_with_many_neighbours_agree() {
    let rect = Topology::rectangle(4, 8).unwrap();
    let renumber: Vec<Cell> = (0..32).map(|c| (c * 13 + 5) % 32).collect();
    let moves = rect
        .moves()
        .iter()
        .map(|&(a, b)| (renumber[a], renumber[b]))
        .collect();
    let mut rays = vec![Vec::new(); 32];
    for c in 0..32 {
        rays[renumber[c]] = rect
            .rays(c)
            .iter()
            .map(|ray| ray.iter().map(|&x| renumber[x]).collect())
            .collect();
    }
    let scrambled = Topology::from_parts(32, moves, rays).unwrap();
    assert!((0..32)
        .flat_map(|c| scrambled.lines(c))
        .any(|l| l.order == LineOrder::Mixed));
    // Kings' moves on 4x8: up to eight neighbours, no cannon lines.
    let mut kings = Vec::new();
    for a in 0..32usize {
        for b in 0..32usize {
            let (dr, dc) = ((a / 8).abs_diff(b / 8), (a % 8).abs_diff(b % 8));
            if a != b && dr <= 1 && dc <= 1 {
                kings.push((a, b));
            }
        }
    }
    let kings = Topology::from_parts(32, kings, vec![Vec::new(); 32]).unwrap();
    assert!(kings.step_rows().is_none());
    let r = CaptureRules::standard();
    let controls = [
        Control::Nothing,
        Control::Colour(Colour::Red),
        Control::Colour(Colour::Black),
        Control::Both,
    ];
    let mut x = 1;
    for _ in 0..200 {
        let squares = random_board(32, &mut x);
        let b = Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
        let mut moved = Board::hidden(32);
        for (c, &sq) in squares.iter().enumerate() {
            moved.set(renumber[c], sq);
        }
        for control in controls {
            let want = listed_and_checked(&rect, &r, &b, control);
            let mut want: Vec<_> = want
                .into_iter()
                .map(|(a, b, k)| (renumber[a], renumber[b], k))
                .collect();
            want.sort_unstable();
            assert_eq!(listed_and_checked(&scrambled, &r, &moved, control), want);
            listed_and_checked(&kings, &r, &b, control);
        }
    }
}

/// The edges of the byte-per-cell count behind `nth_action`: the largest board with cell
/// sets (8x16: sixteen words of counts, cell sets as `u128`), and cells with more moves
/// than a byte per cell is trusted with (sixteen neighbours each: the count without
/// sets).
#[test]
fn the_largest_board_with_sets_and_crowded_cells_agree() {
    let big = Topology::rectangle(8, 16).unwrap();
    assert!(big.small_counts());
    let mut moves = std::collections::BTreeSet::new();
    for a in 0..32usize {
        for d in 1..=8 {
            moves.insert((a, (a + d) % 32));
            moves.insert(((a + d) % 32, a));
        }
    }
    let crowded =
        Topology::from_parts(32, moves.into_iter().collect(), vec![Vec::new(); 32]).unwrap();
    assert!(!crowded.small_counts());
    let r = CaptureRules::standard();
    let mut x = 7;
    for _ in 0..20 {
        let squares = random_board(128, &mut x);
        let b = Board::parse(&squares.iter().map(|s| s.letter()).collect::<String>()).unwrap();
        let small =
            Board::parse(&squares[..32].iter().map(|s| s.letter()).collect::<String>()).unwrap();
        for control in [Control::Colour(Colour::Red), Control::Both] {
            listed_and_checked(&big, &r, &b, control);
            listed_and_checked(&crowded, &r, &small, control);
        }
    }
}

/// Every action a player could name in `game`'s position: a reveal of every cell, a move
/// between every two cells (on boards of up to 40 cells; on larger ones from every piece to
/// every cell one step or one ray away, and to as many cells chosen at random), a bag draw,
/// and a put of every piece on every cell.
fn candidates(game: &Game, x: &mut u64) -> Vec<Action> {
    let topo = &game.variant().topology;
    let size = topo.size();
    let mut out: Vec<Action> = (0..size).map(Action::Reveal).collect();
    for from in 0..size {
        if size <= 40 {
            out.extend((0..size).map(|to| Action::Move { from, to }));
            continue;
        }
        let near = topo
            .neighbours(from)
            .iter()
            .chain(topo.rays(from).iter().flatten());
        out.extend(near.map(|&to| Action::Move { from, to }));
        for _ in 0..8 {
            *x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let to = (*x >> 33) as usize % size;
            out.push(Action::Move { from, to });
        }
    }
    out.push(Action::Bag);
    for colour in Colour::ALL {
        for kind in Kind::ALL {
            let piece = Piece::new(colour, kind);
            out.extend((0..size).map(|cell| Action::Put { piece, cell }));
        }
    }
    out
}

/// The property behind the spine: in positions of real games of every shipped variant (chains,
/// pieces in hand, bag draws and one-side games included), `Game::check` passes an action
/// exactly when the generator lists it, with the kind it lists; and on each board, for every
/// control, the listing, the counts, `nth_action`, `has_action` and `check_move` agree.
#[test]
fn check_passes_exactly_the_listed_actions_in_every_shipped_variant() {
    let mut x = 11;
    for (name, _) in SHIPPED {
        let variant = Arc::new(Variant::shipped(name).unwrap());
        let (topo, rules) = (&variant.topology, &variant.capture);
        let games = if topo.size() > 64 { 1 } else { 3 };
        let mut positions = 0;
        for g in 0..games {
            let seeds = SeedInputs {
                clients: vec![format!("{name}-{g}")],
                server: "movegen".into(),
            };
            let mut game = Game::new(variant.clone(), seeds.deal_for(&variant));
            while game.outcome().is_none() && game.ply() < 400 {
                let mover = game.to_move();
                let mut listed = Vec::new();
                game.for_each_legal(|a, kind| listed.push((a, kind)));
                // Every seventh ply on large boards: the candidates are many.
                if topo.size() <= 64 || game.ply() % 7 == 0 {
                    positions += 1;
                    for a in candidates(&game, &mut x) {
                        let want = listed.iter().find(|(l, _)| *l == a).map(|&(_, k)| k);
                        assert_eq!(
                            game.check(mover, a).ok(),
                            want,
                            "{name}, ply {}: {a} on {}",
                            game.ply(),
                            game.wire_board()
                        );
                    }
                    for control in [
                        Control::Nothing,
                        Control::Colour(Colour::Red),
                        Control::Colour(Colour::Black),
                        Control::Both,
                    ] {
                        listed_and_checked(topo, rules, game.board(), control);
                    }
                }
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let (action, _) = listed[(x >> 33) as usize % listed.len()];
                game.play(mover, action).unwrap();
            }
        }
        assert!(positions > 0, "{name}: no position checked");
    }
}
