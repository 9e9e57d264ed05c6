//! Seats kept for players who lost their connection (`[referee] rejoin_grace_ms`).
//!
//! A referee registers, for each seat that may be taken back, the proofs of who plays it: the
//! seat's secret (sent to a client that asked for the `rejoin` extension, in its setup
//! message) and, in a tournament, the seat's per-game token. A connection that completes its
//! handshake with `(rejoin "SECRET")`, or with `(init NAME TOKEN)` for a token registered here,
//! is handed to that referee instead of the seating task. The referee rules on it: it takes the
//! seat back while the game goes on, and the registration goes when the game ends.
//!
//! Secrets and tokens are looked up by digest ([`TokenDigest`]), as the seating by token does,
//! and never logged.

use crate::connection::Player;
use crate::metrics::{Metrics, Rejoin};
use crate::secret::TokenDigest;
use crate::throttle::{left_out, LogThrottle};
use anqi_core::wire::ErrorCode;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// A connection that came back for a seat, on its way to the referee.
pub(crate) struct Return {
    /// The seat (1-based).
    pub seat: usize,
    pub player: Player,
    pub proof: Proof,
}

/// Where a seat's returning connection goes.
#[derive(Clone)]
struct Door {
    seat: usize,
    referee: mpsc::UnboundedSender<Return>,
}

#[derive(Default)]
struct Maps {
    /// By the digest of a `rejoin` secret.
    secrets: HashMap<TokenDigest, Door>,
    /// By the digest of a tournament's per-game token.
    tokens: HashMap<TokenDigest, Door>,
    /// Refused secrets are logged a few per address and window: someone trying secrets by the
    /// thousand must not fill the log.
    refusals: LogThrottle<std::net::IpAddr>,
}

/// Every seat a connection may come back to, server-wide, and what came of the seats kept
/// (`anqi_rejoins_total`). Cloning is cheap.
#[derive(Clone, Default)]
pub struct Rejoins {
    maps: Arc<Mutex<Maps>>,
    metrics: Metrics,
}

/// How a returning connection proves its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// `(rejoin "SECRET")`.
    Secret,
    /// `(init NAME TOKEN)` with the seat's per-game tournament token.
    Token,
}

impl Rejoins {
    /// No seat yet; what comes of them is counted in `metrics`.
    pub fn counted_in(metrics: Metrics) -> Rejoins {
        Rejoins {
            maps: Arc::default(),
            metrics,
        }
    }

    fn maps(&self) -> std::sync::MutexGuard<'_, Maps> {
        // A panic elsewhere while holding the lock leaves the maps as they were: go on.
        self.maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A kept seat was taken back by its player.
    pub(crate) fn taken_back(&self) {
        self.metrics.rejoin(Rejoin::TakenBack);
    }

    /// A kept seat was lost: its player did not come back in time.
    pub(crate) fn expired(&self) {
        self.metrics.rejoin(Rejoin::Expired);
    }

    /// Registers a seat's proofs for `referee`; they are removed when the returned guard is
    /// dropped (the game is over).
    pub(crate) fn register(
        &self,
        seat: usize,
        secret: Option<&str>,
        token: Option<TokenDigest>,
        referee: &mpsc::UnboundedSender<Return>,
    ) -> Registration {
        let door = Door {
            seat,
            referee: referee.clone(),
        };
        let secret = secret.map(TokenDigest::of);
        let mut maps = self.maps();
        if let Some(d) = secret {
            maps.secrets.insert(d, door.clone());
        }
        if let Some(d) = token {
            maps.tokens.insert(d, door);
        }
        Registration {
            rejoins: self.clone(),
            secret,
            token,
        }
    }

    /// Whether a player that completed its handshake comes back for a seat: with a `rejoin`
    /// secret, or presenting a registered per-game token as its SEED.
    pub(crate) fn proof_of(&self, player: &Player) -> Option<Proof> {
        if player.rejoin.is_some() {
            return Some(Proof::Secret);
        }
        let maps = self.maps();
        (!maps.tokens.is_empty() && maps.tokens.contains_key(&TokenDigest::of(&player.seed)))
            .then_some(Proof::Token)
    }

    /// Hands `player` to the referee of the seat its proof names. Gives it back when no game
    /// waits for that proof (the game is over, or the proof was never good).
    pub(crate) fn hand_back(&self, proof: Proof, player: Player) -> Option<Player> {
        let door = {
            let maps = self.maps();
            match proof {
                Proof::Secret => player
                    .rejoin
                    .as_deref()
                    .and_then(|s| maps.secrets.get(&TokenDigest::of(s)).cloned()),
                Proof::Token => maps.tokens.get(&TokenDigest::of(&player.seed)).cloned(),
            }
        };
        match door {
            Some(door) => door
                .referee
                .send(Return {
                    seat: door.seat,
                    player,
                    proof,
                })
                .err()
                .map(|mpsc::error::SendError(r)| r.player),
            None => Some(player),
        }
    }

    /// Tells a connection whose `rejoin` secret no seat waits for, and logs it (a few lines
    /// per address and window: someone may be trying secrets).
    pub(crate) fn refuse(&self, player: &Player) {
        self.metrics.rejoin(Rejoin::NoSeat);
        let n = self
            .maps()
            .refusals
            .allow(&player.peer.ip(), std::time::Instant::now());
        if let Some(n) = n {
            tracing::warn!(peer = %player.peer, "refused a rejoin secret no seat waits for{}", left_out(n));
        }
        player.outbox.error(
            ErrorCode::Unexpected,
            "no seat waits for this rejoin secret: its game is over, or its grace ran out",
        );
    }
}

/// A seat's registered proofs; dropping it removes them.
pub(crate) struct Registration {
    rejoins: Rejoins,
    secret: Option<TokenDigest>,
    token: Option<TokenDigest>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut maps = self.rejoins.maps();
        if let Some(d) = &self.secret {
            maps.secrets.remove(d);
        }
        if let Some(d) = &self.token {
            maps.tokens.remove(d);
        }
    }
}
