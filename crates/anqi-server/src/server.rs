//! The listener: accepts connections within their caps, runs handshakes, hands players to the
//! seating task (see `seating`), which starts one referee task per game.
//!
//! Shutdown is cooperative: when the token given to [`Server::run`] is cancelled, the server
//! stops accepting, tells waiting clients, aborts running games (each is recorded with the
//! termination `aborted`), waits for every record to be written, and returns.

use crate::config::Config;
use crate::connection::{self, ConnectionLimits};
use crate::handshake::NoPlayer;
use crate::limits::{Admission, Refusal, Seats, Slot, SpareDescriptor};
use crate::record_sink::{Durability, RecordSink};
use crate::referee::GameContext;
use crate::seating::{self, Arrival, OrderDesk, Policy, SeatingEvent};
use crate::tasks;
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use anqi_core::wire::{ErrorCode, FrameLimits};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    config: Arc<Config>,
    variant: Arc<Variant>,
    observer: Option<mpsc::UnboundedSender<GameRecord>>,
    watch: Option<crate::watch::Hub>,
    seating_tx: mpsc::UnboundedSender<SeatingEvent>,
    seating_rx: mpsc::UnboundedReceiver<SeatingEvent>,
    policy: Policy,
    /// Connection numbers, shared with the local door.
    conn_no: Arc<AtomicU64>,
    /// The endgame tables games are adjudicated by (`[referee] adjudicate = "tables"`).
    tables: Option<Arc<anqi_core::tables::Tables>>,
    /// The highest game number of the records file, once read ([`Server::read_past`]).
    last_game: Option<u64>,
    /// Games are numbered after this at least ([`Server::number_after`]).
    number_floor: u64,
    /// Connections, refusals and rejoins are counted here: the hub's when watched.
    metrics: crate::metrics::Metrics,
}

