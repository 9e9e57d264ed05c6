//! [`SearchBot`]: depth-limited expectiminimax over the public state, with chance nodes for
//! reveals.
//!
//! # The model
//!
//! * **Max / min nodes**: the side to move chooses among its reveals and moves; after a ply the
//!   other colour moves (in two-sided games the sides alternate, teams included). Under the
//!   chain-capture rule a capture that can continue keeps the turn, restricted to that piece's
//!   captures, as the rules say. Alpha-beta pruning (negamax), captures searched first.
//! * **Chance nodes**: a reveal turns up each piece of the face-down *pool* with probability
//!   proportional to its count, and the search goes on below each outcome. The pool is the
//!   tracker's ([`crate::History::pool`]): the variant's pieces minus every piece turned up so
//!   far, exact when the client saw every ply (it is prompted after each) or was told them (the
//!   `last` extension).
//! * **Cost control for chance nodes**, the three approximations that keep depth 3 fast:
//!   1. *Quiet reveals are grouped*: a face-down cell with no face-up piece next to it nor at
//!      jump distance (the second piece along a line) cannot take part in a capture on the next
//!      ply whatever it shows. All such reveals of a node are searched once, through one
//!      representative, and share its value (at the root the bot picks among them at random).
//!   2. *Below the root a reveal costs two plies of depth* instead of one.
//!   3. *At the horizon* (where the plies left after a reveal would be none) *a reveal is valued
//!      as a pass*: the other side moves next on the unchanged board. What the reveal shows
//!      would only matter to plies the search does not look at.
//!
//!   Reveals at the root are always expanded in full, so the bot's own reveal choice is exact
//!   for the model.
//! * **Leaves**: a capture-only quiescence search (a few plies, stand-pat allowed) over the
//!   evaluation: material (face-up pieces plus the pool's expected share of the face-down ones,
//!   by [`super::piece_values`]) of the side to move minus the other's, plus half a unit per
//!   legal move more than the opponent, plus a small bonus per capture along the line that
//!   shrinks with its depth (so a sure gain is taken now rather than later). A side with no
//!   piece left, or no legal action, has lost.
//! * **Draws**: the no-progress rule is not modelled. Repetitions are, near the root: the
//!   tracker counts the positions of the game ([`crate::History::occurrences`], by board and
//!   place in the turn order), an opponent reply (ply 1) that completes the repetition count is a
//!   draw, and a quiet move of ours to a position seen before has its value pulled towards a
//!   draw, all the way when it completes the count. A draw is worth a little less than even to
//!   this bot (it expects to outplay its opponent), so it avoids repeating when ahead or level
//!   and welcomes it when clearly behind. The count is the variant's (a cycle rule
//!   approximated by its count), or 3 when the variant has none (a client told no variant does
//!   not know the draw rules). The place after our move and after the reply is the next one in
//!   the turn order, and the one after (teams included: the opponent, then our teammate).
//! * **Budget**: iterative deepening from depth 1 to the configured depth, within a node budget
//!   (by default [`SearchBot::DEFAULT_BUDGET`] on boards of up to 32 cells, proportionally less
//!   on larger ones, whose nodes cost more); an iteration that runs out is discarded and the
//!   last complete one decides. Node counts, not time, so a seed always gives the same game.
//!   In a release build on 4x8 at depth 3 a move takes about a millisecond on average and
//!   stays far below the budget (tens of milliseconds).
//!
//! # Endgame tables
//!
//! With tables ([`SearchBot::with_tables`], `anqi-bot --tables FILE`), a position they hold
//! (every piece face-up, at most their number of pieces, the variant's board and captures) is
//! not searched: at the root the bot plays the move the tables rank best (the soonest win,
//! else a draw, else the latest loss), probing the position each move leads to; below the
//! root such a node is a leaf of exact value (a win or loss in so many plies, a draw worth
//! what a repetition draw is), so the search steers towards the endgames the tables win.
//!
//! # Where the model does not apply
//!
//! The bot falls back to [`GreedyBot`] logic when it holds a drawn piece or may draw from the bag
//! (bag games until the bag is empty; then the board has no face-down piece and the search
//! takes over), when it moves both colours ([`Control::Both`]: one-sided games have no opponent
//! to minimise over), and before it owns a colour (its first reveal).

use super::GreedyBot;
use super::{pick, piece_values};
use crate::history::{face_up_counts, piece_at_index, History};
use crate::{Bot, View};
use anqi_core::rules::{
    Action, Board, Cell, Colour, Control, Piece, PublicState, Repetition, Square, Variant,
};
use anqi_core::tables::{Tables, TablesError, Verdict};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::sync::Arc;

