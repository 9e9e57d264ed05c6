use super::*;
use crate::rules::piece::Kind;

fn deal(s: &str) -> Deal {
    Deal::face_down(s.chars().map(Piece::from_letter).collect())
}

fn game(variant: &str, layout: &str) -> Game {
    Game::new(Arc::new(Variant::shipped(variant).unwrap()), deal(layout))
}

fn mv(from: usize, to: usize) -> Action {
    Action::Move { from, to }
}

/// The piece of index `i` in per-piece arrays.
fn piece_of(i: usize) -> Piece {
    Piece::from_letter("KGBRNCPkgbrncp".as_bytes()[i] as char).unwrap()
}

/// Picks an index with probability proportional to `counts[i]`.
fn weighted(rng: &mut rand_chacha::ChaCha20Rng, counts: &[u32; 14]) -> usize {
    use rand_core::Rng;
    let total: u32 = counts.iter().sum();
    let mut x = (rng.next_u64() % u64::from(total)) as u32;
    (0..14)
        .find(|&i| {
            let hit = x < counts[i];
            x = x.saturating_sub(counts[i]);
            hit
        })
        .unwrap()
}

#[test]
fn an_arranged_reveal_turns_up_the_chosen_piece_and_keeps_the_face_down_pieces() {
    let mut g = game("traditional-2x4", "kPPPKppp");
    let before = g.face_down_counts();
    assert_eq!(before.iter().sum::<u32>(), 8);
    assert_eq!(before[Piece::from_letter('P').unwrap().index()], 3);
    // Cell 0 holds k: asking for K exchanges it with cell 4, the first K.
    let king = Piece::from_letter('K').unwrap();
    assert_eq!(g.arrange_reveal(0, king), Ok(Some(4)));
    assert_eq!(g.face_down_counts(), before);
    assert_eq!(g.hidden_piece(4), Piece::from_letter('k'));
    assert_eq!(g.arrange_reveal(0, king), Ok(None), "already a K");
    assert_eq!(g.play(1, Action::Reveal(0)).unwrap().revealed, Some(king));
    assert_eq!(g.colour_of_side(0), Some(Colour::Red));
    // The revealed K is no longer face-down: no other cell can become one.
    assert!(g
        .arrange_reveal(1, king)
        .unwrap_err()
        .0
        .contains("no face-down piece is K"));
    assert!(g
        .arrange_reveal(0, king)
        .unwrap_err()
        .0
        .contains("cell 0 holds no"));
    assert!(g.arrange_reveal(99, king).is_err());
}

#[test]
fn an_arranged_draw_gives_the_chosen_piece_and_keeps_the_bag() {
    let v = Arc::new(Variant::shipped("strategic-2x4").unwrap());
    let bag = Piece::parse_list("KPPPkppp").unwrap();
    let mut g = Game::new(
        v,
        Deal {
            cells: vec![None; 8],
            face_up: vec![false; 8],
            bag,
        },
    );
    let before = g.bag_counts();
    let k = Piece::from_letter('k').unwrap();
    assert_eq!(g.arrange_draw(k), Ok(Some(4)), "k was the fifth draw");
    assert_eq!(g.bag_counts(), before);
    let order: String = g.bag_pieces().map(|p| p.letter()).collect();
    assert_eq!(order, "kPPPKppp");
    assert_eq!(g.play(1, Action::Bag).unwrap().drawn, Some(k));
    assert!(g.arrange_draw(k).unwrap_err().0.contains("holds no k"));
    assert!(game("traditional-2x4", "kPPPKppp").arrange_draw(k).is_err());
}

