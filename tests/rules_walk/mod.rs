//! A walk through one game with checks at every step: the invariants of the rules core, stated
//! once for two drivers that choose the steps differently, the property tests
//! (`tests/integration/rules_properties.rs`, proptest) and the `rules` fuzz target
//! (`fuzz/fuzz_targets/rules.rs`, libFuzzer, which includes this file by path).
//!
//! Invariants, checked after every step:
//! - the game accepts an action exactly when it is in the list of legal actions of the player
//!   to move (and the game is not over); `check` agrees with `play`;
//! - a refused action leaves the game unchanged (board, wire board, player to move, round, ply,
//!   hand, bag, counts, remaining pieces, colours, outcome, legal actions);
//! - an accepted action did what it says (the piece moved, the revealed, captured or drawn piece
//!   is the one the board shows or showed) and counts as one ply;
//! - the legal action counts equal the legal actions counted by kind, with no action listed
//!   twice;
//! - every piece is somewhere: on the board (face-up or down), in the bag or in hand;
//! - the game ends only through its own rules (nobody here resigns or runs out of time), for a
//!   reason the position shows, and a game that is not over has legal actions.
#![allow(dead_code)]

use anqi_core::rules::{
    Action, ActionCounts, ActionKind, Board, Colour, Game, Objective, Outcome, Piece, Played,
    SeedInputs, Square, Termination, Variant, SHIPPED,
};
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

/// The shipped variants, parsed once.
pub fn shipped() -> &'static [(&'static str, Arc<Variant>)] {
    static VARIANTS: OnceLock<Vec<(&'static str, Arc<Variant>)>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        SHIPPED
            .iter()
            .map(|(name, text)| {
                let v = Variant::parse(text)
                    .unwrap_or_else(|e| panic!("shipped variant {name} does not parse: {e}"));
                (*name, Arc::new(v))
            })
            .collect()
    })
}

/// The seed contributions of a walk: one per seat and the server's, from one number.
pub fn seeds(variant: &Variant, seed: u64) -> SeedInputs {
    SeedInputs {
        clients: (1..=variant.players)
            .map(|p| format!("{seed:x}-{p}"))
            .collect(),
        server: format!("{seed}"),
    }
}

/// One step: someone tries an action.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub who: Who,
    pub choice: Choice,
}

/// Who tries the action.
#[derive(Clone, Copy, Debug)]
pub enum Who {
    /// The player to move.
    Mover,
    /// Player `n % (players + 2)`: 0 and `players + 1` are no seat at all.
    Seat(u8),
}

/// Which action.
#[derive(Clone, Copy, Debug)]
pub enum Choice {
    /// Legal action number `n % count` (skipped when there is none).
    Listed(usize),
    /// Any action, legal or not.
    Raw(RawAction),
}

/// An action with raw numbers, mapped onto the board by [`RawAction::action`].
#[derive(Clone, Copy, Debug)]
pub enum RawAction {
    Reveal(u16),
    Move(u16, u16),
    Bag,
    Put(u8, u16),
}

const LETTERS: [char; 14] = [
    'K', 'G', 'B', 'R', 'N', 'C', 'P', 'k', 'g', 'b', 'r', 'n', 'c', 'p',
];

impl RawAction {
    /// The action on a board of `size` cells: cells are taken modulo `size + 2` (so a few are
    /// just out of range), except the top 16 values, which stand for the largest cell numbers.
    pub fn action(self, size: usize) -> Action {
        let cell = |raw: u16| match raw {
            0xfff0.. => usize::MAX - usize::from(raw & 0xf),
            _ => usize::from(raw) % (size + 2),
        };
        match self {
            RawAction::Reveal(c) => Action::Reveal(cell(c)),
            RawAction::Move(a, b) => Action::Move {
                from: cell(a),
                to: cell(b),
            },
            RawAction::Bag => Action::Bag,
            RawAction::Put(p, c) => Action::Put {
                piece: Piece::from_letter(LETTERS[usize::from(p) % LETTERS.len()])
                    .expect("a piece letter"),
                cell: cell(c),
            },
        }
    }
}

/// What a walk did.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Actions accepted.
    pub plies: u32,
    /// Actions refused.
    pub refused: u32,
    pub outcome: Option<Outcome>,
}

/// Everything observable about a game, to tell whether a refusal changed it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Snapshot {
    board: Board,
    wire_board: String,
    to_move: usize,
    round: u32,
    ply: u32,
    hand: Option<Piece>,
    bag_len: usize,
    counts: ActionCounts,
    remaining: [u32; 2],
    colours: Vec<Option<Colour>>,
    outcome: Option<Outcome>,
    legal: Vec<Action>,
}