impl Server {
    /// Binds the configured address (`config.server.listen`) for the given variant.
    ///
    /// With `[referee] tables` set, the endgame tables file is opened first (its header read
    /// and checked against the variant's rules).
    ///
    /// # Errors
    /// When the address cannot be bound; or, of kind `InvalidInput`, when the endgame tables
    /// are asked for and cannot be used (no file, an unreadable one, tables of other rules).
    pub async fn bind(config: Config, variant: Variant) -> std::io::Result<Server> {
        let variant = Arc::new(variant);
        let tables = config
            .referee
            .open_tables(&variant)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.0))?;
        // The scores' rules read (validated with the configuration) and fit for the variant.
        config
            .referee
            .score_rules()
            .map_err(|e| e.0)
            .and_then(|rules| rules.check_variant(&variant).map_err(|e| e.to_string()))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let listener = listen(&config.server.listen, config.server.max_connections)
            .await
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot listen on {}: {e}", config.server.listen),
                )
            })?;
        let (seating_tx, seating_rx) = mpsc::unbounded_channel();
        Ok(Server {
            listener,
            config: Arc::new(config),
            policy: Policy::Arrival(Arrival::new(variant.players)),
            variant,
            tables,
            observer: None,
            watch: None,
            seating_tx,
            seating_rx,
            conn_no: Arc::default(),
            last_game: None,
            number_floor: 0,
            metrics: crate::metrics::Metrics::default(),
        })
    }

    /// The address clients connect to (with the real port when the configured one was 0).
    ///
    /// # Errors
    /// When the socket cannot tell.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Also hands every finished game's record to `observer` (after it is written to the file).
    pub fn observe_records(&mut self, observer: mpsc::UnboundedSender<GameRecord>) {
        self.observer = Some(observer);
    }

    /// The server's counters (the hub's, once the games are published to one:
    /// [`Server::watch`]).
    pub fn metrics(&self) -> crate::metrics::Metrics {
        self.metrics.clone()
    }

    /// Publishes every game's public events to `hub`, for observers (`anqi-web`).
    pub fn watch(&mut self, hub: crate::watch::Hub) {
        self.metrics = hub.metrics().clone();
        self.watch = Some(hub);
    }

    /// The door where players inside this process join its games (`door`): a person playing
    /// from a web page, and the bots started for them.
    pub fn door(&self) -> crate::door::Door {
        crate::door::Door {
            seating: self.seating_tx.clone(),
            conn_no: self.conn_no.clone(),
        }
    }

    /// Switches the server to token seating and returns the desk where games are ordered: each
    /// client is seated by the token it sends as SEED, in the game ordered for that token.
    pub fn order_desk(&mut self) -> OrderDesk {
        self.policy = Policy::Tokens(Box::default());
        OrderDesk {
            tx: self.seating_tx.clone(),
        }
    }

    /// Numbers this run's games after `n` at least, whatever the records file holds: a ladder
    /// whose database knows games the file does not (a file rotated or emptied) must not
    /// number a game as one it has counted.
    pub fn number_after(&mut self, n: u64) {
        self.number_floor = self.number_floor.max(n);
    }

    /// Switches the server to ladder seating and returns the desk where the ladder tells it
    /// its accounts, their ratings and its latest games: each client is seated under the
    /// account whose secret it sends as SEED, and waiting accounts are paired every round.
    pub fn ladder_desk(
        &mut self,
        rules: crate::seating::LadderRules,
    ) -> crate::seating::LadderDesk {
        self.policy = Policy::Ladder(Box::new(crate::seating::Ladder::new(rules)));
        crate::seating::LadderDesk {
            tx: self.seating_tx.clone(),
        }
    }

    /// Serves until `shutdown` is cancelled, then shuts down gracefully.
    ///
    /// # Errors
    /// When the records file cannot be opened.
    pub async fn run(mut self, shutdown: CancellationToken) -> std::io::Result<()> {
        let cfg = self.config.clone();
        let last_game = match self.last_game {
            Some(n) => n,
            None => self.read_past_games().await,
        }
        .max(self.number_floor);
        let metrics = self.watch.as_ref().map(|hub| hub.metrics().clone());
        let (records, writer) = start_records(&cfg, self.observer.take(), metrics).await?;
        let (tracker, all_done) = tasks::tasks();
        let limits = connection_limits(&cfg);
        let rejoins = crate::rejoin::Rejoins::counted_in(self.metrics.clone());
        let ctx = self.game_context(records.clone(), shutdown.clone(), rejoins.clone());
        self.spawn_delay_release(&tracker, &shutdown);
        // Seats are capped per network, and seated players make room, only where anyone may
        // take one: a tournament seats only the engines it ordered.
        let by_arrival = matches!(self.policy, Policy::Arrival(_));
        // What the seating task and the accept loop take. The listener is only lent to the
        // accept loop: it stays bound until `run` returns.
        let Server {
            listener,
            seating_tx,
            seating_rx,
            policy,
            conn_no,
            metrics,
            ..
        } = self;
        let seating = tracker.spawn(seating::run(
            policy,
            last_game,
            seating_rx,
            seating_tx.clone(),
            ctx,
            tracker.clone(),
        ));
        let admission = admission(&cfg, by_arrival, limits.handshake_timeout);
        let shared = Arc::new(Accepted {
            seats: admission.seats(),
            admission,
            conn_no,
            limits,
            seating: seating_tx.clone(),
            shutdown: shutdown.clone(),
            rejoins,
            by_arrival,
            metrics,
        });
        accept_until_shutdown(&listener, &shared, &tracker, &shutdown).await;
        tracing::info!("shutting down");
        drop(seating_tx);
        drop(tracker);
        let _ = seating.await;
        all_done.wait().await;
        drop(records);
        let _ = writer.await;
        Ok(())
    }

    /// Reads the records file's past games now rather than when [`Server::run`] starts: the
    /// hub ([`Server::watch`], called first) shows them from the start, so that pages served
    /// before `run` (a page reconnecting after a restart) find a game from before it.
    pub async fn read_past(&mut self) {
        self.last_game = Some(self.read_past_games().await);
    }

    /// Seating by arrival or for a ladder, with a records file: the highest game number the file holds (its
    /// games' numbers are theirs for good: the next game is numbered after it), and the latest
    /// `[http] keep_finished` of its games added to the hub, when the games are watched. 0
    /// for a server that seats by token (a tournament numbers its games by its schedule) or
    /// keeps no records. Never fails: a bad line is skipped with a warning (`past`).
    async fn read_past_games(&self) -> u64 {
        let path = &self.config.records.path;
        if path.is_empty() || matches!(self.policy, Policy::Tokens(_)) {
            return 0;
        }
        let path = PathBuf::from(path);
        let keep = self
            .watch
            .as_ref()
            .map_or(0, crate::watch::Hub::keep_finished);
        let shown = path.display().to_string();
        let past = tokio::task::spawn_blocking(move || crate::past::read(&path, keep))
            .await
            .unwrap_or_default();
        if past.games > 0 {
            tracing::info!(
                records = %shown,
                games = past.games,
                last_game = past.last_game,
                shown = past.recent.len(),
                "game numbers continue after the records file's"
            );
        }
        if let Some(hub) = &self.watch {
            for record in past.recent {
                hub.add_record(record);
            }
        }
        past.last_game
    }

    /// What every game's referee shares: the variant and its setup text, the configuration,
    /// the records, the shutdown token, the hub, the seats kept for a return, the endgame
    /// tables.
    fn game_context(
        &self,
        records: RecordSink,
        shutdown: CancellationToken,
        rejoins: crate::rejoin::Rejoins,
    ) -> GameContext {
        GameContext {
            setup_common: GameContext::setup_common(&self.variant),
            public_variant: anqi_core::wire::ServerClause::Variant(
                self.variant.public_description(),
            )
            .to_string()
            .into(),
            variant: self.variant.clone(),
            config: self.config.clone(),
            records,
            shutdown,
            watch: self.watch.clone(),
            rejoins,
            tables: self.tables.clone(),
        }
    }

    /// With a broadcast delay in time, a task that releases the hub's held events as their
    /// time comes, until shutdown.
    fn spawn_delay_release(&self, tracker: &tasks::Tasks, shutdown: &CancellationToken) {
        if let Some(hub) = self.watch.as_ref().filter(|h| h.delay().is_some()) {
            let (hub, shutdown) = (hub.clone(), shutdown.clone());
            tracker.spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_millis(100));
                while tokio::select! { _ = shutdown.cancelled() => false, _ = tick.tick() => true }
                {
                    hub.release_due();
                }
            });
        }
    }
}

