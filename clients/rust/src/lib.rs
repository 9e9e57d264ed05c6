//! A client library for the anqi server, for bot authors.
//!
//! [`Connection`] speaks the wire protocol (framing, typed messages); [`play_game`] runs one
//! whole game for any [`Bot`]: it answers the handshake, builds the board topology from the
//! setup message, tracks colours from the boards it receives, and asks the bot for an action
//! whenever the server sends `(turn ...)`.
//!
//! ```no_run
//! use anqi_client::{play_game, RandomBot};
//! # async fn run() -> anyhow::Result<()> {
//! let result = play_game("127.0.0.1:7700", "my_bot", "42", &mut RandomBot::new(42)).await?;
//! println!("(win {} {}), I was player {}", result.win.0, result.win.1, result.me);
//! # Ok(()) }
//! ```

use anqi::rules::{Action, Board, CaptureRules, Colour, Square, Topology};
use anqi::wire::{
    ClientClause, ClientMessage, ErrorCode, FrameLimits, FrameScanner, ServerClause, ServerMessage,
};
use anyhow::{anyhow, bail, Context, Result};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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
            .with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            scanner: FrameScanner::new(FrameLimits {
                max_bytes: 1 << 24,
                max_depth: 16,
            }),
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
                let frame = frame.map_err(|e| anyhow!("bad frame from server: {e}"))?;
                return Ok(Some(
                    ServerMessage::parse(&frame)
                        .map_err(|e| anyhow!("bad message from server: {}", e.text))?,
                ));
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
    pub game: String,
    pub pieces: String,
    pub topology: Topology,
}

impl Setup {
    fn from_message(msg: &ServerMessage) -> Result<Setup> {
        let (mut id, mut players, mut game, mut size, mut pieces) = (None, None, None, None, None);
        let (mut moves, mut jumps) = (None, None);
        for clause in &msg.0 {
            match clause {
                ServerClause::Id(n) => id = Some(*n),
                ServerClause::Players(n) => players = Some(*n),
                ServerClause::Game(g) => game = Some(g.clone()),
                ServerClause::Size(n) => size = Some(*n),
                ServerClause::Pieces(p) => pieces = Some(p.clone()),
                ServerClause::Moves(m) => moves = Some(m.clone()),
                ServerClause::Jumps(j) => jumps = Some(j.clone()),
                _ => {}
            }
        }
        let size = size.ok_or_else(|| anyhow!("setup without (size ...)"))?;
        let topology =
            Topology::from_wire(size, moves.unwrap_or_default(), &jumps.unwrap_or_default())
                .map_err(|e| anyhow!("setup topology: {e}"))?;
        Ok(Setup {
            id: id.ok_or_else(|| anyhow!("setup without (id ...)"))?,
            players: players.unwrap_or(2),
            game: game.unwrap_or_default(),
            pieces: pieces.unwrap_or_default(),
            topology,
        })
    }
}

/// Everything a bot sees when it must act.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub setup: &'a Setup,
    pub board: &'a Board,
    /// The colour this player owns, once decided.
    pub colour: Option<Colour>,
    /// The paper's TURN counter.
    pub turn: u32,
    /// Every legal action (computed with the standard capture rules).
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
        let n = view.legal.len() as u64;
        view.legal[(self.rng.next_u64() % n) as usize]
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

/// Connects, plays one game with `bot`, and returns the result.
///
/// # Errors
/// When the connection fails, the server closes it without a result, or a message makes no
/// sense.
pub async fn play_game<B: Bot + ?Sized>(
    addr: &str,
    name: &str,
    seed: &str,
    bot: &mut B,
) -> Result<GameResult> {
    let mut conn = Connection::connect(addr).await?;
    play_on(&mut conn, name, seed, bot).await
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
) -> Result<GameResult> {
    conn.send(&ClientMessage(vec![ClientClause::Init {
        name: name.to_string(),
        seed: seed.to_string(),
    }]))
    .await?;
    let rules = CaptureRules::standard();
    let mut setup: Option<Setup> = None;
    let mut errors = Vec::new();
    // Colour of each side (player id - 1), learnt from the first reveal each side makes.
    let mut colours: [Option<Colour>; 2] = [None; 2];
    // The last board seen and who was to move on it.
    let mut last: Option<(Board, usize)> = None;
    loop {
        let Some(msg) = conn.recv().await? else {
            bail!("the server closed the connection before the end of the game");
        };
        let mut board = None;
        let mut turn = None;
        for clause in &msg.0 {
            match clause {
                ServerClause::Version(_) => {}
                ServerClause::Id(_) => setup = Some(Setup::from_message(&msg)?),
                ServerClause::Board(b) => {
                    board = Some(Board::parse(b).map_err(|e| anyhow!("bad board: {e}"))?)
                }
                ServerClause::Turn(t, id) => turn = Some((*t, *id, true)),
                ServerClause::Info(t, id) => turn = Some((*t, *id, false)),
                ServerClause::Win(p, t) => {
                    let me = setup.as_ref().map_or(0, |s| s.id);
                    return Ok(GameResult {
                        me,
                        win: (*p, *t),
                        errors,
                    });
                }
                ServerClause::Error(code, text) => errors.push((*code, text.clone())),
                _ => {}
            }
        }
        let (Some(board), Some((round, mover, my_turn))) = (board, turn) else {
            continue;
        };
        if let Some((prev, prev_mover)) = &last {
            learn_colours(prev, &board, *prev_mover, &mut colours);
        }
        last = Some((board.clone(), mover));
        if !my_turn {
            continue;
        }
        let setup = setup
            .as_ref()
            .context("(turn ...) before the setup message")?;
        let colour = colours.get(setup.id - 1).copied().flatten();
        let legal = board.legal_actions(&setup.topology, &rules, colour);
        if legal.is_empty() {
            bail!("asked to move with no legal action on {board}");
        }
        let view = View {
            setup,
            board: &board,
            colour,
            turn: round,
            legal: &legal,
        };
        let action = bot.choose(&view);
        let clause = match action {
            Action::Reveal(c) => ClientClause::Rev(c),
            Action::Move { from, to } => ClientClause::Mov(from, to),
        };
        conn.send(&ClientMessage(vec![
            ClientClause::Board(board.to_wire()),
            clause,
        ]))
        .await?;
    }
}

/// Colours are decided by the first reveal: when a face-down cell turns up a piece on the ply of
/// `mover`, and no colour is known yet, that piece's colour is the mover's.
fn learn_colours(prev: &Board, now: &Board, mover: usize, colours: &mut [Option<Colour>; 2]) {
    if colours.iter().any(|c| c.is_some()) || prev.len() != now.len() || !(1..=2).contains(&mover) {
        return;
    }
    for (a, b) in prev.squares().iter().zip(now.squares()) {
        if let (Square::Hidden, Square::Up(p)) = (a, b) {
            colours[mover - 1] = Some(p.colour);
            colours[2 - mover] = Some(p.colour.other());
            return;
        }
    }
}
