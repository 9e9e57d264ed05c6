//! anqi-server: the tokio server that referees Chinese Dark Chess (Banqi) games between
//! programs over TCP, in the S-expression protocol of `anqi-core`'s `wire`.
//!
//! A [`Server`] binds an address for one variant and a [`Config`], then runs until its
//! cancellation token fires: it accepts connections within their caps, runs each handshake,
//! seats players by a policy, runs one referee task per game, and writes every finished game's
//! record before anyone hears its result. The `anqi` program serves with it (`anqi serve`) and
//! runs its tournaments on one in process; tests start it on `127.0.0.1:0`.
//!
//! # Crate map
//!
//! Builds on: `anqi-core`.
//! Compiles tokio: yes (it is a tokio server).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! - [`config`]: the `config.toml` file, built in as the defaults, overlaid table by table with
//!   unknown keys refused.
//! - `server`: the listener and the accept loop, shutdown, and the `busy` answer.
//! - [`limits`]: the connection caps (in all, per address, under the descriptor limit), the
//!   seats per network, and who makes room on a full server (idle handshakes past their
//!   chance, then seated players that never made their first action, then any handshake).
//! - `connection`: per-connection reader and writer tasks (the write queue bounded in bytes),
//!   and the `Player` a connection becomes.
//! - `handshake`: from a new connection to a `Player`: the version, `(init NAME SEED)`,
//!   extensions and a rejoin secret, every mistake answered, under the handshake timeout.
//! - [`door`]: seats for players inside the process (a person playing from a web page, the
//!   bots started for them), with channels where a connection has a socket.
//! - `seating/`: who plays with whom, one policy chosen when the server is built: `arrival`
//!   (completed handshakes, N per game, in acceptance order), `tokens` (tournaments: games
//!   ordered by the organizer through an [`OrderDesk`], seats taken by secret token) or
//!   `ladder` (accounts seated by their secret, paired by `matchmaking` every round; the
//!   ladder, `anqi-ladder`, tells it its accounts and ratings through a [`LadderDesk`]).
//! - `referee/`: one actor per game (`Referee`, a method per step), which owns the game, rules
//!   on every message, and has the record written before anyone hears the result. One file
//!   per concern: the actor and its state (`mod.rs`), the loop of a turn (`turn`), the setup
//!   and position lines (`lines`), the one send path that feeds a watched game's exchange
//!   (`send`), the rulings on each request (`rulings`), the words of the error replies
//!   (`text`), lost connections and returns (`rejoin`), adjudication after a ply
//!   (`adjudication`), and the record and result (`finish`); its unit tests in `tests`. What
//!   a client's message asks for is read by the wire's action grammar
//!   (`anqi_core::wire::Request`).
//! - `secret`: the secrets that seat players (tournament tokens, seats' rejoin secrets),
//!   looked up by digest; the rejoin secrets are made here.
//! - `rejoin`: seats kept for players who lost their connection, and the proofs (a seat's
//!   secret, a tournament's per-game token) that hand a new connection to the seat's referee.
//! - `clock`: each player's own time control (game time, moves per period, increment, move
//!   limit) and the time they have left.
//! - [`past`]: the games of earlier runs, read from the records file at start: game numbers
//!   continue after the highest recorded, and the latest are shown on the pages again.
//! - `record_sink`: the one task that appends records to the records file (group commit,
//!   optional fsync) and acknowledges each once it is on disk.
//! - `tasks`: the server's tasks, counted so that shutdown waits for every one.
//! - `throttle`: log lines an outsider can cause, a few per source and window.
//! - [`exchange`]: the lines between the referee and each player of a watched game, bounded.
//! - [`metrics`] (`metrics/`): the counters an operator scrapes, with their latency histogram
//!   (`histogram`) and the ladder's own (`ladder`).
//! - [`watch`]: the hub where referees publish each game's public events and observers (the
//!   web pages of `anqi-web`) read them, never holding a game up.
//! - [`sys`]: the operating-system calls std and tokio do not wrap, for the server's
//!   descriptor limit and signals and the web pages' thread priority (those for engine
//!   processes are `anqi-tournament`'s `process`); all of this crate's `unsafe` code (see
//!   "Where the `unsafe` is" below).
//!
//! Inside the crate, `server` uses `seating`, which starts `referee`s; a referee uses `clock`,
//! `connection`'s player handles, the `record_sink` and the `watch` hub. Nothing points back up.
//!
//! # Where the `unsafe` is
//!
//! In this crate, only in [`sys`]: calls into libc that std and tokio do not wrap (the
//! descriptor limit, signals, a thread's priority), each with a `SAFETY` comment that argues
//! it. The rest of the crate is safe code.
//!
//! Elsewhere in the workspace, `anqi-core`, `anqi-web` and the client library have none.
//! `anqi-tournament`'s `process` (and `process/cgroup`) holds the calls for engine processes
//! (subreaper, parent death, kills, descendants, joining a cgroup between fork and exec). The
//! Python module (`clients/python/rust`) has its own: `read_only.rs` allocates the memory its
//! NumPy arrays are views of and exports it read-only through the buffer protocol, and
//! `vec_game.rs` writes into it, so that Python reads the arrays without a copy and cannot
//! write them. The integration tests make a few libc calls of their own (a FIFO for hostile
//! files, a memory limit for a child, killing a browser's process group).

mod clock;
pub mod config;
mod connection;
pub mod door;
pub mod exchange;
mod handshake;
pub mod limits;
pub mod metrics;
pub mod past;
mod record_sink;
mod referee;
mod rejoin;
mod seating;
mod secret;
mod server;
pub mod sys;
mod tasks;
pub mod throttle;
pub mod watch;

pub use clock::{Clocks, TimeControl};
pub use config::Config;
pub use connection::is_absent_name;
pub use door::{Door, Guest, LocalSeat};
pub use handshake::VERSION;
pub use record_sink::{Durability, RecordSink};
pub use referee::GameSpec;
pub use seating::{
    GameOrder, LadderAccount, LadderDesk, LadderNews, LadderRules, MatchRules, OrderDesk,
    ServerStopped,
};
pub use server::Server;
pub use watch::Hub;