impl Snapshot {
    /// The snapshot of `game`, whose legal actions are `legal`.
    fn of(game: &Game, legal: Vec<Action>) -> Snapshot {
        Snapshot {
            board: game.board().clone(),
            wire_board: game.wire_board(),
            to_move: game.to_move(),
            round: game.round(),
            ply: game.ply(),
            hand: game.hand(),
            bag_len: game.bag_len(),
            counts: game.counts(),
            remaining: Colour::ALL.map(|c| game.remaining(c)),
            colours: (0..game.variant().sides.len())
                .map(|s| game.colour_of_side(s))
                .collect(),
            outcome: game.outcome(),
            legal,
        }
    }
}

/// The legal actions of the player to move, with their kinds.
fn listed(game: &Game) -> (Vec<Action>, Vec<ActionKind>) {
    let mut actions = Vec::new();
    let mut kinds = Vec::new();
    game.for_each_legal(|a, k| {
        actions.push(a);
        kinds.push(k);
    });
    (actions, kinds)
}

/// Plays `steps` on a fresh game of `variant` dealt from `seeds`, checking every invariant
/// (panics on the first broken one). Stops a few steps after the game ends.
pub fn walk(
    variant: &Arc<Variant>,
    seeds: &SeedInputs,
    steps: impl IntoIterator<Item = Step>,
) -> Walk {
    let mut game = Game::new(variant.clone(), seeds.deal_for(variant));
    let size = variant.topology.size();
    let mut walk = Walk::default();
    let mut tries_after_end = 0;
    // The legal actions are listed once per step: the fuzzer's speed depends on it.
    let (mut legal, mut kinds) = listed(&game);
    check_state(&game, &legal, &kinds);
    for step in steps {
        if game.outcome().is_some() {
            // A few tries show that a finished game refuses everything; more show nothing new.
            tries_after_end += 1;
            if tries_after_end > 4 {
                break;
            }
        }
        let player = match step.who {
            Who::Mover => game.to_move(),
            Who::Seat(n) => usize::from(n) % (variant.players + 2),
        };
        let action = match step.choice {
            Choice::Listed(_) if legal.is_empty() => continue,
            Choice::Listed(n) => legal[n % legal.len()],
            Choice::Raw(raw) => raw.action(size),
        };
        let position = legal.iter().position(|&a| a == action);
        let expected = game.outcome().is_none() && player == game.to_move() && position.is_some();
        let before = game.clone();
        let checked = game.check(player, action);
        match game.play(player, action) {
            Ok(played) => {
                assert!(
                    expected,
                    "{action} by player {player} was accepted but is not listed: {legal:?}"
                );
                let kind = kinds[position.expect("listed")];
                assert_eq!(played.kind, kind, "{action} is listed as a {kind:?}");
                assert_eq!(checked, Ok(kind), "check agrees with play on {action}");
                check_played(&before, &game, action, &played);
                walk.plies += 1;
                (legal, kinds) = listed(&game);
            }
            Err(e) => {
                assert!(
                    !expected,
                    "listed action {action} by player {player} was refused: {e}"
                );
                assert_eq!(
                    checked,
                    Err(e.clone()),
                    "check agrees with play on {action}"
                );
                let after = listed(&game);
                assert_eq!(
                    Snapshot::of(&game, after.0),
                    Snapshot::of(&before, legal.clone()),
                    "refusing {action} by player {player} ({e}) changed the game"
                );
                walk.refused += 1;
            }
        }
        check_state(&game, &legal, &kinds);
    }
    walk.outcome = game.outcome();
    walk
}

