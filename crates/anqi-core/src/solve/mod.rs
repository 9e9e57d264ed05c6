//! Exact values of small variants: expectimax over public states, with a retrograde pass for
//! the cycles of quiet moves.
//!
//! # The semantics solved (protocol/SOLVING.md)
//! A face-down piece is hidden from every player alike, so a variant without a bag is a game
//! of perfect information with chance: a state is the public board (face-down cells as `X`),
//! the unseen pieces, the player to move and the colours decided ([`Key`]). Its value is
//! player 1's expected score (win 1, draw ½, loss 0) when both sides play their best, every
//! reveal turning up each unseen piece with probability proportional to its count.
//!
//! The referee's draw rules depend on history (plies since the last reveal or capture, and
//! positions seen), which no state of the solver holds. The solver replaces them with one rule:
//! **play that never reveals nor captures again is a draw**. A side that can force its way to
//! a better reveal or capture does so in fewer quiet plies than the states of its component,
//! and a side that can keep play in the component forever gets the referee's draw as well
//! (a position comes round again), so the values are the referee's from any state reached
//! with the no-progress count low enough: at most the limit less [`Stats::longest_forced`]
//! (the most quiet plies the forcing side needs) less one, as the referee draws once the
//! count reaches the limit, before the forcing side's next ply. Where they differ is tested
//! in `tests`.
//!
//! # The parts
//! - `key`: a state as a 128-bit key (boards of up to 16 cells).
//! - `component`: the values of one component of quiet moves, exits known.
//! - this file: the walk from the start (chance averaged exactly), and the table of values.
//! - `children`: each action's value from a table, and a perfect player's choice.
//! - `file`: the solution file, and its check by an independent pass.
//! - `error`: what can go wrong: a variant the solver does not hold, a state missing from a
//!   table, a solution file that does not read or check.

pub mod children;
mod component;
mod error;
pub mod file;
mod key;

pub use error::{LookupError, SolutionError, StateFault, Unsolvable};
pub use key::{fits, DoesNotFit, Key, MAX_CELLS};

use crate::rules::{Action, Game, Objective, Piece, Start, Variant};
use std::collections::HashMap;
use std::sync::Arc;

/// The semantics solved, as every solution file of this version names them (see the module
/// documentation).
pub const SEMANTICS: &str = "quiet play forever is a draw; no other draw rule";

/// A value: player 1's expected score times the solution's denominator ([`Scale`]): exact.
pub type Score = u64;

/// What the table keeps of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub value: Score,
    /// For a value other than a draw, the quiet plies before play leaves the state's component
    /// for a reveal, capture or end worth that value: the side the value favours takes the
    /// shortest way, the other side the longest among its moves worth the value. 0 for a
    /// draw, and for a state left at once. A perfect player follows them down, so it never
    /// goes round a cycle.
    pub plies: u16,
}

/// The common denominator of every value of a variant of `n` pieces: `2 * n!` (a draw is ½,
/// and a value with `m` unseen pieces averages over `m` outcomes of values with `m - 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub denominator: u64,
}

impl Scale {
    /// The scale for `n` pieces, if `2 * n!` fits in 64 bits (n at most 19).
    pub fn for_pieces(n: usize) -> Option<Scale> {
        (1..=n as u64)
            .try_fold(2u64, |d, k| d.checked_mul(k))
            .map(|denominator| Scale { denominator })
    }

    pub fn win(self) -> Score {
        self.denominator
    }

    pub fn draw(self) -> Score {
        self.denominator / 2
    }

    /// A value as a reduced fraction.
    pub fn fraction(self, v: Score) -> (u64, u64) {
        let g = gcd(v, self.denominator);
        (v / g, self.denominator / g)
    }