/// Larger than any material difference.
const WIN: f64 = 1_000_000.0;
/// Values closer than this are equal (ties broken at random at the root).
const EPS: f64 = 1e-6;
/// Capture plies searched beyond the nominal depth.
const QUIESCENCE_PLIES: u32 = 6;
/// Extra plies of depth a reveal below the root costs.
const REVEAL_REDUCTION: u32 = 1;
/// Bonus for a capture, as a fraction of the captured value, divided by the ply it happens on
/// (1 for the root's own move).
const CAPTURE_URGENCY: f64 = 0.05;
/// What a draw is worth to this bot, in material units below even: it expects to outplay its
/// opponent, so it avoids a draw when the alternative costs less than this.
const CONTEMPT: f64 = 3.0;
/// Weight of one legal move of mobility, in material units (a pawn is 10).
const MOBILITY: f64 = 0.5;

/// What the last search did, for tests and tuning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes visited (all iterations).
    pub nodes: u64,
    /// Deepest iteration completed (0: the greedy fallback or a single legal action decided).
    pub depth: u32,
    /// Whether the greedy fallback chose.
    pub fallback: bool,
}

/// The expectiminimax reference bot. See the module documentation for its model.
pub struct SearchBot {
    depth: u32,
    /// Node budget per move (`None`: the default for the board's size).
    budget: Option<u64>,
    rng: ChaCha8Rng,
    fallback: GreedyBot,
    stats: SearchStats,
    /// The chosen action's value in the last search, for the side to move.
    score: Option<f64>,
    /// Whether it says what its search found ([`Bot::comment`]).
    say: bool,
    /// Endgame tables to play from, and whether they hold the variant played (asked once).
    tables: Option<Arc<Tables>>,
    tables_fit: Option<bool>,
    /// The tables' verdict of the last move chosen from them.
    verdict: Option<Verdict>,
}

/// What the tables answered, `None` when they cannot answer: a material whose values fail
/// their checks is played without them, said once on stderr (the tables mark the first
/// report of each).
fn answered<T>(answer: Result<Option<T>, TablesError>) -> Option<T> {
    answer.unwrap_or_else(|e| {
        if e.first() {
            eprintln!("search_bot: {e}; played without the tables there");
        }
        None
    })
}

impl SearchBot {
    /// Default search depth in plies.
    pub const DEFAULT_DEPTH: u32 = 3;
    /// Default node budget per move on boards of up to 32 cells (about 50 ms in a release
    /// build); larger boards get proportionally fewer nodes.
    pub const DEFAULT_BUDGET: u64 = 200_000;

    /// A bot searching [`Self::DEFAULT_DEPTH`] plies.
    pub fn new(seed: u64) -> SearchBot {
        SearchBot::with_depth(seed, SearchBot::DEFAULT_DEPTH)
    }

    /// A bot searching `depth` plies (at least 1).
    pub fn with_depth(seed: u64, depth: u32) -> SearchBot {
        SearchBot {
            depth: depth.max(1),
            budget: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            fallback: GreedyBot::new(seed ^ 0x9e37_79b9_7f4a_7c15),
            stats: SearchStats::default(),
            score: None,
            say: false,
            tables: None,
            tables_fit: None,
            verdict: None,
        }
    }

    /// A bot that plays the positions `tables` hold from them, not by search.
    pub fn with_tables(mut self, tables: Arc<Tables>) -> SearchBot {
        self.tables = Some(tables);
        self
    }

    /// The move the tables rank best here, when they hold this position and every position a
    /// legal move leads to (with its verdict for the side to move).
    fn table_choice(&mut self, view: &View<'_>) -> Option<(Action, Verdict)> {
        let tables = self.usable_tables(view)?;
        let Control::Colour(me) = view.control else {
            return None;
        };
        if view.hand.is_some() {
            return None;
        }
        let verdicts = answered(tables.move_verdicts(view.board, me, view.legal.iter().copied()))?;
        anqi_core::tables::file::best(verdicts)
    }

    /// The tables, when the variant played is one they hold (asked once a game).
    fn usable_tables(&mut self, view: &View<'_>) -> Option<Arc<Tables>> {
        let tables = self.tables.as_ref()?;
        let fits = *self
            .tables_fit
            .get_or_insert_with(|| tables.serve(view.variant));
        fits.then(|| tables.clone())
    }

    /// A bot that says of each move what its search found (`depth 3 nodes 5120 score 12.5`,
    /// in material units of the evaluation, a pawn being 10), for the record's comments.
    pub fn with_comments(mut self) -> SearchBot {
        self.say = true;
        self
    }

    /// Sets the node budget per move, whatever the board's size.
    pub fn with_budget(mut self, nodes: u64) -> SearchBot {
        self.budget = Some(nodes.max(1));
        self
    }

    /// What the last [`Bot::choose`] did.
    pub fn last_stats(&self) -> SearchStats {
        self.stats
    }

