//! The perfect player of a solved variant: every choice read from its solution file
//! (`anqi solve`, protocol/SOLVING.md).

use crate::bot::{Bot, View};
use anqi_core::rules::{Action, Colour, Control, Game, Position, Square, Variant};
use anqi_core::solve::{children, file, Entry, Key, Scale};
use std::collections::HashMap;
use std::sync::Arc;

/// Plays a solved variant perfectly: the action of the best value for its side (an exact
/// expectation over what reveals may turn up), and among those worth the same, the one that
/// keeps play from going round a cycle when the value favours it (see
/// [`children::best_action`]). The solution's semantics hold: quiet play forever is a draw,
/// and the referee's no-progress limit may draw a win that needs more quiet plies than are
/// left (protocol/SOLVING.md).
pub struct PerfectBot {
    variant: Arc<Variant>,
    scale: Scale,
    table: Arc<HashMap<Key, Entry>>,
    /// The value of the position of its last choice, for the comment.
    last: Option<(u64, u16)>,
    comments: bool,
}

impl PerfectBot {
    /// The perfect player of the solution file at `path` (its header names the variant),
    /// read and checked as `anqi solve --verify` reads it (its header, its states' order).
    pub fn from_file(path: &str) -> Result<PerfectBot, String> {
        let (header, table) =
            file::open(std::path::Path::new(path)).map_err(|e| format!("{path}: {e}"))?;
        let variant =
            Variant::parse(&header.variant).map_err(|e| format!("{path}: its variant: {e}"))?;
        Ok(PerfectBot::new(
            Arc::new(variant),
            Scale {
                denominator: header.denominator,
            },
            Arc::new(table),
        ))
    }

    /// The perfect player of `variant` by `table`, values over `scale`.
    pub fn new(variant: Arc<Variant>, scale: Scale, table: Arc<HashMap<Key, Entry>>) -> PerfectBot {
        PerfectBot {
            variant,
            scale,
            table,
            last: None,
            comments: false,
        }
    }

    /// Says the exact value of each position it plays from (`value 31/80 plies 0`).
    pub fn with_comments(mut self) -> PerfectBot {
        self.comments = true;
        self
    }

    /// The solved variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Whether the solution is of `variant`: the same description (rules, board, pieces, draw
    /// rules), as players see it.
    pub fn solves(&self, variant: &Variant) -> bool {
        std::ptr::eq(variant, &*self.variant)
            || variant.public_description() == self.variant.public_description()
    }

    /// The scale of the table's values.
    pub fn scale(&self) -> Scale {
        self.scale
    }

    /// The table, shared (another player of the same solution need not read the file again).
    pub fn table(&self) -> Arc<HashMap<Key, Entry>> {
        self.table.clone()
    }

    /// The game the view shows, rebuilt for the table: the board, the unseen pieces, the
    /// mover's place in the turn order and the colours.
    fn game_of(&self, view: &View<'_>) -> Result<Game, String> {
        let me = view.setup.id;
        let side = self.variant.side_of(me);
        let side0 = match view.control {
            Control::Colour(c) if side == 0 => Some(c),
            Control::Colour(c) => Some(c.other()),
            _ => None,
        };
        let squares: Vec<Square> = view.board.squares().to_vec();
        let mut face_down = Vec::new();
        for (i, &n) in view.history.pool().iter().enumerate() {
            face_down.extend(std::iter::repeat_n(
                crate::history::piece_at_index(i),
                n as usize,
            ));
        }
        let position = Position {
            squares,
            face_down,
            turn_place: view.history.turn_place(),
            side_colours: vec![side0, side0.map(Colour::other)],
        };
        Game::from_position(self.variant.clone(), &position).map_err(|e| e.0)
    }
}

impl Bot for PerfectBot {
    fn choose(&mut self, view: &View<'_>) -> Action {
        let chosen = if self.solves(view.variant) {
            self.game_of(view)
                .and_then(|game| children::best_action(self.scale, &self.table, &game))
        } else {
            Err(format!(
                "the game is of variant {}, the solution of variant {}",
                view.variant.name, self.variant.name
            ))
        };
        match chosen {
            Ok(Some(best)) if view.legal.contains(&best.action) => {
                self.last = Some((best.value, best.quiet.map_or(0, |e| e.plies)));
                best.action
            }
            other => {
                // Not a position of the solution (another variant, a position the table does
                // not hold): say so, and play the first legal action rather than nothing.
                eprintln!("perfect_bot: no solved choice here ({other:?}); playing the first legal action");
                self.last = None;
                view.legal[0]
            }
        }
    }

    fn comments(&self) -> bool {
        self.comments
    }

    fn comment(&self) -> Option<String> {
        let (value, plies) = self.last?;
        let (n, d) = self.scale.fraction(value);
        Some(format!("value {n}/{d} plies {plies}"))
    }
}
