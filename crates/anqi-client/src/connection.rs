//! The TCP client on tokio (the `net` feature): a framed [`Connection`], and the loops that
//! join a game and play it to its end for any [`Bot`], driving a [`Tracker`].

use crate::error::{ClientError, Result};
use crate::tracker::{self, Event, ExtRequest, Tracker};
use crate::{Bot, GameResult};
use anqi_core::rules::Variant;
use anqi_core::wire::ServerMessage;
use anqi_core::wire::{
    ClientClause, ClientMessage, ErrorCode, Extension, Extensions, FrameReader, ServerClause,
};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// A framed connection to the server.
pub struct Connection {
    /// The socket, read through the frame reader and written to directly.
    reader: FrameReader<TcpStream>,
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
            reader: FrameReader::new(stream, tracker::SERVER_FRAME_LIMITS),
        })
    }

    /// The next message from the server; `None` when it closed the connection.
    ///
    /// # Errors
    /// On I/O errors or a message that does not parse.
    pub async fn recv(&mut self) -> Result<Option<ServerMessage>> {
        let Some(frame) = self.reader.read_frame().await? else {
            return Ok(None);
        };
        let frame =
            frame.map_err(|e| ClientError::Protocol(format!("bad frame from server: {e}")))?;
        ServerMessage::parse(&frame)
            .map(Some)
            .map_err(|e| ClientError::Protocol(format!("bad message from server: {}", e.text)))
    }

    /// Sends one message.
    ///
    /// # Errors
    /// On I/O errors.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<()> {
        let mut line = msg.to_string();
        line.push('\n');
        self.reader.get_mut().write_all(line.as_bytes()).await?;
        Ok(())
    }
}

/// Connects, plays one game with `bot`, and returns the result. `variant` gives the exact
/// rules; without it the client takes the description the server sends (the `variant`
/// extension), or else assumes [`Setup::default_variant`](crate::Setup::default_variant).
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
    let seated = if bot.comments() {
        let ext = [Extension::Variant, Extension::Comment]
            .into_iter()
            .collect();
        join_with(conn, name, seed, ext, ExtRequest::Apart).await?
    } else {
        join(conn, name, seed).await?
    };
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
    let [ext, init] = tracker::hello(name, seed);
    seat(conn, &[ext, init]).await
}

/// [`join`], asking for `extensions` where `request` says ([`tracker::hello_with`]): a
/// client that reads every ply, the clocks or the no-progress count from the server asks for
/// `last`, `clock` or `progress` too (`anqi bridge` asks for all of them with its `init`).
///
/// # Errors
/// As [`join`].
pub async fn join_with(
    conn: &mut Connection,
    name: &str,
    seed: &str,
    extensions: Extensions,
    request: ExtRequest,
) -> Result<Seated> {
    seat(conn, &tracker::hello_with(name, seed, extensions, request)).await
}

/// Sends the handshake's messages and waits for the setup message.
async fn seat(conn: &mut Connection, hello: &[ClientMessage]) -> Result<Seated> {
    for msg in hello {
        conn.send(msg).await?;
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
                let mut reply = tracker.reply(action);
                let granted = tracker
                    .setup()
                    .is_some_and(|s| s.extensions.contains(Extension::Comment));
                if let Some(comment) = bot.comment().filter(|_| granted) {
                    reply.0.push(ClientClause::Comment(comment));
                }
                conn.send(&reply).await?;
            }
        }
    }
}
