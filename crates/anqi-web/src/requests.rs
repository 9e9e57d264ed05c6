//! Request limits: how many requests a second one connection and one client network may make
//! (`[http] requests_per_s_per_connection`, `requests_per_s_per_address`), each a token bucket
//! that holds a second's worth (a page opening makes its few requests at once).
//!
//! Past either, the request is answered `429 Too Many Requests` a second later (its
//! `retry-after`): a client that polls as fast as it can on a keep-alive connection then waits
//! between requests instead of making the server answer refusals as fast as it can ask.

use anqi_server::limits::network_of;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a refused request waits for its answer (its `retry-after` says 1 s). Waiting only
/// until the next request would be allowed is not enough: the connections of a network share
/// its bucket, and each would be woken, refused, and back again as fast as the bucket fills.
const REFUSAL_WAIT: Duration = Duration::from_secs(1);

/// A token bucket: `tokens` requests may be made now; it refills at its rate up to the rate.
#[derive(Debug)]
pub struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(rate: f64) -> Bucket {
        Bucket {
            tokens: rate,
            at: Instant::now(),
        }
    }

    /// Takes one token; or says how long until there is one.
    fn take(&mut self, rate: f64, now: Instant) -> Result<(), Duration> {
        let refilled = self.tokens + now.saturating_duration_since(self.at).as_secs_f64() * rate;
        self.tokens = refilled.min(rate);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / rate))
        }
    }

    /// Whether it is full again (nothing to remember about its network).
    fn is_full(&self, rate: f64, now: Instant) -> bool {
        self.tokens + now.saturating_duration_since(self.at).as_secs_f64() * rate >= rate
    }
}

/// Why a request was refused: the limit reached, and how long the answer waits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TooMany {
    pub per_connection: bool,
    pub rate: u32,
    pub wait: Duration,
}

impl std::fmt::Display for TooMany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let whose = if self.per_connection {
            "on this connection"
        } else {
            "from your network"
        };
        write!(
            f,
            "too many requests {whose}: at most {} a second; try again in a moment",
            self.rate
        )
    }
}

/// The limits of one web server.
pub struct RequestLimits {
    per_connection: u32,
    per_network: u32,
    v4_bits: u8,
    v6_bits: u8,
    /// The buckets of the networks seen lately (those still full are let go when there are
    /// many: at most about `max_networks`).
    networks: Mutex<HashMap<IpAddr, Bucket>>,
    max_networks: usize,
}

impl RequestLimits {
    /// `per_connection` and `per_network` requests a second; networks counted by their first
    /// `v4_bits` or `v6_bits`; about `max_networks` remembered at once (the connection cap:
    /// a network with no connection open soon has a full bucket).
    pub fn new(
        per_connection: u32,
        per_network: u32,
        v4_bits: u8,
        v6_bits: u8,
        max_networks: usize,
    ) -> RequestLimits {
        RequestLimits {
            per_connection: per_connection.max(1),
            per_network: per_network.max(1),
            v4_bits,
            v6_bits,
            networks: Mutex::default(),
            max_networks: max_networks.max(16),
        }
    }

    /// A new connection's bucket, full.
    pub fn connection(&self) -> Bucket {
        Bucket::full(f64::from(self.per_connection))
    }

    /// Counts a request on the connection whose bucket is `conn`, from `ip`.
    ///
    /// # Errors
    /// The limit reached first, and how long its answer waits.
    pub fn admit(&self, conn: &mut Bucket, ip: IpAddr) -> Result<(), TooMany> {
        let now = Instant::now();
        let too_many = |per_connection, rate| TooMany {
            per_connection,
            rate,
            wait: REFUSAL_WAIT,
        };
        conn.take(f64::from(self.per_connection), now)
            .map_err(|_| too_many(true, self.per_connection))?;
        let rate = f64::from(self.per_network);
        let network = network_of(ip, self.v4_bits, self.v6_bits);
        let mut networks = self.networks.lock().unwrap_or_else(|e| e.into_inner());
        if networks.len() >= 2 * self.max_networks && !networks.contains_key(&network) {
            networks.retain(|_, b| !b.is_full(rate, now));
            if networks.len() >= self.max_networks {
                // Still many (a crowd of networks, each asking): the half heard from least
                // recently go, so that the table stays bounded whatever the crowd.
                let mut ats: Vec<Instant> = networks.values().map(|b| b.at).collect();
                ats.sort_unstable();
                let cut = ats[ats.len() / 2];
                networks.retain(|_, b| b.at > cut);
            }
        }
        networks
            .entry(network)
            .or_insert_with(|| Bucket::full(rate))
            .take(rate, now)
            .map_err(|_| too_many(false, self.per_network))
    }

    /// How many networks are remembered now.
    #[cfg(test)]
    fn networks(&self) -> usize {
        self.networks.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_connection_makes_its_rate_in_a_burst_then_waits() {
        let limits = RequestLimits::new(5, 1000, 32, 64, 100);
        let mut conn = limits.connection();
        for _ in 0..5 {
            limits.admit(&mut conn, ip("10.0.0.1")).unwrap();
        }
        let refused = limits.admit(&mut conn, ip("10.0.0.1")).unwrap_err();
        assert!(refused.per_connection);
        assert_eq!(refused.wait, REFUSAL_WAIT);
        assert!(
            refused.to_string().contains("at most 5 a second"),
            "{refused}"
        );
        // Another connection from the same address has its own bucket.
        let mut other = limits.connection();
        limits.admit(&mut other, ip("10.0.0.1")).unwrap();
        // A fifth of a second later, one more.
        std::thread::sleep(Duration::from_millis(210));
        limits.admit(&mut conn, ip("10.0.0.1")).unwrap();
    }

    #[test]
    fn a_network_shares_its_rate_between_its_connections() {
        let limits = RequestLimits::new(1000, 4, 32, 64, 100);
        let mut conns: Vec<Bucket> = (0..4).map(|_| limits.connection()).collect();
        for c in &mut conns {
            limits.admit(c, ip("2001:db8::1")).unwrap();
        }
        // The same /64: the same network.
        let refused = limits
            .admit(&mut limits.connection(), ip("2001:db8::2"))
            .unwrap_err();
        assert!(!refused.per_connection);
        assert!(refused.to_string().contains("from your network"));
        // Another network is not held back.
        limits
            .admit(&mut limits.connection(), ip("2001:db8:1::1"))
            .unwrap();
    }

    #[test]
    fn networks_with_full_buckets_are_forgotten_when_many() {
        let limits = RequestLimits::new(1000, 1000, 32, 64, 16);
        for i in 0..200u32 {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            limits.admit(&mut limits.connection(), ip).unwrap();
            assert!(limits.networks() <= 2 * 16 + 1, "{}", limits.networks());
        }
    }
}
