//! The referee: one actor per game, owning the game's state. It sends the setup message,
//! prompts the player to move, rules on every message the players send, runs the clocks, and
//! at the end writes the record and only then tells everyone the result.
//!
//! [`Referee::run`] is the whole life of a game, one method per step: [`Referee::setup`],
//! [`Referee::prompt`], [`Referee::await_action`] (which hands each request to
//! [`Referee::rule`]) and [`Referee::finish`]. Every ruling that ends a game goes through the
//! rules ([`Game::forfeit`], [`Game::resign`], ...), so the loser is recorded in the game's
//! outcome, not kept on the side.

use super::clock::{Clocks, FirstMoves, TimeControl};
use super::connection::{Inbound, Player};
use crate::config::{Config, LegalCounts, Ruling};
use crate::exchange::Exchange;
use crate::record_sink::{Committed, RecordSink};
use crate::rejoin::{Proof, Registration, Return};
use crate::secret::TokenDigest;
use crate::watch::GameFeed;
use anqi_core::record::{
    wire_team, Adjudication, DropRecord, FaultLog, FaultRecord, GameHeader, GameRecord,
    PlayerRecord, PlyRecord,
};
use anqi_core::rules::{
    Action, ActionCounts, Game, PlayError, SeedInputs, Square, Start, Termination, Variant,
};
use anqi_core::tables::Tables;
use anqi_core::view;
use anqi_core::wire::{
    ClientClause, ClientMessage, ErrorCode, Extension, Extensions, LastPly, ServerClause,
    ServerMessage,
};
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;
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

/// How often a seat may be taken back in one game: a player that drops and comes back without
/// end could otherwise hold an untimed game up for ever, a grace at a time, and grow its
/// record's `drops` without bound.
const MAX_RETURNS: u32 = 20;

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

/// What a client asked for in one message.
enum Request {
    Resign,
    Act {
        board: Option<String>,
        action: Action,
        /// `(comment "TEXT")`, the `comment` extension's.
        comment: Option<String>,
    },
    /// Understood, but not acceptable; the error to reply.
    Refused(ErrorCode, String),
}

impl Request {
    fn of(msg: ClientMessage) -> Request {
        let mut board = None;
        let mut comment = None;
        let mut actions = Vec::new();
        for clause in msg.0 {
            match clause {
                ClientClause::Board(b) => {
                    if board.replace(b).is_some() {
                        return Request::Refused(
                            ErrorCode::Syntax,
                            "more than one (board ...) clause".into(),
                        );
                    }
                }
                ClientClause::Comment(c) => {
                    if comment.replace(c).is_some() {
                        return Request::Refused(
                            ErrorCode::Syntax,
                            "more than one (comment ...) clause".into(),
                        );
                    }
                }
                ClientClause::Resign => return Request::Resign,
                c @ (ClientClause::Version(_)
                | ClientClause::Init { .. }
                | ClientClause::Rejoin(_)
                | ClientClause::Ext(_)) => {
                    return Request::Refused(
                        ErrorCode::Unexpected,
                        format!(
                            "{} belongs to the handshake, which is over",
                            anqi_core::sexp::excerpt(&c.to_string())
                        ),
                    )
                }
                action => actions.extend(action.action()),
            }
        }
        match actions.as_slice() {
            [action] => Request::Act {
                board,
                action: *action,
                comment,
            },
            [] => Request::Refused(
                ErrorCode::Syntax,
                "no action: send (board ...) with one of (rev POS), (mov POS_I POS_F), (bag), (put P POS), (resign)".into(),
            ),
            _ => Request::Refused(ErrorCode::Syntax, "one action per message".into()),
        }
    }
}

/// Why a player's first action of a game never came (see [`FirstMoves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoStart {
    /// The first-move deadline passed.
    Deadline,
    /// The server was full, and this player, idle on its first action, made room for a new
    /// connection (`limits`).
    MadeRoom,
}

