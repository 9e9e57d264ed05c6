//! The cdc-platform protocol: the client side of Jr-Chang Chen's CDC game platform (the
//! Computer Olympiad's), as its C++ client template speaks it (`Protocol.cpp`,
//! `ClientSocket.cpp`). `protocol/bridges/CDC-PLATFORM.md` describes it as anqi drives it.
//!
//! The engine is the TCP client: the bridge listens on 127.0.0.1:0, starts the engine with
//! `HOST PORT` (or fills `{host}`/`{port}` in its arguments) and waits for its connection.
//! Every message is a frame: two length bytes (`len % 128`, `len / 128`) then ASCII text.
//!
//! - bridge to engine, once: `/start CELLS(32),COUNTS(14),HISTORY,TIME` (the engine answers
//!   `/start`), then `/turn FIRST COLOUR` (the engine answers `/turn`);
//! - engine to bridge, on its turn: `/move SX SY DX DY` or `/flip X Y`;
//! - bridge to engine, after every ply (the engine's own included): `/move SX SY DX DY TIME`
//!   or `/flip X Y PIECE TIME`.
//!
//! There is no "your turn" message: an engine moves after the echo of its own ply and the
//! opponent's ply. There is no retry either: a refused answer cannot be asked again, so the
//! bridge resigns for the engine at the re-prompt. There is no end message and no quit: at
//! the end the bridge closes the socket, then stops the engine.

use super::error::BridgeError;
use super::session::{Answer, Event, Session};
use super::translator::{report, BridgeOptions, Translator};
use anqi_core::rules::{Board, Colour, ColourRule, Piece, Square};
use anqi_core::wire::LastPly;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, ChildStdout, Command};

/// The address the bridge listens on; the engine is given it as HOST.
pub const HOST: &str = "127.0.0.1";

/// The longest frame kept from an engine, in bytes of text (the template's own buffer size).
/// A longer frame is read to its end but only its first bytes are kept, so an engine cannot
/// make the bridge hold more; as an answer it is no move, and the bridge resigns for it.
pub const MAX_FRAME: usize = 1024;

/// The longest frame the two length bytes can announce (`127 + 127 * 128`).
pub const LONGEST_FRAME: usize = 16383;

/// The cell an off-board square maps to: the first number past the 32 cells, which the referee
/// refuses as it refuses any cell that is not on the board.
pub const OFF_BOARD: usize = 32;

/// Kept from the start of an over-long frame, for the log.
const KEPT_OF_LONG: usize = 80;

/// Bytes read from the socket at a time.
const CHUNK: usize = 4096;

/// What the bridge keeps back from the engine's clock for its own overhead (ms): the time the
/// engine is told is its clock minus this, or minus half the clock when that is less.
pub const SAFETY_MS: u64 = 1000;

/// The time an engine is told when the game has no clock at all: the platform's usual 15
/// minutes.
pub const NO_CLOCK_MS: u64 = 900_000;

/// After the socket is closed at the end, how long the engine has to exit by itself, and then
/// after SIGTERM, before it is killed.
const EXIT_GRACE: Duration = Duration::from_millis(300);
const TERM_GRACE: Duration = Duration::from_secs(1);

/// The longest line of the engine's stdout kept for the log (the rest is skipped).
const MAX_NOISE_LINE: usize = 4096;