/// Starts the task that writes finished games to `[records] path` (none when it is empty),
/// handing each record to `observer` too once written.
///
/// # Errors
/// When the records file cannot be opened.
async fn start_records(
    cfg: &Config,
    observer: Option<mpsc::UnboundedSender<GameRecord>>,
    metrics: Option<crate::metrics::Metrics>,
) -> std::io::Result<(RecordSink, tokio::task::JoinHandle<()>)> {
    let records_path = (!cfg.records.path.is_empty()).then(|| PathBuf::from(&cfg.records.path));
    let durability = Durability {
        fsync: cfg.records.fsync,
    };
    RecordSink::start(records_path, durability, observer, metrics).await
}

/// Each connection's limits, from `[server]`.
fn connection_limits(cfg: &Config) -> ConnectionLimits {
    ConnectionLimits {
        frame: FrameLimits {
            max_bytes: cfg.server.max_frame_bytes,
            max_depth: cfg.server.max_nesting,
        },
        write_queue_bytes: cfg.server.write_queue_bytes,
        handshake_timeout: Duration::from_millis(cfg.server.handshake_timeout_ms),
    }
}

/// The connection caps of `[server]`, and, seating by arrival (`by_arrival`), the seats per
/// network and who makes room on a full server; logs the caps.
fn admission(cfg: &Config, by_arrival: bool, handshake_timeout: Duration) -> Admission {
    let mut admission = Admission::new(
        cfg.server.max_connections,
        cfg.server.max_connections_per_address,
        cfg.server.ipv4_prefix,
        cfg.server.ipv6_prefix,
    );
    if by_arrival {
        admission = admission.with_seats(cfg.server.max_seats_per_address, handshake_timeout);
    }
    tracing::info!(
        max_connections = admission.cap(),
        per_address = cfg.server.max_connections_per_address,
        "accepting connections"
    );
    admission
}

