//! The referee: one actor per game, owning the game's state. It sends the setup message,
//! prompts the player to move, rules on every message the players send, runs the clocks, and
//! at the end writes the record and only then tells everyone the result.
//!
//! [`Referee::run`] is the whole life of a game, one method per step: [`Referee::setup`],
//! [`Referee::prompt`], [`Referee::await_action`] (which hands each request to
//! [`Referee::rule`]) and [`Referee::finish`]. Every ruling that ends a game goes through the
//! rules ([`Game::forfeit`], [`Game::resign`], ...), so the loser is recorded in the game's
//! outcome, not kept on the side.
//!
//! # Layout
//!
//! One [`Referee`] struct, its methods spread over the files by concern:
//!
//! - `mod.rs` (here): the actor: what a game is started with ([`GameContext`], [`GameSpec`],
//!   [`run_game`]), the referee's state (its seats, the turn being waited for), dealing the
//!   game, and [`Referee::run`], the life of a game.
//! - `turn`: the loop of one turn: the position sent and the mover prompted, then every
//!   message read and ruled on until the mover acts, with the clocks, the first-move
//!   deadline, shutdown, lost connections and returning players.
//! - `lines`: the lines about the game: each player's setup message, and the position with
//!   the extension clauses its client asked for.
//! - `send`: the one way to write to a seat's player, which notes every line in the exchange
//!   of a watched game (and what was read from the player).
//! - `rulings`: what each request gets: a ply played and recorded, or an error reply (and
//!   for a bad action or a late one, the loss the configuration says).
//! - `text`: the words of the referee's error replies.
//! - `rejoin`: a lost connection, and a seat taken back by its player.
//! - `adjudication`: what ends a game after a ply besides the rules: the endgame tables, then
//!   the ply cap.
//! - `finish`: the record assembled and written, then the result told.
//! - `tests`: the referee's unit tests.
//!
//! The files share `mod.rs`'s state and call one another's methods on the one `Referee`;
//! besides the state they import only `text` (the words) and, in `turn`, `rulings::Step`
//! (what a ruling led to): no file imports one that imports it.

mod adjudication;
mod finish;
mod lines;
mod rejoin;
mod rulings;
mod send;
#[cfg(test)]
mod tests;
mod text;
mod turn;

use crate::clock::{Clocks, FirstMoves, TimeControl};
use crate::config::Config;
use crate::connection::Player;
use crate::exchange::Exchange;
use crate::record_sink::RecordSink;
use crate::rejoin::{Registration, Rejoins, Return};
use crate::secret::TokenDigest;
use crate::watch::{GameFeed, Hub};
use anqi_core::record::{Adjudication, DropRecord, FaultLog, GameHeader, GameRecord, PlyRecord};
use anqi_core::rules::{ActionCounts, Deal, Game, SeedInputs, Termination, Variant};
use anqi_core::scores::ScoreJudge;
use anqi_core::tables::Tables;
use anqi_core::view;
use anqi_core::wire::{Extension, Extensions, LastPly, ServerClause};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Everything a game task needs besides its players.
#[derive(Clone)]
pub struct GameContext {
    pub variant: Arc<Variant>,
    /// The setup clauses shared by every player and game of the variant, from `(game TYPE)` to
    /// `(jumps ...)` (built once: on 8x16 they are several kilobytes).
    pub setup_common: Arc<str>,
    /// The `(variant "...")` clause of the `variant` extension, built once.
    pub public_variant: Arc<str>,
    pub config: Arc<Config>,
    pub records: RecordSink,
    pub shutdown: CancellationToken,
    /// Where the game's public events go, when games are watched (`[http]`).
    pub watch: Option<crate::watch::Hub>,
    /// Where connections that come back for a seat are handed to its referee.
    pub rejoins: crate::rejoin::Rejoins,
    /// The endgame tables that end a game they decide (`[referee] adjudicate = "tables"`),
    /// shared by every game of the server (a material's values are read once).
    pub tables: Option<Arc<Tables>>,
}

