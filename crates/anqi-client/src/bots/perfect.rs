//! The perfect player of a solved variant: every choice read from its solution file
//! (`anqi solve`, protocol/SOLVING.md).

use crate::bot::{Bot, View};
use anqi_core::rules::{
    Action, Colour, Control, DescriptionError, Game, Position, Square, Variant,
};
use anqi_core::solve::{children, file, Entry, Key, Scale, SolutionError};
use anqi_core::wire::{ServerClause, ServerMessage};
use std::collections::HashMap;
use std::sync::Arc;

/// Why a solution file does not make a perfect player ([`PerfectBot::from_file`]).
#[derive(Debug, thiserror::Error)]
pub enum SolutionFileError {
    /// The file does not read as a solution (see [`file::open`]).
    #[error("{path}: {source}")]
    Read { path: String, source: SolutionError },
    /// Its header's variant description does not parse.
    #[error("{path}: its variant: {source}")]
    Variant {
        path: String,
        source: DescriptionError,
    },
}

/// Why the perfect player does not play a game a server seated it in
/// ([`PerfectBot::check_setup`]): not the solution's variant, or a setup that cannot tell.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The server's `(variant ...)` does not parse.
    #[error("the server's (variant ...): {0}")]
    ServerVariant(DescriptionError),
    /// The server's rules are another variant's (`server`, its name cut short).
    #[error(
        "the server plays variant {server}, not the variant {solution} of the solution \
         (--solution): not played"
    )]
    OtherVariant { server: String, solution: String },
    /// The setup leaves out `clause`, without which the game cannot be told from another
    /// variant's.
    #[error(
        "the server sent neither its rules (the variant extension) nor {clause} in its setup: \
         the bot cannot tell whether the game is of the variant {solution} of the solution \
         (--solution): not played"
    )]
    CannotTell {
        clause: &'static str,
        solution: String,
    },
    /// What the setup tells (`what`) is `server`, where the solution's variant has `ours`
    /// (both cut short).
    #[error(
        "the server's setup is not of the variant {solution} of the solution (--solution): \
         {what} {server}, the solution's {ours}: not played"
    )]
    Differs {
        solution: String,
        what: &'static str,
        server: String,
        ours: String,
    },
    #[error("the server's setup seats this player as {id} of {players}")]
    Seat { id: usize, players: usize },
}

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
    ///
    /// # Errors
    /// The file does not read as a solution, or its variant does not parse.
    pub fn from_file(path: &str) -> Result<PerfectBot, SolutionFileError> {
        let (header, table) =
            file::open(std::path::Path::new(path)).map_err(|source| SolutionFileError::Read {
                path: path.to_string(),
                source,
            })?;
        let variant =
            Variant::parse(&header.variant).map_err(|source| SolutionFileError::Variant {
                path: path.to_string(),
                source,
            })?;
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

    /// Whether the game a server seated this player in is of the solution's variant, from its
    /// setup message; `Err` ([`SetupError`]) says why it is not played (before any move)
    /// otherwise.
    ///
    /// With the `variant` extension the setup carries the server's rules: they must be the
    /// solution's ([`PerfectBot::solves`]). Without it (a server without extensions, or one
    /// that did not grant it), what the setup does tell must be the solution's: the game type,
    /// the players and this seat's team, the board (its cells, steps and cannon jumps) and the
    /// pieces. A setup that leaves one of them out cannot be told from another variant's, and
    /// is refused too. Returns `Ok(true)` when the server described its rules, `Ok(false)`
    /// when only the setup was compared: what it does not carry (capture ranks and their
    /// exceptions, chains, the draw rules) is then the solution's by assumption.
    pub fn check_setup(&self, setup: &ServerMessage) -> Result<bool, SetupError> {
        let mine = &self.variant;
        let description = setup.0.iter().find_map(|c| match c {
            ServerClause::Variant(text) => Some(text),
            _ => None,
        });
        if let Some(text) = description {
            let played = Variant::parse(text).map_err(SetupError::ServerVariant)?;
            if !self.solves(&played) {
                return Err(SetupError::OtherVariant {
                    server: anqi_core::tables::clip(&played.name, 60),
                    solution: mine.name.clone(),
                });
            }
            return Ok(true);
        }
        let told = Told::read(setup);
        let cannot_tell = |clause: &'static str| SetupError::CannotTell {
            clause,
            solution: mine.name.clone(),
        };
        let differs = |what: &'static str, server: String, ours: String| SetupError::Differs {
            solution: mine.name.clone(),
            what,
            server: anqi_core::tables::clip(&server, 60),
            ours: anqi_core::tables::clip(&ours, 60),
        };
        let id = told.id.ok_or_else(|| cannot_tell("(id ...)"))?;
        // The paper's protocol has two players, and no (players ...).
        let players = told.players.unwrap_or(2);
        if players != mine.players {
            return Err(differs(
                "its players are",
                players.to_string(),
                mine.players.to_string(),
            ));
        }
        if !(1..=players).contains(&id) {
            return Err(SetupError::Seat { id, players });
        }
        let game = told.game.ok_or_else(|| cannot_tell("(game ...)"))?;
        if game != mine.game_type {
            return Err(differs("its game is", game, mine.game_type.clone()));
        }
        let pieces = told.pieces.ok_or_else(|| cannot_tell("(pieces ...)"))?;
        if sorted(pieces.chars()) != sorted(mine.pieces_wire().chars()) {
            return Err(differs("its pieces are", pieces, mine.pieces_wire()));
        }
        let t = &mine.topology;
        let size = told.size.ok_or_else(|| cannot_tell("(size ...)"))?;
        if size != t.size() {
            return Err(differs(
                "its board has cells:",
                size.to_string(),
                t.size().to_string(),
            ));
        }
        // Sets: another server may list the same steps and jumps in another order.
        let moves = told.moves.ok_or_else(|| cannot_tell("(moves ...)"))?;
        if sorted(moves.iter().copied()) != sorted(t.moves().iter().copied()) {
            return Err(differs(
                "its steps (moves ...) are",
                format!("{moves:?}"),
                format!("{:?}", t.moves()),
            ));
        }
        let jumps = told.jumps.ok_or_else(|| cannot_tell("(jumps ...)"))?;
        if sorted(jumps.iter().copied()) != sorted(t.wire_jumps()) {
            return Err(differs(
                "its cannon jumps are",
                format!("{jumps:?}"),
                format!("{:?}", t.wire_jumps()),
            ));
        }
        let side = mine.side_of(id);
        let team = mine
            .has_teams()
            .then(|| anqi_core::record::wire_team(mine, id));
        let mates = sorted(mine.sides[side].iter().copied().filter(|&p| p != id));
        if told.team != team || sorted(told.teammates.iter().copied()) != mates {
            return Err(differs(
                "this seat's team and teammates are",
                format!("{:?} {:?}", told.team, told.teammates),
                format!("{team:?} {mates:?}"),
            ));
        }
        Ok(false)
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