/// The accept loop: accepts connections and hands each to a task of its own (see
/// [`admit`]) until `shutdown` is cancelled. Both branches of its `select!` are safe to drop:
/// a connection not yet accepted stays in the backlog.
async fn accept_until_shutdown(
    listener: &TcpListener,
    shared: &Arc<Accepted>,
    tracker: &tasks::Tasks,
    shutdown: &CancellationToken,
) {
    let mut spare = SpareDescriptor::default();
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors despite the cap (another part of the process
                    // holds them): free the spare one to answer the client `busy` rather
                    // than leave it hanging in the backlog.
                    match spare.accept_with_spare(listener, e).await {
                        Some(stream) => {
                            shared.metrics.refused(Refusal::Descriptors.into());
                            tracker.spawn(refuse_busy(stream, Refusal::Descriptors));
                        }
                        None => tokio::time::sleep(Duration::from_millis(50)).await,
                    }
                    continue;
                }
            },
        };
        admit(shared, tracker, stream, peer);
    }
}

/// Numbers an accepted connection and starts its task: served when the caps admit it, served
/// once a connection makes room when the server is full, refused `busy` otherwise.
fn admit(shared: &Arc<Accepted>, tracker: &tasks::Tasks, stream: TcpStream, peer: SocketAddr) {
    // Numbered here, in the order accepted: seats go in that order.
    let conn_no = &shared.conn_no;
    match shared.admission.admit(peer.ip()) {
        Ok(slot) => {
            let conn = conn_no.fetch_add(1, Ordering::Relaxed);
            tracker.spawn(serve(shared.clone(), stream, peer, conn, slot));
        }
        // Full: the oldest connection still in its handshake makes room, or else a
        // seated player idle on its first action. The wait for its place (that
        // connection's goodbye, or its game's end: moments) is the newcomer's own, so
        // that accepting goes on meanwhile.
        Err(Refusal::Full(_)) => {
            let conn = conn_no.fetch_add(1, Ordering::Relaxed);
            tracker.spawn(serve_making_room(shared.clone(), stream, peer, conn));
        }
        Err(refusal) => {
            tracing::debug!(%peer, ?refusal, "connection refused: busy");
            shared.metrics.refused(refusal.into());
            tracker.spawn(refuse_busy(stream, refusal));
        }
    }
}

/// Binds `addr` with an accept backlog sized for `max_connections`: with the usual backlog of
/// 1024, a burst of thousands of connections overflows it and the kernel drops SYNs, which
/// clients only retry after a second or more.
async fn listen(addr: &str, max_connections: usize) -> std::io::Result<TcpListener> {
    let mut last_err = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        if let Err(e) = socket.bind(addr) {
            last_err = Some(e);
            continue;
        }
        let backlog = u32::try_from(max_connections.clamp(1024, 65535)).unwrap_or(1024);
        return socket.listen(backlog);
    }
    Err(last_err.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to bind")
    }))
}

/// How long a newcomer that finds the server full waits for the place of the connection let go
/// for it (a connection's goodbye, or an aborted game's end, takes moments).
const MAKE_ROOM_WAIT: Duration = Duration::from_secs(1);

/// What every accepted connection's task shares.
struct Accepted {
    admission: Admission,
    seats: Seats,
    /// Connection numbers, shared with the local door: given in the order accepted.
    conn_no: Arc<AtomicU64>,
    limits: ConnectionLimits,
    seating: mpsc::UnboundedSender<SeatingEvent>,
    shutdown: CancellationToken,
    rejoins: crate::rejoin::Rejoins,
    /// Whether the server seats by arrival (seat caps and seated players making room).
    by_arrival: bool,
    metrics: crate::metrics::Metrics,
}