/// One line on stderr in one write: the engine shares stderr with the bridge, and a line
/// written in pieces could be cut by one of the engine's.
macro_rules! log {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut line = format!($($arg)*);
        line.push('\n');
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

// ---------------------------------------------------------------------------------------------
// The coordinate map

/// The platform's square of anqi cell `cell` (0..32): `X` is the file (0..3, `a`..`d` in the
/// template's notation), `Y` the rank minus one (0..7). anqi's row is the file and anqi's
/// column counts the ranks down from the top: X = row, Y = 7 - column.
pub fn xy(cell: usize) -> (usize, usize) {
    debug_assert!(cell < 32, "cell {cell} is off the 4x8 board");
    (cell / 8, 7 - cell % 8)
}

/// The anqi cell of the platform's square (X, Y); [`OFF_BOARD`] when X is not 0..3 or Y not
/// 0..7 (`None` stands for a number too large to hold).
pub fn cell_of(x: Option<i64>, y: Option<i64>) -> usize {
    match (x, y) {
        (Some(x @ 0..=3), Some(y @ 0..=7)) => (x * 8 + 7 - y) as usize,
        _ => OFF_BOARD,
    }
}

/// Where anqi cell `cell` stands in the `/start` list of 32 cells: `4 * Y + X` (a1, b1, c1,
/// d1, a2, ...).
pub fn start_index(cell: usize) -> usize {
    let (x, y) = xy(cell);
    4 * y + x
}

/// The protocol's name for anqi cell `cell` on the 4x8 board: `X,Y`.
pub fn square_name(cell: usize) -> String {
    if cell < 32 {
        let (x, y) = xy(cell);
        format!("{x},{y}")
    } else {
        "off".into()
    }
}

/// The platform's code of a square: 0 empty, 1..7 red K G M R N C P, 8 face-down, 9..15 black
/// k g m r n c p (anqi's bishop `B` is the platform's `M`).
pub fn square_code(square: Square) -> u8 {
    match square {
        Square::Empty => 0,
        Square::Hidden => 8,
        Square::Up(p) => piece_code(p),
    }
}

/// The platform's code of a piece (1..7 red, 9..15 black).
pub fn piece_code(p: Piece) -> u8 {
    1 + p.kind.index() as u8 + 8 * p.colour.index() as u8
}

// ---------------------------------------------------------------------------------------------
// Messages

/// The face-down counts of the `/start` message, red K G M R N C P then black k g m r n c p:
/// every piece of the variant not shown face-up on `start` (no piece is captured before the
/// first ply).
pub fn start_counts(pieces: &[Piece], start: &Board) -> [u32; 14] {
    let mut counts = [0u32; 14];
    for p in pieces {
        counts[p.colour.index() * 7 + p.kind.index()] += 1;
    }
    for cell in 0..start.len() {
        if let Square::Up(p) = start.get(cell) {
            let n = &mut counts[p.colour.index() * 7 + p.kind.index()];
            *n = n.saturating_sub(1);
        }
    }
    counts
}

/// `/start CELLS,COUNTS,0,TIME`: the position before the first ply, an empty history, and the
/// engine's time in ms.
pub fn start_message(start: &Board, counts: &[u32; 14], time_ms: u64) -> String {
    let mut cells = [0u8; 32];
    for cell in 0..32 {
        cells[start_index(cell)] = square_code(start.get(cell));
    }
    let mut fields: Vec<String> = cells.iter().map(u8::to_string).collect();
    fields.extend(counts.iter().map(u32::to_string));
    fields.push("0".into());
    fields.push(time_ms.to_string());
    format!("/start {}", fields.join(","))
}

/// `/turn FIRST COLOUR`: FIRST 1 when the engine plays the first ply, COLOUR 0 red, 1 black,
/// 2 not decided yet.
pub fn turn_message(first: bool, colour: Option<Colour>) -> String {
    let c = match colour {
        Some(Colour::Red) => 0,
        Some(Colour::Black) => 1,
        None => 2,
    };
    format!("/turn {} {c}", u8::from(first))
}

/// The echo of a ply: `/flip X Y PIECE TIME` or `/move SX SY DX DY TIME`.
pub fn ply_message(ply: LastPly, time_ms: u64) -> Result<String, BridgeError> {
    match ply {
        LastPly::Rev(cell, letter) => {
            let piece = Piece::from_letter(letter).ok_or_else(|| {
                BridgeError::Server(format!("the server revealed an unknown piece {letter:?}"))
            })?;
            let (x, y) = checked_xy(cell)?;
            Ok(format!("/flip {x} {y} {} {time_ms}", piece_code(piece)))
        }
        LastPly::Mov(from, to) => {
            let (sx, sy) = checked_xy(from)?;
            let (dx, dy) = checked_xy(to)?;
            Ok(format!("/move {sx} {sy} {dx} {dy} {time_ms}"))
        }
        LastPly::Bag | LastPly::Put(..) => Err(BridgeError::Unplayable(
            "the cdc-platform protocol has no bag".into(),
        )),
    }
}

fn checked_xy(cell: usize) -> Result<(usize, usize), BridgeError> {
    if cell < 32 {
        Ok(xy(cell))
    } else {
        Err(BridgeError::Server(format!(
            "the server played cell {cell}, off the 4x8 board"
        )))
    }
}

/// Why an engine's frame is no move at all ([`parse_answer`]); the texts quote the frame
/// (without the NUL bytes and blanks around it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// A frame over [`MAX_FRAME`] bytes: its length and its first bytes.
    #[error("a {len}-byte frame, over the {MAX_FRAME}-byte limit: {head:?}...")]
    TooLong { len: usize, head: String },
    /// Neither `/move` nor `/flip`.
    #[error("not /move or /flip: {text:?}")]
    NotAMove { text: String },
    /// A coordinate that is not a whole number.
    #[error("{verb} with a coordinate that is not a number: {text:?}")]
    NotANumber { verb: &'static str, text: String },
    /// Fewer coordinates than the verb takes (`coords`: 4 for `/move`, 2 for `/flip`).
    #[error("{verb} needs {coords} numbers: {text:?}")]
    TooFewNumbers {
        verb: &'static str,
        coords: usize,
        text: String,
    },
}

/// The engine's answer as anqi's action: `/move SX SY DX DY` or `/flip X Y` (NUL bytes and
/// blanks around it ignored, fields past the coordinates ignored). Squares off the board map
/// to [`OFF_BOARD`]. `Err` is why it is no move at all.
pub fn parse_answer(frame: &Frame) -> Result<Answer, AnswerError> {
    let text = match frame {
        Frame::Text(t) => t,
        Frame::TooLong { len, head } => {
            return Err(AnswerError::TooLong {
                len: *len,
                head: head.clone(),
            })
        }
    };
    let text = text.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    let mut words = text.split_whitespace();
    let (verb, coords) = match words.next() {
        Some("/move") => ("/move", 4),
        Some("/flip") => ("/flip", 2),
        _ => {
            return Err(AnswerError::NotAMove {
                text: text.to_string(),
            })
        }
    };
    let numbers: Vec<Option<i64>> = words
        .take(coords)
        .map(coordinate)
        .collect::<Option<_>>()
        .ok_or_else(|| AnswerError::NotANumber {
            verb,
            text: text.to_string(),
        })?;
    if numbers.len() < coords {
        return Err(AnswerError::TooFewNumbers {
            verb,
            coords,
            text: text.to_string(),
        });
    }
    Ok(if verb == "/flip" {
        Answer::Reveal(cell_of(numbers[0], numbers[1]))
    } else {
        Answer::Move(
            cell_of(numbers[0], numbers[1]),
            cell_of(numbers[2], numbers[3]),
        )
    })
}

/// A whole number (`Some(None)` when it is too large for 64 bits); `None` when it is no number.
fn coordinate(word: &str) -> Option<Option<i64>> {
    let digits = word.strip_prefix(['-', '+']).unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(word.parse().ok())
}

/// The engine's time in ms: its game clock (or the per-move limit when that is shorter) less
/// the bridge's margin; [`NO_CLOCK_MS`] when the game has neither; at most `i32::MAX` (the
/// template reads it into an `int`).
pub fn engine_time_ms(session: &Session) -> u64 {
    let clock = session
        .has_game_clock()
        .then(|| session.clock_ms(session.me()));
    let limit = session.move_limit().map(|d| d.as_millis() as u64);
    let left = match (clock, limit) {
        (Some(c), Some(l)) => Some(c.min(l)),
        (c, l) => c.or(l),
    };
    left.map_or(NO_CLOCK_MS, with_margin).min(i32::MAX as u64)
}

/// `left` less the bridge's margin: [`SAFETY_MS`], or half of `left` when that is less.
pub fn with_margin(left: u64) -> u64 {
    left - SAFETY_MS.min(left / 2)
}

// ---------------------------------------------------------------------------------------------
// Framing

/// One frame from the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The text (bytes that are not UTF-8 shown as U+FFFD).
    Text(String),
    /// Longer than [`MAX_FRAME`]: its length and its first bytes.
    TooLong { len: usize, head: String },
}

