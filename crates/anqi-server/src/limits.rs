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

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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

/// Connections open per client address.
#[derive(Debug, Default)]
struct PerAddress {
    open: Mutex<HashMap<IpAddr, usize>>,
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
    /// Closed to make room for one `busy` answer when descriptors run out.
    spare: Option<std::fs::File>,
    /// Failed accepts, logged a few per window: a crowd can make them fail all the time.
    accept_failures: crate::throttle::LogThrottle<()>,
}

impl Admission {
    /// Caps of `max_connections` in all (lowered to what the descriptor limit allows) and
    /// `per_address` per client address (0: none).
    pub fn new(max_connections: usize, per_address: usize) -> Admission {
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
        if self.per_address_cap == 0 {
            return Ok(Slot {
                _permit: permit,
                address: None,
            });
        }
        let mut open = self
            .per_address
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= self.per_address_cap {
            return Err(Refusal::PerAddress(self.per_address_cap));
        }
        *n += 1;
        Ok(Slot {
            _permit: permit,
            address: Some((ip, self.per_address.clone())),
        })
    }

    /// After `accept` failed with `error`: when descriptors ran out, closes the spare one,
    /// accepts the waiting client (to be told `busy`) and opens the spare again.
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
        let admission = Admission::new(10, 2);
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
        let admission = Admission::new(2, 0);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let _x = admission.admit(ip).unwrap();
        let _y = admission.admit(ip).unwrap();
        assert_eq!(admission.admit(ip).unwrap_err(), Refusal::Full(2));
    }
}
