//! A client library for the anqi server, for bot authors.
//!
//! [`Connection`] speaks the wire protocol (framing, typed messages); [`play_game`] runs one
//! whole game for any [`Bot`]: it answers the handshake, builds the board topology from the
//! setup message, tracks colours from the boards it receives, and asks the bot for an action
//! whenever the server sends `(turn ...)`. The tracking is a [`Tracker`], which does no I/O:
//! other transports (a blocking socket, the Python package) drive the same state machine.
//!
//! ```no_run
//! use anqi_client::{play_game, RandomBot};
//! # async fn run() -> Result<(), anqi_client::ClientError> {
//! let result = play_game("127.0.0.1:7700", "my_bot", "42", &mut RandomBot::new(42), None).await?;
//! println!("(win {} {}), I was player {}", result.win.0, result.win.1, result.me);
//! # Ok(()) }
//! ```

use anqi_core::rules::{
    Action, Board, CaptureRules, ColourRule, Control, Objective, Piece, Start, Topology, Variant,
    MAX_PLAYERS,
};
use anqi_core::wire::{ClientMessage, ErrorCode, FrameScanner, ServerClause, ServerMessage};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
pub mod bots;
pub mod tracker;

pub use tracker::{Event, Observation, Tracker};

/// What went wrong talking to the server. Callers branch on the kind: a refused connection is
/// worth retrying, a closed one carries the server's last word, a protocol error is a bug.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: String,
        source: std::io::Error,
    },
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    /// The server closed the connection; the last error it had sent, if any (`busy`, ...).
    #[error("the server closed the connection {when}{}", last_error(last))]
    Closed {
        when: &'static str,
        last: Option<(ErrorCode, String)>,
    },
    /// A message from the server that this client cannot make sense of.
    #[error("{0}")]
    Protocol(String),
}

/// The result of the client's calls.
pub type Result<T> = std::result::Result<T, ClientError>;

fn protocol<T>(text: impl Into<String>) -> Result<T> {
    Err(ClientError::Protocol(text.into()))
}

/// A framed connection to the server.
pub struct Connection {
    stream: TcpStream,
    scanner: FrameScanner,
    chunk: Vec<u8>,
}

impl Connection {
    /// Connects to `addr` (`HOST:PORT`).
    ///
    /// # Errors
    /// When the connection cannot be made.
    pub async fn connect(addr: &str) -> Result<Connection> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|source| ClientError::Connect {
                addr: addr.to_string(),
                source,
            })?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            scanner: FrameScanner::new(tracker::SERVER_FRAME_LIMITS),
            chunk: vec![0; 16 * 1024],
        })
    }

    /// The next message from the server; `None` when it closed the connection.
    ///
    /// # Errors
    /// On I/O errors or a message that does not parse.
    pub async fn recv(&mut self) -> Result<Option<ServerMessage>> {
        loop {
            if let Some(frame) = self.scanner.next_frame() {
                let frame = frame
                    .map_err(|e| ClientError::Protocol(format!("bad frame from server: {e}")))?;
                return Ok(Some(ServerMessage::parse(&frame).map_err(|e| {
                    ClientError::Protocol(format!("bad message from server: {}", e.text))
                })?));
            }
            let n = self.stream.read(&mut self.chunk).await?;
            if n == 0 {
                return Ok(None);
            }
            self.scanner.push(&self.chunk[..n]);
        }
    }

    /// Sends one message.
    ///
    /// # Errors
    /// On I/O errors.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<()> {
        let mut line = msg.to_string();
        line.push('\n');
        self.stream.write_all(line.as_bytes()).await?;
        Ok(())
    }
}

/// What the setup message says.
#[derive(Clone, Debug)]
pub struct Setup {
    pub id: usize,
    pub players: usize,
    /// `(team T)`, in team games.
    pub team: Option<usize>,
    /// `(teammate ID)` clauses.
    pub teammates: Vec<usize>,
    pub game: String,
    pub pieces: String,
    pub topology: Topology,
    /// The variant's description, when the server sent it (the `variant` extension).
    pub description: Option<String>,
}

impl Setup {
    fn from_message(msg: &ServerMessage) -> Result<Setup> {
        let (mut id, mut players, mut game, mut size, mut pieces) = (None, None, None, None, None);
        let (mut moves, mut jumps, mut team, mut teammates) = (None, None, None, Vec::new());
        let mut description = None;
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
        })
    }

    /// The setup the server sends `player` in a game of `variant`, with the variant's public
    /// description (what the `variant` extension adds). `player` must be a seat of the game.
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

/// Everything a bot sees when it must act.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub setup: &'a Setup,
    /// The rules this client plays by.
    pub variant: &'a Variant,
    pub board: &'a Board,
    /// What this player may move.
    pub control: Control,
    /// The piece drawn from the bag, which must be put now.
    pub hand: Option<Piece>,
    /// The paper's TURN counter.
    pub turn: u32,
    /// Every legal action.
    pub legal: &'a [Action],
}