/// What a chance node of a search does: before every reveal or draw, a piece is chosen at
/// random among the unseen ones (as likely as its count) and arranged. The same actions on
/// a game dealt as realised (the starting deal with the same exchanges) go through the same
/// positions, counts and outcome, in every shipped variant.
#[test]
fn chance_play_replays_as_the_realised_deal_in_every_shipped_variant() {
    use crate::rules::{SeedInputs, SHIPPED};
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};
    for (name, _) in SHIPPED {
        let v = Arc::new(Variant::shipped(name).unwrap());
        for seed in 0..3u8 {
            let inputs = SeedInputs {
                clients: Vec::new(),
                server: format!("chance-{seed}"),
            };
            let mut deal = inputs.deal_for(&v);
            let mut rng = ChaCha20Rng::from_seed([seed; 32]);
            let mut g = Game::new(v.clone(), deal.clone());
            let mut plies = Vec::new();
            let mut draws = 0;
            while g.outcome().is_none() && plies.len() < 5_000 {
                let legal = g.legal_actions();
                let a = legal[(rng.next_u64() % legal.len() as u64) as usize];
                let mut chosen = None;
                match a {
                    Action::Reveal(c) => {
                        let pool = g.face_down_counts();
                        let p = piece_of(weighted(&mut rng, &pool));
                        if let Some(other) = g.arrange_reveal(c, p).unwrap() {
                            deal.cells.swap(c, other);
                        }
                        assert_eq!(g.face_down_counts(), pool);
                        chosen = Some(p);
                    }
                    Action::Bag => {
                        let pool = g.bag_counts();
                        let p = piece_of(weighted(&mut rng, &pool));
                        if let Some(later) = g.arrange_draw(p).unwrap() {
                            deal.bag.swap(draws, draws + later);
                        }
                        draws += 1;
                        chosen = Some(p);
                    }
                    _ => {}
                }
                let played = g.play(g.to_move(), a).unwrap();
                assert_eq!(played.revealed.or(played.drawn), chosen, "{name}");
                plies.push((a, g.wire_board(), g.to_move(), g.counts(), g.outcome()));
            }
            assert!(g.outcome().is_some(), "{name}: no end");
            let mut replay = Game::new(v.clone(), deal);
            for (i, (a, board, to_move, counts, outcome)) in plies.into_iter().enumerate() {
                replay.play(replay.to_move(), a).unwrap();
                let got = (
                    replay.wire_board(),
                    replay.to_move(),
                    replay.counts(),
                    replay.outcome(),
                );
                assert_eq!(got, (board, to_move, counts, outcome), "{name} ply {i}");
            }
        }
    }
}

/// The counts, the quick "any action?" test and `nth_legal` give what listing the actions
/// gives, at every ply of random games: in every shipped variant (boards with cell masks,
/// bags, chains, teams) and on boards too large for the masks, with and without chains.
#[test]
fn counts_any_and_nth_agree_with_the_listed_actions() {
    use crate::rules::cell_set::MASK_CELLS;
    use crate::rules::{SeedInputs, SHIPPED};
    let big = |extra: &str| {
        let v = Variant::parse(&format!(
            "(variant (name big) (board (rectangle 12 12)) \
             (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp) (no-progress 60) (repetition 3){extra})"
        ))
        .unwrap();
        assert!(v.topology.size() > MASK_CELLS);
        v
    };
    let mut variants: Vec<Variant> = SHIPPED
        .iter()
        .map(|(name, _)| Variant::shipped(name).unwrap())
        .collect();
    variants.push(big(""));
    variants.push(big(" (chain-capture #t)"));
    for v in variants {
        let v = Arc::new(v);
        let players = v.players;
        for seed in 0..4 {
            let inputs = SeedInputs {
                clients: Vec::new(),
                server: format!("agree-{seed}"),
            };
            let mut g = Game::new(v.clone(), inputs.deal_for(&v));
            let mut x = seed as u64 + 1;
            while g.outcome().is_none() && g.ply() < 3_000 {
                let mut listed = Vec::new();
                let mut counts = ActionCounts::default();
                g.for_each_legal(|a, kind| {
                    listed.push(a);
                    counts.add(kind);
                });
                assert_eq!(g.counts(), counts, "{} ply {}", v.name, g.ply());
                assert!(g.public_state().has_any());
                for (k, &a) in listed.iter().enumerate() {
                    assert_eq!(g.nth_legal(k), Some(a), "{} ply {}", v.name, g.ply());
                }
                assert_eq!(g.nth_legal(listed.len()), None);
                for p in 1..=players {
                    let state = PublicState {
                        control: g.control_of(p),
                        hand: None,
                        chain: None,
                        ..g.public_state()
                    };
                    let mut theirs = ActionCounts::default();
                    state.for_each_legal(|_, kind| theirs.add(kind));
                    if p != g.to_move() {
                        assert_eq!(g.counts_of(p), theirs, "{} player {p}", v.name);
                    }
                    assert_eq!(state.has_any(), theirs.total() > 0);
                }
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let a = listed[(x >> 33) as usize % listed.len()];
                g.play(g.to_move(), a).unwrap();
            }
            // A game that ended for want of a legal action has none by every count.
            if g.outcome()
                .is_some_and(|o| o.reason == Termination::NoMoves)
            {
                assert_eq!(g.counts().total(), 0);
                assert!(!g.public_state().has_any());
            }
        }
    }
}