    /// Each root action with its value (for the side to move), from the deepest completed
    /// iteration, or `None` when the search model does not apply to this view.
    pub fn evaluate(&mut self, view: &View<'_>) -> Option<Vec<(Action, f64)>> {
        self.stats = SearchStats::default();
        let Control::Colour(me) = view.control else {
            return None;
        };
        if view.hand.is_some()
            || view
                .legal
                .iter()
                .any(|a| matches!(a, Action::Bag | Action::Put { .. }))
        {
            return None;
        }
        let budget = self
            .budget
            .unwrap_or_else(|| SearchBot::DEFAULT_BUDGET * 32 / (view.board.len().max(32) as u64));
        let pool = *view.history.pool();
        let tables = self.usable_tables(view);
        let mut s = Search::new(view.variant, view.board.clone(), pool, budget);
        s.seen = Some(SeenPositions::of(view));
        s.tables = tables.as_deref();
        let mut order: Vec<Action> = view.legal.to_vec();
        let mut result = None;
        for depth in 1..=self.depth {
            let Some(values) = s.root(&order, me, depth) else {
                break;
            };
            self.stats.depth = depth;
            // Search the best first next time.
            let mut sorted = values.clone();
            sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
            order = sorted.iter().map(|(a, _)| *a).collect();
            result = Some(values);
        }
        self.stats.nodes = s.nodes;
        result
    }
}

impl Bot for SearchBot {
    fn comments(&self) -> bool {
        self.say
    }

    fn comment(&self) -> Option<String> {
        if let Some(v) = self.verdict {
            return Some(format!("tables: {}", v.text()));
        }
        let s = self.stats;
        Some(match self.score {
            Some(score) => format!("depth {} nodes {} score {score:.1}", s.depth, s.nodes),
            None if s.fallback => "greedy: no search here".to_string(),
            None => "the only legal action".to_string(),
        })
    }

    fn choose(&mut self, view: &View<'_>) -> Action {
        self.score = None;
        self.verdict = None;
        if let Some((action, verdict)) = self.table_choice(view) {
            self.stats = SearchStats::default();
            self.verdict = Some(verdict);
            return action;
        }
        if view.legal.len() == 1 {
            self.stats = SearchStats::default();
            view.legal[0]
        } else if let Some(values) = self.evaluate(view) {
            let best = values
                .iter()
                .map(|(_, v)| *v)
                .fold(f64::NEG_INFINITY, f64::max);
            self.score = Some(best);
            let ties: Vec<Action> = values
                .iter()
                .filter(|(_, v)| *v >= best - EPS)
                .map(|(a, _)| *a)
                .collect();
            pick(&mut self.rng, &ties)
        } else {
            self.stats.fallback = true;
            self.fallback.choose(view)
        }
    }
}

/// How many occurrences of a position draw: the variant's count (the cycle rules approximated
/// by theirs), or 3 when the variant has no repetition rule. A client told no variant assumes
/// none (the setup message does not carry the draw rules), and avoiding repetition when ahead
/// is good play anyway.
fn repetition_count(v: &Variant) -> u32 {
    match v.draw.repetition {
        Some(Repetition::Occurrence(n)) => n,
        Some(Repetition::Cycle { times, .. }) => times,
        None => 3,
    }
}

/// The positions of the game so far, as the search consults them near the root.
#[derive(Clone, Copy)]
struct SeenPositions<'a> {
    history: &'a History,
    /// How many occurrences of a position draw.
    count: u32,
    /// The place in the turn order after a move of ours (the opponent to move).
    after_ours: usize,
    /// The place after the opponent's reply.
    after_reply: usize,
}

impl<'a> SeenPositions<'a> {
    fn of(view: &View<'a>) -> SeenPositions<'a> {
        let places = view.variant.order.len().max(1);
        let now = view.history.turn_place();
        SeenPositions {
            history: view.history,
            count: repetition_count(view.variant),
            after_ours: (now + 1) % places,
            after_reply: (now + 2) % places,
        }
    }
}

/// One search: the board is changed in place and restored.
struct Search<'a> {
    v: &'a Variant,
    values: [i32; 7],
    board: Board,
    pool: [u32; 14],
    pool_total: u32,
    /// Face-down cells.
    hidden: u32,
    /// Face-up pieces of each colour.
    up: [u32; 2],
    /// Capture urgency bonus earned by each colour along the current line.
    urgency: [f64; 2],
    nodes: u64,
    budget: u64,
    aborted: bool,
    /// Action lists, one per ply, reused.
    bufs: Vec<Vec<Action>>,
    /// The positions of the game so far and how often a position occurs before it draws.
    seen: Option<SeenPositions<'a>>,
    /// Endgame tables that hold the variant, probed at every node they hold.
    tables: Option<&'a Tables>,
}

