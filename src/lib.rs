//! anqi: the reference server for Chinese Dark Chess (暗棋, Banqi) and its variants, speaking the
//! S-expression protocol of N. Jouandeau, "Varying Complexity in CHINESE DARK CHESS Stochastic
//! Game" (TCGA 2014).
//!
//! # Layout
//!
//! Three layers, each usable without the ones above it:
//!
//! - [`rules`]: the game, pure (no I/O, no clock). Shared by the server, the replay verifier and
//!   the reference clients.
//!   - `piece`: colours, kinds, pieces and their letters.
//!   - `topology`: cells, directed moves, cannon rays, and the compact `jumps` wire form.
//!   - `capture`: the rank table and its exceptions, as data.
//!   - `variant`: the variant model (`Variant`, its start, colour, objective, clock and draw
//!     rules) and the shipped variants (`protocol/variants/`, built in).
//!   - `description`: the notation: the S-expression description format (documented in
//!     `protocol/VARIANTS.md`), its limits, and the parser that validates a text into a
//!     `Variant`.
//!   - `board`: the public board (face-down pieces as `X`), legal actions, move checking with
//!     reasons a bot author can act on.
//!   - `action`: reveal, move, bag and put actions and the per-kind mobility counts.
//!   - `deal`: how the seed contributions become the starting position (stable derivation).
//!   - `game`: one game's state: turn order and rounds, colour ownership, the bag, chain
//!     captures, end of game and draws; and `PublicState`, what legality depends on, shared
//!     with clients.
//! - [`wire`]: the protocol's bytes.
//!   - `frame`: the incremental framing scanner, with size and nesting limits enforced before
//!     any parser sees the bytes.
//!   - `message`: typed client and server messages, parse and print side by side (printing
//!     reads back as the same text), the `((error CODE "text"))` extension, and the one mapping
//!     between action clauses and [`rules::Action`].
//!   - `extension`: the opt-in protocol extensions (`(ext last clock progress variant)`), named
//!     once and for all.
//! - [`server`]: the tokio server.
//!   - `limits`: the connection caps (in all, per address, under the descriptor limit) and the
//!     `busy` answer.
//!   - `connection`: per-connection reader and writer tasks (the write queue bounded in bytes),
//!     and the handshake.
//!   - `seating/`: who plays with whom, one task chosen when the server is built: `arrival`
//!     (completed handshakes, N per game, in acceptance order) or `tokens` (tournaments: games
//!     ordered by the organizer, seats taken by secret token).
//!   - `referee`: one actor per game (`Referee`, a method per step), which owns the game, rules
//!     on every message, and writes the record before anyone hears the result.
//!   - `clock`: each player's own time control (game time, moves per period, increment, move
//!     limit) and the time they have left.
//! - [`tournament`]: headless events on an in-process server: configuration (with
//!   `[tournament.each]` and the command line's overrides), time controls as strings
//!   (`time_control`), schedule, seat tokens, engine processes and their logs, the runner
//!   (resume, shards, SPRT, loud failures), standings and reports (success rates for one-side
//!   variants), and `anqi match` (`quick_match`).
//! - [`bridge`]: engines of other protocols (`tcg`, `uci-banqi`, `cdc-platform`) on anqi, one
//!   game per bridge: the anqi side (`session`, a client asking for every extension), line
//!   engines (`engine`), one translator per protocol with its coordinate map, what a protocol
//!   can play (`assess`) and the rule presets engines believe (`presets`).
//!
//! Beside them:
//! - [`sexp`]: reading S-expressions from untrusted text (reader prefixes refused, nesting
//!   bounded, values dropped without recursion); every parse, wire or file, goes through it.
//! - [`config`]: the `config.toml` file, built in as the defaults.
//! - [`record`]: the JSON-lines game records: their assembly from a finished game (with each
//!   player's side and team), the bounded fault log, and the writer that syncs them before
//!   results go out.
//! - [`replay`]: re-deriving deals and re-playing records.
//! - [`variant_check`]: the report of `anqi variant check`.
//! - [`bench`]: `anqi bench`, every performance figure beside its floor measured in the same
//!   run (the server, an echo server and the clients as separate processes of this binary).
//!
//! The binary (`src/main.rs`) is a thin command line over these.
//!
//! # Where to read next
//! `protocol/PROTOCOL.md` for the protocol as clients see it, `protocol/VARIANTS.md` for the
//! variant description format, `protocol/RECORDS.md` for the game records, `protocol/GAMES.md`
//! for a transcript of each kind of game, `TOURNAMENTS.md` for tournaments, and
//! `protocol/BRIDGES.md` for engines of other protocols.

pub mod bench;
pub mod bridge;
pub mod config;
pub mod record;
pub mod replay;
pub mod rules;
pub mod server;
pub mod sexp;
pub mod tournament;
pub mod variant_check;
pub mod wire;