    /// A value as a number between 0 and 1.
    pub fn decimal(self, v: Score) -> f64 {
        v as f64 / self.denominator as f64
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// The variant as solved: its own draw rules left out (the solver's rule replaces them).
///
/// # Errors
/// A variant the solver does not hold ([`Unsolvable`]).
pub fn solver_variant(variant: &Variant) -> Result<Arc<Variant>, Unsolvable> {
    let name = || variant.name.clone();
    if variant.players != 2 || variant.sides.len() != 2 {
        return Err(Unsolvable::Players {
            variant: name(),
            players: variant.players,
        });
    }
    if variant.objective != Objective::Capture {
        return Err(Unsolvable::OneSide { variant: name() });
    }
    if variant.start == Start::Bag {
        return Err(Unsolvable::Bag { variant: name() });
    }
    if variant.chain_capture {
        return Err(Unsolvable::ChainCaptures { variant: name() });
    }
    fits(variant).map_err(|fit| Unsolvable::DoesNotFit {
        variant: name(),
        fit,
    })?;
    if Scale::for_pieces(variant.pieces.len()).is_none() {
        return Err(Unsolvable::TooManyPieces {
            variant: name(),
            pieces: variant.pieces.len(),
        });
    }
    let mut v = variant.clone();
    v.draw.no_progress = None;
    v.draw.repetition = None;
    Ok(Arc::new(v))
}

/// Counts of what the solver did, as it goes.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// States valued.
    pub states: u64,
    /// Components of quiet moves solved.
    pub components: u64,
    /// The most quiet plies a forcing side needs, in any component, before its reveal, capture
    /// or end: the values are the referee's from a no-progress count of at most the limit less
    /// this less one (see the module documentation).
    pub longest_forced: u32,
}

/// A solver: the table of values, filled as states are asked for.
pub struct Solver {
    variant: Arc<Variant>,
    scale: Scale,
    cells: usize,
    values: HashMap<Key, Entry>,
    stats: Stats,
    /// Called every so often with the counts so far (a progress line).
    progress: Option<Progress>,
    next_report: u64,
}

/// A progress reporter.
type Progress = Box<dyn FnMut(&Stats)>;

/// What a move leads to, seen from the component it starts in.
enum Next {
    /// Another position of the component (a quiet move), not valued yet.
    Quiet(Key, Box<Game>),
    /// Another position of the component, valued already (when another part of the
    /// component was solved).
    Solved(Key),
    /// Out of the component, with its value.
    Exit(Score),
}

impl Solver {
    /// A solver for `variant` (refused when it is not a two-player capture game without bag or
    /// chain on at most 16 cells).
    pub fn new(variant: &Variant) -> Result<Solver, Unsolvable> {
        let variant = solver_variant(variant)?;
        let scale = Scale::for_pieces(variant.pieces.len()).expect("checked");
        Ok(Solver {
            cells: variant.topology.size(),
            variant,
            scale,
            values: HashMap::new(),
            stats: Stats::default(),
            progress: None,
            next_report: 1 << 16,
        })
    }

    /// Calls `f` with the counts every 65,536 states or so.
    pub fn on_progress(&mut self, f: impl FnMut(&Stats) + 'static) {
        self.progress = Some(Box::new(f));
    }

