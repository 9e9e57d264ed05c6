//! Reference bots of clearly different strength, for testing servers and for measuring a new
//! bot against a known yardstick:
//!
//! | bot | idea | strength |
//! |---|---|---|
//! | [`crate::RandomBot`] | a uniformly random legal action | none |
//! | [`GreedyBot`] | one ply of material bookkeeping: win the most, hang the least | beats random |
//! | [`SearchBot`] | depth-limited expectiminimax with chance nodes for reveals | beats greedy |
//! | [`PerfectBot`] | a solved variant's solution file (`anqi solve`) | perfect |
//!
//! All of them are deterministic given their seed (ties are broken by a seeded `ChaCha8`
//! generator), and all of them only ever return an action of [`crate::View::legal`].
//!
//! Both strong bots value pieces by the variant's ranks ([`piece_values`]), so a variant with
//! other ranks (`paper-ranks`, `hong-kong`) is valued by its own table, and both read what they
//! know of the game beyond the board from [`crate::View::history`]: the pieces still face-down
//! (what a reveal may turn up) and, for the search, how often each position occurred (the
//! repetition rule). They keep no memory of their own, so a bot may be asked about any player's
//! position in any order.

pub mod greedy;
pub mod perfect;
pub mod search;

pub use greedy::GreedyBot;
pub use perfect::PerfectBot;
pub use search::SearchBot;

use anqi_core::rules::{Board, CaptureRules, Cell, Colour, Kind, Square, Topology, Variant};
use rand_chacha::ChaCha8Rng;
use rand_core::Rng;

/// The value of one kind, in material units: 10 per rank, and the king always 20 above the best
/// other kind (so it is the most valuable piece whatever the variant's ranks say).
pub fn piece_values(rules: &CaptureRules) -> [i32; 7] {
    let mut v = [0i32; 7];
    for k in Kind::ALL {
        v[k.index()] = 10 * i32::from(rules.ranks[k.index()]);
    }
    let best_other = Kind::ALL
        .iter()
        .filter(|&&k| k != Kind::King)
        .map(|k| v[k.index()])
        .max()
        .unwrap_or(0);
    v[Kind::King.index()] = v[Kind::King.index()].max(best_other + 20);
    v
}

/// Every cell `colour` can capture on right now, with the cheapest capturer: `out[cell]` is
/// `Some((value, from))` of the least valuable piece of `colour` that may capture there.
pub(crate) fn cheapest_attackers(
    board: &Board,
    variant: &Variant,
    values: &[i32; 7],
    colour: Colour,
    out: &mut Vec<Option<(i32, Cell)>>,
) {
    out.clear();
    out.resize(board.len(), None);
    for (from, sq) in board.squares().iter().enumerate() {
        let Square::Up(p) = *sq else { continue };
        if p.colour != colour {
            continue;
        }
        let v = values[p.kind.index()];
        board.for_each_move_from(&variant.topology, &variant.capture, from, true, |a, _| {
            if let anqi_core::rules::Action::Move { to, .. } = a {
                if out[to].is_none_or(|(w, _)| v < w) {
                    out[to] = Some((v, from));
                }
            }
        });
    }
}

/// Graph distances between cells along the board's moves (ignoring what stands on them).
#[derive(Clone, Debug)]
pub(crate) struct Distances {
    moves: Vec<(Cell, Cell)>,
    size: usize,
    dist: Vec<u16>,
}

impl Distances {
    /// The table for `topo`, reusing `cache` when it was built for the same board.
    pub(crate) fn for_topology<'c>(cache: &'c mut Option<Distances>, topo: &Topology) -> &'c Self {
        let fresh = cache
            .as_ref()
            .is_some_and(|d| d.size == topo.size() && d.moves == topo.moves());
        if !fresh {
            *cache = Some(Distances::new(topo));
        }
        cache.as_ref().expect("just built")
    }

    fn new(topo: &Topology) -> Distances {
        let n = topo.size();
        let mut dist = vec![u16::MAX; n * n];
        let mut queue = std::collections::VecDeque::new();
        for s in 0..n {
            dist[s * n + s] = 0;
            queue.clear();
            queue.push_back(s);
            while let Some(c) = queue.pop_front() {
                let d = dist[s * n + c];
                for &m in topo.neighbours(c) {
                    if dist[s * n + m] == u16::MAX {
                        dist[s * n + m] = d + 1;
                        queue.push_back(m);
                    }
                }
            }
        }
        Distances {
            moves: topo.moves().to_vec(),
            size: n,
            dist,
        }
    }

    /// Steps from `a` to `b` (`u16::MAX` when unreachable).
    pub(crate) fn get(&self, a: Cell, b: Cell) -> u16 {
        self.dist[a * self.size + b]
    }
}

