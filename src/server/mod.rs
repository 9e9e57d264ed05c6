//! The TCP server: accepts connections, runs handshakes, seats players in connection order and
//! starts one referee task per game.
//!
//! Shutdown is cooperative: when the token given to [`Server::run`] is cancelled, the server
//! stops accepting, tells waiting clients, aborts running games (each is recorded with the
//! termination `aborted`), waits for every record to be written, and returns.

mod clock;
mod connection;
mod lobby;
mod orders;
mod referee;

pub use clock::Clocks;
pub use connection::VERSION;
pub use orders::{GameOrder, OrderDesk, ServerStopped};
pub use referee::GameSpec;

use crate::config::Config;
use crate::record::{GameRecord, RecordSink};
use crate::rules::Variant;
use crate::wire::{ErrorCode, FrameLimits};
use connection::ConnectionLimits;
use lobby::{Lobby, LobbyEvent};
use orders::{Orders, Table};
use referee::GameContext;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    config: Arc<Config>,
    variant: Arc<Variant>,
    observer: Option<mpsc::UnboundedSender<GameRecord>>,
    lobby_tx: mpsc::UnboundedSender<LobbyEvent>,
    lobby_rx: mpsc::UnboundedReceiver<LobbyEvent>,
    /// Seat clients by the token they send (tournaments) instead of by connection order.
    by_token: bool,
}