/// What a setup message tells of the game, clause by clause (`None`: not sent).
#[derive(Default)]
struct Told {
    id: Option<usize>,
    players: Option<usize>,
    team: Option<usize>,
    teammates: Vec<usize>,
    game: Option<String>,
    pieces: Option<String>,
    size: Option<usize>,
    moves: Option<Vec<(usize, usize)>>,
    jumps: Option<Vec<(usize, usize, usize)>>,
}

impl Told {
    fn read(setup: &ServerMessage) -> Told {
        let mut told = Told::default();
        for clause in &setup.0 {
            match clause {
                ServerClause::Id(n) => told.id = Some(*n),
                ServerClause::Players(n) => told.players = Some(*n),
                ServerClause::Team(t) => told.team = Some(*t),
                ServerClause::Teammate(m) => told.teammates.push(*m),
                ServerClause::Game(g) => told.game = Some(g.clone()),
                ServerClause::Pieces(p) => told.pieces = Some(p.clone()),
                ServerClause::Size(n) => told.size = Some(*n),
                ServerClause::Moves(m) => told.moves = Some(m.clone()),
                ServerClause::Jumps(j) => told.jumps = Some(j.clone()),
                _ => {}
            }
        }
        told
    }
}

/// The items in order, to compare lists as sets (with their repeats).
fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.sort_unstable();
    v
}