/// A frame's two length bytes, `len % 128` then `len / 128`.
///
/// # Panics
/// When `len` is over [`LONGEST_FRAME`] (the bridge's own messages are far shorter).
pub fn frame_bytes(text: &str) -> Vec<u8> {
    let len = text.len();
    assert!(len <= LONGEST_FRAME, "a {len}-byte frame cannot be framed");
    let mut out = Vec::with_capacity(len + 2);
    out.push((len % 128) as u8);
    out.push((len / 128) as u8);
    out.extend_from_slice(text.as_bytes());
    out
}

/// A frame header whose length bytes are not `len % 128` and `len / 128` (a byte of 128 or
/// more): the stream cannot be read on ([`FrameReader::next_frame`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a frame header {lo} {hi}: the length bytes are len % 128 and len / 128")]
pub struct BadFrameHeader {
    pub lo: u8,
    pub hi: u8,
}

/// Cuts frames out of the bytes an engine sends, holding at most one frame of
/// [`MAX_FRAME`] bytes (plus what one read brings) whatever the engine sends.
#[derive(Debug, Default)]
pub struct FrameReader {
    /// Bytes received and not yet cut.
    buf: Vec<u8>,
    /// An over-long frame being skipped: its length, its first bytes, the bytes still to skip.
    long: Option<(usize, Vec<u8>, usize)>,
}