/// Serves connection number `conn`, admitted, holding its `slot`: the handshake, then the
/// seat it comes back for or a new one.
async fn serve(shared: Arc<Accepted>, stream: TcpStream, peer: SocketAddr, conn: u64, slot: Slot) {
    let span = tracing::info_span!("conn", conn, peer = %peer, name = tracing::field::Empty);
    let limits = shared.limits;
    // Counted as open for as long as its place under the caps is held.
    let slot = (slot, shared.metrics.connection_open());
    let in_handshake = shared.metrics.in_handshake();
    let (inbox, outbox) = connection::spawn_io(stream, conn, limits, slot, span.clone());
    let (evicted, handshaking) = shared.admission.handshaking(conn);
    async move {
        let handshake = crate::handshake::handshake(
            conn,
            peer,
            inbox,
            outbox,
            limits.handshake_timeout,
            &shared.shutdown,
            &evicted,
        );
        // Only a completed handshake reaches the seating task: a connection that is slow or
        // silent in its handshake holds no seat.
        let player = handshake.await;
        drop((handshaking, in_handshake));
        let player = match player {
            Ok(player) => player,
            Err(NoPlayer::Refused(why)) => return shared.metrics.refused(why),
            Err(NoPlayer::Left) => return,
        };
        // Client text goes to logs escaped (`?`): a newline in a name cannot forge a line.
        tracing::debug!(name = ?player.name, peer = %player.peer, "handshake done");
        // Back for a seat in a game under way, or ready for a new game.
        let rejoins = &shared.rejoins;
        let mut player = match rejoins.proof_of(&player) {
            Some(proof) => match rejoins.hand_back(proof, player) {
                None => return,
                Some(player) => player,
            },
            None => player,
        };
        if player.rejoin.is_some() {
            rejoins.refuse(&player);
            return;
        }
        if shared.by_arrival {
            match shared.seats.take(peer.ip(), conn) {
                Ok(ticket) => player.ticket = Some(ticket),
                Err(refusal) => {
                    tracing::debug!(%peer, ?refusal, "player refused: busy");
                    shared.metrics.refused(refusal.into());
                    player.outbox.error(ErrorCode::Busy, refusal.to_string());
                    return;
                }
            }
        }
        let _ = shared.seating.send(SeatingEvent::Ready(player));
    }
    .instrument(span)
    .await
}

/// Serves a connection that found the server full, once a connection let go for it gives back
/// its place (see [`Admission::admit_making_room`]); tells it `busy` when none comes, or
/// `shutdown` when the server stops meanwhile.
async fn serve_making_room(shared: Arc<Accepted>, stream: TcpStream, peer: SocketAddr, conn: u64) {
    let admitted = tokio::select! {
        _ = shared.shutdown.cancelled() => None,
        admitted = shared.admission.admit_making_room(peer.ip(), MAKE_ROOM_WAIT) => Some(admitted),
    };
    match admitted {
        Some(Ok(slot)) => serve(shared, stream, peer, conn, slot).await,
        Some(Err(refusal)) => {
            tracing::debug!(%peer, ?refusal, "connection refused: busy");
            shared.metrics.refused(refusal.into());
            refuse_busy(stream, refusal).await;
        }
        None => {
            shared.metrics.refused(crate::metrics::Refused::Shutdown);
            let text = "the server is shutting down".to_string();
            refuse(stream, ErrorCode::Shutdown, text).await;
        }
    }
}

/// Tells a client over a connection limit why it is refused, and closes the connection.
async fn refuse_busy(stream: TcpStream, refusal: Refusal) {
    refuse(stream, ErrorCode::Busy, refusal.to_string()).await;
}

/// Tells a client that is not served why (`((error CODE "text"))`), and closes the connection.
async fn refuse(stream: TcpStream, code: ErrorCode, text: String) {
    use tokio::io::AsyncWriteExt;
    let mut stream = stream;
    let line =
        anqi_core::wire::ServerMessage(vec![anqi_core::wire::ServerClause::Error(code, text)])
            .to_line();
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(line.as_bytes())).await;
    let _ = stream.shutdown().await;
}
