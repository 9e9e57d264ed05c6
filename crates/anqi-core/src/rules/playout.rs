//! Random playouts: the rules core's own benchmark and fingerprint, shared by `cargo bench
//! --bench rules`, `anqi bench` (figure R1) and the Python package's `anqi.playouts`.
//!
//! Game `i` of a batch is dealt from the seed contributions `[]` (clients) and `"{seed}/{i}"`
//! (server), so a batch is reproducible from its seed alone and a game's deal is the one
//! `anqi.Game(variant, seed=f"{seed}/{i}")` gets. Every ply counts the mover's legal actions,
//! draws an index among them with [`SplitMix64`], and plays that action ([`Game::nth_legal`]),
//! or, with [`Pick::List`], lists them and picks from the list, as a driver from Python does.
//!
//! The core keeps no clock: a caller that measures speed times [`run`] itself.
//!
//! The [`Fingerprint`] of a batch hashes everything the games did (with `check`, also every
//! legal list and every player's counts at every ply), so a change to the core can be shown to
//! give the same results as before: run the same batch before and after and compare.

use super::{Action, ActionCounts, Game, SeedInputs, Termination, Variant};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A small, fast generator (Steele, Lea and Flood's SplitMix64): random playouts need speed and
/// reproducibility, not cryptographic quality.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n >= 1`), without bias (Lemire, "Fast random integer
    /// generation in an interval", 2019): the high word of a draw times `n`, a draw being
    /// rejected when its low word falls below 2^64 mod n (the few values that would favour
    /// some results). That bound is below `n`, so a low word of `n` or more, all but about
    /// one draw in 2^32, is accepted without computing it: no division, which in a playout
    /// sits on the chain from counting the legal actions to playing one.
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n >= 1, "a draw below 0");
        let n = u64::from(n);
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n || low >= n.wrapping_neg() % n {
                return (m >> 64) as u32;
            }
        }
    }
}

/// FNV-1a over 64-bit words: order-sensitive and cheap next to a ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint(pub u64);

impl Default for Fingerprint {
    fn default() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    /// Mixes in one word.
    pub fn add(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x0000_0100_0000_01b3);
    }

    /// Mixes in one action.
    pub fn action(&mut self, a: Action) {
        self.add(match a {
            Action::Reveal(c) => c as u64,
            Action::Move { from, to } => (1 << 60) | ((from as u64) << 20) | to as u64,
            Action::Bag => 2 << 60,
            Action::Put { piece, cell } => {
                (3 << 60) | ((piece.letter() as u64) << 20) | cell as u64
            }
        });
    }

    /// Mixes in one set of counts.
    pub fn counts(&mut self, c: ActionCounts) {
        for n in [c.moves, c.jumps, c.reveals, c.bags, c.puts] {
            self.add(u64::from(n));
        }
    }
}

/// How a playout chooses among the legal actions (both give the same games).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pick {
    /// Count, draw an index, make only that action ([`Game::nth_legal`]): `anqi.playouts`.
    #[default]
    Nth,
    /// List every legal action and pick from the list: a driver from Python
    /// (`legal_action_ids`).
    List,
}

/// What one batch of playouts is.
#[derive(Clone, Debug)]
pub struct Playouts {
    /// The batch's seed: game `i` is dealt from `"{seed}/{i}"`.
    pub seed: String,
    /// Games `first, first + step, ...` below `games` are played (a share of a batch split
    /// over threads; `first = 0, step = 1` for all of it).
    pub games: u64,
    pub first: u64,
    pub step: u64,
    /// A game still going after this many plies is adjudicated a draw (`ply-cap`).
    pub max_plies: Option<u32>,
    pub pick: Pick,
    /// Also fingerprint every legal list and every player's counts at every ply (slower: for
    /// comparing results, not for timing).
    pub check: bool,
}

impl Playouts {
    /// All of `games` games from `seed`, picking with [`Pick::Nth`], no ply cap, no check.
    pub fn new(seed: impl Into<String>, games: u64) -> Playouts {
        Playouts {
            seed: seed.into(),
            games,
            first: 0,
            step: 1,
            max_plies: None,
            pick: Pick::Nth,
            check: false,
        }
    }
}

/// What a batch of playouts came to.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub games: u64,
    pub plies: u64,
    /// Termination name to games.
    pub reasons: BTreeMap<&'static str, u64>,
    /// Winning side (`None`: nobody won) to games.
    pub winners: BTreeMap<Option<usize>, u64>,
    /// Everything the games did (see the module's documentation).
    pub fingerprint: Fingerprint,
}