#[test]
fn first_reveal_decides_colours() {
    let mut g = game("traditional-2x4", "kPPPKppp");
    assert_eq!(g.colour_of_side(0), None);
    // Before owning a colour, only reveals are legal.
    assert_eq!(
        g.counts(),
        ActionCounts {
            moves: 0,
            jumps: 0,
            reveals: 8,
            ..Default::default()
        }
    );
    g.play(1, Action::Reveal(0)).unwrap();
    assert_eq!(g.colour_of_side(0), Some(Colour::Black));
    assert_eq!(g.colour_of_side(1), Some(Colour::Red));
    assert_eq!(g.to_move(), 2);
    assert_eq!(g.round(), 0);
    // Player 2 may reveal a black piece: legal, and it does not change colours.
    g.play(2, Action::Reveal(5)).unwrap();
    assert_eq!(g.colour_of_side(1), Some(Colour::Red));
    assert_eq!(g.round(), 1);
    assert_eq!(g.to_move(), 1);
    // Player 1 (black) owns the pawn at 5 but may not move it onto face-down pieces.
    assert!(g.check(1, mv(5, 6)).is_err(), "6 is face-down");
    assert_eq!(
        g.check(1, mv(5, 4)).unwrap_err(),
        PlayError::Illegal(Illegal(
            "cell 4 holds a face-down piece, which cannot be moved onto".into()
        ))
    );
}

#[test]
fn counts_of_the_player_not_moving_use_its_own_colour() {
    let mut g = game("traditional-2x4", "kPPPKppp");
    // Nobody owns a colour: everyone may reveal, nobody may move.
    assert_eq!(g.counts_of(2), g.counts());
    g.play(1, Action::Reveal(0)).unwrap(); // black king at 0: player 1 is black
    g.play(2, Action::Reveal(4)).unwrap(); // red king at 4
    assert_eq!(g.to_move(), 1);
    assert_eq!(g.counts_of(1), g.counts());
    // Player 2 (red) would have its own king's moves and the six face-down cells.
    let theirs = g.counts_of(2);
    assert_eq!(theirs.reveals, 6);
    let mut expected = 0;
    let state = PublicState {
        control: Control::from(Some(Colour::Red)),
        ..g.public_state()
    };
    state.for_each_legal(|a, _| expected += u32::from(matches!(a, Action::Move { .. })));
    assert_eq!(theirs.moves + theirs.jumps, expected);
    assert!(expected > 0, "the red king can step somewhere");
}

#[test]
fn out_of_turn_and_after_the_end_are_refused() {
    let mut g = game("traditional-2x4", "KPPPkppp");
    assert_eq!(
        g.play(2, Action::Reveal(0)),
        Err(PlayError::NotYourTurn { to_move: 1 })
    );
    g.resign(2);
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(0),
            reason: Termination::Resign,
            loser: Some(2),
        })
    );
    assert_eq!(g.play(1, Action::Reveal(0)), Err(PlayError::GameOver));
}

#[test]
fn an_adjudication_is_a_decided_result_and_the_first_ruling_stands() {
    assert_eq!(Termination::Adjudicated.name(), "adjudicated");
    assert!(!Termination::Adjudicated.is_fault());
    let mut g = game("traditional-2x4", "KPPPkppp");
    g.adjudicate(Some(1));
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(1),
            reason: Termination::Adjudicated,
            loser: None,
        })
    );
    assert_eq!(g.win_clause(), (2, 0));
    g.resign(2);
    g.adjudicate(None);
    assert_eq!(
        g.outcome().map(|o| (o.winner, o.reason)),
        Some((Some(1), Termination::Adjudicated))
    );
    let mut g = game("traditional-2x4", "KPPPkppp");
    g.resign(1);
    g.adjudicate(None);
    assert_eq!(g.outcome().map(|o| o.reason), Some(Termination::Resign));
    let json = serde_json::to_string(&Termination::Adjudicated).unwrap();
    assert_eq!(json, "\"adjudicated\"");
}