    pub fn scale(&self) -> Scale {
        self.scale
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The variant as solved (no draw rules of its own).
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The values found so far.
    pub fn values(&self) -> &HashMap<Key, Entry> {
        &self.values
    }

    /// The start of a game of the variant: every cell face-down (the variant's start must put
    /// a piece on every cell, face-down).
    pub fn start(&self) -> Result<Game, Unsolvable> {
        let v = &self.variant;
        if v.start != Start::FaceDown || v.pieces.len() != self.cells {
            return Err(Unsolvable::Start {
                variant: v.name.clone(),
            });
        }
        let deal = crate::rules::Deal::face_down(v.pieces.iter().copied().map(Some).collect());
        Ok(Game::new(v.clone(), deal))
    }

    /// The value of a game's position (its draw rules aside: see the module documentation).
    pub fn value(&mut self, game: &Game) -> Score {
        if let Some(v) = children::ended(self.scale, game) {
            return v;
        }
        let key = Key::of(game);
        if let Some(e) = self.values.get(&key) {
            return e.value;
        }
        self.solve_component(game.clone());
        self.values[&key].value
    }

    /// The value of revealing `cell`: every unseen piece in turn, weighted by its count.
    pub fn reveal_value(&mut self, game: &Game, cell: usize) -> Score {
        let outcomes: Vec<(u32, Score)> = self
            .reveal_outcomes(game, cell)
            .into_iter()
            .map(|(_, n, v)| (n, v))
            .collect();
        children::average(&outcomes).unwrap_or_else(|| {
            panic!(
                "a reveal's average is not a multiple of 1/{}: the scale is wrong",
                self.scale.denominator
            )
        })
    }

    /// What revealing `cell` may turn up: each piece, how many of it are unseen, and the
    /// value after it.
    pub fn reveal_outcomes(&mut self, game: &Game, cell: usize) -> Vec<(Piece, u32, Score)> {
        children::reveals(game, cell)
            .into_iter()
            .map(|(piece, n, child)| (piece, n, self.value(&child)))
            .collect()
    }

    /// Where each of the mover's actions leads.
    fn moves(&mut self, game: &Game) -> Vec<Next> {
        let mover = game.to_move();
        let actions = game.legal_actions();
        let mut out = Vec::with_capacity(actions.len());
        for a in actions {
            match a {
                Action::Reveal(cell) => out.push(Next::Exit(self.reveal_value(game, cell))),
                Action::Move { .. } => {
                    let mut child = game.clone();
                    let played = child.play(mover, a).expect("a legal move");
                    if let Some(v) = children::ended(self.scale, &child) {
                        out.push(Next::Exit(v));
                    } else if played.captured.is_some() {
                        out.push(Next::Exit(self.value(&child)));
                    } else {
                        let key = Key::of(&child);
                        match self.values.get(&key) {
                            Some(_) => out.push(Next::Solved(key)),
                            None => out.push(Next::Quiet(key, Box::new(child))),
                        }
                    }
                }
                Action::Bag | Action::Put { .. } => unreachable!("no bag in a solved variant"),
            }
        }
        out
    }

    /// Values every position of the quiet component of `entry` that is not valued yet.
    fn solve_component(&mut self, entry: Game) {
        // Node i is keys[i]; its game waits in games[i] until it is expanded, in the order
        // nodes are found.
        let mut keys: Vec<Key> = vec![Key::of(&entry)];
        let mut index: HashMap<Key, u32> = HashMap::from([(keys[0], 0)]);
        let mut games: Vec<Option<Game>> = vec![Some(entry)];
        let mut nodes: Vec<component::Node> = Vec::new();
        while nodes.len() < keys.len() {
            let game = games[nodes.len()].take();
            let max = game
                .as_ref()
                .is_some_and(|g| g.variant().side_of(g.to_move()) == 0);
            let mut node = component::Node {
                max,
                exit: None,
                next: Vec::new(),
                fixed: None,
            };
            if let Some(&e) = self.values.get(&keys[nodes.len()]) {
                // Found solved (a quiet move's target): taken as it is, not expanded.
                node.fixed = Some((e.value, u32::from(e.plies)));
                nodes.push(node);
                continue;
            }
            let game = game.expect("a node not valued yet has its game");
            for next in self.moves(&game) {
                match next {
                    Next::Exit(v) => {
                        node.exit = Some(match node.exit {
                            None => v,
                            Some(e) if max => e.max(v),
                            Some(e) => e.min(v),
                        })
                    }
                    Next::Quiet(key, child) => {
                        let j = *index.entry(key).or_insert_with(|| {
                            keys.push(key);
                            games.push(Some(*child));
                            (keys.len() - 1) as u32
                        });
                        node.next.push(j);
                    }
                    Next::Solved(key) => {
                        let j = *index.entry(key).or_insert_with(|| {
                            keys.push(key);
                            games.push(None);
                            (keys.len() - 1) as u32
                        });
                        node.next.push(j);
                    }
                }
            }
            nodes.push(node);
        }
        let solved = component::solve(&nodes, self.scale.draw());
        self.stats.components += 1;
        for ((key, (value, plies)), node) in keys.into_iter().zip(solved).zip(&nodes) {
            if node.fixed.is_some() {
                continue;
            }
            self.stats.states += 1;
            self.stats.longest_forced = self.stats.longest_forced.max(plies);
            let plies = u16::try_from(plies).expect("fewer quiet plies than a u16 holds");
            self.values.insert(key, Entry { value, plies });
        }
        if self.stats.states >= self.next_report {
            self.next_report = self.stats.states + (1 << 16);
            if let Some(f) = self.progress.as_mut() {
                f(&self.stats);
            }
        }
    }

    /// The board's cells.
    pub fn cells(&self) -> usize {
        self.cells
    }
}

#[cfg(test)]
mod tests;
