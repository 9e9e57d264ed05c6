//! Connection caps: how many connections the server holds at once, in all and per client
//! address, and how it still answers `busy` when it is full.
//!
//! A cap that the process's file-descriptor limit reaches first is no cap: `accept` fails with
//! `EMFILE`, and clients wait in the kernel's backlog with no answer. So at start the server
//! raises its soft descriptor limit to the hard limit, and lowers the total cap to what that
//! limit allows after a reserve for everything else the process opens (records, logs, engines'
//! files). Past either cap a client is accepted, told `((error busy "..."))` and closed. If
//! descriptors still run out (something else holds them), one spare descriptor kept open for
//! the purpose is closed to accept the client, answer it `busy`, and is opened again.
//!
//! A crowd must not keep players out: per-address caps count a client's network (an IPv6 /64
//! by default, not each of its addresses), and when the server is full the oldest connection
//! still in its handshake makes room for the newcomer. A client that sends its `init` at once
//! (every player does) is past its handshake long before it is the oldest.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// Why a connection was refused; the text is what the client is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the server has {0} connections open; try again later")]
    Full(usize),
    #[error("{0} connections are open from your address, the most allowed; try again later")]
    PerAddress(usize),
    #[error("the server has no file descriptor left for another connection; try again later")]
    Descriptors,
}

/// Descriptors kept for what the process opens besides connections: the listener, standard
/// streams, the records file, a tournament's output and engine logs, the spare descriptor.
fn reserve(soft_limit: u64) -> u64 {
    64 + soft_limit / 16
}

/// Connections open per client network (an address, or a prefix of it: see [`network_of`]).
#[derive(Debug, Default)]
struct PerAddress {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// The network of a client address that its per-address count goes to: the address with all
/// but its first `v4_bits` (IPv4) or `v6_bits` (IPv6) bits cleared. An IPv6 host usually owns a
/// whole /64, so counting its addresses one by one would give it 2^64 caps. An IPv4 address
/// mapped into IPv6 (`::ffff:a.b.c.d`) counts as the IPv4 one.
pub fn network_of(ip: IpAddr, v4_bits: u8, v6_bits: u8) -> IpAddr {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(v4_bits.min(32)))
                .unwrap_or(0);
            IpAddr::V4((u32::from(v4) & mask).into())
        }
        IpAddr::V6(v6) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(v6_bits.min(128)))
                .unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

/// The connections still in their handshake, oldest first: when the server is full, the oldest
/// is let go to make room, so that a crowd of idle connections cannot keep players out (a
/// client that sends its `init` within moments is never the oldest for long).
#[derive(Debug, Default)]
struct Handshakes {
    waiting: Mutex<VecDeque<(u64, CancellationToken)>>,
}

/// A connection's place among the [`Handshakes`], left when dropped (the handshake is over).
#[derive(Debug)]
pub struct Handshaking {
    conn: u64,
    table: Arc<Handshakes>,
}

impl Drop for Handshaking {
    fn drop(&mut self) {
        let mut waiting = self.table.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = waiting.iter().position(|(c, _)| *c == self.conn) {
            waiting.remove(i);
        }
    }
}

/// A connection's place under the caps, released when the connection's tasks end.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    address: Option<(IpAddr, Arc<PerAddress>)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((ip, table)) = self.address.take() {
            let mut open = table.open.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = open.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&ip);
                }
            }
        }
    }
}

/// Decides which accepted connections are served.
pub struct Admission {
    cap: usize,
    permits: Arc<Semaphore>,
    per_address_cap: usize,
    per_address: Arc<PerAddress>,
    /// The prefixes a client network is counted by (see [`network_of`]).
    v4_bits: u8,
    v6_bits: u8,
    handshakes: Arc<Handshakes>,
    /// Closed to make room for one `busy` answer when descriptors run out.
    spare: Option<std::fs::File>,
    /// Failed accepts, logged a few per window: a crowd can make them fail all the time.
    accept_failures: crate::throttle::LogThrottle<()>,
}