/// The recent positions are the boards the game went through, each with its place, when
/// it goes on, and when it ends on a quiet ply without keeping that ply's position (a
/// no-progress draw): then they end at the position before.
#[test]
fn recent_positions_are_the_boards_played_through() {
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress 4) (repetition 3))",
    )
    .unwrap();
    let mut g = Game::new(Arc::new(v), deal("K......k"));
    g.play(1, Action::Reveal(0)).unwrap();
    g.play(2, Action::Reveal(7)).unwrap();
    let recent = |g: &Game| -> Vec<(String, usize)> {
        let positions = g.recent_positions();
        positions
            .into_iter()
            .map(|(b, p)| (b.to_wire(), p))
            .collect()
    };
    let want = |boards: &[&str]| -> Vec<(String, usize)> {
        (0..boards.len())
            .map(|i| (boards[i].to_string(), i % 2))
            .collect()
    };
    assert_eq!(recent(&g), want(&["K......k"]));
    for (ply, (from, to)) in [(0, 1), (7, 6), (1, 2)].into_iter().enumerate() {
        g.play(ply % 2 + 1, mv(from, to)).unwrap();
    }
    assert_eq!(g.outcome(), None);
    assert_eq!(
        recent(&g),
        want(&["K......k", ".K.....k", ".K....k.", "..K...k."])
    );
    // The fourth quiet ply draws by no progress: its position is not kept.
    g.play(2, mv(6, 5)).unwrap();
    assert_eq!(g.outcome().map(|o| o.reason), Some(Termination::NoProgress));
    assert_eq!(
        recent(&g),
        want(&["K......k", ".K.....k", ".K....k.", "..K...k."])
    );
}

#[test]
fn capturing_the_last_piece_wins() {
    // 2x4 with one piece per side: K at 0, k at 1 (king takes king).
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition none))",
    )
    .unwrap();
    let mut g = Game::new(Arc::new(v), deal("Kk......"));
    g.play(1, Action::Reveal(0)).unwrap();
    g.play(2, Action::Reveal(1)).unwrap();
    let p = g.play(1, mv(0, 1)).unwrap();
    assert_eq!(p.captured, Some(Piece::new(Colour::Black, Kind::King)));
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(0),
            reason: Termination::CaptureAll,
            loser: None,
        })
    );
}

#[test]
fn a_mover_without_legal_actions_loses() {
    // Red pawn at 0 boxed in by two black kings, which it may capture... use cannons instead:
    // red cannon at 0 with black guards at 1 and 4: the cannon cannot step-capture, has no
    // empty neighbour and no jump target beyond (2 and 3 are empty on row 0? make them full).
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Cggg) (no-progress none) (repetition none))",
    )
    .unwrap();
    // Layout: C g . .   /   g g . .  -> after reveals, red cannon at 0 is boxed in.
    let mut g = Game::new(Arc::new(v), deal("Cg..gg.."));
    g.play(1, Action::Reveal(0)).unwrap(); // player 1 red
    g.play(2, Action::Reveal(1)).unwrap();
    g.play(1, Action::Reveal(4)).unwrap();
    g.play(2, Action::Reveal(5)).unwrap();
    // Red cannon at 0: neighbours 1 and 4 hold guards; jumps: over 1 to 2..3 (empty), over
    // 4 nothing (2 lines). No legal action: red loses.
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(1),
            reason: Termination::NoMoves,
            loser: None,
        })
    );
}

#[test]
fn repetitions_count_the_earlier_occurrences_since_the_last_progress() {
    use crate::rules::{SeedInputs, SHIPPED};
    let mut seen_repeats = 0;
    for (name, _) in SHIPPED {
        let v = Arc::new(Variant::shipped(name).unwrap());
        if v.draw.repetition.is_none() {
            continue;
        }
        let inputs = SeedInputs {
            clients: Vec::new(),
            server: format!("repeats-{name}"),
        };
        let mut g = Game::new(v.clone(), inputs.deal_for(&v));
        // Every position since the last reveal, capture, draw or put, by hand.
        let mut since: Vec<(String, usize, Option<Cell>)> = Vec::new();
        let mut x = 7u64;
        while g.ply() < 2_000 {
            let now = (g.wire_board(), g.turn_place(), g.public_state().chain);
            let before = since.iter().filter(|p| **p == now).count() as u32;
            if g.outcome().is_none() {
                assert_eq!(g.repetitions(), before, "{name} ply {}", g.ply());
                seen_repeats += u32::from(before > 0);
            } else {
                break;
            }
            since.push(now);
            let legal = g.legal_actions();
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let a = legal[(x >> 33) as usize % legal.len()];
            let played = g.play(g.to_move(), a).unwrap();
            if played.kind != ActionKind::Step || played.captured.is_some() {
                since.clear();
            }
        }
    }
    assert!(seen_repeats > 0, "no position came round again");
}

#[test]
fn no_progress_draw_after_n_quiet_plies() {
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress 4) (repetition none))",
    )
    .unwrap();
    let mut g = Game::new(Arc::new(v), deal("K......k"));
    g.play(1, Action::Reveal(0)).unwrap();
    g.play(2, Action::Reveal(7)).unwrap();
    for (p, a) in [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 2))] {
        g.play(p, a).unwrap();
        assert_eq!(g.outcome(), None);
    }
    g.play(2, mv(6, 7)).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: Termination::NoProgress,
            loser: None,
        })
    );
}