/// What ruling on a request led to.
enum Step {
    /// The mover's action was played: the next turn.
    Played,
    /// Answered with an error; the turn goes on.
    Answered,
    /// The game is over.
    Over,
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
    /// What the endgame tables ruled, when they ended the game.
    adjudication: Option<Adjudication>,
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
        let header = GameHeader {
            game: game_no,
            started_unix_ms: unix_ms(),
            max_plies: spec.max_plies.unwrap_or(cfg.referee.max_plies),
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
            let mut setup = view::Setup::of(
                header.game,
                header.started_unix_ms,
                header.max_plies,
                &game,
                &names,
            );
            setup.position.clocks_ms = Some(clocks_left(&clocks, players.len()));
            setup.position.at_unix_ms = Some(header.started_unix_ms);
            hub.open(setup, deal)
        });
        // Seats kept after a lost connection: those whose player can prove it is back, with the
        // secret of the `rejoin` extension or its per-game tournament token.
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
            .map(|(i, mut player)| {
                let absent = spec.absent.contains(&(i + 1));
                let secret = (player.ext.contains(Extension::Rejoin) && !absent)
                    .then(crate::secret::new_secret)
                    .flatten();
                if secret.is_none() {
                    player.ext = player.ext.without(Extension::Rejoin);
                }
                let token = seat_tokens.get(i).copied().flatten().filter(|_| !absent);
                let kept = !grace.is_zero() && (secret.is_some() || token.is_some());
                if kept {
                    registrations.push(ctx.rejoins.register(
                        i + 1,
                        secret.as_deref(),
                        token,
                        &returns_tx,
                    ));
                }
                Seat {
                    player,
                    errors: 0,
                    kept,
                    secret,
                    away: None,
                    returns: 0,
                }
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
            if !self.send_setup(player) {
                self.lost(player);
            }
        }
        // Not the seeds: with them (the server's is secret until the end) whoever reads the
        // log would know every face-down piece.
        tracing::debug!("game started");
    }

    /// Sends `player` its setup message (at the start, and again when it takes its seat back).
    /// `false` when its connection is gone.
    fn send_setup(&mut self, player: usize) -> bool {
        let variant = &self.ctx.variant;
        let line = format!(
            "({}{}{}{}{}{})\n",
            ServerClause::Id(player),
            ServerClause::Players(variant.players),
            team_clauses(variant, player),
            self.ctx.setup_common,
            setup_tail(&self.game),
            self.setup_extensions(player)
        );
        if let Some(x) = &mut self.exchange {
            // The pages show the exchange once the game is over: the secret is dead by then,
            // and left out all the same.
            let shown = match &self.seats[player - 1].secret {
                Some(secret) => line.replace(secret.as_str(), "(secret)"),
                None => line.clone(),
            };
            x.sent(player, self.game.ply() + 1, &shown);
        }
        self.seats[player - 1]
            .player
            .outbox
            .send_line(line.into())
            .is_ok()
    }

    /// The extension clauses ending `player`'s setup message: `(ext ...)` (what was granted),
    /// `(timecontrol ...)`, `(variant "...")`. Empty for a client that asked for nothing.
    fn setup_extensions(&self, player: usize) -> String {
        let ext = self.seats[player - 1].player.ext;
        if ext.is_empty() {
            return String::new();
        }
        let mut out = ServerClause::Ext(ext.names()).to_string();
        if ext.contains(Extension::Clock) {
            let c = self.clocks.control(player);
            let ms = |d: Option<std::time::Duration>| d.map_or(0, |d| d.as_millis() as u64);
            let control = [
                ms(c.game),
                c.increment.as_millis() as u64,
                ms(c.per_move),
                u64::from(c.period_moves),
            ];
            out.push_str(&ServerClause::TimeControl(control).to_string());
        }
        if ext.contains(Extension::Variant) {
            out.push_str(&self.ctx.public_variant);
        }
        if let Some(secret) = self.seats[player - 1]
            .secret
            .as_ref()
            .filter(|_| ext.contains(Extension::Rejoin))
        {
            out.push_str(&ServerClause::Rejoin(secret.clone()).to_string());
        }
        out
    }

    /// The extension clauses of a prompt for a client that asked for `ext`, in a fixed order:
    /// `(last ...)`, `(clock ...)`, `(progress ...)`.
    ///
    /// `thought`: how long the player to move has been thinking on this turn already (zero
    /// for a new prompt; the time away for a mover that comes back), taken off its clock.
    fn prompt_extensions(&self, ext: Extensions, thought: Duration) -> Vec<ServerClause> {
        let mut out = Vec::new();
        if ext.contains(Extension::Last) {
            out.extend(self.last.map(|(id, ply)| ServerClause::Last(id, ply)));
        }
        if ext.contains(Extension::Clock) {
            let mover = self.game.to_move();
            out.push(ServerClause::Clock(
                (1..=self.seats.len())
                    .map(|p| {
                        let spent = if p == mover { thought } else { Duration::ZERO };
                        self.clocks
                            .remaining(p)
                            .map_or(0, |d| d.saturating_sub(spent).as_millis() as u64)
                    })
                    .collect(),
            ));
        }
        if ext.contains(Extension::Progress) {
            out.push(ServerClause::Progress(self.game.quiet_plies()));
        }
        out
    }

    /// The message of the position as it stands, for a player that asked for `ext`:
    /// `(board ...)`, the drawn piece while it waits to be put, the extension clauses, then
    /// `(turn ...)` for the mover or `(info ...)` for everyone else.
    fn position_line(&self, ext: Extensions, to_move: bool, thought: Duration) -> Arc<str> {
        let game = &self.game;
        let mut clauses = vec![ServerClause::Board(game.wire_board())];
        clauses.extend(game.hand().map(|p| ServerClause::Hand(p.letter())));
        if !ext.is_empty() {
            clauses.extend(self.prompt_extensions(ext, thought));
        }
        clauses.push(if to_move {
            ServerClause::Turn(game.round(), game.to_move())
        } else {
            ServerClause::Info(game.round(), game.to_move())
        });
        ServerMessage(clauses).to_line().into()
    }

    /// Sends the board with `(turn ...)` to the mover and `(info ...)` to everyone else (with
    /// the extension clauses each asked for before them). A seat without its player (its
    /// connection lost, the seat kept) is skipped: it gets the position when it comes back.
    /// `None` when the game ended on the way (a player who cannot be written to is gone).
    fn prompt(&mut self) -> Option<Turn> {
        let mover = self.game.to_move();
        // Most games have at most two kinds of clients (with and without extensions).
        let mut made: Vec<(Extensions, bool, Arc<str>)> = Vec::new();
        let mut prompt = None;
        let mut sent = Vec::new();
        let mut gone = Vec::new();
        for i in 0..self.seats.len() {
            let ext = self.seats[i].player.ext;
            let to_move = i + 1 == mover;
            if self.seats[i].away.is_some() {
                continue;
            }
            let line = match made.iter().find(|(e, m, _)| *e == ext && *m == to_move) {
                Some((_, _, line)) => line.clone(),
                None => {
                    let line = self.position_line(ext, to_move, Duration::ZERO);
                    made.push((ext, to_move, line.clone()));
                    line
                }
            };
            if to_move {
                prompt = Some(line.clone());
            }
            if self.exchange.is_some() {
                sent.push((i + 1, line.clone()));
            }
            if self.seats[i].player.outbox.send_line(line).is_err() {
                gone.push(i + 1);
            }
        }
        if let Some(x) = &mut self.exchange {
            let ply = self.game.ply() + 1;
            for (player, line) in sent {
                x.sent(player, ply, &line);
            }
        }
        for player in gone {
            if self.lost(player) {
                return None;
            }
        }
        let prompt = match prompt {
            Some(p) => p,
            // The mover is away: it is prompted when it comes back (and this line is written
            // anew then).
            None => self.position_line(self.seats[mover - 1].player.ext, true, Duration::ZERO),
        };
        let started = Instant::now();
        if self.first_moves.prompted(mover, started) {
            // Until it acts, the mover may have to make room on a full server, ending the
            // game: every open connection of the game gives its place back (a seat waiting
            // for its player after a lost connection has given its place back already). A
            // game under way makes room only when no game without a ply can.
            let frees = self
                .seats
                .iter()
                .filter(|s| s.player.ticket.is_some() && s.away.is_none())
                .count();
            let game_started = self.game.ply() > 0;
            if let Some(ticket) = &mut self.seats[mover - 1].player.ticket {
                ticket.prompted(started, frees, game_started);
            }
        }
        Some(Turn {
            mover,
            prompt,
            board: self.game.wire_board(),
            round: self.game.round(),
            started,
            deadline: self.clocks.deadline(mover, started),
            counts: self.game.counts(),
            counts_all: (self.ctx.config.records.legal_counts == LegalCounts::All).then(|| {
                (1..=self.seats.len())
                    .map(|p| self.game.counts_of(p))
                    .collect()
            }),
        })
    }

    /// Waits until the mover's action is played or the game ends, answering every other
    /// message on the way.
    ///
    /// Time is charged up to the moment a message was read from the socket, so a message read
    /// before the deadline is ruled on even when the referee gets to it after the deadline, and
    /// the flag falls only when nothing read in time was a legal action.
    async fn await_action(&mut self, turn: &mut Turn) {
        loop {
            let shutdown = self.ctx.shutdown.clone();
            // The first kept seat whose player's grace runs out.
            let grace_over = self
                .seats
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.away.map(|(since, _)| (since + self.grace, i + 1)))
                .min();
            // A mover that has not acted yet: its first action's deadline, and the signal that
            // it must make room on a full server.
            let first_due = self.first_moves.deadline(turn.mover);
            let made_room = (!self.first_moves.has_acted(turn.mover))
                .then(|| self.seats[turn.mover - 1].player.ticket.as_ref())
                .flatten()
                .map(|t| t.made_room().clone());
            let (from, inbound) = tokio::select! {
                biased;
                _ = shutdown.cancelled() => {
                    self.clocks.charge(turn.mover, turn.started.elapsed());
                    self.game.abort();
                    return;
                }
                // Before the deadline: what was read in time is ruled on first.
                e = next_event(&mut self.seats, &mut self.next_poll) => e,
                _ = sleep_until_opt(turn.deadline) => {
                    self.lose_on_time(turn);
                    return;
                }
                _ = sleep_until_opt(first_due) => {
                    self.missed_first_action(turn, NoStart::Deadline);
                    return;
                }
                _ = cancelled_opt(made_room.as_ref()) => {
                    self.missed_first_action(turn, NoStart::MadeRoom);
                    return;
                }
                _ = sleep_until_opt(grace_over.map(|(at, _)| at)) => {
                    let player = grace_over.expect("a grace ran out").1;
                    tracing::info!(player, "a player did not come back in time");
                    self.game.forfeit(player, Termination::Disconnect);
                    return;
                }
                Some(back) = self.returns.recv() => {
                    if self.take_back(back, turn) {
                        return;
                    }
                    continue;
                }
            };
            if let Some(x) = &mut self.exchange {
                let ply = self.game.ply() + 1;
                match &inbound {
                    Inbound::Message(m, _) => x.read(from, ply, &m.to_string()),
                    Inbound::Bad(e, _) => x.read(from, ply, &format!("(unreadable: {})", e.text)),
                    Inbound::Closed => x.read(from, ply, "(closed the connection)"),
                }
            }
            let (request, read_at) = match inbound {
                Inbound::Closed => {
                    if self.lost(from) {
                        return;
                    }
                    continue;
                }
                Inbound::Bad(e, at) => (Request::Refused(e.code, e.text), at.instant()),
                Inbound::Message(m, at) => (Request::of(m), at.instant()),
            };
            // Past the deadline, the mover's flag has fallen (whatever the message says).
            if from == turn.mover && turn.deadline.is_some_and(|d| read_at > d) {
                self.lose_on_time(turn);
                return;
            }
            // Likewise past the first-move deadline: the game was over before this was read.
            if from == turn.mover && first_due.is_some_and(|d| read_at > d) {
                self.missed_first_action(turn, NoStart::Deadline);
                return;
            }
            let spent = read_at.saturating_duration_since(turn.started);
            match self.rule(turn, from, request, spent) {
                Step::Answered => {}
                Step::Played | Step::Over => return,
            }
        }
    }

    /// Rules on one request from player `from`, read `spent` after the turn started.
    fn rule(
        &mut self,
        turn: &Turn,
        from: usize,
        request: Request,
        spent: std::time::Duration,
    ) -> Step {
        let referee = &self.ctx.config.referee;
        let (code, text, ruling) = match request {
            Request::Resign => {
                self.game.resign(from);
                return Step::Over;
            }
            Request::Refused(code, text) => (code, text, Ruling::Error),
            Request::Act { .. } if from != turn.mover => (
                ErrorCode::NotYourTurn,
                format!(
                    "it is player {}'s turn; wait for your (turn ...)",
                    turn.mover
                ),
                referee.out_of_turn,
            ),
            Request::Act {
                board: Some(claimed),
                ..
            } if claimed != turn.board && referee.stale_board != Ruling::Ignore => (
                ErrorCode::StaleBoard,
                format!(
                    "the board is {}, not {}",
                    turn.board,
                    anqi_core::sexp::excerpt(&claimed)
                ),
                referee.stale_board,
            ),
            Request::Act {
                comment: Some(_), ..
            } if !self.seats[from - 1].player.ext.contains(Extension::Comment) => (
                ErrorCode::Unexpected,
                if self.ctx.config.records.comment_bytes == 0 {
                    "this server keeps no comments ([records] comment_bytes = 0): send the action without its (comment ...)".into()
                } else {
                    "(comment ...) is the comment extension's: ask for it with (ext comment) in your handshake, or send the action without it".into()
                },
                Ruling::Error,
            ),
            Request::Act {
                action, comment, ..
            } => {
                if self.clocks.would_fall(turn.mover, spent) {
                    self.lose_on_time(turn);
                    return Step::Over;
                }
                // The one validation of the ply: `play` checks and applies it.
                match self.game.play(from, action) {
                    Ok(played) => {
                        self.clocks.charge(turn.mover, spent);
                        self.acted(turn.mover);
                        self.last = Some((
                            turn.mover,
                            match action {
                                Action::Reveal(cell) => {
                                    LastPly::Rev(cell, played.revealed.map_or('X', |p| p.letter()))
                                }
                                Action::Move { from, to } => LastPly::Mov(from, to),
                                Action::Bag => LastPly::Bag,
                                Action::Put { piece, cell } => LastPly::Put(piece.letter(), cell),
                            },
                        ));
                        self.plies.push(PlyRecord {
                            ply: self.game.ply(),
                            turn: turn.round,
                            player: turn.mover,
                            action: action.to_string(),
                            think_ms: spent.as_millis() as u64,
                            legal: turn.counts,
                            legal_all: turn.counts_all.clone(),
                            revealed: played.revealed.map(|p| p.letter()),
                            drawn: played.drawn.map(|p| p.letter()),
                            captured: played.captured.map(|p| p.letter()),
                            comment: comment
                                .map(|c| cut_comment(c, self.ctx.config.records.comment_bytes)),
                        });
                        self.adjudicate_by_tables();
                        let cap = self.header.max_plies;
                        if cap > 0 && self.game.ply() >= cap && self.game.outcome().is_none() {
                            self.game.adjudicate_draw(Termination::PlyCap);
                        }
                        self.publish_ply();
                        return Step::Played;
                    }
                    Err(PlayError::Illegal(e)) => (ErrorCode::Illegal, e.0, referee.illegal_action),
                    Err(e @ (PlayError::NotYourTurn { .. } | PlayError::GameOver)) => {
                        unreachable!("the mover of a running game: {e}")
                    }
                }
            }
        };
        let max_errors = referee.max_errors;
        self.reply_fault(from, code, text);
        let seat = &self.seats[from - 1];
        let too_many = max_errors > 0 && seat.errors > max_errors;
        if ruling == Ruling::Lose || too_many {
            self.game.forfeit(from, Termination::Illegal);
            return Step::Over;
        }
        if from != turn.mover {
            return Step::Answered;
        }
        // The prompt again, as it was sent.
        let prompt = turn.prompt.clone();
        if let Some(x) = &mut self.exchange {
            x.sent(from, self.game.ply() + 1, &prompt);
        }
        if self.seats[from - 1]
            .player
            .outbox
            .send_line(prompt)
            .is_err()
            && self.lost(from)
        {
            return Step::Over;
        }
        Step::Answered
    }

    /// With `adjudicate = "tables"`, after a ply: a game the endgame tables decide ends with
    /// their verdict (before the ply cap is looked at: the tables' result is the better one).
    /// Tables that cannot answer (a material whose values fail their checks, or went away
    /// under the server) leave the game to the rules, where they fail: the fault is logged
    /// once for the whole server (the tables say which report is the first), never per game.
    ///
    /// The first probe of a material reads it from the file (I/O, its SHA-256, inflation: up
    /// to a second for the largest), or waits for another referee reading it: on a
    /// multi-threaded runtime that probe runs under `block_in_place`, so that the worker's
    /// other tasks (other games, connections) move to another thread meanwhile. A
    /// current-thread runtime (tests) cannot hand them over, and probes in place.
    fn adjudicate_by_tables(&mut self) {
        let Some(tables) = &self.ctx.tables else {
            return;
        };
        if self.game.outcome().is_some() {
            return;
        }
        let game = &self.game;
        let multi_threaded = || {
            tokio::runtime::Handle::try_current()
                .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
        };
        let ruled = if tables.needs_read(game) && multi_threaded() {
            tokio::task::block_in_place(|| tables.adjudication(game))
        } else {
            tables.adjudication(game)
        };
        match ruled {
            Ok(None) => {}
            Ok(Some((winner, verdict))) => {
                self.game.adjudicate(winner);
                let path = std::path::Path::new(&self.ctx.config.referee.tables);
                self.adjudication = Some(Adjudication::by_tables(verdict, path));
                tracing::debug!(verdict = %verdict.text(), ?winner, "the endgame tables end the game");
            }
            Err(e) if e.first() => {
                tracing::error!(error = %e, ply = self.game.ply(), "the endgame tables cannot be used there; games go on without them where they fail");
            }
            Err(e) => tracing::debug!(error = %e, "the endgame tables cannot be used there"),
        }
    }

    /// `player`'s connection is lost (closed, or not taking what it is sent). A kept seat
    /// waits for its player's return (until its grace runs out), and the old connection is let
    /// go, so that a client that is still there sees it closed and comes back; any other
    /// player loses by `disconnect`. Returns whether the game is over.
    fn lost(&mut self, player: usize) -> bool {
        let seat = &mut self.seats[player - 1];
        if !seat.kept {
            self.game.forfeit(player, Termination::Disconnect);
            return true;
        }
        if seat.away.is_none() {
            tracing::info!(
                player,
                grace_ms = self.grace.as_millis() as u64,
                "a player's connection is lost; its seat waits for it"
            );
            seat.away = Some((Instant::now(), self.game.ply() + 1));
            seat.player.let_go();
        }
        false
    }

    /// A connection came back for a seat with its proof: it takes the seat, is sent the
    /// setup message again and the position as it stands, and plays on. The clock ran on
    /// meanwhile.
    ///
    /// A seat still connected is taken from its old connection with the seat's secret (a peer
    /// that vanished without closing its socket leaves a connection that still looks open),
    /// not with a tournament token: a token may have been read from a command line, and it
    /// only stands in for a lost connection. A seat is taken back at most [`MAX_RETURNS`]
    /// times a game.
    ///
    /// A player whose grace or clock ran out while it was away is too late, however soon
    /// after it came (the timers may not have fired yet when the return is read): it loses as
    /// `disconnect`, and this returns `true` (the game is over).
    fn take_back(&mut self, back: Return, turn: &mut Turn) -> bool {
        let Return {
            seat,
            mut player,
            proof,
        } = back;
        let now = Instant::now();
        let s = &mut self.seats[seat - 1];
        if let Some((since, _)) = s.away {
            let flag_fell = seat == turn.mover && turn.deadline.is_some_and(|d| now >= d);
            if flag_fell || now >= since + self.grace {
                player.outbox.error(
                    ErrorCode::Unexpected,
                    "too late: this seat's grace or clock ran out while its player was away",
                );
                if flag_fell {
                    self.lose_on_time(turn);
                } else {
                    self.game.forfeit(seat, Termination::Disconnect);
                }
                return true;
            }
        }
        if s.away.is_none() && proof == Proof::Token {
            tracing::warn!(player = seat, peer = %player.peer, "refused a connection presenting a tournament token whose seat is already taken: its engine is still connected");
            player.outbox.error(
                ErrorCode::Unexpected,
                "this token's seat is already taken: a tournament token takes a seat back only after its connection is lost",
            );
            return false;
        }
        if s.returns >= MAX_RETURNS {
            tracing::warn!(player = seat, peer = %player.peer, "refused a seat's return: it came back too often");
            player.outbox.error(
                ErrorCode::Unexpected,
                format!("this seat has been taken back {MAX_RETURNS} times in this game: no more"),
            );
            return false;
        }
        s.returns += 1;
        let (away_ms, ply) = match s.away.take() {
            Some((since, ply)) => (now.duration_since(since).as_millis() as u64, ply),
            None => {
                tracing::warn!(player = seat, peer = %player.peer, "a connection took its seat back with its secret while the old one was still open");
                s.player.outbox.error(
                    ErrorCode::Unexpected,
                    "another connection took this seat back with its secret; this one is closed",
                );
                (0, self.game.ply() + 1)
            }
        };
        tracing::info!(player = seat, peer = %player.peer, away_ms, "a player took its seat back");
        self.drops.push(DropRecord {
            player: seat,
            ply,
            away_ms,
            back: true,
        });
        // The seat keeps its name and seed for the record; the connection is the new one,
        // with the extensions it asked for (as far as this server grants them).
        player.name = std::mem::take(&mut s.player.name);
        player.seed = std::mem::take(&mut s.player.seed);
        player.ticket = s.player.ticket.take();
        player.ext = granted(player.ext, &self.ctx.config);
        if s.secret.is_none() {
            player.ext = player.ext.without(Extension::Rejoin);
        }
        s.player = player;
        let ext = s.player.ext;
        if !self.send_setup(seat) {
            self.lost(seat);
            return false;
        }
        // The position as it stands; the mover's clock shows the time it has been away.
        let to_move = seat == turn.mover;
        let line = self.position_line(ext, to_move, now.duration_since(turn.started));
        if to_move {
            turn.prompt = line.clone();
        }
        if let Some(x) = &mut self.exchange {
            x.sent(seat, self.game.ply() + 1, &line);
        }
        if self.seats[seat - 1].player.outbox.send_line(line).is_err() {
            self.lost(seat);
        }
        false
    }

    /// `player` made an action: its first-move deadline is over, and it never makes room.
    fn acted(&mut self, player: usize) {
        self.first_moves.acted(player);
        if let Some(ticket) = &mut self.seats[player - 1].player.ticket {
            ticket.acted();
        }
    }

    /// The mover has not made its first action (see [`FirstMoves`]): in time, or before it had
    /// to make room on a full server.
    ///
    /// While no ply has been played, nobody has started playing, so nobody wins: the game is
    /// aborted, and every player is told why in [`Referee::finish`]. Once a ply has been
    /// played (a piece revealed, colours set), the mover has seen the game start, and walking
    /// away from a position it dislikes must not spare it a loss: it loses on time, as if its
    /// clock had run out (told why here; the others get their `(win ...)`). A mover away from
    /// its kept seat loses by `disconnect`, as on its clock.
    fn missed_first_action(&mut self, turn: &Turn, why: NoStart) {
        self.clocks.charge(turn.mover, turn.started.elapsed());
        if self.game.ply() == 0 {
            tracing::info!(
                player = turn.mover,
                ?why,
                "a player made no first action; the game is aborted"
            );
            self.no_start = Some((turn.mover, why));
            self.game.abort();
            return;
        }
        tracing::info!(
            player = turn.mover,
            ?why,
            plies = self.game.ply(),
            "a player made no first action in a game under way; it loses on time"
        );
        if self.seats[turn.mover - 1].away.is_some() {
            self.game.forfeit(turn.mover, Termination::Disconnect);
            return;
        }
        self.game.forfeit(turn.mover, Termination::Time);
        let ms = self.first_moves.limit().unwrap_or_default().as_millis();
        let (code, text) = match why {
            NoStart::Deadline => (
                ErrorCode::Timeout,
                format!("you made no first action within {ms} ms of your first (turn ...), in a game under way: you lose on time"),
            ),
            NoStart::MadeRoom => (
                ErrorCode::Busy,
                "the server is full, and you were idle on your first action in a game under way: you lose on time, to make room for a new connection".into(),
            ),
        };
        self.reply_fault(turn.mover, code, text);
    }

    /// What each player of a game aborted for `idle`'s missing first action (no ply played) is
    /// told.
    fn no_start_error(&self, idle: usize, why: NoStart, player: usize) -> (ErrorCode, String) {
        let ms = self.first_moves.limit().unwrap_or_default().as_millis();
        match (why, player == idle) {
            (NoStart::Deadline, true) => (
                ErrorCode::Timeout,
                format!("you made no first action within {ms} ms of your first (turn ...): this game is aborted, with no result"),
            ),
            (NoStart::MadeRoom, true) => (
                ErrorCode::Busy,
                "the server is full, and of the players seated in games not started you waited longest on your first action: this game is aborted to make room for a new connection, with no result".into(),
            ),
            (NoStart::Deadline, false) => (
                ErrorCode::Timeout,
                format!("player {idle} made no first action within {ms} ms: this game is aborted, with no result; connect again for a new game"),
            ),
            (NoStart::MadeRoom, false) => (
                ErrorCode::Timeout,
                format!("player {idle} made no first action, and made room for a new connection on the full server: this game is aborted, with no result; connect again for a new game"),
            ),
        }
    }

    /// Shows observers the ply just played and the position after it.
    fn publish_ply(&mut self) {
        let Some(feed) = &mut self.feed else { return };
        let Some(ply) = self.plies.last() else { return };
        let clocks = clocks_left(&self.clocks, self.seats.len());
        feed.ply(ply, &self.game, clocks, unix_ms());
    }

    /// The mover's flag fell: they are told, and lose. A mover away from its kept seat loses
    /// by `disconnect`: it was not there to play.
    fn lose_on_time(&mut self, turn: &Turn) {
        self.clocks.charge(turn.mover, turn.started.elapsed());
        if self.seats[turn.mover - 1].away.is_some() {
            self.game.forfeit(turn.mover, Termination::Disconnect);
            return;
        }
        self.game.forfeit(turn.mover, Termination::Time);
        self.reply_fault(turn.mover, ErrorCode::Timeout, "your clock ran out".into());
    }

    /// Sends `((error CODE "text"))` to a player, counts it against them and records it.
    fn reply_fault(&mut self, player: usize, code: ErrorCode, text: String) {
        if let Some(x) = &mut self.exchange {
            let line = ServerMessage(vec![ServerClause::Error(code, text.clone())]).to_line();
            x.sent(player, self.game.ply() + 1, &line);
        }
        let seat = &mut self.seats[player - 1];
        seat.player.outbox.error(code, text.clone());
        seat.errors += 1;
        let fault = FaultRecord {
            ply: self.game.ply() + 1,
            player,
            code: code.name().to_string(),
            text,
        };
        if let Some(feed) = &mut self.feed {
            feed.push(&view::Event::Fault(view::FaultView::of(&fault)));
        }
        self.faults.push(fault);
    }

    /// Writes the record, then tells everyone the result: a player who has seen `(win ...)`
    /// can count on the record being on disk. An aborted game's players are told why instead.
    async fn finish(mut self) {
        // No connection is handed to this game any more.
        self.registrations.clear();
        // The players' seats are free again before anyone hears how the game ended: a client
        // that has its result may take a seat for its next game at once.
        for seat in &mut self.seats {
            seat.player.ticket = None;
        }
        let outcome = self
            .game
            .outcome()
            .expect("the game loop ends with an outcome");
        let end = Instant::now();
        for (i, seat) in self.seats.iter().enumerate() {
            if let Some((since, ply)) = seat.away {
                self.drops.push(DropRecord {
                    player: i + 1,
                    ply,
                    away_ms: end.duration_since(since).as_millis() as u64,
                    back: false,
                });
            }
        }
        if outcome.reason == Termination::Aborted {
            for player in 1..=self.seats.len() {
                let (code, text) = match self.no_start {
                    Some((idle, why)) => self.no_start_error(idle, why, player),
                    None => (
                        ErrorCode::Shutdown,
                        "the server is shutting down; this game is aborted".into(),
                    ),
                };
                self.reply_fault(player, code, text);
            }
        }
        let players = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| PlayerRecord {
                id: i + 1,
                name: s.player.name.clone(),
                seed: s.player.seed.clone(),
                side: Some(self.game.side_of(i + 1)),
                team: Some(wire_team(self.game.variant(), i + 1)),
                colour: self
                    .game
                    .colour_of_side(self.game.side_of(i + 1))
                    .map(|c| c.name().to_string()),
                time_used_ms: self.clocks.used(i + 1).as_millis() as u64,
            })
            .collect();
        let mut record = GameRecord::of_game(
            self.header,
            &self.game,
            players,
            std::mem::take(&mut self.plies),
            std::mem::take(&mut self.faults),
        );
        record.drops = std::mem::take(&mut self.drops);
        if outcome.reason == Termination::Adjudicated {
            record.result.adjudication = self.adjudication.take();
        }
        let win = record.result.win.clone();
        tracing::info!(
            result = %if win.is_empty() { "aborted" } else { &win },
            reason = outcome.reason.name(),
            plies = self.game.ply(),
            "game over"
        );
        let done = self.done.take().map(|done| (done, record.clone()));
        let watched = self.feed.take().map(|feed| (feed, record.clone()));
        let game_no = record.game;
        let aborted = outcome.reason == Termination::Aborted;
        // An aborted game's players have been told already (and get no result): the server
        // waits for its record when it stops, not the game.
        let wait = if aborted {
            std::time::Duration::ZERO
        } else {
            std::time::Duration::from_millis(self.ctx.config.records.write_wait_ms)
        };
        let committed = self.ctx.records.commit(record, wait).await;
        if let Some((done, record)) = done {
            let _ = done.send(record);
        }
        if !aborted {
            // The players are told when the result they get next is not on disk (the record
            // is kept and written when the file can be: protocol/RECORDS.md).
            if let Committed::Pending(why) = &committed {
                tracing::error!(
                    game = game_no,
                    error = %why,
                    "announcing a result that is not on disk: the records file cannot be written"
                );
                let text = format!(
                    "this game's record could not be written ({why}); the result that follows is not on disk yet"
                );
                for (i, seat) in self.seats.iter().enumerate() {
                    if let Some(x) = &mut self.exchange {
                        let line = ServerMessage(vec![ServerClause::Error(
                            ErrorCode::Unrecorded,
                            text.clone(),
                        )])
                        .to_line();
                        x.sent(i + 1, self.game.ply() + 1, &line);
                    }
                    seat.player
                        .outbox
                        .error(ErrorCode::Unrecorded, text.clone());
                }
            }
            let (player, team) = self.game.win_clause();
            let win = ServerClause::Win(player, team);
            let line: Arc<str> = ServerMessage(vec![win.clone()]).to_line().into();
            // With `last`: the final board and ply before the result.
            let with_last: Arc<str> = ServerMessage(
                std::iter::once(ServerClause::Board(self.game.wire_board()))
                    .chain(self.last.map(|(id, ply)| ServerClause::Last(id, ply)))
                    .chain([win])
                    .collect(),
            )
            .to_line()
            .into();
            for (i, seat) in self.seats.iter().enumerate() {
                let line = if seat.player.ext.contains(Extension::Last) {
                    &with_last
                } else {
                    &line
                };
                if let Some(x) = &mut self.exchange {
                    x.sent(i + 1, self.game.ply() + 1, line);
                }
                let _ = seat.player.outbox.send_line(line.clone());
            }
        }
        if let Some((feed, record)) = watched {
            feed.finish(&record, self.exchange.take().unwrap_or_default());
        }
        // Connections that came back while the game was ending.
        while let Ok(late) = self.returns.try_recv() {
            late.player.outbox.error(
                ErrorCode::Unexpected,
                format!(
                    "the game of this seat is over: {} by {}",
                    if win.is_empty() { "aborted" } else { &win },
                    outcome.reason.name()
                ),
            );
        }
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