impl<'a> Search<'a> {
    fn new(v: &'a Variant, board: Board, pool: [u32; 14], budget: u64) -> Search<'a> {
        let counts = face_up_counts(&board);
        let up = [counts[..7].iter().sum(), counts[7..].iter().sum()];
        Search {
            v,
            values: piece_values(&v.capture),
            hidden: board.hidden_count() as u32,
            board,
            pool_total: pool.iter().sum(),
            pool,
            up,
            urgency: [0.0; 2],
            nodes: 0,
            budget,
            aborted: false,
            bufs: Vec::new(),
            seen: None,
            tables: None,
        }
    }

    /// The tables' value of the node for `side`, to move at `ply`, when they hold it: a win or
    /// a loss at the ply it comes, a draw as a repetition is worth (less than even for the
    /// root's side).
    fn probe(&self, side: Colour, chain: Option<Cell>, ply: u32) -> Option<f64> {
        let tables = self.tables?;
        if chain.is_some()
            || self.hidden != 0
            || (self.up[0] + self.up[1]) as usize > tables.pieces()
        {
            return None;
        }
        Some(match answered(tables.probe(&self.board, side))? {
            Verdict::Win { plies } => WIN - f64::from(ply + plies),
            Verdict::Loss { plies } => -WIN + f64::from(ply + plies),
            Verdict::Draw if ply % 2 == 0 => -CONTEMPT,
            Verdict::Draw => CONTEMPT,
        })
    }

    /// Every root action's value at `depth`, or `None` when the budget ran out.
    fn root(&mut self, order: &[Action], me: Colour, depth: u32) -> Option<Vec<(Action, f64)>> {
        let mut out = Vec::with_capacity(order.len());
        let mut best = -WIN * 2.0;
        let mut quiet_value = None;
        for &a in order {
            // Window just below the best so far: equal values come back exact (for the ties).
            let alpha = best - 2.0 * EPS;
            let v = match a {
                Action::Reveal(c) if self.is_quiet_reveal(c) => match quiet_value {
                    Some(v) => v,
                    None => {
                        let v = self.chance(me, c, depth, 0);
                        quiet_value = Some(v);
                        v
                    }
                },
                Action::Reveal(c) => self.chance(me, c, depth, 0),
                Action::Move { from, to } => {
                    // A repeated position's value is pulled towards a draw: v -> d + k (v - d).
                    let (d, k) = (-CONTEMPT, self.repetition_factor(from, to));
                    if k == 0.0 {
                        d
                    } else {
                        let raw_alpha = d + (alpha - d) / k;
                        let v = self.after_move(me, from, to, depth, 0, raw_alpha, WIN * 2.0);
                        d + k * (v - d)
                    }
                }
                // Not produced for this model (checked by the caller).
                Action::Bag | Action::Put { .. } => -WIN * 2.0,
            };
            if self.aborted {
                return None;
            }
            best = best.max(v);
            out.push((a, v));
        }
        Some(out)
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.aborted = true;
        }
        self.aborted
    }

    /// Whether a colour has no piece left (face-up, or possibly face-down).
    fn gone(&self, c: Colour) -> bool {
        if self.up[c.index()] > 0 {
            return false;
        }
        self.hidden == 0
            || self.pool[c.index() * 7..c.index() * 7 + 7]
                .iter()
                .all(|&n| n == 0)
    }

    /// The value of a finished game for `side`, if it is finished.
    fn terminal(&self, side: Colour, ply: u32) -> Option<f64> {
        if self.gone(side) {
            Some(-WIN + f64::from(ply))
        } else if self.gone(side.other()) {
            Some(WIN - f64::from(ply))
        } else {
            None
        }
    }

    fn take_buf(&mut self, ply: u32) -> Vec<Action> {
        let i = ply as usize;
        if self.bufs.len() <= i {
            self.bufs.resize_with(i + 1, Vec::new);
        }
        let mut b = std::mem::take(&mut self.bufs[i]);
        b.clear();
        b
    }

    fn give_buf(&mut self, ply: u32, b: Vec<Action>) {
        self.bufs[ply as usize] = b;
    }

    /// The legal actions of `side` (the chaining piece's captures during a chain).
    fn generate(&self, side: Colour, chain: Option<Cell>, out: &mut Vec<Action>) {
        PublicState {
            variant: self.v,
            board: &self.board,
            control: Control::Colour(side),
            hand: None,
            chain,
            bag_has_pieces: false,
        }
        .for_each_legal(|a, _| out.push(a));
    }

    /// Captures only (from the chaining piece, or from every piece of `side`).
    fn generate_captures(&self, side: Colour, chain: Option<Cell>, out: &mut Vec<Action>) {
        let (t, r) = (&self.v.topology, &self.v.capture);
        match chain {
            Some(c) => self
                .board
                .for_each_move_from(t, r, c, true, |a, _| out.push(a)),
            None => {
                for (c, sq) in self.board.squares().iter().enumerate() {
                    if matches!(sq, Square::Up(p) if p.colour == side) {
                        self.board
                            .for_each_move_from(t, r, c, true, |a, _| out.push(a));
                    }
                }
            }
        }
    }

