//! anqi-core: the rules of Chinese Dark Chess (暗棋, Banqi) and its variants, the bytes of the
//! S-expression protocol of N. Jouandeau, "Varying Complexity in CHINESE DARK CHESS Stochastic
//! Game" (TCGA 2014), and the game record format.
//!
//! Everything that knows what a game *is* lives here, and nothing that runs one: no async
//! runtime, no network, no threads, no clock (the caller passes the time wherever a record
//! needs it). The one exception is opt-in: the `tokio` feature adds the frame reader over
//! tokio's `AsyncRead`, for the crates that already run on tokio.
//!
//! It reads only the files it is handed by path, and writes none (writers take any
//! `io::Write`): a variant description ([`rules::Variant::load`]), a records file
//! ([`record::read_records`]), an endgame tables file ([`tables::Tables::open`], its header
//! when opened, each material's values when first probed), and a solution file
//! ([`solve::file::open`]). Each is untrusted input, checked as it is read.
//!
//! The server (`anqi-server`), the web pages (`anqi-web`), the `anqi` program, the Rust client
//! (`anqi-client`), the Python package's native module and the fuzz targets all build on it.
//! Those that run on tokio compile it: the server, the web pages, the program, and the Rust
//! client with its `net` feature (on by default: the TCP client and `anqi-bot`). The core
//! alone, the client without `net`, the Python module and the fuzz targets compile no tokio
//! (`cargo tree -p CRATE -e normal -i tokio` shows what pulls it into a crate's build, and
//! finds no tokio in theirs).
//!
//! # Crate map
//!
//! Builds on: nothing of the workspace.
//! Compiles tokio: only with its `tokio` feature (the frame reader over tokio's `AsyncRead`).
//!
//! (`tests/integration/layout.rs` checks both lines against `cargo metadata` and `cargo tree`.)
//!
//! # Layout
//!
//! - [`rules`]: the game, pure.
//!   - `piece`: colours, kinds, pieces and their letters, and `Control` (which a player moves).
//!   - `cell_set`: cells, sets of cells as machine words, and the `Representation` a board's
//!     size gives the move generator.
//!   - `topology`: cells' steps and cannon rays, and the compact `jumps` wire form.
//!   - `capture`: the rank table and its exceptions, as data.
//!   - `variant`: the variant model (`Variant`, its start, colour, objective, clock and draw
//!     rules).
//!   - `description`: the notation: the S-expression description format (documented in
//!     `protocol/VARIANTS.md`), its limits, and the parser that validates a text into a
//!     `Variant`.
//!   - `catalog`: variants by name, file or text, the shipped ones (`protocol/variants/`,
//!     built in), and `VariantError`.
//!   - `square`: what a cell holds as everyone sees it, and its byte code.
//!   - `board`: the public board (face-down pieces as `X`) and the forms the generator reads.
//!   - `movegen/`: the move generator: one surface on `Board` (for each, count, nth, has an
//!     action, check one), one representation per topology (sets of 64 or 128 bits, or
//!     lists), and the step and cannon rules written once (`rule`).
//!   - `action`: reveal, move, bag and put actions and the per-kind mobility counts.
//!   - `deal`: how the seed contributions become the starting position (stable derivation).
//!   - `game/`: one game's state, the `Game` type, its methods one concern a file: `mod`
//!     (the type, construction from a deal or a position, applying an action), `legal` (the
//!     mover's legal actions, listed, counted and checked), `pick` (an action picked by index
//!     from one count: random playouts), `turn` (turn order and rounds, colour ownership, the
//!     start of a turn), `chance` (face-down pieces, the bag and the hand; arranging and
//!     redealing them), `end` (`Termination`, `Outcome`, the end of the game and draws); and
//!     `public`, `PublicState`, what legality depends on, shared with clients.
//!   - `positions`: the positions since the last irreversible action, as the repetition rule
//!     compares them (kept as the steps between them, each with a hash the game keeps up to
//!     date as it plays), and how often the current one occurred before.
//!   - `playout`: random playouts, the core's benchmark and results fingerprint.
//!
//!   Inside `rules`, imports run one way: `piece` and `cell_set` need nothing, `square` needs
//!   `piece`, `topology` needs `cell_set`, `board` needs `square`, `movegen` needs the board,
//!   topology and capture rules, `catalog` needs `variant` and `description`, `positions`
//!   needs `cell_set`, `square` and `variant`, and `game` the rest. Inside `game`, `public`
//!   needs the board (with its move generator) and the variant, not `Game`; the other files are
//!   methods of the one `Game` type that `game/mod.rs` defines.
//! - [`solve`]: exact values of small variants (`anqi solve`; `protocol/SOLVING.md`).
//!   - `key`: a public state as a 128-bit key.
//!   - `component`: the retrograde values of one component of quiet moves.
//!   - `children`: each action's value read from a table, and a perfect player's choice.
//!   - `file`: the solution file and its independent check.
//!   - `error`: a variant the solver does not hold, a state missing from a table, a
//!     solution file that does not read or check.
//! - [`tables`]: endgame tables (`anqi tables`; `protocol/SOLVING.md`, "Endgame tables").
//!   - `material`: how many of each piece stand on the board.
//!   - `symmetry`: the board's turns and mirrors, and the domain positions are turned into.
//!   - `layout`: each material's positions as indices of its table.
//!   - `build`: the retrograde analysis of a material and its colour swap.
//!   - `file`: the tables file, read a material at a time when probed, and what is wrong
//!     with one that does not open (`FileError`); `probe`: the probe, the best move and the
//!     adjudication test, and tables opened by the variant their file names (`OpenError`).
//!   - `error`: a variant tables cannot hold, a material's name that does not read, and a
//!     probe the tables cannot answer (`TablesError`).
//! - [`wire`]: the protocol's bytes.
//!   - `frame`: the incremental framing scanner, with size and nesting limits enforced before
//!     any parser sees the bytes.
//!   - `message`: typed client and server messages, parse and print side by side (printing
//!     reads back as the same text), the `((error CODE "text"))` extension, and the one mapping
//!     between action clauses and [`rules::Action`].
//!   - `extension`: the opt-in protocol extensions (`(ext last clock progress variant)`), named
//!     once and for all.
//!   - `request`: the action grammar: what a client's message during a game asks for (one
//!     action with its board and comment, or resign), or the error it is refused with.
//!   - `reader` (feature `tokio`): the one loop that reads frames from a stream, for the
//!     server's connections, the client library and the bridges.
//! - [`sexp`]: reading S-expressions from untrusted text (reader prefixes refused, nesting
//!   bounded, values dropped without recursion); every parse, wire or file, goes through it.
//! - [`record`]: the JSON-lines game records: the format, their assembly from a finished game
//!   (with each player's side and team), the bounded fault log, and reading a records file
//!   line by line. Writing them is the server's (`anqi-server`'s record sink).
//! - [`replay`]: re-deriving a record's deal and re-playing its actions through the rules, and
//!   re-checking an adjudication by the endgame tables it names.
//!   - `error`: `ReplayError`, the first claim of a record the rules contradict (a ply's, the
//!     result's, an adjudication's).
//! - [`view`]: the public view of a game, what anyone watching may see, as JSON events
//!   (setup, plies, faults, end); built live by the server and rebuilt from records.
//!
//! - [`settings`]: the settings a server's `config.toml` and a tournament's file share: time
//!   controls (in milliseconds, and resolved against the variant's), adjudication by the
//!   endgame tables, and whose legal-action counts the records keep.
//! - [`time_control`]: time controls as organizers and players write them (`60+0.5`,
//!   `40/60+0.6`, `3:00+2`, `st=2`, `inf`), read into a [`settings::ClockConfig`]: a
//!   tournament's `tc` and a person's choice on the web pages.
//! - [`hex`]: bytes as lowercase hexadecimal, as every digest, seed and token is written.
//!
//! Dependencies point down this list's spine: `sexp` needs nothing, `rules` needs `sexp` (the
//! description parser), `wire` needs `rules` and `sexp`, `record`, `replay` and `view` need the rest.
//!
//! # Where to read next
//! `protocol/PROTOCOL.md` for the protocol as clients see it, `protocol/VARIANTS.md` for the
//! variant description format and `protocol/RECORDS.md` for the game records.

pub mod hex;
pub mod record;
pub mod replay;
pub mod rules;
pub mod scores;
pub mod settings;
pub mod sexp;
pub mod solve;
pub mod tables;
pub mod time_control;
pub mod view;
pub mod wire;