/// Picks uniformly among `items` with the generator (rejection sampling, as [`crate::RandomBot`]).
pub(crate) fn pick<T: Copy>(rng: &mut ChaCha8Rng, items: &[T]) -> T {
    let n = items.len() as u64;
    assert!(n > 0, "pick from an empty list");
    let zone = u64::MAX - u64::MAX % n;
    loop {
        let x = rng.next_u64();
        if x < zone {
            return items[(x % n) as usize];
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Building a [`View`] by hand for unit tests, and whole games on the rules core.

    use crate::history::History;
    use crate::testing::{prompt, setup_line};
    use crate::{Setup, Tracker, View};
    use anqi_core::rules::{Action, Board, Control, Piece, PublicState, Start, Variant};
    use anqi_core::wire::{Extension, Extensions};

    /// Owns what a [`View`] borrows.
    pub struct Scene {
        pub setup: Setup,
        pub variant: Variant,
        pub board: Board,
        pub control: Control,
        pub hand: Option<Piece>,
        pub chain: Option<usize>,
        pub legal: Vec<Action>,
        /// A position shown alone ([`History::of_position`]).
        pub history: History,
    }

    impl Scene {
        /// A scene of a shipped variant with `board` (the wire string) and `control`.
        pub fn new(variant: &str, board: &str, control: Control) -> Scene {
            let variant = Variant::shipped(variant).unwrap();
            let board = Board::parse(board).unwrap();
            let setup = Setup::of_seat(&variant, 1);
            let mut s = Scene {
                history: History::of_position(&variant, &board, None, 1),
                setup,
                variant,
                board,
                control,
                hand: None,
                chain: None,
                legal: Vec::new(),
            };
            s.refresh();
            s
        }

        /// Recomputes the legal actions and the history (after changing the board, hand or
        /// chain).
        pub fn refresh(&mut self) {
            self.legal = PublicState {
                variant: &self.variant,
                board: &self.board,
                control: self.control,
                hand: self.hand,
                chain: self.chain,
                bag_has_pieces: self.variant.start == Start::Bag && self.hand.is_none(),
            }
            .legal_actions();
            self.history = History::of_position(&self.variant, &self.board, self.hand, 1);
        }

        pub fn view(&self) -> View<'_> {
            View {
                setup: &self.setup,
                variant: &self.variant,
                board: &self.board,
                control: self.control,
                hand: self.hand,
                turn: 0,
                legal: &self.legal,
                history: &self.history,
            }
        }
    }

    /// A 4x8 board from four rows of 8.
    pub fn rows(r: [&str; 4]) -> String {
        r.concat()
    }

    /// Plays one game of `variant` on the rules core (no server) with `bots[i]` in seat `i + 1`,
    /// calling `after(seat, elapsed)` after each choice. Returns the winning seat (0: none).
    pub fn play_local(
        variant: &str,
        deal_seed: u64,
        bots: &mut [&mut dyn crate::Bot],
        after: impl FnMut(usize, std::time::Duration),
    ) -> usize {
        let seeds = anqi_core::rules::SeedInputs {
            clients: vec![deal_seed.to_string()],
            server: "local".into(),
        };
        play_deal(variant, &seeds, bots, after)
    }

    /// As [`play_local`], with the deal of the given seeds (as the server makes it). Every
    /// player has a [`Tracker`] fed what the server would send a client of this library (the
    /// `variant` extension), so the bots see what they would over the wire.
    pub fn play_deal(
        variant: &str,
        seeds: &anqi_core::rules::SeedInputs,
        bots: &mut [&mut dyn crate::Bot],
        mut after: impl FnMut(usize, std::time::Duration),
    ) -> usize {
        use anqi_core::rules::Game;
        let v = std::sync::Arc::new(Variant::shipped(variant).unwrap());
        let deal = seeds.deal_for(&v);
        let mut game = Game::new(v.clone(), deal);
        let ext: Extensions = [Extension::Variant].into_iter().collect();
        let mut trackers: Vec<Tracker> = (1..=v.players)
            .map(|p| {
                let mut t = Tracker::new(None);
                t.feed(&crate::testing::parse(&setup_line(&v, p, ext)))
                    .expect("the setup is read");
                t
            })
            .collect();
        while game.outcome().is_none() {
            let player = game.to_move();
            for (i, t) in trackers.iter_mut().enumerate() {
                t.feed(&prompt(&game, i + 1, ext, None))
                    .expect("the prompt is read");
            }
            let tracker = &mut trackers[player - 1];
            let start = std::time::Instant::now();
            let a = bots[player - 1].choose(&tracker.view().expect("the mover is prompted"));
            after(player, start.elapsed());
            tracker.sent(a);
            game.play(player, a).expect("the bot plays legal actions");
        }
        let (p, _) = game.win_clause();
        p
    }
}

#[cfg(test)]
mod tests {
    use super::testing::play_local;
    use super::{GreedyBot, SearchBot};
    use crate::{Bot, RandomBot};

    /// Points of bot A over `games` games against bot B, seats alternating: (wins, draws, losses).
    fn duel(
        variant: &str,
        games: u64,
        mut a: impl FnMut(u64) -> Box<dyn Bot>,
        mut b: impl FnMut(u64) -> Box<dyn Bot>,
    ) -> (u32, u32, u32) {
        let mut wdl = (0, 0, 0);
        for g in 0..games {
            let (mut x, mut y) = (a(g), b(g + 1000));
            let a_seat = 1 + (g % 2) as usize;
            let winner = if a_seat == 1 {
                play_local(variant, g, &mut [&mut *x, &mut *y], |_, _| {})
            } else {
                play_local(variant, g, &mut [&mut *y, &mut *x], |_, _| {})
            };
            match winner {
                0 => wdl.1 += 1,
                w if w == a_seat => wdl.0 += 1,
                _ => wdl.2 += 1,
            }
        }
        wdl
    }

    /// `cargo test --release -p anqi-client -- --ignored --nocapture strength_ladder`
    #[test]
    #[ignore]
    fn strength_ladder() {
        let n: u64 = std::env::var("GAMES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(40);
        let greedy = |s| Box::new(GreedyBot::new(s)) as Box<dyn Bot>;
        let random = |s| Box::new(RandomBot::new(s)) as Box<dyn Bot>;
        println!(
            "greedy vs random: {:?}",
            duel("traditional", n, greedy, random)
        );
        let search =
            |depth: u32| move |s| Box::new(SearchBot::with_depth(s, depth)) as Box<dyn Bot>;
        println!(
            "search 3 vs search 2: {:?}",
            duel("traditional", n, search(3), search(2))
        );
        for depth in [1, 2, 3] {
            println!(
                "search {depth} vs greedy: {:?}",
                duel("traditional", n, search(depth), greedy)
            );
        }
    }

    /// Replays one game of tests/integration/bot_strength.rs: `DEBUG_GAME=4 cargo test ... debug_game`.
    #[test]
    #[ignore]
    fn debug_game() {
        let g: u64 = std::env::var("DEBUG_GAME").unwrap().parse().unwrap();
        let (sa, sb) = (1000 * g + 1, 1000 * g + 2);
        let mut a = SearchBot::with_depth(sa, 2);
        let mut b = GreedyBot::new(sb);
        let mut seeds = anqi_core::rules::SeedInputs {
            clients: vec![sa.to_string(), sb.to_string()],
            server: "bot-strength".into(),
        };
        let w = if g % 2 == 0 {
            super::testing::play_deal("traditional", &seeds, &mut [&mut a, &mut b], |_, _| {})
        } else {
            seeds.clients.swap(0, 1);
            super::testing::play_deal("traditional", &seeds, &mut [&mut b, &mut a], |_, _| {})
        };
        println!("winner {w}");
    }

    #[test]
    fn greedy_and_search_play_every_shipped_variant_legally() {
        for (name, _) in anqi_core::rules::SHIPPED {
            let v = anqi_core::rules::Variant::shipped(name).unwrap();
            for first in [0, 1] {
                let mut greedy: Vec<GreedyBot> =
                    (0..v.players as u64).map(GreedyBot::new).collect();
                let mut search: Vec<SearchBot> = (0..v.players as u64)
                    .map(|s| SearchBot::with_depth(s, 2).with_budget(20_000))
                    .collect();
                let mut bots: Vec<&mut dyn Bot> = Vec::new();
                for (i, (g, s)) in greedy.iter_mut().zip(search.iter_mut()).enumerate() {
                    if (i + first) % 2 == 0 {
                        bots.push(g);
                    } else {
                        bots.push(s);
                    }
                }
                play_local(name, 5 + first as u64, &mut bots, |_, _| {});
            }
        }
    }
}