    /// Ordering key, smaller first: captures by most valuable victim then least valuable
    /// attacker, then reveals next to action, then the rest.
    fn order_key(&self, a: &Action) -> i32 {
        match *a {
            Action::Move { from, to } => match (self.board.get(to), self.board.get(from)) {
                (Square::Up(t), Square::Up(m)) => {
                    -1000 - 8 * self.values[t.kind.index()] + self.values[m.kind.index()]
                }
                _ => 10,
            },
            Action::Reveal(_) => 0,
            _ => 20,
        }
    }

    /// Whether a reveal at `cell` cannot take part in a capture next ply, whatever it shows.
    fn is_quiet_reveal(&self, cell: Cell) -> bool {
        let t = &self.v.topology;
        if t.neighbours(cell)
            .iter()
            .any(|&n| matches!(self.board.get(n), Square::Up(_)))
        {
            return false;
        }
        if !self.v.capture.cannon_jump {
            return true;
        }
        t.rays(cell).iter().all(|ray| {
            let mut occupied = ray.iter().filter(|&&c| self.board.get(c) != Square::Empty);
            let _screen = occupied.next();
            !matches!(occupied.next(), Some(&c) if matches!(self.board.get(c), Square::Up(_)))
        })
    }

    /// The depth searched after a reveal. Below the root a reveal costs two plies: chance nodes
    /// multiply the tree by the number of distinct face-down pieces, and deep reveals matter
    /// least.
    fn reveal_child_depth(depth: u32, ply: u32) -> u32 {
        if ply == 0 {
            depth - 1
        } else {
            depth.saturating_sub(1 + REVEAL_REDUCTION)
        }
    }

    /// Expected value for `side` of revealing `cell`, searching `depth - 1` plies after it.
    fn chance(&mut self, side: Colour, cell: Cell, depth: u32, ply: u32) -> f64 {
        if self.pool_total == 0 {
            // The pool is off (a position shown alone counts captured pieces as face-down, and
            // a missed prompt hides a reveal): treat as a pass.
            return -self.negamax(
                side.other(),
                None,
                depth - 1,
                ply + 1,
                -WIN * 2.0,
                WIN * 2.0,
            );
        }
        let child_depth = Search::reveal_child_depth(depth, ply);
        let total = f64::from(self.pool_total);
        let mut sum = 0.0;
        self.hidden -= 1;
        self.pool_total -= 1;
        for i in 0..14 {
            let n = self.pool[i];
            if n == 0 {
                continue;
            }
            let p = piece_at_index(i);
            self.board.set(cell, Square::Up(p));
            self.pool[i] -= 1;
            self.up[p.colour.index()] += 1;
            let v = -self.negamax(
                side.other(),
                None,
                child_depth,
                ply + 1,
                -WIN * 2.0,
                WIN * 2.0,
            );
            self.up[p.colour.index()] -= 1;
            self.pool[i] += 1;
            sum += f64::from(n) / total * v;
            if self.aborted {
                break;
            }
        }
        self.board.set(cell, Square::Hidden);
        self.hidden += 1;
        self.pool_total += 1;
        sum
    }

    /// Plays a move of `side` and returns its value for `side` (searching `depth - 1` more).
    #[allow(clippy::too_many_arguments)]
    fn after_move(
        &mut self,
        side: Colour,
        from: Cell,
        to: Cell,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        let (mover, target) = (self.board.get(from), self.board.get(to));
        self.board.set(to, mover);
        self.board.set(from, Square::Empty);
        let captured = match target {
            Square::Up(t) => {
                self.capture(t, ply, 1.0);
                true
            }
            _ => false,
        };
        let v = if !captured && ply == 1 && self.repeats_for_root() {
            // The opponent's reply completes a repetition: a draw, which it is glad of.
            CONTEMPT
        } else if captured && self.v.chain_capture && self.can_capture_from(to) {
            // The same side must go on capturing with this piece.
            self.negamax(side, Some(to), depth - 1, ply + 1, alpha, beta)
        } else {
            -self.negamax(side.other(), None, depth - 1, ply + 1, -beta, -alpha)
        };
        if let Square::Up(t) = target {
            self.capture(t, ply, -1.0);
        }
        self.board.set(from, mover);
        self.board.set(to, target);
        v
    }

    /// Books (`sign` 1) or unbooks (-1) the capture of `t` at `ply`: the piece count, and the
    /// capturer's urgency bonus, larger the sooner the capture (so a sure gain is taken now
    /// rather than later).
    fn capture(&mut self, t: Piece, ply: u32, sign: f64) {
        let i = t.colour.index();
        if sign > 0.0 {
            self.up[i] -= 1;
        } else {
            self.up[i] += 1;
        }
        self.urgency[1 - i] +=
            sign * CAPTURE_URGENCY * f64::from(self.values[t.kind.index()]) / f64::from(ply + 1);
    }