impl GameContext {
    /// Builds the shared setup text for a variant.
    pub fn setup_common(variant: &Variant) -> Arc<str> {
        ServerClause::variant_setup(variant)
            .iter()
            .map(|c| c.to_string())
            .collect::<String>()
            .into()
    }
}

/// What a game is played with besides its players: by default, the server's configuration.
#[derive(Debug, Default)]
pub struct GameSpec {
    /// The deal's seed contributions; `None`: from `[seed]` and the players' SEEDs.
    pub seeds: Option<SeedInputs>,
    /// Each seat's clock settings (index = player id - 1), overriding `[clock]`; seats past
    /// the end take `[clock]`. Keys left out take the variant's `(clock ...)`.
    pub clocks: Vec<crate::config::ClockConfig>,
    /// Ply cap overriding `[referee] max_plies`.
    pub max_plies: Option<u32>,
    /// First-move deadline overriding `[referee] first_move_ms` (0: none).
    pub first_move_ms: Option<u64>,
    /// Seats (player ids) whose player never came: they lose at once, as `no-connect`.
    pub absent: Vec<usize>,
    /// Where the record also goes (a tournament waiting for this game).
    pub done: Option<tokio::sync::oneshot::Sender<GameRecord>>,
    /// A ladder's rated game: the tag its record carries.
    pub ladder: Option<anqi_core::record::LadderTag>,
}

/// Plays one game to its end and records it. `seat_tokens`: each seat's per-game tournament
/// token, which takes the seat back after a lost connection (empty outside tournaments).
pub async fn run_game(
    ctx: GameContext,
    game_no: u64,
    players: Vec<Player>,
    spec: GameSpec,
    seat_tokens: Vec<Option<TokenDigest>>,
) {
    // Names are client text: logged escaped (`?`), so a newline cannot forge a log line.
    let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
    let span =
        tracing::info_span!("game", game = game_no, variant = %ctx.variant.name, players = ?names);
    drop(names);
    let referee = Referee::new(ctx, game_no, players, spec, seat_tokens);
    tracing::Instrument::instrument(referee.run(), span).await
}

/// A seat at the table.
struct Seat {
    player: Player,
    /// Error replies earned in this game.
    errors: u32,
    /// Whether the seat is kept for its player after a lost connection (`rejoin`).
    kept: bool,
    /// The seat's `rejoin` secret, sent in its setup message.
    secret: Option<String>,
    /// Since when, and from which ply, the seat has been without its player (its connection
    /// was lost and it has not come back yet).
    away: Option<(Instant, u32)>,
    /// How often the seat was taken back in this game.
    returns: u32,
}

impl Seat {
    /// `player` takes seat `id` (`absent`: a stand-in for a player that never came). A seat is
    /// kept after a lost connection (with a grace) when its player can prove it is back: with
    /// the secret of the `rejoin` extension, made here when its player asked for it, or with
    /// `token`, its per-game tournament token. A kept seat is registered with `rejoins`, which
    /// hands a connection that comes back for it to `returns`.
    fn new(
        id: usize,
        mut player: Player,
        absent: bool,
        token: Option<TokenDigest>,
        grace: Duration,
        rejoins: &Rejoins,
        returns: &mpsc::UnboundedSender<Return>,
    ) -> (Seat, Option<Registration>) {
        let secret = (player.ext.contains(Extension::Rejoin) && !absent)
            .then(crate::secret::new_secret)
            .flatten();
        if secret.is_none() {
            player.ext = player.ext.without(Extension::Rejoin);
        }
        let kept = !grace.is_zero() && (secret.is_some() || token.is_some());
        let registration = kept.then(|| rejoins.register(id, secret.as_deref(), token, returns));
        let seat = Seat {
            player,
            errors: 0,
            kept,
            secret,
            away: None,
            returns: 0,
        };
        (seat, registration)
    }
}

/// One turn being waited for: who moves, what they were sent, and their clock.
struct Turn {
    mover: usize,
    /// The prompt, sent again after an error reply (written anew for a mover that comes back:
    /// its connection may ask for other extensions, and its clock has run).
    prompt: Arc<str>,
    /// The board as sent, which an action's `(board ...)` must match.
    board: String,
    round: u32,
    started: Instant,
    deadline: Option<Instant>,
    /// The mover's legal actions, for the record.
    counts: ActionCounts,
    /// Every player's, player 1 first, when the records keep them (`legal_counts = "all"`).
    counts_all: Option<Vec<ActionCounts>>,
}

