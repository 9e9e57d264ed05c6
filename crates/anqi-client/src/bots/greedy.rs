//! [`GreedyBot`]: one ply of material bookkeeping, no look-ahead beyond the opponent's next
//! capture.
//!
//! Every legal action gets a score, in material units ([`super::piece_values`]):
//!
//! * **gain**: the value of the piece it captures;
//! * minus **risk**: after the action, the most the opponent can win with one capture. A piece
//!   of ours that the opponent can capture costs its value, or only its value minus the
//!   capturer's if we could capture back (so an even trade costs nothing);
//! * minus, for a **reveal**, the **expected loss** from what may appear: over the face-down
//!   pool ([`crate::History::pool`]: the pieces no one has seen yet, as the tracker keeps them),
//!   the chance that one of ours appears where an enemy can capture it times its value, plus the
//!   chance that an enemy appears next to pieces of ours it can capture times the best of them.
//!
//! The highest score wins; on equal scores a capture beats a reveal, a bag draw or a put, which
//! beat a quiet move; among quiet moves, one that brings a piece closer to an enemy it can
//! capture is preferred; remaining ties are broken by the seeded generator.
//!
//! So the bot takes the most valuable piece it safely can, moves a threatened piece away (every
//! action that leaves it hanging scores minus its value), never hangs a piece for nothing, and
//! otherwise reveals where nothing bad can appear, or moves towards prey.
//!
//! Whose pieces are whose comes from [`crate::View::control`] (so teams work: teammates share a
//! colour). With [`Control::Both`] (single-player and cooperative games) there is no opponent:
//! risk is zero, and a piece's prey is any piece of the other colour. A drawn piece (`hand`) is
//! put where the resulting position has the least risk (for an enemy piece: where it threatens
//! nothing of ours), preferring cells where our own piece attacks an enemy.

use super::{cheapest_attackers, pick, piece_values, Distances};
use crate::history::piece_at_index;
use crate::{Bot, View};
use anqi_core::rules::{Action, Board, Cell, Colour, Control, Piece, Square, Variant};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// The greedy reference bot. See the module documentation for its rules.
pub struct GreedyBot {
    rng: ChaCha8Rng,
    distances: Option<Distances>,
}

/// How the greedy bot rates one action (larger is better, compared field by field).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Material: gain minus risk minus expected reveal loss.
    pub material: f64,
    /// 3 capture, 2 reveal / bag / put, 1 quiet move.
    pub class: u8,
    /// Steps gained towards prey (quiet moves), or the value attacked (puts).
    pub chase: i32,
}

impl Rating {
    fn beats(&self, other: &Rating) -> std::cmp::Ordering {
        const EPS: f64 = 1e-9;
        if (self.material - other.material).abs() > EPS {
            return self.material.total_cmp(&other.material);
        }
        (self.class, self.chase).cmp(&(other.class, other.chase))
    }
}

impl GreedyBot {
    /// A greedy bot whose ties are broken by a generator seeded with `seed`.
    pub fn new(seed: u64) -> GreedyBot {
        GreedyBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            distances: None,
        }
    }

    /// Every legal action with its rating, in the order of `view.legal`.
    pub fn rate(&mut self, view: &View<'_>) -> Vec<(Action, Rating)> {
        let v = view.variant;
        let values = piece_values(&v.capture);
        let mine = match view.control {
            Control::Colour(c) => Some(c),
            Control::Nothing | Control::Both => None,
        };
        let dist = Distances::for_topology(&mut self.distances, &v.topology);
        let ctx = Ctx {
            v,
            values: &values,
            mine,
            dist,
        };
        let risk_now = ctx.risk(view.board);
        let pool = view.history.pool();
        let mut after = view.board.clone();
        view.legal
            .iter()
            .map(|&a| {
                let rating = match a {
                    Action::Reveal(cell) => Rating {
                        material: -risk_now - ctx.reveal_loss(view.board, cell, pool),
                        class: 2,
                        chase: 0,
                    },
                    Action::Bag => Rating {
                        material: -risk_now,
                        class: 2,
                        chase: 0,
                    },
                    Action::Put { piece, cell } => {
                        after.set(cell, Square::Up(piece));
                        let r = Rating {
                            material: -ctx.risk(&after),
                            class: 2,
                            chase: ctx.put_bonus(&after, piece, cell),
                        };
                        after.set(cell, Square::Empty);
                        r
                    }
                    Action::Move { from, to } => {
                        let (mover, target) = (view.board.get(from), view.board.get(to));
                        after.set(to, mover);
                        after.set(from, Square::Empty);
                        let gain = match target {
                            Square::Up(t) => f64::from(values[t.kind.index()]),
                            _ => 0.0,
                        };
                        let r = Rating {
                            material: gain - ctx.risk(&after),
                            class: if gain > 0.0 { 3 } else { 1 },
                            chase: match mover {
                                Square::Up(p) if gain == 0.0 => ctx.chase(view.board, p, from, to),
                                _ => 0,
                            },
                        };
                        after.set(from, mover);
                        after.set(to, target);
                        r
                    }
                };
                (a, rating)
            })
            .collect()
    }
}