    /// For a root move: 1 when it leads to a new position; `1 - seen / count` when to one
    /// seen before (so its value is pulled towards a draw); 0 when it completes the repetition
    /// count (a draw).
    fn repetition_factor(&mut self, from: Cell, to: Cell) -> f64 {
        let Some(seen_positions) = self.seen else {
            return 1.0;
        };
        if self.board.get(to) != Square::Empty {
            return 1.0;
        }
        let mover = self.board.get(from);
        self.board.set(to, mover);
        self.board.set(from, Square::Empty);
        let SeenPositions {
            history,
            count: n,
            after_ours,
            ..
        } = seen_positions;
        let seen = history.occurrences(&self.board, after_ours);
        self.board.set(from, mover);
        self.board.set(to, Square::Empty);
        if seen + 1 >= n {
            0.0
        } else {
            1.0 - f64::from(seen) / f64::from(n)
        }
    }

    /// Whether the current board, with the root's side to move, would complete a repetition.
    fn repeats_for_root(&self) -> bool {
        self.seen
            .is_some_and(|s| s.history.occurrences(&self.board, s.after_reply) + 1 >= s.count)
    }

    fn can_capture_from(&self, cell: Cell) -> bool {
        let mut any = false;
        self.board
            .for_each_move_from(&self.v.topology, &self.v.capture, cell, true, |_, _| {
                any = true
            });
        any
    }