/// Why a player's first action of a game never came (see [`FirstMoves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoStart {
    /// The first-move deadline passed.
    Deadline,
    /// The server was full, and this player, idle on its first action, made room for a new
    /// connection (`limits`).
    MadeRoom,
    /// The player asked to abort the game before its first action (a local player: a person
    /// on the web pages, [`crate::door::LocalSeat::abort`]).
    Asked,
}

/// One game's referee.
struct Referee {
    ctx: GameContext,
    header: GameHeader,
    game: Game,
    seats: Vec<Seat>,
    clocks: Clocks,
    plies: Vec<PlyRecord>,
    faults: FaultLog,
    absent: Vec<usize>,
    done: Option<tokio::sync::oneshot::Sender<GameRecord>>,
    /// The ladder's tag, for a ladder's game.
    ladder: Option<anqi_core::record::LadderTag>,
    /// The seat whose messages are looked at first next time, so no seat is starved.
    next_poll: usize,
    /// The last ply played and its mover, for the `last` extension.
    last: Option<(usize, LastPly)>,
    /// The game's feed to observers, when games are watched.
    feed: Option<GameFeed>,
    /// What each player was sent and what was read from them, when games are watched.
    exchange: Option<Exchange>,
    /// Connections that come back for a seat, and the sender their registrations hold.
    returns: mpsc::UnboundedReceiver<Return>,
    /// Each kept seat's registered proofs (secret, token), removed when the game ends.
    registrations: Vec<Registration>,
    /// How long a kept seat waits for its player.
    grace: Duration,
    /// Lost connections, once they ended (taken back, or not).
    drops: Vec<DropRecord>,
    /// What the endgame tables or the engines' scores ruled, when they ended the game.
    adjudication: Option<Adjudication>,
    /// `[referee] score_draw` and `score_resign` at work over this game.
    scores: ScoreJudge,
    /// Each player's first action, due within `[referee] first_move_ms` of its first prompt.
    first_moves: FirstMoves,
    /// The player that never made its first action before any ply was played, and why: the
    /// game was aborted for it.
    no_start: Option<(usize, NoStart)>,
}

impl Referee {
    /// Deals the game from the seeds and sets the clocks.
    fn new(
        ctx: GameContext,
        game_no: u64,
        mut players: Vec<Player>,
        spec: GameSpec,
        seat_tokens: Vec<Option<TokenDigest>>,
    ) -> Referee {
        let cfg = &ctx.config;
        for p in &mut players {
            p.ext = granted(p.ext, cfg);
        }
        let seeds = spec.seeds.unwrap_or_else(|| SeedInputs {
            clients: if cfg.seed.clients {
                players.iter().map(|p| p.seed.clone()).collect()
            } else {
                Vec::new()
            },
            server: cfg.seed.server.contribution(),
        });
        // Validated with the configuration, and against the variant when the server started.
        let score_rules = cfg.referee.score_rules().unwrap_or_default();
        let header = GameHeader {
            game: game_no,
            started_unix_ms: unix_ms(),
            max_plies: spec.max_plies.unwrap_or(cfg.referee.max_plies),
            // As the rules read them back: `anqi replay` judges the game by these.
            score_draw: score_rules.draw.map(|d| d.to_string()).unwrap_or_default(),
            score_resign: score_rules
                .resign
                .map(|r| r.to_string())
                .unwrap_or_default(),
            seeds,
        };
        let variant = ctx.variant.clone();
        let deal = header.seeds.deal_for(&variant);
        let game = Game::new(variant.clone(), deal.clone());
        let clocks = Clocks::per_player(
            (0..players.len())
                .map(|i| {
                    let config = spec.clocks.get(i).unwrap_or(&cfg.clock);
                    TimeControl::resolve(config, &variant.clock)
                })
                .collect(),
        );
        let feed = ctx.watch.as_ref().map(|hub| {
            let names: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
            open_feed(hub, &header, &game, &names, &clocks, deal)
        });
        let grace = Duration::from_millis(cfg.referee.rejoin_grace_ms);
        let first_moves = FirstMoves::new(
            spec.first_move_ms.unwrap_or(cfg.referee.first_move_ms),
            players.len(),
        );
        let (returns_tx, returns) = mpsc::unbounded_channel();
        let mut registrations = Vec::new();
        let seats = players
            .into_iter()
            .enumerate()
            .map(|(i, player)| {
                let absent = spec.absent.contains(&(i + 1));
                let token = seat_tokens.get(i).copied().flatten().filter(|_| !absent);
                let (seat, registration) = Seat::new(
                    i + 1,
                    player,
                    absent,
                    token,
                    grace,
                    &ctx.rejoins,
                    &returns_tx,
                );
                registrations.extend(registration);
                seat
            })
            .collect();
        Referee {
            header,
            game,
            clocks,
            seats,
            plies: Vec::new(),
            faults: FaultLog::default(),
            absent: spec.absent,
            done: spec.done,
            ladder: spec.ladder,
            next_poll: 0,
            last: None,
            exchange: feed.as_ref().map(GameFeed::exchange),
            feed,
            ctx,
            returns,
            registrations,
            grace,
            drops: Vec::new(),
            adjudication: None,
            scores: ScoreJudge::new(score_rules),
            first_moves,
            no_start: None,
        }
    }