/// A bot: given what it sees, choose an action.
pub trait Bot {
    fn choose(&mut self, view: &View<'_>) -> Action;
}

/// Picks uniformly among the legal actions, from its own seeded generator.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, view: &View<'_>) -> Action {
        // Rejection sampling: no modulo bias.
        let n = view.legal.len() as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.rng.next_u64();
            if x < zone {
                return view.legal[(x % n) as usize];
            }
        }
    }
}

/// How a game ended for this client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// This client's player id.
    pub me: usize,
    /// The `(win PLAYER TEAM)` values.
    pub win: (usize, usize),
    /// Error replies received during the game.
    pub errors: Vec<(ErrorCode, String)>,
}

/// Connects, plays one game with `bot`, and returns the result. `variant` gives the exact
/// rules; without it the client takes the description the server sends (the `variant`
/// extension), or else assumes [`Setup::default_variant`].
///
/// # Errors
/// When the connection fails, the server closes it without a result, or a message makes no
/// sense.
pub async fn play_game<B: Bot + ?Sized>(
    addr: &str,
    name: &str,
    seed: &str,
    bot: &mut B,
    variant: Option<&Variant>,
) -> Result<GameResult> {
    let mut conn = Connection::connect(addr).await?;
    play_on(&mut conn, name, seed, bot, variant).await
}

/// Plays one game on an open connection (handshake included).
///
/// # Errors
/// As [`play_game`].
pub async fn play_on<B: Bot + ?Sized>(
    conn: &mut Connection,
    name: &str,
    seed: &str,
    bot: &mut B,
    variant: Option<&Variant>,
) -> Result<GameResult> {
    let seated = join(conn, name, seed).await?;
    play_seated(conn, seated, bot, variant).await
}

/// A client the server has seated in a game: the setup message has arrived.
#[derive(Clone, Debug)]
pub struct Seated {
    /// The setup message (`(id ...)`, `(players ...)`, the board topology ...).
    pub setup: ServerMessage,
    /// Error replies received during the handshake.
    pub errors: Vec<(ErrorCode, String)>,
}

/// Asks for the `variant` protocol extension, then sends `(init NAME SEED)` and waits until
/// the server seats this client in a game (its setup message arrives). With the extension the
/// setup message carries the variant's description, so the client knows the exact rules
/// without being told (a server without extensions answers the request with an `unknown`
/// error, which is kept in [`Seated::errors`], and seats the client all the same).
///
/// The server seats clients once their `init` is complete, in the order their connections were
/// accepted: to fix who plays whom, join the seats of one game before connecting the next
/// game's clients.
///
/// # Errors
/// When the connection fails or the server closes it first (the last error it sent, such as
/// `busy`, is in the message).
pub async fn join(conn: &mut Connection, name: &str, seed: &str) -> Result<Seated> {
    // Its own message, before init: a server that does not know (ext ...) refuses only that.
    for msg in tracker::hello(name, seed) {
        conn.send(&msg).await?;
    }
    let mut errors = Vec::new();
    loop {
        let Some(msg) = conn.recv().await? else {
            return Err(ClientError::Closed {
                when: "before seating this client",
                last: errors.pop(),
            });
        };
        for clause in &msg.0 {
            if let ServerClause::Error(code, text) = clause {
                errors.push((*code, text.clone()));
            }
        }
        if msg.0.iter().any(|c| matches!(c, ServerClause::Id(_))) {
            return Ok(Seated { setup: msg, errors });
        }
    }
}

/// ` (last error: ...)` when there was one, for messages about a closed connection.
fn last_error(last: &Option<(ErrorCode, String)>) -> String {
    last.as_ref()
        .map(|(code, text)| format!(" (last error: {} {text:?})", code.name()))
        .unwrap_or_default()
}

/// Plays the game a [`join`]ed client was seated in, to its end.
///
/// # Errors
/// As [`play_game`].
pub async fn play_seated<B: Bot + ?Sized>(
    conn: &mut Connection,
    seated: Seated,
    bot: &mut B,
    variant: Option<&Variant>,
) -> Result<GameResult> {
    let mut tracker = Tracker::new(variant.cloned()).with_errors(seated.errors);
    let mut next = Some(seated.setup);
    loop {
        let msg = match next.take() {
            Some(setup) => setup,
            None => match conn.recv().await? {
                Some(msg) => msg,
                None => return Err(tracker.closed("before the end of the game")),
            },
        };
        match tracker.feed(&msg)? {
            Event::Nothing => {}
            Event::Over(result) => return Ok(result),
            Event::Prompt => {
                let view = tracker.view().expect("a prompt awaits its answer");
                let action = bot.choose(&view);
                let reply = tracker.reply(action);
                conn.send(&reply).await?;
            }
        }
    }
}