impl Bot for GreedyBot {
    fn choose(&mut self, view: &View<'_>) -> Action {
        let rated = self.rate(view);
        let best = rated
            .iter()
            .map(|(_, r)| *r)
            .max_by(|a, b| a.beats(b))
            .expect("at least one legal action");
        let ties: Vec<Action> = rated
            .iter()
            .filter(|(_, r)| r.beats(&best).is_eq())
            .map(|(a, _)| *a)
            .collect();
        pick(&mut self.rng, &ties)
    }
}

struct Ctx<'a> {
    v: &'a Variant,
    values: &'a [i32; 7],
    /// Our colour, when we have exactly one.
    mine: Option<Colour>,
    dist: &'a Distances,
}

impl Ctx<'_> {
    fn value(&self, p: Piece) -> i32 {
        self.values[p.kind.index()]
    }

    /// The most the opponent, to move on `board`, wins with one capture.
    fn risk(&self, board: &Board) -> f64 {
        let Some(mine) = self.mine else {
            return 0.0;
        };
        let mut attackers = Vec::new();
        cheapest_attackers(board, self.v, self.values, mine.other(), &mut attackers);
        let mut worst = 0;
        let mut scratch = board.clone();
        for (cell, att) in attackers.iter().enumerate() {
            let (Some((att_value, from)), Square::Up(p)) = (*att, board.get(cell)) else {
                continue;
            };
            if p.colour != mine {
                continue;
            }
            let loss = if self.recaptures(&mut scratch, from, cell, mine) {
                (self.value(p) - att_value).max(0)
            } else {
                self.value(p)
            };
            worst = worst.max(loss);
        }
        f64::from(worst)
    }

    /// Whether `mine` could capture back on `cell` after the enemy at `from` captured there.
    fn recaptures(&self, scratch: &mut Board, from: Cell, cell: Cell, mine: Colour) -> bool {
        let (enemy, victim) = (scratch.get(from), scratch.get(cell));
        scratch.set(cell, enemy);
        scratch.set(from, Square::Empty);
        let mut found = false;
        for (c, sq) in scratch.squares().iter().enumerate() {
            if found {
                break;
            }
            if matches!(sq, Square::Up(q) if q.colour == mine) {
                scratch.for_each_move_from(&self.v.topology, &self.v.capture, c, true, |a, _| {
                    found |= matches!(a, Action::Move { to, .. } if to == cell);
                });
            }
        }
        scratch.set(from, enemy);
        scratch.set(cell, victim);
        found
    }

    /// Expected material lost to the opponent's reply because of what a reveal at `cell` shows,
    /// a piece of `pool` (per piece index) as likely as its count.
    fn reveal_loss(&self, board: &Board, cell: Cell, pool: &[u32; 14]) -> f64 {
        let Some(mine) = self.mine else {
            return 0.0;
        };
        let total: u32 = pool.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let mut scratch = board.clone();
        let mut attackers = Vec::new();
        let mut expected = 0.0;
        for (i, &n) in pool.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let p = piece_at_index(i);
            scratch.set(cell, Square::Up(p));
            cheapest_attackers(&scratch, self.v, self.values, mine.other(), &mut attackers);
            let loss = if p.colour == mine {
                // Ours: lost if an enemy can take it at once.
                if attackers[cell].is_some() {
                    self.value(p)
                } else {
                    0
                }
            } else {
                // The enemy's: the best piece of ours it can take at once.
                let mut best = 0;
                scratch.for_each_move_from(
                    &self.v.topology,
                    &self.v.capture,
                    cell,
                    true,
                    |a, _| {
                        if let Action::Move { to, .. } = a {
                            if let Square::Up(q) = board.get(to) {
                                best = best.max(self.value(q));
                            }
                        }
                    },
                );
                best
            };
            expected += f64::from(n) / f64::from(total) * f64::from(loss);
        }
        expected
    }

    /// Steps the piece `p` gains towards its nearest prey by moving `from` -> `to`.
    fn chase(&self, board: &Board, p: Piece, from: Cell, to: Cell) -> i32 {
        let (mut d_from, mut d_to) = (u16::MAX, u16::MAX);
        for (c, sq) in board.squares().iter().enumerate() {
            let Square::Up(q) = *sq else { continue };
            // Prey: a piece of the other colour (the opponent's, or with both colours the other
            // one) that this piece could capture if it stood next to it or in a jump line.
            let prey = q.colour != p.colour
                && (self.v.capture.can_step_capture(p.kind, q.kind)
                    || self.v.capture.jumps(p.kind));
            if prey {
                d_from = d_from.min(self.dist.get(from, c));
                d_to = d_to.min(self.dist.get(to, c));
            }
        }
        if d_from == u16::MAX {
            0
        } else {
            i32::from(d_from) - i32::from(d_to)
        }
    }

    /// For a put: the best enemy piece the put piece attacks (our piece), or 0.
    fn put_bonus(&self, after: &Board, piece: Piece, cell: Cell) -> i32 {
        if self.mine.is_some_and(|m| m != piece.colour) {
            return 0;
        }
        let mut best = 0;
        after.for_each_move_from(&self.v.topology, &self.v.capture, cell, true, |a, _| {
            if let Action::Move { to, .. } = a {
                if let Square::Up(q) = after.get(to) {
                    best = best.max(self.value(q));
                }
            }
        });
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::testing::{rows, Scene};
    use anqi_core::rules::{Colour, Control};

    fn choose(scene: &Scene, seed: u64) -> Action {
        GreedyBot::new(seed).choose(&scene.view())
    }

    #[test]
    fn takes_the_king_over_a_pawn() {
        // Red pawn at 0 next to the black king at 1; red guard at 16 next to a black pawn at 17.
        let b = rows(["Pk......", "........", "Gp......", "........"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        for seed in 0..10 {
            assert_eq!(choose(&s, seed), Action::Move { from: 0, to: 1 });
        }
    }

    #[test]
    fn prefers_a_safe_capture_and_avoids_a_losing_one() {
        // Red rook at 9 can take the black knight at 10 (then guarded by the black guard at 11)
        // or the black cannon at 8 (safe).
        let b = rows(["........", "cRng....", "........", "........"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        for seed in 0..10 {
            assert_eq!(choose(&s, seed), Action::Move { from: 9, to: 8 });
        }
    }

    #[test]
    fn moves_a_threatened_piece_to_safety() {
        // Black guard at 9 attacks the red rook at 10, which can flee up, right or down; the
        // rook cannot take the guard. Everything else is face-down except a far black pawn.
        let b = rows(["XX......", "XgR.....", "XX......", ".......p"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        for seed in 0..10 {
            let a = choose(&s, seed);
            assert!(
                matches!(a, Action::Move { from: 10, to } if to == 2 || to == 11 || to == 18),
                "{a}"
            );
        }
    }

    #[test]
    fn does_not_reveal_next_to_a_strong_enemy_when_a_quiet_reveal_exists() {
        // A black king at 0: revealing 1 or 8 may show a red piece it takes at once.
        let b = rows(["kX......", "X.......", "........", ".......X"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        for seed in 0..10 {
            assert_eq!(choose(&s, seed), Action::Reveal(31));
        }
    }

    #[test]
    fn cannon_jump_capture_is_seen() {
        // Red cannon at 0 jumps over the face-down 1 onto the black guard at 3.
        let b = rows(["CX.g....", "........", "........", "........"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        assert_eq!(choose(&s, 1), Action::Move { from: 0, to: 3 });
    }

    #[test]
    fn both_colours_capture_anything_and_puts_are_rated() {
        let b = rows(["Gp......", "........", "........", "......XX"]);
        let s = Scene::new("single", &b, Control::Both);
        assert_eq!(choose(&s, 3), Action::Move { from: 0, to: 1 });

        // A bag game: holding a red rook, with a black guard at 0; red plays red.
        let mut s = Scene::new(
            "strategic",
            &rows(["g.......", "........", "........", "........"]),
            Control::Colour(Colour::Red),
        );
        s.hand = Some(Piece::from_letter('R').unwrap());
        s.refresh();
        for seed in 0..10 {
            let a = choose(&s, seed);
            // Never next to the guard (1 or 8).
            assert!(
                matches!(a, Action::Put { cell, .. } if cell != 1 && cell != 8),
                "{a}"
            );
        }
    }

    #[test]
    fn same_seed_same_choices() {
        let s = Scene::new("traditional", &"X".repeat(32), Control::Nothing);
        let a: Vec<Action> = (0..5).map(|_| choose(&s, 7)).collect();
        assert!(a.iter().all(|x| *x == a[0]));
        let spread: std::collections::HashSet<Action> = (0..40).map(|k| choose(&s, k)).collect();
        assert!(spread.len() > 10, "ties are broken at random: {spread:?}");
    }
}