    /// The whole game: setup, turns until the rules or a ruling end it, then the result.
    async fn run(mut self) {
        self.setup();
        while self.game.outcome().is_none() {
            let Some(turn) = self.prompt() else { break };
            let mut turn = turn;
            self.await_action(&mut turn).await;
        }
        self.finish().await;
    }

    /// Rules on absent players and sends each present one the setup message.
    fn setup(&mut self) {
        let variant = self.ctx.variant.clone();
        // Players who never came lose; if every side misses someone, nobody wins.
        let absent_sides: std::collections::BTreeSet<usize> =
            self.absent.iter().map(|&p| variant.side_of(p)).collect();
        if absent_sides.len() > 1 {
            self.game.adjudicate_draw(Termination::NoConnect);
        } else if let Some(&absent) = self.absent.first() {
            self.game.forfeit(absent, Termination::NoConnect);
        }
        for player in 1..=self.seats.len() {
            if self.absent.contains(&player) {
                continue;
            }
            if self.send_setup(player).is_err() {
                self.lost(player);
            }
        }
        // Not the seeds: with them (the server's is secret until the end) whoever reads the
        // log would know every face-down piece.
        tracing::debug!("game started");
    }
}

/// The extensions a player that asked for `asked` is granted. The handshake grants every name
/// it knows; the ones this server's settings switch off are taken back here, before the setup
/// message lists what was granted.
fn granted(asked: Extensions, cfg: &Config) -> Extensions {
    let mut ext = asked;
    if cfg.records.comment_bytes == 0 {
        ext = ext.without(Extension::Comment);
    }
    if cfg.referee.rejoin_grace_ms == 0 {
        ext = ext.without(Extension::Rejoin);
    }
    ext
}

/// Each player's time left, in ms (`None`: untimed).
fn clocks_left(clocks: &Clocks, players: usize) -> Vec<Option<u64>> {
    (1..=players)
        .map(|p| clocks.remaining(p).map(|d| d.as_millis() as u64))
        .collect()
}

/// Now, in ms since the Unix epoch.
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Opens the game's feed to observers on `hub`: its setup (with the clocks as they start) and,
/// for when the game is over, its deal.
fn open_feed(
    hub: &Hub,
    header: &GameHeader,
    game: &Game,
    names: &[String],
    clocks: &Clocks,
    deal: Deal,
) -> GameFeed {
    let mut setup = view::Setup::of(
        header.game,
        header.started_unix_ms,
        header.max_plies,
        game,
        names,
    );
    setup.position.clocks_ms = Some(clocks_left(clocks, names.len()));
    setup.position.at_unix_ms = Some(header.started_unix_ms);
    hub.open(setup, deal)
}