    /// Value for `side`, to move (during a chain: the chaining piece must capture).
    fn negamax(
        &mut self,
        side: Colour,
        chain: Option<Cell>,
        depth: u32,
        ply: u32,
        mut alpha: f64,
        beta: f64,
    ) -> f64 {
        if self.tick() {
            return 0.0;
        }
        if let Some(t) = self.terminal(side, ply) {
            return t;
        }
        if let Some(t) = self.probe(side, chain, ply) {
            return t;
        }
        if depth == 0 {
            return self.quiesce(side, chain, ply, alpha, beta, QUIESCENCE_PLIES);
        }
        let mut acts = self.take_buf(ply);
        self.generate(side, chain, &mut acts);
        if acts.is_empty() {
            self.give_buf(ply, acts);
            return -WIN + f64::from(ply);
        }
        acts.sort_by_key(|a| self.order_key(a));
        let mut best = -WIN * 2.0;
        let mut quiet_done = false;
        let horizon = Search::reveal_child_depth(depth, ply) == 0;
        let mut pass_done = false;
        for &a in &acts {
            let v = match a {
                Action::Reveal(_) if horizon => {
                    // At the horizon every reveal is valued as a pass (see the module docs).
                    if pass_done {
                        continue;
                    }
                    pass_done = true;
                    -self.negamax(side.other(), None, 0, ply + 1, -beta, -alpha)
                }
                Action::Reveal(c) => {
                    if self.is_quiet_reveal(c) {
                        if quiet_done {
                            continue;
                        }
                        quiet_done = true;
                    }
                    self.chance(side, c, depth, ply)
                }
                Action::Move { from, to } => {
                    self.after_move(side, from, to, depth, ply, alpha, beta)
                }
                Action::Bag | Action::Put { .. } => continue,
            };
            if self.aborted {
                break;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        self.give_buf(ply, acts);
        best
    }

    /// Capture-only search with stand-pat (none during a chain: the piece must capture).
    fn quiesce(
        &mut self,
        side: Colour,
        chain: Option<Cell>,
        ply: u32,
        mut alpha: f64,
        beta: f64,
        left: u32,
    ) -> f64 {
        if self.tick() {
            return 0.0;
        }
        if let Some(t) = self.terminal(side, ply) {
            return t;
        }
        if let Some(t) = self.probe(side, chain, ply) {
            return t;
        }
        let stand = self.evaluate(side);
        if left == 0 {
            return stand;
        }
        let mut best = -WIN * 2.0;
        if chain.is_none() {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        let mut caps = self.take_buf(ply);
        self.generate_captures(side, chain, &mut caps);
        if caps.is_empty() {
            self.give_buf(ply, caps);
            return stand;
        }
        caps.sort_by_key(|a| self.order_key(a));
        for &a in &caps {
            let Action::Move { from, to } = a else {
                continue;
            };
            let (mover, target) = (self.board.get(from), self.board.get(to));
            let Square::Up(t) = target else { continue };
            self.board.set(to, mover);
            self.board.set(from, Square::Empty);
            self.capture(t, ply, 1.0);
            let v = if self.v.chain_capture && self.can_capture_from(to) {
                self.quiesce(side, Some(to), ply + 1, alpha, beta, left - 1)
            } else {
                -self.quiesce(side.other(), None, ply + 1, -beta, -alpha, left - 1)
            };
            self.capture(t, ply, -1.0);
            self.board.set(from, mover);
            self.board.set(to, target);
            if self.aborted {
                break;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        self.give_buf(ply, caps);
        best
    }

    /// Static value for `side`: material (with the pool's expected share of the face-down
    /// pieces) and mobility.
    fn evaluate(&self, side: Colour) -> f64 {
        let (t, r) = (&self.v.topology, &self.v.capture);
        let mut material = [0.0f64; 2];
        let mut mobility = [0i32; 2];
        for (c, sq) in self.board.squares().iter().enumerate() {
            if let Square::Up(p) = *sq {
                let i = p.colour.index();
                material[i] += f64::from(self.values[p.kind.index()]);
                self.board
                    .for_each_move_from(t, r, c, false, |_, _| mobility[i] += 1);
            }
        }
        if self.hidden > 0 && self.pool_total > 0 {
            let scale = f64::from(self.hidden) / f64::from(self.pool_total);
            for (i, &n) in self.pool.iter().enumerate() {
                if n > 0 {
                    material[i / 7] += scale * f64::from(n) * f64::from(self.values[i % 7]);
                }
            }
        }
        let (me, them) = (side.index(), side.other().index());
        material[me] - material[them]
            + MOBILITY * f64::from(mobility[me] - mobility[them])
            + self.urgency[me]
            - self.urgency[them]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::testing::{play_local, rows, Scene};

    fn choose(scene: &Scene, depth: u32, seed: u64) -> Action {
        SearchBot::with_depth(seed, depth).choose(&scene.view())
    }

    /// The tables of a guard against a pawn (and the other way round), for `variant`.
    fn guard_and_pawn_tables(variant: &str) -> Arc<Tables> {
        use anqi_core::tables::{build_pair, Material, TableRules};
        let v = Arc::new(Variant::shipped(variant).unwrap());
        let rules = TableRules::new(v).unwrap();
        let m = Material::parse("Gp").unwrap();
        let built = build_pair(&rules, m, &Default::default());
        Arc::new(Tables::in_memory(rules, 2, built))
    }

    #[test]
    fn plays_a_position_the_tables_hold_from_them_and_ignores_tables_of_other_rules() {
        let b = rows(["G.......", "........", "........", ".......p"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        let tables = guard_and_pawn_tables("traditional");
        let value = tables.probe(&s.board, Colour::Red).unwrap().unwrap();
        let mut bot = SearchBot::new(1)
            .with_comments()
            .with_tables(tables.clone());
        let chosen = bot.choose(&s.view());
        // The move keeps the position's value: the position it leads to is worth it to red.
        let mut next = s.board.clone();
        let Action::Move { from, to } = chosen else {
            panic!("{chosen}")
        };
        next.set(to, next.get(from));
        next.set(from, Square::Empty);
        let after = tables
            .probe(&next, Colour::Black)
            .unwrap()
            .unwrap()
            .before();
        assert_eq!(after, value, "{chosen}");
        assert_eq!(bot.comment(), Some(format!("tables: {}", value.text())));
        // Tables of other capture rules hold another game: the bot searches.
        let mut other = SearchBot::new(1)
            .with_comments()
            .with_tables(guard_and_pawn_tables("cannon-step"));
        other.choose(&s.view());
        assert!(
            other.comment().unwrap().starts_with("depth "),
            "{:?}",
            other.comment()
        );
    }

    #[test]
    fn takes_the_king_over_a_pawn() {
        let b = rows(["Pk......", "........", "Gp......", "........"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        assert_eq!(choose(&s, 3, 1), Action::Move { from: 0, to: 1 });
    }

    #[test]
    fn sees_a_cannon_capture_two_plies_deep() {
        // Red cannon at 25, black guard at 0, boxed in by face-down pieces. No capture now; the
        // cannon's only move, to 24, lines it up with the guard over the face-down 8, and black
        // cannot stop the jump: the search plays it, then jumps.
        let b = rows(["gXXXXXXX", "XXXXXXXX", ".XXXXXXX", ".CXXXXXX"]);
        let mut s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        assert!(!s
            .legal
            .iter()
            .any(|a| matches!(a, Action::Move { to: 0, .. })));
        // Greedy, one ply deep, does not see it coming (it reveals instead).
        for seed in 0..5 {
            let a = crate::bots::GreedyBot::new(seed).choose(&s.view());
            assert!(matches!(a, Action::Reveal(_)), "{a}");
        }
        let mut bot = SearchBot::with_depth(1, 3);
        assert_eq!(bot.choose(&s.view()), Action::Move { from: 25, to: 24 });
        s.board.set(24, s.board.get(25));
        s.board.set(25, Square::Empty);
        s.board.set(
            31,
            Square::Up(anqi_core::rules::Piece::from_letter('p').unwrap()),
        );
        s.refresh();
        assert_eq!(bot.choose(&s.view()), Action::Move { from: 24, to: 0 });
    }

    #[test]
    fn does_not_walk_into_a_capture() {
        // Red rook at 10, black guard at 12. Moving to 11 hangs the rook.
        let b = rows(["XXXXXXXX", "XXR.g.XX", "XXXXXXXX", "XXXXXXXX"]);
        let s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        for seed in 0..5 {
            assert_ne!(choose(&s, 2, seed), Action::Move { from: 10, to: 11 });
        }
    }

    #[test]
    fn falls_back_to_greedy_where_the_model_does_not_apply() {
        let s = Scene::new(
            "single",
            &rows(["Gp......", "........", "........", "......XX"]),
            Control::Both,
        );
        let mut bot = SearchBot::new(1);
        assert_eq!(bot.choose(&s.view()), Action::Move { from: 0, to: 1 });
        assert!(bot.last_stats().fallback);
    }

    #[test]
    fn a_move_that_completes_a_repetition_is_a_draw() {
        // Red is a rook behind (a black rook at 16): the quiet king moves are all worth less
        // than a draw, except one back to a position the history has seen twice, which draws.
        let b = rows(["K.......", "........", "r.......", ".......k"]);
        let mut s = Scene::new("traditional", &b, Control::Colour(Colour::Red));
        let mut bot = SearchBot::with_depth(1, 2);
        let fresh = bot.evaluate(&s.view()).unwrap();
        let value = |values: &[(Action, f64)], a: Action| {
            values
                .iter()
                .find(|(b, _)| *b == a)
                .map(|(_, v)| *v)
                .unwrap()
        };
        let right = Action::Move { from: 0, to: 1 };
        assert!(value(&fresh, right) < -CONTEMPT, "behind: {fresh:?}");
        // The position after the king's step to 1, with black to move, occurred twice.
        let mut after = s.board.clone();
        after.set(1, after.get(0));
        after.set(0, Square::Empty);
        let mut facts = History::of_position(&s.variant, &s.board, None, 1);
        facts = with_occurrences(facts, &after, 1, 2);
        s.history = facts;
        let repeated = bot.evaluate(&s.view()).unwrap();
        assert_eq!(value(&repeated, right), -CONTEMPT, "{repeated:?}");
    }

    /// `history` with the position (`board`, `place`) seen `n` times.
    fn with_occurrences(history: History, board: &Board, place: usize, n: u32) -> History {
        let mut h = history;
        h.set_occurrences(board, place, n);
        h
    }

    /// A search bot that logs the time and statistics of each of its moves.
    struct Timed(SearchBot, Vec<(std::time::Duration, SearchStats)>);

    impl Bot for Timed {
        fn choose(&mut self, view: &View<'_>) -> Action {
            let t = std::time::Instant::now();
            let a = self.0.choose(view);
            self.1.push((t.elapsed(), self.0.last_stats()));
            a
        }
    }

    /// Plays whole games between search bots (one per seat) on the rules core, no server;
    /// returns the per-move times and statistics.
    fn self_play(variant: &str, games: u64, depth: u32) -> Vec<(std::time::Duration, SearchStats)> {
        let seats = Variant::shipped(variant).unwrap().players as u64;
        let mut times = Vec::new();
        for g in 0..games {
            let mut bots: Vec<Timed> = (0..seats)
                .map(|s| Timed(SearchBot::with_depth(g * 100 + s, depth), Vec::new()))
                .collect();
            let mut seated: Vec<&mut dyn Bot> =
                bots.iter_mut().map(|b| b as &mut dyn Bot).collect();
            play_local(variant, g, &mut seated, |_, _| {});
            for b in bots {
                times.extend(b.1);
            }
        }
        times
    }

    #[test]
    fn plays_legal_games_on_the_rules_core() {
        let times = self_play("traditional", 1, 2);
        assert!(times.len() > 20);
        let times = self_play("chain-capture", 1, 2);
        assert!(times.len() > 20);
    }

    /// `cargo test --release -p anqi-client -- --ignored --nocapture search_timing`
    #[test]
    #[ignore]
    fn search_timing() {
        for (variant, depth) in [
            ("traditional", 2),
            ("traditional", 3),
            ("traditional", 4),
            ("2v2-8x16", 3),
        ] {
            let times = self_play(variant, 4, depth);
            let searched: Vec<_> = times.iter().filter(|(_, s)| s.depth > 0).collect();
            let total: std::time::Duration = searched.iter().map(|(t, _)| *t).sum();
            let max = searched.iter().map(|(t, _)| *t).max().unwrap();
            let nodes: u64 = searched.iter().map(|(_, s)| s.nodes).sum();
            let max_nodes = searched.iter().map(|(_, s)| s.nodes).max().unwrap();
            let cut = searched.iter().filter(|(_, s)| s.depth < depth).count();
            println!(
                "{variant} depth {depth}: {} searched moves, mean {:?}, max {:?}, mean nodes {}, max nodes {max_nodes}, budget-limited {cut}",
                searched.len(),
                total / searched.len() as u32,
                max,
                nodes / searched.len() as u64,
            );
        }
    }
}