impl Tally {
    /// Adds another share's counts (the fingerprint of a batch split over threads is not the
    /// sum of its shares': compare fingerprints of batches played on one thread).
    pub fn merge(&mut self, other: Tally) {
        self.games += other.games;
        self.plies += other.plies;
        for (k, n) in other.reasons {
            *self.reasons.entry(k).or_default() += n;
        }
        for (k, n) in other.winners {
            *self.winners.entry(k).or_default() += n;
        }
        self.fingerprint.add(other.fingerprint.0);
    }
}

/// Plays a batch of random games of `variant` (see the module's documentation).
pub fn run(variant: &Arc<Variant>, batch: &Playouts) -> Tally {
    let mut tally = Tally::default();
    let mut fp = Fingerprint::default();
    let mut legal = Vec::new();
    let players = variant.players;
    let mut i = batch.first;
    while i < batch.games {
        let inputs = SeedInputs {
            clients: Vec::new(),
            server: format!("{}/{i}", batch.seed),
        };
        let key = inputs.key();
        let mut rng = SplitMix64::new(u64::from_le_bytes(key[..8].try_into().expect("8 bytes")));
        let mut game = Game::new(variant.clone(), inputs.deal_for(variant));
        while game.outcome().is_none() {
            if batch.max_plies.is_some_and(|cap| game.ply() >= cap) {
                game.adjudicate_draw(Termination::PlyCap);
                break;
            }
            if batch.check {
                game.for_each_legal(|a, _| fp.action(a));
                fp.counts(game.counts());
                for p in 1..=players {
                    fp.counts(game.counts_of(p));
                }
            }
            match batch.pick {
                // Counted once and played unchecked: the same draw and action as counting
                // (`counts`), then `nth_legal` and `play`, at a fraction of the cost.
                Pick::Nth => {
                    let (a, kind) = game
                        .choose_legal(|n| rng.below(n))
                        .expect("a game not over has a legal action")
                        .unpack();
                    fp.action(a);
                    game.play_unchecked(a, kind);
                }
                Pick::List => {
                    legal.clear();
                    game.for_each_legal(|a, _| legal.push(a));
                    let a = legal[rng.below(legal.len() as u32) as usize];
                    fp.action(a);
                    game.play(game.to_move(), a)
                        .expect("a legal action is accepted");
                }
            }
        }
        let outcome = game.outcome().expect("the game ended");
        fp.add(u64::from(game.ply()));
        fp.add(outcome.reason as u64);
        fp.add(outcome.winner.map_or(99, |w| w as u64));
        tally.games += 1;
        tally.plies += u64::from(game.ply());
        *tally.reasons.entry(outcome.reason.name()).or_default() += 1;
        *tally.winners.entry(outcome.winner).or_default() += 1;
        i += batch.step;
    }
    tally.fingerprint = fp;
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_spreads_evenly() {
        let mut rng = SplitMix64::new(7);
        assert!((0..100).all(|_| rng.below(1) == 0));
        for n in [2u32, 3, 7, 100] {
            let draws = 20_000 * n;
            let mut seen = vec![0u32; n as usize];
            for _ in 0..draws {
                seen[rng.below(n) as usize] += 1;
            }
            // Each value about 20,000 times: a skew of 5% is over seven standard deviations.
            assert!(
                seen.iter().all(|&c| c.abs_diff(20_000) < 1_000),
                "{n}: {seen:?}"
            );
        }
        assert!((0..1_000).all(|_| rng.below(u32::MAX) < u32::MAX));
    }

    #[test]
    fn both_picks_play_the_same_games() {
        let v = Arc::new(Variant::load("traditional-2x4").unwrap());
        let mut batch = Playouts::new("t", 30);
        batch.check = true;
        let nth = run(&v, &batch);
        batch.pick = Pick::List;
        let list = run(&v, &batch);
        assert_eq!(nth.fingerprint, list.fingerprint);
        assert_eq!(nth.plies, list.plies);
        assert_eq!(nth.games, 30);
    }

    #[test]
    fn a_ply_cap_adjudicates_a_draw() {
        let v = Arc::new(Variant::load("openspiel").unwrap());
        let mut batch = Playouts::new("cap", 5);
        batch.max_plies = Some(3);
        let t = run(&v, &batch);
        assert_eq!(t.plies, 15);
        assert_eq!(t.reasons.get("ply-cap"), Some(&5));
    }
}