/// A comment as a record keeps it: at most `max` bytes, cut at a character boundary and
/// ending with `...` when it was longer.
fn cut_comment(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    const MORE: &str = "...";
    // Room for the mark, unless the bound is too small to hold it.
    let mark = if max > MORE.len() { MORE } else { "" };
    let mut end = max - mark.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(mark);
    text
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

/// The setup clause that lists the cells where the game starts: `(puts ...)` in a bag game (as in
/// Table V), `(revs ...)` (the face-down cells) otherwise.
fn setup_tail(game: &Game) -> String {
    let cells = |want: Square| -> Vec<usize> {
        (0..game.board().len())
            .filter(|&c| game.board().get(c) == want)
            .collect()
    };
    if game.variant().start == Start::Bag {
        ServerClause::Puts(cells(Square::Empty)).to_string()
    } else {
        ServerClause::Revs(cells(Square::Hidden)).to_string()
    }
}

/// `(team T)` and one `(teammate ID)` per teammate, in team games only.
fn team_clauses(variant: &Variant, player: usize) -> String {
    if !variant.has_teams() {
        return String::new();
    }
    let side = variant.side_of(player);
    // The number the record keeps as the player's `team`.
    let mut out = ServerClause::Team(wire_team(variant, player)).to_string();
    for &mate in variant.sides[side].iter().filter(|&&m| m != player) {
        out.push_str(&ServerClause::Teammate(mate).to_string());
    }
    out
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Waits until `token` is cancelled; for ever without one.
async fn cancelled_opt(token: Option<&CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// The next message from any seat, taking seats in turn so none is starved.
async fn next_event(seats: &mut [Seat], next: &mut usize) -> (usize, Inbound) {
    poll_fn(|cx| {
        let n = seats.len();
        for k in 0..n {
            let i = (*next + k) % n;
            // A seat without its player has nothing to say until it is back.
            if seats[i].away.is_some() {
                continue;
            }
            match seats[i].player.inbox.poll_recv(cx) {
                Poll::Ready(Some(msg)) => {
                    *next = (i + 1) % n;
                    return Poll::Ready((i + 1, msg));
                }
                Poll::Ready(None) => return Poll::Ready((i + 1, Inbound::Closed)),
                Poll::Pending => {}
            }
        }
        Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::ReadAt;
    use crate::record_sink::Durability;
    use anqi_core::wire::ClientMessage;

    /// One player's ends: what the referee sends it, and its inbox.
    type Ends = (
        tokio::sync::mpsc::UnboundedReceiver<Arc<str>>,
        tokio::sync::mpsc::Sender<Inbound>,
    );

    /// A referee for a two-player game of `variant` under `config`, player 1 asking for
    /// `ext`: both players' ends, the records, and the server-wide rejoin map.
    async fn table_with(
        variant: &str,
        config: &str,
        ext: Extensions,
    ) -> (
        [Ends; 2],
        tokio::sync::mpsc::UnboundedReceiver<GameRecord>,
        crate::rejoin::Rejoins,
    ) {
        let variant = Arc::new(Variant::load(variant).unwrap());
        let (observer, records) = tokio::sync::mpsc::unbounded_channel();
        let (sink, _) = RecordSink::start(None, Durability { fsync: false }, Some(observer))
            .await
            .unwrap();
        let rejoins = crate::rejoin::Rejoins::default();
        let ctx = GameContext {
            setup_common: GameContext::setup_common(&variant),
            public_variant: "".into(),
            variant,
            config: Arc::new(Config::parse(config).unwrap()),
            records: sink,
            shutdown: CancellationToken::new(),
            watch: None,
            rejoins: rejoins.clone(),
            tables: None,
        };
        let (mut p1, out1, in1) = Player::for_test(1, "a");
        p1.ext = ext;
        let (p2, out2, in2) = Player::for_test(2, "b");
        tokio::spawn(run_game(
            ctx,
            1,
            vec![p1, p2],
            GameSpec::default(),
            Vec::new(),
        ));
        ([(out1, in1), (out2, in2)], records, rejoins)
    }

    /// A referee for a two-player game of `variant` under `config`, with both players' ends.
    async fn table(
        variant: &str,
        config: &str,
    ) -> ([Ends; 2], tokio::sync::mpsc::UnboundedReceiver<GameRecord>) {
        let (ends, records, _) = table_with(variant, config, Extensions::NONE).await;
        (ends, records)
    }

    /// A two-player game of `traditional-2x4` under `config` where player 1 asked for
    /// `rejoin`: both players' ends, the records, the server-wide rejoin map, and player 1's
    /// secret (read from its setup message).
    async fn kept_table(
        config: &str,
    ) -> (
        [Ends; 2],
        tokio::sync::mpsc::UnboundedReceiver<GameRecord>,
        crate::rejoin::Rejoins,
        String,
    ) {
        let ext = [Extension::Rejoin].into_iter().collect();
        let ([(mut out1, in1), p2], records, rejoins) =
            table_with("traditional-2x4", config, ext).await;
        let setup = out1.recv().await.unwrap();
        let secret = setup
            .split("(rejoin \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a secret")
            .to_string();
        ([(out1, in1), p2], records, rejoins, secret)
    }

    /// Player 1 comes back with `secret` on a new (test) connection.
    fn come_back(rejoins: &crate::rejoin::Rejoins, secret: &str) {
        let (mut back, _out, _in) = Player::for_test(3, "");
        back.rejoin = Some(secret.to_string());
        assert!(
            rejoins.hand_back(Proof::Secret, back).is_none(),
            "handed to the referee"
        );
    }

    /// Player 1, to move, loses its connection; the only thread is blocked for 300 ms (the
    /// referee cannot run), then player 1 comes back: the game's record.
    async fn back_after_a_blocked_wait(config: &str) -> GameRecord {
        let ([(mut out1, in1), _p2], mut records, rejoins, secret) = kept_table(config).await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        drop(in1);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        std::thread::sleep(std::time::Duration::from_millis(300));
        come_back(&rejoins, &secret);
        records.recv().await.unwrap()
    }

    /// The mover's connection is lost, its clock runs out, and it comes back before the
    /// referee gets to run: the flag fell while it was away, so it loses as `disconnect`, and
    /// is not taken back (the return was once taken, and the loss recorded as `time`). So with
    /// the grace: a return after it ran out is not taken.
    #[tokio::test]
    async fn a_return_after_the_flag_fell_or_the_grace_ran_out_is_too_late() {
        for config in [
            "[referee]\nrejoin_grace_ms = 60000\n[clock]\ngame_ms = 0\nmove_ms = 200\n",
            "[referee]\nrejoin_grace_ms = 200\n",
        ] {
            let r = back_after_a_blocked_wait(config).await;
            assert_eq!(
                (r.result.reason, r.result.loser),
                (Termination::Disconnect, Some(1)),
                "{config}"
            );
            assert!(r.faults.is_empty(), "{config}: {:?}", r.faults);
            assert_eq!(r.drops.len(), 1, "{config}");
            assert!(!r.drops[0].back, "{config}: {:?}", r.drops);
        }
    }

    /// A kept seat's connection that cannot be written to (here: its reader is gone; on a
    /// socket, a client that stopped reading) is let go, not left open and unread: the client
    /// sees it closed, and knows to come back.
    #[tokio::test]
    async fn a_kept_seat_whose_connection_is_lost_lets_that_connection_go() {
        let ([(out1, in1), (mut out2, _in2)], _records, _rejoins, _secret) =
            kept_table("[referee]\nrejoin_grace_ms = 60000\n").await;
        drop(out1);
        // Player 1 plays; writing the next prompt to it fails: the seat waits for its
        // player, and the connection's inbox is closed.
        in1.send(message("((rev 0))", Instant::now()))
            .await
            .unwrap();
        while !out2.recv().await.unwrap().contains("(turn") {}
        tokio::time::timeout(std::time::Duration::from_secs(5), in1.closed())
            .await
            .expect("the old connection is let go");
    }

    fn message(text: &str, at: Instant) -> Inbound {
        Inbound::Message(
            ClientMessage::parse(text.as_bytes()).unwrap(),
            ReadAt::from_instant(at),
        )
    }

    /// The server is busy (here: the only thread is blocked) when the mover's action arrives
    /// just in time, and gets to it after the deadline: the action was read in time, so it
    /// counts, and the player is charged up to when it was read.
    #[tokio::test]
    async fn an_action_read_in_time_counts_when_ruled_on_late() {
        let ([(mut out1, in1), (_out2, in2)], mut records) =
            table("traditional-2x4", "[clock]\ngame_ms = 0\nmove_ms = 200\n").await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        in1.send(message("((rev 0))", Instant::now()))
            .await
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
        in2.send(message("((resign))", Instant::now()))
            .await
            .unwrap();
        let r = records.recv().await.unwrap();
        assert_eq!(r.result.reason, Termination::Resign, "{:?}", r.result);
        assert_eq!(r.plies.len(), 1);
        assert!(
            r.plies[0].think_ms < 200,
            "charged {} ms",
            r.plies[0].think_ms
        );
    }

    #[test]
    fn comments_are_cut_at_a_character_boundary_within_the_bound() {
        assert_eq!(cut_comment("depth 3".into(), 7), "depth 3");
        assert_eq!(cut_comment("depth 3".into(), 6), "dep...");
        // "帥" is 3 bytes: never cut in the middle.
        assert_eq!(cut_comment("帥帥帥".into(), 8), "帥...");
        assert_eq!(cut_comment("帥帥帥".into(), 5), "...");
        // Too small a bound for the mark.
        assert_eq!(cut_comment("abcdef".into(), 2), "ab");
        assert_eq!(cut_comment("帥".into(), 2), "");
    }

    /// An action read after the deadline loses on time, even when the referee could not look
    /// before it arrived.
    #[tokio::test]
    async fn an_action_read_late_loses_on_time() {
        let ([(mut out1, in1), (_out2, _in2)], mut records) =
            table("traditional-2x4", "[clock]\ngame_ms = 0\nmove_ms = 200\n").await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        std::thread::sleep(std::time::Duration::from_millis(300));
        in1.send(message("((rev 0))", Instant::now()))
            .await
            .unwrap();
        let r = records.recv().await.unwrap();
        assert_eq!(
            (r.result.reason, r.result.loser),
            (Termination::Time, Some(1))
        );
        assert!(r.plies.is_empty());
    }

    /// The last line `out` was sent so far.
    fn last_line(out: &mut tokio::sync::mpsc::UnboundedReceiver<Arc<str>>) -> String {
        let mut last = None;
        while let Ok(line) = out.try_recv() {
            last = Some(line);
        }
        last.unwrap().to_string()
    }

    /// Each player's first action is due `first_move_ms` after its own first prompt: one in
    /// time counts, and once a ply has been played, a player that never acts loses on time
    /// (it has seen the game start: walking away from it is no way out of a loss). Before,
    /// player 2's game was aborted, with no result.
    #[tokio::test]
    async fn a_player_that_never_acts_in_a_game_under_way_loses_on_time() {
        let ([(mut out1, in1), (mut out2, _in2)], mut records) =
            table("traditional-2x4", "[referee]\nfirst_move_ms = 400\n").await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        // Player 1 acts within its deadline.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        in1.send(message("((rev 0))", Instant::now()))
            .await
            .unwrap();
        while !out2.recv().await.unwrap().contains("(turn") {}
        let prompted = Instant::now();
        let r = records.recv().await.unwrap();
        // Measured from when player 2 got its prompt, a little after it was sent: 300 ms
        // still tells its own deadline (400 ms after its prompt) from player 1's (200 ms
        // before it).
        assert!(
            prompted.elapsed() >= std::time::Duration::from_millis(300),
            "at player 2's own deadline, not player 1's"
        );
        assert_eq!(
            (r.result.reason, r.result.loser),
            (Termination::Time, Some(2)),
            "{:?}",
            r.result
        );
        assert_eq!(r.plies.len(), 1, "player 1's action counted");
        let told: Vec<_> = r
            .faults
            .iter()
            .map(|f| (f.player, f.code.as_str(), f.text.as_str()))
            .collect();
        assert_eq!(
            told,
            [(2, "timeout", "you made no first action within 400 ms of your first (turn ...), in a game under way: you lose on time")]
        );
        assert_eq!(last_line(&mut out1), "((win 1 0))\n");
        assert_eq!(last_line(&mut out2), "((win 1 0))\n");
    }

    /// A player 1 that never makes its first action: nobody has started playing, so the game
    /// is aborted with no result, every player told why, and no `(win ...)` sent.
    #[tokio::test]
    async fn a_player_that_never_acts_before_any_ply_aborts_its_game() {
        let ([(mut out1, _in1), (mut out2, _in2)], mut records) =
            table("traditional-2x4", "[referee]\nfirst_move_ms = 300\n").await;
        while !out1.recv().await.unwrap().contains("(turn") {}
        let r = records.recv().await.unwrap();
        assert_eq!(r.result.reason, Termination::Aborted, "{:?}", r.result);
        assert_eq!((r.result.win.as_str(), r.result.loser), ("", None));
        assert!(r.plies.is_empty());
        let told: Vec<_> = r
            .faults
            .iter()
            .map(|f| (f.player, f.code.as_str(), f.text.as_str()))
            .collect();
        assert_eq!(
            told,
            [
                (1, "timeout", "you made no first action within 300 ms of your first (turn ...): this game is aborted, with no result"),
                (2, "timeout", "player 1 made no first action within 300 ms: this game is aborted, with no result; connect again for a new game"),
            ]
        );
        assert!(last_line(&mut out1).starts_with("((error timeout \"you made"));
        assert!(last_line(&mut out2).starts_with("((error timeout \"player 1 made"));
    }

    /// The clock and the first-move deadline: whichever comes first rules, and with
    /// `first_move_ms = 0` there is no deadline.
    #[tokio::test]
    async fn the_clock_rules_when_it_comes_before_the_first_move_deadline() {
        for (config, reason) in [
            (
                "first_move_ms = 0\n[clock]\nmove_ms = 200\n",
                Termination::Time,
            ),
            (
                "first_move_ms = 600\n[clock]\nmove_ms = 200\n",
                Termination::Time,
            ),
            (
                "first_move_ms = 200\n[clock]\nmove_ms = 600\n",
                Termination::Aborted,
            ),
        ] {
            let ([(mut out1, _in1), (_out2, _in2)], mut records) =
                table("traditional-2x4", &format!("[referee]\n{config}")).await;
            while !out1.recv().await.unwrap().contains("(turn") {}
            let r = records.recv().await.unwrap();
            assert_eq!(r.result.reason, reason, "{config}");
        }
    }
}