impl FrameReader {
    /// Takes bytes as they come.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, if the bytes so far hold one.
    ///
    /// # Errors
    /// A length byte of 128 or more: no client template writes one, and the stream cannot be
    /// read on from there.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, BadFrameHeader> {
        if let Some((len, head, left)) = &mut self.long {
            let n = (*left).min(self.buf.len());
            let room = KEPT_OF_LONG.saturating_sub(head.len()).min(n);
            head.extend_from_slice(&self.buf[..room]);
            self.buf.drain(..n);
            *left -= n;
            if *left > 0 {
                return Ok(None);
            }
            let len = *len;
            let head = String::from_utf8_lossy(head).into_owned();
            self.long = None;
            return Ok(Some(Frame::TooLong { len, head }));
        }
        if self.buf.len() < 2 {
            return Ok(None);
        }
        let (lo, hi) = (self.buf[0], self.buf[1]);
        if lo >= 128 || hi >= 128 {
            return Err(BadFrameHeader { lo, hi });
        }
        let len = lo as usize + 128 * hi as usize;
        if len > MAX_FRAME {
            self.buf.drain(..2);
            self.long = Some((len, Vec::new(), len));
            return self.next_frame();
        }
        if self.buf.len() < 2 + len {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&self.buf[2..2 + len]).into_owned();
        self.buf.drain(..2 + len);
        Ok(Some(Frame::Text(text)))
    }
}

/// The engine's connection.
struct Link {
    stream: TcpStream,
    reader: FrameReader,
    chunk: Vec<u8>,
    verbose: bool,
}

impl Link {
    async fn send(&mut self, text: &str) -> Result<(), BridgeError> {
        if self.verbose {
            log!("bridge> {text}");
        }
        self.stream
            .write_all(&frame_bytes(text))
            .await
            .map_err(|e| BridgeError::Engine(closed("writing to it", &e)))
    }

    /// The next frame. Cancel-safe: what was read stays in the reader.
    async fn recv(&mut self) -> Result<Frame, BridgeError> {
        loop {
            match self.reader.next_frame() {
                Ok(Some(frame)) => {
                    if self.verbose {
                        match &frame {
                            Frame::Text(t) => log!("bridge< {t}"),
                            Frame::TooLong { len, head } => {
                                log!("bridge< ({len} bytes) {head}...")
                            }
                        }
                    }
                    return Ok(frame);
                }
                Ok(None) => {}
                Err(e) => return Err(BridgeError::Engine(e.to_string())),
            }
            let n = self
                .stream
                .read(&mut self.chunk)
                .await
                .map_err(|e| BridgeError::Engine(closed("reading from it", &e)))?;
            if n == 0 {
                return Err(BridgeError::Engine(CLOSED.into()));
            }
            self.reader.push(&self.chunk[..n]);
        }
    }

    /// Waits up to `limit` for the frame `ack` (`/start`, `/turn`), logging any other.
    async fn expect_ack(&mut self, ack: &str, limit: Duration) -> Result<(), BridgeError> {
        let wait = async {
            loop {
                match self.recv().await? {
                    Frame::Text(t)
                        if t.trim_matches(|c: char| c == '\0' || c.is_whitespace()) == ack =>
                    {
                        return Ok(())
                    }
                    other => log!("engine: unexpected frame {other:?} (waiting for {ack})"),
                }
            }
        };
        tokio::time::timeout(limit, wait).await.map_err(|_| {
            BridgeError::SlowAck(format!(
                "the engine did not answer {ack} within {} ms",
                limit.as_millis()
            ))
        })?
    }
}

// ---------------------------------------------------------------------------------------------
// The engine

/// A running cdc-platform engine, connected to the bridge.
pub struct PlatformEngine {
    child: Child,
    /// The engine's own cgroup, where one could be made: dropped with the engine, it ends
    /// whatever the engine started (see `keeper`).
    _cgroup: Option<crate::process::cgroup::Cgroup>,
    link: Link,
    program: String,
    /// How long it has to answer `/start` and `/turn` ([`BridgeOptions::ack`]).
    ack: Duration,
}