impl Server {
    /// Binds the configured address (`config.server.listen`) for the given variant.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind(config: Config, variant: Variant) -> std::io::Result<Server> {
        let listener = listen(&config.server.listen, config.server.max_connections)
            .await
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot listen on {}: {e}", config.server.listen),
                )
            })?;
        let (lobby_tx, lobby_rx) = mpsc::unbounded_channel();
        Ok(Server {
            listener,
            config: Arc::new(config),
            variant: Arc::new(variant),
            observer: None,
            lobby_tx,
            lobby_rx,
            by_token: false,
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

    /// Switches the server to token seating and returns the desk where games are ordered: each
    /// client is seated by the token it sends as SEED, in the game ordered for that token.
    pub fn order_desk(&mut self) -> OrderDesk {
        self.by_token = true;
        OrderDesk {
            tx: self.lobby_tx.clone(),
        }
    }

    /// Serves until `shutdown` is cancelled, then shuts down gracefully.
    ///
    /// # Errors
    /// When the records file cannot be opened.
    pub async fn run(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let cfg = self.config.clone();
        let records_path = (!cfg.records.path.is_empty()).then(|| PathBuf::from(&cfg.records.path));
        let (records, writer) = RecordSink::start(records_path, self.observer).await?;
        let tracker = TaskTracker::new();
        let limits = ConnectionLimits {
            frame: FrameLimits {
                max_bytes: cfg.server.max_frame_bytes,
                max_depth: cfg.server.max_nesting,
            },
            write_queue: cfg.server.write_queue,
            handshake_timeout: Duration::from_millis(cfg.server.handshake_timeout_ms),
        };
        let ctx = GameContext {
            setup_common: GameContext::setup_common(&self.variant),
            variant: self.variant.clone(),
            config: cfg.clone(),
            records: records.clone(),
            shutdown: shutdown.clone(),
        };
        let lobby_tx = self.lobby_tx;
        let lobby = tracker.spawn(run_lobby(
            self.lobby_rx,
            lobby_tx.clone(),
            self.by_token,
            ctx,
            tracker.clone(),
        ));

        let permits = Arc::new(Semaphore::new(cfg.server.max_connections));
        let mut conn_no = 0u64;
        loop {
            let (stream, peer) = tokio::select! {
                _ = shutdown.cancelled() => break,
                r = self.listener.accept() => match r {
                    Ok(x) => x,
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let conn = conn_no;
            conn_no += 1;
            let span =
                tracing::info_span!("conn", conn, peer = %peer, name = tracing::field::Empty);
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                tracker.spawn(refuse_busy(stream, cfg.server.max_connections));
                continue;
            };
            let _ = lobby_tx.send(LobbyEvent::Accepted(conn));
            let (inbox, outbox) = connection::spawn_io(stream, conn, limits, permit, span.clone());
            let lobby_tx = lobby_tx.clone();
            let shutdown = shutdown.clone();
            tracker.spawn(
                async move {
                    let handshake = connection::handshake(
                        conn,
                        peer,
                        inbox,
                        outbox,
                        limits.handshake_timeout,
                        &shutdown,
                    );
                    let player = handshake.await;
                    let event = match player {
                        Some(player) => {
                            // Client text goes to logs escaped (`?`): a newline in a name cannot forge a line.
                            tracing::debug!(name = ?player.name, peer = %player.peer, "handshake done");
                            LobbyEvent::Ready(player)
                        }
                        None => LobbyEvent::Gone(conn),
                    };
                    let _ = lobby_tx.send(event);
                }
                .instrument(span),
            );
        }
        tracing::info!("shutting down");
        drop(lobby_tx);
        tracker.close();
        let _ = lobby.await;
        tracker.wait().await;
        drop(records);
        let _ = writer.await;
        Ok(())
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

/// Seats ready players and starts games until every sender is gone (shutdown).
async fn run_lobby(
    mut rx: mpsc::UnboundedReceiver<LobbyEvent>,
    tx: mpsc::UnboundedSender<LobbyEvent>,
    by_token: bool,
    ctx: GameContext,
    tracker: TaskTracker,
) {
    let seats = ctx.variant.players;
    let mut lobby = Lobby::default();
    let mut orders = Orders::default();
    let mut game_no = 0u64;
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let event = tokio::select! {
            e = rx.recv() => match e {
                Some(e) => e,
                None => break,
            },
            _ = ctx.shutdown.cancelled() => break,
            _ = tick.tick() => {
                // Answer what waiting players sent, and forget those who left, even when
                // nobody else connects.
                lobby.tend();
                orders.tend();
                continue;
            }
        };
        let tables: Vec<Table> = match event {
            LobbyEvent::Order(order) => {
                let (timeout, tx) = (order.connect_timeout, tx.clone());
                let (id, table) = orders.place(order);
                let shutdown = ctx.shutdown.clone();
                tracker.spawn(async move {
                    // The timer must not hold a shutdown up.
                    tokio::select! {
                        _ = tokio::time::sleep(timeout) => {
                            let _ = tx.send(LobbyEvent::Expire(id));
                        }
                        _ = shutdown.cancelled() => {}
                    }
                });
                table.into_iter().collect()
            }
            LobbyEvent::Expect(tokens) => {
                orders.expect(tokens);
                Vec::new()
            }
            LobbyEvent::Expire(id) => orders.expire(id).into_iter().collect(),
            LobbyEvent::Ready(player) if by_token => orders.seat(player).into_iter().collect(),
            LobbyEvent::Accepted(_) | LobbyEvent::Gone(_) if by_token => Vec::new(),
            event => lobby
                .on_event(event, seats)
                .into_iter()
                .map(|players| {
                    game_no += 1;
                    Table {
                        game_no,
                        players,
                        spec: Default::default(),
                    }
                })
                .collect(),
        };
        for t in tables {
            tracker.spawn(referee::run_game(ctx.clone(), t.game_no, t.players, t.spec));
        }
    }
    for p in lobby.drain().into_iter().chain(orders.drain()) {
        p.outbox
            .error(ErrorCode::Shutdown, "the server is shutting down");
    }
}

/// Tells a client over the connection limit why it is refused.
async fn refuse_busy(stream: tokio::net::TcpStream, limit: usize) {
    use tokio::io::AsyncWriteExt;
    let mut stream = stream;
    let line = crate::wire::ServerMessage(vec![crate::wire::ServerClause::Error(
        ErrorCode::Busy,
        format!("the server has {limit} connections open; try again later"),
    )])
    .to_line();
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(line.as_bytes())).await;
    let _ = stream.shutdown().await;
}