impl Admission {
    /// Caps of `max_connections` in all (lowered to what the descriptor limit allows) and
    /// `per_address` per client network (0: none), a network being an IPv4 address's first
    /// `v4_bits` or an IPv6 address's first `v6_bits`.
    pub fn new(max_connections: usize, per_address: usize, v4_bits: u8, v6_bits: u8) -> Admission {
        let cap = match crate::sys::raise_descriptor_limit() {
            Some(soft) => {
                let allowed = soft.saturating_sub(reserve(soft)).max(1);
                let cap = max_connections.min(usize::try_from(allowed).unwrap_or(usize::MAX));
                if cap < max_connections {
                    tracing::warn!(
                        max_connections,
                        descriptor_limit = soft,
                        cap,
                        "the file-descriptor limit (ulimit -n) allows fewer connections than configured; raise it to serve more"
                    );
                }
                cap
            }
            None => max_connections,
        };
        Admission {
            cap,
            permits: Arc::new(Semaphore::new(cap)),
            per_address_cap: per_address,
            per_address: Arc::default(),
            v4_bits,
            v6_bits,
            handshakes: Arc::default(),
            spare: std::fs::File::open("/dev/null").ok(),
            accept_failures: Default::default(),
        }
    }

    /// The total cap in force.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// A place for a connection from `ip`, or why there is none.
    ///
    /// # Errors
    /// The cap that is reached.
    pub fn admit(&self, ip: IpAddr) -> Result<Slot, Refusal> {
        let permit = self
            .permits
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refusal::Full(self.cap))?;
        self.place(ip, permit)
    }

    /// As [`Admission::admit`], and, when the server is full, lets the oldest connection still
    /// in its handshake go (it is told `busy`) and waits up to `wait` for its place.
    ///
    /// # Errors
    /// The cap that is reached, when no connection can make room in time.
    pub async fn admit_making_room(&self, ip: IpAddr, wait: Duration) -> Result<Slot, Refusal> {
        match self.admit(ip) {
            Err(Refusal::Full(_)) if self.make_room() => {
                let permit = tokio::time::timeout(wait, self.permits.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .ok_or(Refusal::Full(self.cap))?;
                self.place(ip, permit)
            }
            other => other,
        }
    }

    /// Counts a connection from `ip` under its network's cap.
    fn place(&self, ip: IpAddr, permit: OwnedSemaphorePermit) -> Result<Slot, Refusal> {
        if self.per_address_cap == 0 {
            return Ok(Slot {
                _permit: permit,
                address: None,
            });
        }
        let network = network_of(ip, self.v4_bits, self.v6_bits);
        let mut open = self
            .per_address
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let n = open.entry(network).or_insert(0);
        if *n >= self.per_address_cap {
            return Err(Refusal::PerAddress(self.per_address_cap));
        }
        *n += 1;
        Ok(Slot {
            _permit: permit,
            address: Some((network, self.per_address.clone())),
        })
    }

    /// Registers connection `conn` as in its handshake: the token is cancelled when it must
    /// make room, and dropping the guard (its handshake is over) takes it off the list.
    pub fn handshaking(&self, conn: u64) -> (CancellationToken, Handshaking) {
        let token = CancellationToken::new();
        self.handshakes
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back((conn, token.clone()));
        (
            token,
            Handshaking {
                conn,
                table: self.handshakes.clone(),
            },
        )
    }

    /// Lets the oldest connection still in its handshake go; false when there is none.
    fn make_room(&self) -> bool {
        let oldest = self
            .handshakes
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        match oldest {
            Some((_, token)) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    pub async fn accept_with_spare(
        &mut self,
        listener: &TcpListener,
        error: std::io::Error,
    ) -> Option<TcpStream> {
        let out_of_descriptors = matches!(
            error.raw_os_error(),
            Some(libc::EMFILE) | Some(libc::ENFILE)
        );
        if let Some(n) = self.accept_failures.allow(&(), std::time::Instant::now()) {
            tracing::warn!(%error, "accept failed{}", crate::throttle::left_out(n));
        }
        if !out_of_descriptors {
            return None;
        }
        self.spare.take()?;
        let accepted =
            tokio::time::timeout(std::time::Duration::from_millis(10), listener.accept())
                .await
                .ok()
                .and_then(Result::ok)
                .map(|(stream, _)| stream);
        self.spare = std::fs::File::open("/dev/null").ok();
        accepted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_address_slots_are_counted_and_released() {
        let admission = Admission::new(10, 2, 32, 64);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let a1 = admission.admit(a).unwrap();
        let _a2 = admission.admit(a).unwrap();
        assert_eq!(admission.admit(a).unwrap_err(), Refusal::PerAddress(2));
        let _b1 = admission.admit(b).unwrap();
        drop(a1);
        let _a3 = admission.admit(a).unwrap();
    }

    #[test]
    fn the_total_cap_applies_to_every_address() {
        let admission = Admission::new(2, 0, 32, 64);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let _x = admission.admit(ip).unwrap();
        let _y = admission.admit(ip).unwrap();
        assert_eq!(admission.admit(ip).unwrap_err(), Refusal::Full(2));
    }

    #[test]
    fn addresses_count_by_their_network() {
        let net = |ip: &str, v4: u8, v6: u8| network_of(ip.parse().unwrap(), v4, v6).to_string();
        assert_eq!(net("2001:db8:1:2:aaaa::1", 32, 64), "2001:db8:1:2::");
        assert_eq!(net("2001:db8:1:2:ffff::9", 32, 64), "2001:db8:1:2::");
        assert_eq!(net("2001:db8:1:3::1", 32, 64), "2001:db8:1:3::");
        assert_eq!(net("203.0.113.77", 32, 64), "203.0.113.77");
        assert_eq!(net("203.0.113.77", 24, 64), "203.0.113.0");
        assert_eq!(net("::ffff:203.0.113.77", 24, 64), "203.0.113.0");
        assert_eq!(net("::1", 32, 128), "::1");
        assert_eq!(net("10.1.2.3", 0, 0), "0.0.0.0");
        // One IPv6 host cycling through the addresses of its /64 meets one cap.
        let admission = Admission::new(100, 2, 32, 64);
        let _a = admission.admit("2001:db8::1".parse().unwrap()).unwrap();
        let _b = admission.admit("2001:db8::2".parse().unwrap()).unwrap();
        assert_eq!(
            admission.admit("2001:db8::3".parse().unwrap()).unwrap_err(),
            Refusal::PerAddress(2)
        );
        assert!(admission.admit("2001:db8:0:1::1".parse().unwrap()).is_ok());
    }

    #[tokio::test]
    async fn when_full_the_oldest_handshake_makes_room() {
        let admission = Admission::new(2, 0, 32, 64);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let (old, young) = (admission.admit(ip).unwrap(), admission.admit(ip).unwrap());
        let (old_token, old_guard) = admission.handshaking(1);
        let (young_token, _young_guard) = admission.handshaking(2);
        // The oldest is let go; once its place is free, the newcomer has it.
        let freed = tokio::spawn(async move {
            old_token.cancelled().await;
            drop((old, old_guard));
        });
        let slot = admission
            .admit_making_room(ip, Duration::from_secs(1))
            .await
            .unwrap();
        freed.await.unwrap();
        assert!(!young_token.is_cancelled());
        // No one left in a handshake but the young one, which stays while the server is full.
        drop(young);
        drop(slot);
        let _a = admission.admit(ip).unwrap();
        let _b = admission.admit(ip).unwrap();
        let _c = admission
            .admit_making_room(ip, Duration::from_millis(10))
            .await;
        assert!(
            young_token.is_cancelled(),
            "the only one in its handshake made room"
        );
    }
}