/// What the bridge says when the engine's connection ends (a close, or a reset: the system's
/// "Connection reset by peer" says only that the engine went away); how the engine ended is
/// added when the bridge gives the game up ([`PlatformEngine::give_up`]).
const CLOSED: &str = "the engine closed its connection";

/// The error of a read or write on the engine's connection: [`CLOSED`], and the system's
/// words only where they say more than that (a reset, an abort or a broken pipe is the engine
/// gone with bytes unread: "Connection reset by peer" told organizers nothing).
fn closed(doing: &str, e: &std::io::Error) -> String {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset};
    match e.kind() {
        ConnectionReset | ConnectionAborted | BrokenPipe => CLOSED.into(),
        _ => format!("{CLOSED} ({doing}: {e})"),
    }
}

/// How long an engine whose connection ended is waited for, to say how it ended.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// The program and its arguments: `{host}` and `{port}` filled in where the arguments name
/// them, else `HOST PORT` appended.
pub fn engine_command(command: &[String], port: u16) -> Result<(String, Vec<String>), BridgeError> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| BridgeError::EngineStart("no engine command given".into()))?;
    let port = port.to_string();
    let placeholders = args
        .iter()
        .any(|a| a.contains("{host}") || a.contains("{port}"));
    let args = if placeholders {
        args.iter()
            .map(|a| a.replace("{host}", HOST).replace("{port}", &port))
            .collect()
    } else {
        let mut args = args.to_vec();
        args.push(HOST.into());
        args.push(port);
        args
    };
    Ok((program.clone(), args))
}

/// Copies the engine's stdout (not the protocol's channel) to stderr as `engine: ...` lines.
async fn log_stdout(mut out: ChildStdout) {
    let mut chunk = vec![0u8; CHUNK];
    let mut line = Vec::new();
    let mut noise = super::engine::Noise::default();
    loop {
        let n = match out.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                noise.line(String::from_utf8_lossy(&line).trim_end());
                line.clear();
            } else if line.len() < MAX_NOISE_LINE {
                line.push(b);
            }
        }
    }
    if !line.is_empty() {
        noise.line(String::from_utf8_lossy(&line).trim_end());
    }
}

impl PlatformEngine {
    /// The engine broke off: the bridge leaves the game (as every bridge does when its engine
    /// dies), and the referee rules on that; the reason is reported, with how the engine
    /// ended when its connection did (`killed by signal 9 (SIGKILL)`).
    async fn give_up(&mut self, error: BridgeError) -> Result<(), BridgeError> {
        let error = match error {
            BridgeError::Engine(why) if why.starts_with(CLOSED) => {
                let ended = match tokio::time::timeout(EXIT_WAIT, self.child.wait()).await {
                    Ok(Ok(status)) => {
                        format!("it {}", crate::process::exit::describe(&status))
                    }
                    Ok(Err(e)) => format!("its exit status is unknown: {e}"),
                    Err(_) => "it is still running".into(),
                };
                BridgeError::Engine(format!("{why}; {ended}"))
            }
            other => other,
        };
        report(&format!("left the game: {error}"));
        Err(error)
    }

    /// `/start` and `/turn`, each with its answer.
    async fn greet(&mut self, session: &Session, first: bool) -> Result<(), BridgeError> {
        let start = session
            .start_board()
            .cloned()
            .unwrap_or_else(|| Board::hidden(32));
        if !session.starts_face_down() {
            log!(
                "anqi bridge: warning: this game starts with face-up pieces; /start carries \
                 them, but engines built on the platform's client template (NProof) ignore \
                 /start's board and will misplay"
            );
        }
        let counts = start_counts(&session.variant().pieces, &start);
        let time = engine_time_ms(session);
        self.link
            .send(&start_message(&start, &counts, time))
            .await?;
        self.link.expect_ack("/start", self.ack).await?;
        // The colour the engine plays, when it is decided before the first ply.
        let colour = match session.variant().colours {
            ColourRule::Fixed => session.colour_of(session.me()),
            ColourRule::FirstReveal => None,
        };
        self.link.send(&turn_message(first, colour)).await?;
        self.link.expect_ack("/turn", self.ack).await
    }

    /// Tells the engine about the ply: its echo, with the engine's time.
    async fn tell(&mut self, session: &Session, ply: LastPly) -> Result<(), BridgeError> {
        let text = ply_message(ply, engine_time_ms(session))?;
        self.link.send(&text).await
    }
}