impl Bot for PerfectBot {
    fn choose(&mut self, view: &View<'_>) -> Action {
        // The game was checked before it was played (`check_setup`); this guards a caller
        // that tracks the game by other rules than the solution's.
        let chosen = if self.solves(view.variant) {
            self.game_of(view).and_then(|game| {
                children::best_action(self.scale, &self.table, &game).map_err(|e| e.to_string())
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A perfect player of the shipped `name` (an empty table: only its variant matters here).
    fn player(name: &str) -> PerfectBot {
        PerfectBot::new(
            Arc::new(Variant::load(name).unwrap()),
            Scale { denominator: 1 },
            Arc::new(HashMap::new()),
        )
    }

    /// The setup the server sends `id` in a game of `name` to a client that asked for no
    /// extension (so without its rules), as the server's referee writes it, with `(revs)`
    /// left out.
    fn setup(name: &str, id: usize) -> Vec<ServerClause> {
        let v = Variant::load(name).unwrap();
        let mut out = vec![ServerClause::Id(id), ServerClause::Players(v.players)];
        if v.has_teams() {
            out.push(ServerClause::Team(anqi_core::record::wire_team(&v, id)));
            let side = v.side_of(id);
            out.extend(
                v.sides[side]
                    .iter()
                    .filter(|&&p| p != id)
                    .map(|&p| ServerClause::Teammate(p)),
            );
        }
        out.extend(ServerClause::variant_setup(&v));
        out
    }

    fn check(bot: &PerfectBot, clauses: Vec<ServerClause>) -> Result<bool, String> {
        bot.check_setup(&ServerMessage(clauses))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn without_the_servers_rules_the_setup_is_compared_with_the_solutions_variant() {
        let bot = player("traditional-2x4");
        assert_eq!(check(&bot, setup("traditional-2x4", 2)), Ok(false));
        // The same steps listed in another order are the same board.
        let mut reordered = setup("traditional-2x4", 1);
        for c in &mut reordered {
            if let ServerClause::Moves(m) = c {
                m.reverse();
            }
        }
        assert_eq!(check(&bot, reordered), Ok(false));
        // Another board, other pieces, another game type, another number of players.
        let err = check(&bot, setup("traditional", 1)).unwrap_err();
        assert!(err.contains("its pieces are"), "{err}");
        let err = check(&bot, setup("strategic-2x4", 1)).unwrap_err();
        assert!(err.contains("its game is strategic"), "{err}");
        let mut bigger = setup("traditional-2x4", 1);
        bigger.retain(|c| !matches!(c, ServerClause::Size(_)));
        bigger.push(ServerClause::Size(9));
        let err = check(&bot, bigger).unwrap_err();
        assert!(
            err.contains("its board has cells: 9, the solution's 8"),
            "{err}"
        );
        let err = check(&bot, setup("2v2", 1)).unwrap_err();
        assert!(err.contains("its players are 4, the solution's 2"), "{err}");
        assert!(err.contains("not played"), "{err}");
    }

    #[test]
    fn a_setup_that_leaves_out_what_it_must_tell_is_refused() {
        let bot = player("traditional-2x4");
        for left_out in ["pieces", "size", "moves", "jumps", "game", "id"] {
            let clauses: Vec<ServerClause> = setup("traditional-2x4", 1)
                .into_iter()
                .filter(|c| !c.to_string().starts_with(&format!("({left_out}")))
                .collect();
            let err = check(&bot, clauses).unwrap_err();
            assert!(
                err.contains(&format!("nor ({left_out} ...)")) && err.contains("cannot tell"),
                "{left_out}: {err}"
            );
        }
        // The paper's protocol sends no (players ...): two players.
        let mut paper = setup("traditional-2x4", 1);
        paper.retain(|c| !matches!(c, ServerClause::Players(_)));
        assert_eq!(check(&bot, paper), Ok(false));
    }

    #[test]
    fn a_team_games_seat_is_compared_too() {
        let bot = player("2v2");
        assert_eq!(check(&bot, setup("2v2", 3)), Ok(false));
        let mut wrong = setup("2v2", 3);
        for c in &mut wrong {
            if let ServerClause::Teammate(m) = c {
                *m = 2;
            }
        }
        let err = check(&bot, wrong).unwrap_err();
        assert!(err.contains("this seat's team and teammates"), "{err}");
    }

    #[test]
    fn the_servers_rules_when_sent_must_be_the_solutions() {
        let bot = player("traditional-2x4");
        let described = |name: &str| {
            let mut s = setup("traditional-2x4", 1);
            s.push(ServerClause::Variant(
                Variant::load(name).unwrap().public_description(),
            ));
            s
        };
        assert_eq!(check(&bot, described("traditional-2x4")), Ok(true));
        let err = check(&bot, described("traditional")).unwrap_err();
        assert!(
            err.contains("the server plays variant traditional, not the variant traditional-2x4"),
            "{err}"
        );
    }
}