/// A 4-ply back-and-forth cycle from position A (after the reveals) under the three
/// repetition modes of RULES.md: ICGA draws after 8 cycle plies, NTU after 12, the platform
/// after 13.
#[test]
fn the_three_repetition_modes_draw_at_their_documented_plies() {
    for (rule, draw_after) in [("3", 8), ("(cycle 3)", 12), ("(cycle 3 1)", 13)] {
        let v = Variant::parse(&format!(
            "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition {rule}))"
        ))
        .unwrap();
        let mut g = Game::new(Arc::new(v), deal("K......k"));
        g.play(1, Action::Reveal(0)).unwrap();
        g.play(2, Action::Reveal(7)).unwrap();
        let cycle = [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 0)), (2, mv(6, 7))];
        let mut plies = 0;
        while g.outcome().is_none() {
            let (p, a) = cycle[plies % 4];
            g.play(p, a).unwrap();
            plies += 1;
            assert!(plies <= 20, "{rule}: no draw");
        }
        assert_eq!(
            g.outcome().unwrap().reason,
            Termination::Repetition,
            "{rule}"
        );
        assert_eq!(plies, draw_after, "{rule}");
    }
}

#[test]
fn repetition_draws_on_the_third_occurrence() {
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (no-progress none) (repetition 3))",
    )
    .unwrap();
    let mut g = Game::new(Arc::new(v), deal("K......k"));
    g.play(1, Action::Reveal(0)).unwrap();
    g.play(2, Action::Reveal(7)).unwrap();
    // Position A (red to move) occurs now, after ply 2: occurrence 1.
    assert_eq!(g.repetitions(), 0);
    let cycle = [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 0)), (2, mv(6, 7))];
    for (p, a) in cycle {
        g.play(p, a).unwrap();
        assert_eq!(g.repetitions(), u32::from(g.ply() == 6), "ply {}", g.ply());
    }
    assert_eq!(g.outcome(), None, "second occurrence after ply 6");
    for (i, (p, a)) in cycle.into_iter().enumerate() {
        g.play(p, a).unwrap();
        let want = (i == 3).then_some(Outcome {
            loser: None,
            winner: None,
            reason: Termination::Repetition,
        });
        assert_eq!(g.outcome(), want, "after cycle ply {i}");
    }
    assert_eq!(g.ply(), 10);
}

/// In a bag game a cell no piece has stood on is `X` on the wire and a cell a piece left is
/// `.` ([`Game::wire_board`]), but the repetition rule compares boards, where both are
/// empty: a position comes round again though its wire board shows `.` where it showed `X`.
#[test]
fn a_bag_games_repetition_takes_a_never_used_cell_and_an_emptied_one_alike() {
    let v = Variant::parse(
        "(variant (name t) (board (rectangle 2 4)) (pieces Kk) (start bag) (no-progress none) (repetition 3))",
    )
    .unwrap();
    let bag = Piece::parse_list("Kk").unwrap();
    let (king, black_king) = (bag[0], bag[1]);
    let mut g = Game::new(
        Arc::new(v),
        Deal {
            cells: vec![None; 8],
            face_up: vec![false; 8],
            bag,
        },
    );
    g.play(1, Action::Bag).unwrap();
    g.play(
        1,
        Action::Put {
            piece: king,
            cell: 0,
        },
    )
    .unwrap();
    g.play(2, Action::Bag).unwrap();
    g.play(
        2,
        Action::Put {
            piece: black_king,
            cell: 7,
        },
    )
    .unwrap();
    // The first occurrence, right after the last put.
    assert_eq!(g.wire_board(), "KXXXXXXk");
    assert_eq!(g.repetitions(), 0);
    let cycle = [(1, mv(0, 1)), (2, mv(7, 6)), (1, mv(1, 0)), (2, mv(6, 7))];
    let mut boards = vec![g.wire_board()];
    for round in 1..=2 {
        for (p, a) in cycle {
            g.play(p, a).unwrap();
        }
        boards.push(g.wire_board());
        // The same board, place and chain: occurrence `round + 1`, though the wire shows the
        // cells 1 and 6, emptied, as `.` where the first showed `X`.
        assert_eq!(g.repetitions(), round, "after cycle {round}");
    }
    assert_eq!(boards, ["KXXXXXXk", "K.XXXX.k", "K.XXXX.k"]);
    assert_eq!(
        g.outcome().map(|o| o.reason),
        Some(Termination::Repetition),
        "the third occurrence draws, though only two of the wire boards are alike"
    );
}
