//! The setup message: who this client is in the game, and the board it is played on.

use crate::error::{protocol, ClientError, Result};
use anqi_core::rules::{
    CaptureRules, ColourRule, Objective, Piece, Start, Topology, Variant, MAX_PLAYERS,
};
use anqi_core::wire::{Extension, Extensions, ServerClause, ServerMessage};

/// What the setup message says.
#[derive(Clone, Debug)]
pub struct Setup {
    /// This client's player id, `(id ID)`.
    pub id: usize,
    /// The number of players, `(players N)` (2 when the server leaves it out).
    pub players: usize,
    /// `(team T)`, in team games.
    pub team: Option<usize>,
    /// `(teammate ID)` clauses.
    pub teammates: Vec<usize>,
    /// The game type, `(game TYPE)`.
    pub game: String,
    /// The pieces of the game, `(pieces STRING)`.
    pub pieces: String,
    /// The board: its cells, moves and cannon jumps (`(size ...)`, `(moves ...)`, `(jumps ...)`).
    pub topology: Topology,
    /// The variant's description, when the server sent it (the `variant` extension).
    pub description: Option<String>,
    /// The extensions the server granted (`(ext NAME ...)`; none from a server without them or
    /// a client that asked for none).
    pub extensions: Extensions,
    /// This player's time control, `(timecontrol GAME_MS INCREMENT_MS MOVE_MS PERIOD_MOVES)`
    /// (0 = none), when the server sent it (the `clock` extension).
    pub time_control: Option<[u64; 4]>,
}

impl Setup {
    pub(crate) fn from_message(msg: &ServerMessage) -> Result<Setup> {
        let (mut id, mut players, mut game, mut size, mut pieces) = (None, None, None, None, None);
        let (mut moves, mut jumps, mut team, mut teammates) = (None, None, None, Vec::new());
        let (mut description, mut extensions, mut time_control) = (None, Extensions::NONE, None);
        for clause in &msg.0 {
            match clause {
                ServerClause::Id(n) => id = Some(*n),
                ServerClause::Players(n) => players = Some(*n),
                ServerClause::Team(t) => team = Some(*t),
                ServerClause::Teammate(m) => teammates.push(*m),
                ServerClause::Game(g) => game = Some(g.clone()),
                ServerClause::Size(n) => size = Some(*n),
                ServerClause::Pieces(p) => pieces = Some(p.clone()),
                ServerClause::Moves(m) => moves = Some(m.clone()),
                ServerClause::Jumps(j) => jumps = Some(j.clone()),
                ServerClause::Variant(text) => description = Some(text.clone()),
                // Names this client does not know are left out: it reads no clause of theirs.
                ServerClause::Ext(names) => {
                    extensions = names
                        .iter()
                        .filter_map(|n| Extension::from_name(n))
                        .collect()
                }
                ServerClause::TimeControl(tc) => time_control = Some(*tc),
                _ => {}
            }
        }
        let Some(size) = size else {
            return protocol("setup without (size ...)");
        };
        let players = players.unwrap_or(2);
        if !(1..=MAX_PLAYERS).contains(&players) {
            return protocol(format!(
                "a setup for {players} players (1 to {MAX_PLAYERS})"
            ));
        }
        let topology =
            Topology::from_wire(size, moves.unwrap_or_default(), &jumps.unwrap_or_default())
                .map_err(|e| ClientError::Protocol(format!("setup topology: {e}")))?;
        Ok(Setup {
            id: id.ok_or_else(|| ClientError::Protocol("setup without (id ...)".into()))?,
            players,
            team,
            teammates,
            game: game.unwrap_or_default(),
            pieces: pieces.unwrap_or_default(),
            topology,
            description,
            extensions,
            time_control,
        })
    }

    /// The setup the server sends `player` in a game of `variant`, with the variant's public
    /// description (what the `variant` extension adds; the other extensions are not granted).
    /// `player` must be a seat of the game.
    pub fn of_seat(variant: &Variant, player: usize) -> Setup {
        let side = variant.side_of(player);
        Setup {
            id: player,
            players: variant.players,
            // The wire's team numbers: the side counted from 1, in team games only.
            team: variant.has_teams().then_some(side + 1),
            teammates: variant.sides[side]
                .iter()
                .copied()
                .filter(|&p| p != player)
                .collect(),
            game: variant.game_type.clone(),
            pieces: variant.pieces_wire(),
            topology: variant.topology.clone(),
            description: (!variant.source.is_empty()).then(|| variant.public_description()),
            extensions: if variant.source.is_empty() {
                Extensions::NONE
            } else {
                [Extension::Variant].into_iter().collect()
            },
            time_control: None,
        }
    }

    /// Whether `player` plays on this client's side.
    pub fn is_ally(&self, player: usize) -> bool {
        player == self.id || self.teammates.contains(&player)
    }

    /// The rules to assume when the bot was given no variant: the standard capture rules, with
    /// the game type deciding the rest (`strategic`: a bag game; `single` and `cooperative`:
    /// every player moves both colours).
    pub fn default_variant(&self) -> Result<Variant> {
        let pieces = Piece::parse_list(&self.pieces)
            .map_err(|e| ClientError::Protocol(format!("setup pieces: {e}")))?;
        let start = if self.game.starts_with("strategic") {
            Start::Bag
        } else {
            Start::FaceDown
        };
        let objective = if self.game == "single" || self.game == "cooperative" {
            Objective::Clear { ply_cap: u32::MAX }
        } else {
            Objective::Capture
        };
        let sides = if matches!(objective, Objective::Clear { .. }) {
            vec![(1..=self.players).collect()]
        } else {
            // This client's team and everyone else (the setup names only its own teammates).
            let mine: Vec<usize> = std::iter::once(self.id)
                .chain(self.teammates.iter().copied())
                .collect();
            let others: Vec<usize> = (1..=self.players).filter(|p| !mine.contains(p)).collect();
            let (mut mine, others) = (mine, others);
            mine.sort_unstable();
            if mine.contains(&1) {
                vec![mine, others]
            } else {
                vec![others, mine]
            }
        };
        Ok(Variant {
            name: self.game.clone(),
            summary: String::new(),
            game_type: self.game.clone(),
            topology: self.topology.clone(),
            pieces,
            capture: CaptureRules::standard(),
            players: self.players,
            order: anqi_core::rules::default_order(&sides),
            sides,
            start,
            colours: ColourRule::FirstReveal,
            objective,
            chain_capture: false,
            clock: Default::default(),
            draw: Default::default(),
            source: String::new(),
        })
    }
}