impl Translator for PlatformEngine {
    async fn start(options: &BridgeOptions) -> Result<Self, BridgeError> {
        let listener = TcpListener::bind((HOST, 0))
            .await
            .map_err(|e| BridgeError::EngineStart(format!("cannot listen on {HOST}: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| BridgeError::EngineStart(format!("cannot listen on {HOST}: {e}")))?
            .port();
        let (program, args) = engine_command(&options.command, port)?;
        let mut cmd = Command::new(&program);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            // A group of its own, ended with the game (see `keeper`).
            .process_group(0);
        // A cdc-platform engine never exits by itself.
        crate::process::die_with_parent(cmd.as_std_mut());
        let cgroup = crate::keeper::engine_cgroup();
        if let Some(cgroup) = &cgroup {
            cgroup.contain(cmd.as_std_mut());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| BridgeError::EngineStart(format!("cannot start {program:?}: {e}")))?;
        if let Some(out) = child.stdout.take() {
            tokio::spawn(log_stdout(out));
        }
        if options.verbose {
            log!("bridge: started {program} {}", args.join(" "));
        }
        let connected = tokio::select! {
            accepted = tokio::time::timeout(options.handshake, listener.accept()) => match accepted {
                Ok(Ok((stream, _))) => Ok(stream),
                Ok(Err(e)) => Err(format!("cannot accept the engine's connection: {e}")),
                Err(_) => Err(format!(
                    "{program} did not connect to {HOST}:{port} within {} s",
                    options.handshake.as_secs()
                )),
            },
            status = child.wait() => Err(match status {
                Ok(s) => format!("{program} exited before connecting ({s})"),
                Err(e) => format!("{program}: {e}"),
            }),
        };
        drop(listener);
        let stream = match connected {
            Ok(stream) => stream,
            Err(why) => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                return Err(BridgeError::EngineStart(why));
            }
        };
        stream.set_nodelay(true).ok();
        Ok(PlatformEngine {
            child,
            _cgroup: cgroup,
            link: Link {
                stream,
                reader: FrameReader::default(),
                chunk: vec![0; CHUNK],
                verbose: options.verbose,
            },
            program,
            ack: options.ack,
        })
    }

    fn engine_name(&self) -> Option<String> {
        None
    }

    async fn play(
        &mut self,
        session: &mut Session,
        _options: &BridgeOptions,
    ) -> Result<(), BridgeError> {
        // The first event says who plays first: this engine's turn, or the opponent's ply.
        let first = session.next().await?;
        if matches!(first, Event::Over { .. }) {
            return Ok(());
        }
        if let Err(e) = self.greet(session, first == Event::MyTurn).await {
            return self.give_up(e).await;
        }
        let mut pending = Some(first);
        let mut engine_to_move = false;
        let mut refused = false;
        loop {
            let event = match pending.take() {
                Some(event) => event,
                None if engine_to_move => {
                    tokio::select! {
                        frame = self.link.recv() => {
                            let frame = match frame {
                                Ok(frame) => frame,
                                Err(e) => return self.give_up(e).await,
                            };
                            engine_to_move = false;
                            match parse_answer(&frame) {
                                Ok(answer) => session.answer(answer).await?,
                                Err(why) => {
                                    report(&format!(
                                        "resigned: the engine's answer is no move ({why})"
                                    ));
                                    session.answer(Answer::Resign).await?;
                                }
                            }
                            continue;
                        }
                        event = session.next() => event?,
                    }
                }
                None => session.next().await?,
            };
            match event {
                Event::Played { ply, .. } => {
                    if let Err(e) = self.tell(session, ply).await {
                        return match e {
                            BridgeError::Engine(_) => self.give_up(e).await,
                            e => Err(e),
                        };
                    }
                }
                Event::MyTurn if refused => {
                    report("resigned: the protocol cannot ask the engine again after a refusal");
                    session.answer(Answer::Resign).await?;
                }
                Event::MyTurn => engine_to_move = true,
                Event::Refused { code, text } => {
                    log!(
                        "anqi bridge: the referee refused the engine's answer: {} {text:?}",
                        code.name()
                    );
                    refused = true;
                }
                Event::Over { .. } => return Ok(()),
            }
        }
    }

    async fn quit(self) {
        // The cgroup, dropped last, ends whatever the engine started and left running.
        let PlatformEngine {
            mut child,
            _cgroup,
            link,
            program,
            ack: _,
        } = self;
        // No quit message: closing the connection is all the engine hears.
        drop(link);
        if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
            return;
        }
        if let Some(pid) = child.id() {
            // Not yet reaped, so the pid is still the engine's. Gone already: nothing to do.
            let _ = crate::process::terminate(pid);
            if tokio::time::timeout(TERM_GRACE, child.wait()).await.is_ok() {
                return;
            }
        }
        tracing::debug!("{program} ignored SIGTERM: killing it");
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn neighbours(cell: usize) -> Vec<usize> {
        let (r, c) = (cell / 8, cell % 8);
        let mut out = Vec::new();
        if r > 0 {
            out.push(cell - 8);
        }
        if r < 3 {
            out.push(cell + 8);
        }
        if c > 0 {
            out.push(cell - 1);
        }
        if c < 7 {
            out.push(cell + 1);
        }
        out
    }

    #[test]
    fn the_map_is_a_bijection_that_keeps_the_board_s_lines() {
        let mut seen = [false; 32];
        for cell in 0..32 {
            let (x, y) = xy(cell);
            assert!(x < 4 && y < 8);
            assert_eq!(cell_of(Some(x as i64), Some(y as i64)), cell);
            let i = start_index(cell);
            assert!(!seen[i]);
            seen[i] = true;
            // A step on anqi's board is a step on the platform's: one file or one rank.
            for n in neighbours(cell) {
                let (nx, ny) = xy(n);
                assert_eq!(x.abs_diff(nx) + y.abs_diff(ny), 1, "{cell} {n}");
            }
        }
        // The corners, as the docs show them.
        assert_eq!(square_name(0), "0,7");
        assert_eq!(square_name(7), "0,0");
        assert_eq!(square_name(24), "3,7");
        assert_eq!(square_name(31), "3,0");
        assert_eq!(start_index(7), 0); // a1 is the first of the 32 cells
        assert_eq!(start_index(24), 31); // d8 the last
    }

    #[test]
    fn off_board_squares_map_off_the_board() {
        assert_eq!(cell_of(Some(4), Some(0)), OFF_BOARD);
        assert_eq!(cell_of(Some(-19), Some(16)), OFF_BOARD);
        assert_eq!(cell_of(Some(0), Some(8)), OFF_BOARD);
        assert_eq!(cell_of(None, Some(0)), OFF_BOARD);
    }

    #[test]
    fn answers_parse_as_the_template_writes_them() {
        let text = |t: &str| Frame::Text(t.into());
        assert_eq!(parse_answer(&text("/flip 2 1")), Ok(Answer::Reveal(22)));
        assert_eq!(
            parse_answer(&text("/move 3 3 3 2")),
            Ok(Answer::Move(28, 29))
        );
        // The real engine with no move left: it still parses, off the board.
        assert_eq!(
            parse_answer(&text("/move -19 16 -97 0")),
            Ok(Answer::Move(OFF_BOARD, OFF_BOARD))
        );
        assert_eq!(
            parse_answer(&text(" /flip 0 0 99\0")),
            Ok(Answer::Reveal(7))
        );
        assert_eq!(
            parse_answer(&text("/flip 0 99999999999999999999999")),
            Ok(Answer::Reveal(OFF_BOARD))
        );
        for bad in [
            "",
            "/start",
            "/flip 1",
            "/move 1 2 3 x",
            "/flip a1",
            "move 1 2 3 4",
            "/flip - 1",
        ] {
            assert!(parse_answer(&text(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse_answer(&text("/flip 1\0")),
            Err(AnswerError::TooFewNumbers {
                verb: "/flip",
                coords: 2,
                text: "/flip 1".into()
            })
        );
        let e = parse_answer(&text(" /move 1 2 3 x")).unwrap_err();
        assert!(
            matches!(e, AnswerError::NotANumber { verb: "/move", .. }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            r#"/move with a coordinate that is not a number: "/move 1 2 3 x""#
        );
        let long = Frame::TooLong {
            len: 5000,
            head: "/move".into(),
        };
        let e = parse_answer(&long).unwrap_err();
        assert!(matches!(e, AnswerError::TooLong { len: 5000, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            r#"a 5000-byte frame, over the 1024-byte limit: "/move"..."#
        );
    }

    #[test]
    fn the_start_message_lists_cells_from_a1_and_counts_red_first() {
        let board = Board::parse("KXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXp").unwrap();
        let pieces = Piece::parse_list("KGGBBRRNNCCPPPPPkggbbrrnnccppppp").unwrap();
        let counts = start_counts(&pieces, &board);
        assert_eq!(counts, [0, 2, 2, 2, 2, 2, 5, 1, 2, 2, 2, 2, 2, 4]);
        let msg = start_message(&board, &counts, 899000);
        let fields: Vec<&str> = msg.strip_prefix("/start ").unwrap().split(',').collect();
        assert_eq!(fields.len(), 32 + 14 + 2);
        // Cell 0 (K) is X=0 Y=7: index 28; cell 31 (p) is X=3 Y=0: index 3.
        assert_eq!(fields[28], "1");
        assert_eq!(fields[3], "15");
        assert_eq!(fields.iter().take(32).filter(|f| **f == "8").count(), 30);
        assert_eq!(&fields[46..], ["0", "899000"]);
        assert_eq!(turn_message(true, None), "/turn 1 2");
        assert_eq!(turn_message(false, Some(Colour::Black)), "/turn 0 1");
    }

    #[test]
    fn plies_are_echoed_with_the_platform_s_codes() {
        assert_eq!(
            ply_message(LastPly::Rev(17, 'B'), 5).unwrap(),
            "/flip 2 6 3 5"
        );
        assert_eq!(
            ply_message(LastPly::Rev(0, 'p'), 5).unwrap(),
            "/flip 0 7 15 5"
        );
        assert_eq!(
            ply_message(LastPly::Mov(8, 0), 7).unwrap(),
            "/move 1 7 0 7 7"
        );
        assert!(ply_message(LastPly::Bag, 0).is_err());
    }

    #[test]
    fn the_margin_never_takes_the_whole_clock() {
        assert_eq!(with_margin(900_000), 899_000);
        assert_eq!(with_margin(1500), 750);
        assert_eq!(with_margin(1), 1);
        assert_eq!(with_margin(0), 0);
    }

    #[test]
    fn placeholders_replace_the_appended_host_and_port() {
        let cmd = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (p, a) = engine_command(&cmd(&["./search"]), 4000).unwrap();
        assert_eq!((p.as_str(), a), ("./search", cmd(&["127.0.0.1", "4000"])));
        let (_, a) = engine_command(
            &cmd(&["java", "-jar", "e.jar", "--server={host}:{port}"]),
            4000,
        )
        .unwrap();
        assert_eq!(a, cmd(&["-jar", "e.jar", "--server=127.0.0.1:4000"]));
        assert!(matches!(
            engine_command(&[], 1),
            Err(BridgeError::EngineStart(_))
        ));
    }

    fn frames(reader: &mut FrameReader) -> Vec<Frame> {
        let mut out = Vec::new();
        while let Some(f) = reader.next_frame().unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn frames_are_cut_the_same_whatever_the_packets() {
        let mut bytes = frame_bytes("/start");
        bytes.extend(frame_bytes(&"x".repeat(300)));
        bytes.extend(frame_bytes(""));
        bytes.extend(frame_bytes("/flip 1 2"));
        assert_eq!(&bytes[8..10], [44, 2]); // 300 = 44 + 2 * 128
        let expected = vec![
            Frame::Text("/start".into()),
            Frame::Text("x".repeat(300)),
            Frame::Text(String::new()),
            Frame::Text("/flip 1 2".into()),
        ];
        for split in [1, 2, 3, 7, 64, bytes.len()] {
            let mut reader = FrameReader::default();
            let mut got = Vec::new();
            for piece in bytes.chunks(split) {
                reader.push(piece);
                got.extend(frames(&mut reader));
            }
            assert_eq!(got, expected, "split {split}");
        }
    }

    #[test]
    fn an_over_long_frame_is_skipped_keeping_only_its_head() {
        let long = "y".repeat(LONGEST_FRAME);
        let mut bytes = frame_bytes(&long);
        bytes.extend(frame_bytes("/flip 0 0"));
        let mut reader = FrameReader::default();
        let mut got = Vec::new();
        for piece in bytes.chunks(1000) {
            reader.push(piece);
            got.extend(frames(&mut reader));
            assert!(reader.buf.len() <= 1000 + 2 + MAX_FRAME);
            assert!(reader
                .long
                .as_ref()
                .is_none_or(|l| l.1.len() <= KEPT_OF_LONG));
        }
        assert_eq!(
            got,
            vec![
                Frame::TooLong {
                    len: LONGEST_FRAME,
                    head: "y".repeat(KEPT_OF_LONG)
                },
                Frame::Text("/flip 0 0".into())
            ]
        );
    }

    #[test]
    fn a_length_byte_over_127_is_a_broken_stream() {
        let mut reader = FrameReader::default();
        reader.push(&[200, 0, b'a']);
        assert_eq!(reader.next_frame(), Err(BadFrameHeader { lo: 200, hi: 0 }));
    }
}