/// What an accepted action must have done.
fn check_played(before: &Game, game: &Game, action: Action, played: &Played) {
    assert_eq!(game.ply(), before.ply() + 1, "{action} is one ply");
    let board = game.board();
    let before_board = before.board();
    match action {
        Action::Reveal(cell) => {
            assert_eq!(before_board.get(cell), Square::Hidden);
            let piece = played.revealed.expect("a reveal turns up a piece");
            assert_eq!(
                board.get(cell),
                Square::Up(piece),
                "{action} shows its piece"
            );
        }
        Action::Move { from, to } => {
            let Square::Up(piece) = before_board.get(from) else {
                panic!("{action} moved from {:?}", before_board.get(from));
            };
            assert_eq!(board.get(to), Square::Up(piece), "{action} moved its piece");
            assert_eq!(board.get(from), Square::Empty, "{action} left its cell");
            let target = match before_board.get(to) {
                Square::Up(t) => Some(t),
                _ => None,
            };
            assert_eq!(
                played.captured, target,
                "{action} captured what stood there"
            );
            if let Some(t) = target {
                assert_eq!(game.remaining(t.colour), before.remaining(t.colour) - 1);
            }
        }
        Action::Bag => {
            assert_eq!(played.drawn, game.hand(), "the drawn piece is in hand");
            assert!(played.drawn.is_some());
            assert_eq!(game.bag_len() + 1, before.bag_len());
            assert_eq!(
                game.to_move(),
                before.to_move(),
                "the drawer puts the piece"
            );
        }
        Action::Put { piece, cell } => {
            assert_eq!(
                before.hand(),
                Some(piece),
                "{action} puts the piece in hand"
            );
            assert_eq!(board.get(cell), Square::Up(piece));
            assert_eq!(game.hand(), None);
        }
    }
}

/// What holds in every position; `legal` and `kinds` are its legal actions.
fn check_state(game: &Game, legal: &[Action], kinds: &[ActionKind]) {
    let variant = game.variant();
    let mut counts = ActionCounts::default();
    for &k in kinds {
        counts.add(k);
    }
    assert_eq!(counts, game.counts(), "the counts of {legal:?}");
    assert_eq!(
        legal.iter().collect::<HashSet<_>>().len(),
        legal.len(),
        "no action is listed twice: {legal:?}"
    );
    assert_eq!(game.wire_board().chars().count(), variant.topology.size());

    // Every piece is somewhere.
    let board = game.board();
    let mut up = [0u32; 2];
    let mut hidden = 0;
    for sq in board.squares() {
        match sq {
            Square::Up(p) => up[p.colour.index()] += 1,
            Square::Hidden => hidden += 1,
            Square::Empty => {}
        }
    }
    let hand = game.hand().map(|p| p.colour.index());
    let remaining = Colour::ALL.map(|c| game.remaining(c));
    for c in 0..2 {
        let seen = up[c] + u32::from(hand == Some(c));
        assert!(
            seen <= remaining[c],
            "{seen} pieces seen, {} remaining",
            remaining[c]
        );
    }
    assert_eq!(
        remaining[0] + remaining[1],
        up[0] + up[1] + hidden + game.bag_len() as u32 + u32::from(hand.is_some()),
        "remaining pieces are on the board, in the bag or in hand"
    );

    let side_colour = |side: usize| game.colour_of_side(side);
    let Some(outcome) = game.outcome() else {
        assert!(
            !legal.is_empty(),
            "a game that is not over has legal actions"
        );
        match variant.objective {
            Objective::Capture => {
                for side in 0..2 {
                    if let Some(c) = side_colour(side) {
                        assert!(game.remaining(c) > 0, "side {side} has no piece left");
                    }
                }
            }
            Objective::Clear { ply_cap } => {
                assert!(!remaining.contains(&0), "a colour is cleared");
                assert!(game.ply() < ply_cap, "past the ply cap");
            }
        }
        return;
    };
    let mover_side = game.side_of(game.to_move());
    let competitive = variant.objective == Objective::Capture;
    let expected_winner = match outcome.reason {
        Termination::CaptureAll => {
            assert!(competitive);
            let gone = (0..2)
                .find(|&s| side_colour(s).is_some_and(|c| game.remaining(c) == 0))
                .expect("capture-all: a side has no piece left");
            Some(1 - gone)
        }
        Termination::NoMoves => {
            assert!(legal.is_empty(), "no-moves, but {legal:?} are legal");
            competitive.then(|| 1 - mover_side)
        }
        Termination::Cleared => {
            assert!(!competitive && remaining.contains(&0));
            Some(0)
        }
        Termination::PlyCap => {
            let Objective::Clear { ply_cap } = variant.objective else {
                panic!("ply-cap ends only a clear game by the rules");
            };
            assert!(game.ply() >= ply_cap);
            None
        }
        Termination::NoProgress => {
            assert!(variant.draw.no_progress.is_some());
            None
        }
        Termination::Repetition => {
            assert!(variant.draw.repetition.is_some());
            None
        }
        other => panic!("the game ended by {other:?}, which is no rule of the game"),
    };
    assert_eq!(outcome.winner, expected_winner, "winner of {outcome:?}");
}
