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
//! still in its handshake makes room for the newcomer, once it has had a moment to finish it
//! ([`HANDSHAKE_CHANCE`]). A client that sends its `init` at once (every player does) is past
//! its handshake long before it is the oldest.
//!
//! A crowd that completes its handshakes and then never moves is met the same way, once seated
//! (arrival seating only: a tournament seats only the engines its organizer ordered). Each
//! network has at most `max_seats_per_address` players waiting for a game or playing one (a
//! [`SeatTicket`] each, taken when the handshake is done). And when the server is full with no
//! handshake left to let go, a seated player idle on its first action (prompted at least the
//! `start_grace` ago, and not having acted since) makes room, as the first-move deadline
//! (`[referee] first_move_ms`) would end its game later: the one waiting longest in a game where
//! no ply has been played yet (the game is aborted, with no result), or else the one waiting
//! longest in a game under way (it loses on time: it has seen the game start).
//!
//! A newcomer that finds the server full waits for the place it made (or claimed) in its own
//! task (the accept loop never waits), for at most a moment: the places a let-go connection
//! gives back are counted as coming (`RoomComing`) only until they come, until the wait for
//! them is given up, or until that moment is over.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Why a connection was refused; the text is what the client is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the server has {0} connections open; try again later")]
    Full(usize),
    #[error("{0} connections are open from your address, the most allowed; try again later")]
    PerAddress(usize),
    #[error("{0} players from your address are waiting for a game or playing one, the most allowed; try again when one of their games is over")]
    SeatsPerAddress(usize),
    #[error("the server has no file descriptor left for another connection; try again later")]
    Descriptors,
}

/// Descriptors kept for what the process opens besides connections: the listener, standard
/// streams, the records file, a tournament's output and engine logs, the spare descriptor.
fn reserve(soft_limit: u64) -> u64 {
    64 + soft_limit / 16
}

/// Connections open, or players seated, per client network (an address, or a prefix of it:
/// see [`network_of`]).
#[derive(Debug, Default)]
struct PerAddress {
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl PerAddress {
    /// Counts one more for `network` under `cap` (0: no cap, nothing counted), or refuses
    /// with `refusal(cap)`.
    fn count(
        self: &Arc<Self>,
        network: IpAddr,
        cap: usize,
        refusal: fn(usize) -> Refusal,
    ) -> Result<Option<Counted>, Refusal> {
        match cap {
            0 => Ok(None),
            cap => self.take(network, cap).map(Some).ok_or(refusal(cap)),
        }
    }

    /// Counts one more for `network`, unless it has `cap` already.
    fn take(self: &Arc<Self>, network: IpAddr, cap: usize) -> Option<Counted> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(network).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Counted {
            network,
            table: self.clone(),
        })
    }
}

/// One connection or seat counted for its network, given back when dropped.
#[derive(Debug)]
struct Counted {
    network: IpAddr,
    table: Arc<PerAddress>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut open = self.table.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.network) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.network);
            }
        }
    }
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

/// The connections that make room when the server is full, in the order they are let go:
/// those still in their handshake that have had their chance to finish it ([`HANDSHAKE_CHANCE`]),
/// oldest first (a client that sends its `init` within moments is never the oldest for long);
/// then the seated players waiting on their first action, once they have waited the
/// admission's `start_grace`: the longest waiting in a game where no ply has been played first
/// (its game is aborted with no result), then the longest waiting in a game under way (it
/// loses on time); and last the handshakes that have not had their chance yet, oldest first.
///
/// A newcomer let in a moment ago has not had the time to send its `init`: let go for the
/// next newcomer of a crowd arriving at once, it would be told `busy` for being slow when it
/// was only new (four newcomers at once on a full server of idlers: the third let the first
/// go, now and then, on a loaded machine).
#[derive(Debug, Default)]
struct Idlers {
    lists: Mutex<IdleLists>,
}

#[derive(Debug, Default)]
struct IdleLists {
    /// Connections in their handshake, in the order they came.
    handshakes: VecDeque<InHandshake>,
    /// Seated players prompted for their first action that have not made it, in the order of
    /// that first prompt.
    first_prompted: VecDeque<FirstPrompted>,
}

/// A connection in its handshake.
#[derive(Debug)]
struct InHandshake {
    conn: u64,
    since: Instant,
    token: CancellationToken,
}

/// How long a connection in its handshake has had to finish it before it is let go ahead of
/// the seated idlers: a round trip across the world, and a busy client's moment.
pub const HANDSHAKE_CHANCE: Duration = Duration::from_secs(1);

/// A seated player prompted for its first action that has not made it.
#[derive(Debug)]
struct FirstPrompted {
    conn: u64,
    /// Its first prompt.
    since: Instant,
    /// The places its game gives back when it ends (its players' open connections).
    places: usize,
    /// Whether a ply had been played in its game by then: ending such a game has a result
    /// (the idle player loses on time), so it makes room only when no game without one can.
    started: bool,
    token: CancellationToken,
}

impl Idlers {
    fn lists(&self) -> std::sync::MutexGuard<'_, IdleLists> {
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place among the `Idlers` in their handshake, left when dropped (the
/// handshake is over).
#[derive(Debug)]
pub struct Handshaking {
    conn: u64,
    table: Arc<Idlers>,
}

impl Drop for Handshaking {
    fn drop(&mut self) {
        let mut lists = self.table.lists();
        if let Some(i) = lists.handshakes.iter().position(|h| h.conn == self.conn) {
            lists.handshakes.remove(i);
        }
    }
}

/// A player's place among the seated (waiting for a game, or playing one), taken when its
/// handshake is done and held by its `Player` until the game is
/// over (or it leaves before): its count under its network's seat cap, and, once it is prompted
/// for its first action, its place among the `Idlers` until it acts.
#[derive(Debug)]
pub struct SeatTicket {
    conn: u64,
    /// Counted under `max_seats_per_address` (none when that cap is off).
    _counted: Option<Counted>,
    idlers: Arc<Idlers>,
    /// Cancelled when the player must make room (see [`SeatTicket::made_room`]).
    token: CancellationToken,
    /// Whether the player is listed among the idlers now.
    listed: bool,
    /// Whether it has acted (it is never listed again).
    acted: bool,
}

impl SeatTicket {
    /// The player is prompted for an action: the first time, and until it acts, it is among
    /// those that make room on a full server (from `at`, the moment of that first prompt).
    /// `frees`: the places its game gives back when it ends (its players' open connections);
    /// `game_started`: whether a ply has been played in its game (see `Idlers`).
    pub fn prompted(&mut self, at: Instant, frees: usize, game_started: bool) {
        if self.listed || self.acted {
            return;
        }
        self.listed = true;
        self.idlers.lists().first_prompted.push_back(FirstPrompted {
            conn: self.conn,
            since: at,
            places: frees,
            started: game_started,
            token: self.token.clone(),
        });
    }

    /// The player made its first action: it never makes room from now on.
    pub fn acted(&mut self) {
        self.acted = true;
        self.unlist();
    }

    /// Cancelled when the player, prompted and not having acted, must make room for a new
    /// connection (its game then ends: aborted, or lost on time by this player once a ply has
    /// been played); never once it has acted.
    pub fn made_room(&self) -> &CancellationToken {
        &self.token
    }

    fn unlist(&mut self) {
        if !std::mem::take(&mut self.listed) {
            return;
        }
        let mut lists = self.idlers.lists();
        if let Some(i) = lists
            .first_prompted
            .iter()
            .position(|p| p.conn == self.conn)
        {
            lists.first_prompted.remove(i);
        }
    }
}

impl Drop for SeatTicket {
    fn drop(&mut self) {
        self.unlist();
    }
}

/// A connection's place under the caps, released when the connection's tasks end.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    _counted: Option<Counted>,
}

/// Where players whose handshake is done take their seats (an [`Admission`]'s). Cloning is
/// cheap.
#[derive(Clone, Debug)]
pub struct Seats {
    /// Players waiting for a game or playing one, per client network.
    counts: Arc<PerAddress>,
    /// The most per network; 0: no cap.
    cap: usize,
    v4_bits: u8,
    v6_bits: u8,
    idlers: Arc<Idlers>,
}

impl Seats {
    /// A seat for connection `conn` from `ip`, whose handshake is done: counted under its
    /// network's seat cap, and able to make room while it has not acted.
    ///
    /// # Errors
    /// [`Refusal::SeatsPerAddress`] when its network has as many seated as allowed.
    pub fn take(&self, ip: IpAddr, conn: u64) -> Result<SeatTicket, Refusal> {
        let counted = self.counts.count(
            network_of(ip, self.v4_bits, self.v6_bits),
            self.cap,
            Refusal::SeatsPerAddress,
        )?;
        Ok(SeatTicket {
            conn,
            _counted: counted,
            idlers: self.idlers.clone(),
            token: CancellationToken::new(),
            listed: false,
            acted: false,
        })
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
    /// Where seats are taken (with their own cap per network).
    seats: Seats,
    /// How long a seated player may wait on its first action before it can make room.
    start_grace: Duration,
    idlers: Arc<Idlers>,
    /// Places that connections let go to make room will give back and no newcomer has claimed
    /// yet.
    coming: RoomComing,
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
        let idlers = Arc::<Idlers>::default();
        Admission {
            cap,
            permits: Arc::new(Semaphore::new(cap)),
            per_address_cap: per_address,
            per_address: Arc::default(),
            v4_bits,
            v6_bits,
            seats: Seats {
                counts: Arc::default(),
                cap: 0,
                v4_bits,
                v6_bits,
                idlers: idlers.clone(),
            },
            start_grace: Duration::ZERO,
            idlers,
            coming: RoomComing::default(),
        }
    }

    /// Caps the players waiting for a game or playing one at `per_address` per client network
    /// (0: none; none either while connections have no per-address cap), and lets a seated
    /// player make room on a full server once it has waited `start_grace` on its first action.
    /// Seats are taken at [`Admission::seats`].
    pub fn with_seats(mut self, per_address: usize, start_grace: Duration) -> Admission {
        self.seats.cap = if self.per_address_cap == 0 {
            0
        } else {
            per_address
        };
        self.start_grace = start_grace;
        self
    }

    /// Where players whose handshake is done take their seats.
    pub fn seats(&self) -> Seats {
        self.seats.clone()
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
        let slot = self.place(ip, permit)?;
        // A place free at once may well be one that was coming back: no newcomer waits for it.
        self.coming.claim();
        Ok(slot)
    }

    /// As [`Admission::admit`], and, when the server is full, claims a place that a connection
    /// let go earlier will give back, or else lets the oldest connection still in its
    /// handshake go (it is told `busy`), or else a seated player idle on its first action (see
    /// `Idlers`), and waits up to `wait` for its place. Meant for the newcomer's own task:
    /// it may wait that long.
    ///
    /// # Errors
    /// The cap that is reached, when no connection can make room in time.
    pub async fn admit_making_room(&self, ip: IpAddr, wait: Duration) -> Result<Slot, Refusal> {
        match self.admit(ip) {
            Err(Refusal::Full(_)) => {}
            admitted => return admitted,
        }
        let eviction = match self.coming.claim() {
            Some(eviction) => eviction,
            None => match self.make_room() {
                0 => return Err(Refusal::Full(self.cap)),
                // This newcomer takes one; the others are for those that come next.
                places => self.coming.expect(places - 1, wait),
            },
        };
        let awaited = Awaited {
            coming: &self.coming,
            eviction,
        };
        match tokio::time::timeout(wait, self.permits.clone().acquire_owned()).await {
            Ok(Ok(permit)) => {
                awaited.came();
                self.place(ip, permit)
            }
            _ => {
                awaited.did_not_come();
                Err(Refusal::Full(self.cap))
            }
        }
    }

    /// Counts a connection from `ip` under its network's cap.
    fn place(&self, ip: IpAddr, permit: OwnedSemaphorePermit) -> Result<Slot, Refusal> {
        let counted = self.per_address.count(
            network_of(ip, self.v4_bits, self.v6_bits),
            self.per_address_cap,
            Refusal::PerAddress,
        )?;
        Ok(Slot {
            _permit: permit,
            _counted: counted,
        })
    }

    /// Registers connection `conn` as in its handshake: the token is cancelled when it must
    /// make room, and dropping the guard (its handshake is over) takes it off the list.
    pub fn handshaking(&self, conn: u64) -> (CancellationToken, Handshaking) {
        let token = CancellationToken::new();
        self.idlers.lists().handshakes.push_back(InHandshake {
            conn,
            since: Instant::now(),
            token: token.clone(),
        });
        (
            token,
            Handshaking {
                conn,
                table: self.idlers.clone(),
            },
        )
    }

    /// Lets the oldest connection still in its handshake go once it has had its chance, or
    /// else a seated player idle on its first action that has waited `start_grace`, or else the
    /// oldest handshake all the same (in the order of [`Idlers`]): the places that will be
    /// given back (one, or its game's), 0 when there is none to let go.
    fn make_room(&self) -> usize {
        let mut lists = self.idlers.lists();
        // The list is in the order connections came (or, on the pages, waited again): the
        // first has waited longest.
        let chance_had = lists
            .handshakes
            .front()
            .is_some_and(|h| h.since.elapsed() >= HANDSHAKE_CHANCE);
        if chance_had {
            let oldest = lists.handshakes.pop_front().expect("a listed handshake");
            oldest.token.cancel();
            return 1;
        }
        // The list is in the order of first prompts: the first of a kind has waited longest.
        let grace = self.start_grace;
        let first_of = |started: bool| {
            lists
                .first_prompted
                .iter()
                .position(|p| p.started == started && p.places > 0)
                .filter(|&i| lists.first_prompted[i].since.elapsed() >= grace)
        };
        let Some(i) = first_of(false).or_else(|| first_of(true)) else {
            return match lists.handshakes.pop_front() {
                Some(newest_chance) => {
                    newest_chance.token.cancel();
                    1
                }
                None => 0,
            };
        };
        let idle = lists.first_prompted.remove(i).expect("a listed player");
        idle.token.cancel();
        idle.places
    }
}

/// The places that connections let go to make room will give back, and that no newcomer has
/// claimed yet, per connection (or game) let go. A newcomer that finds the server full waits
/// for one of them rather than let another connection go: an aborted game gives back its
/// players' places a moment apart, and the first newcomer, still in its handshake, would be
/// the next to go.
///
/// A count of places coming that outlived them would make newcomers wait for places that
/// never come, so the places of one eviction are no longer counted once a newcomer waiting for
/// one of them gives up (the places of one game come back together, or not at all), nor past
/// the wait they were let go for.
#[derive(Debug, Default)]
struct RoomComing {
    evictions: Mutex<ComingList>,
}

#[derive(Debug, Default)]
struct ComingList {
    /// The number of the next eviction.
    next: u64,
    /// Evictions whose wait is not over, in the order they were made.
    evictions: VecDeque<Coming>,
}

/// One eviction's places not claimed yet.
#[derive(Debug)]
struct Coming {
    eviction: u64,
    unclaimed: usize,
    /// When they are no longer waited for.
    until: Instant,
}

impl RoomComing {
    fn list(&self) -> std::sync::MutexGuard<'_, ComingList> {
        self.evictions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A newcomer let connections go for `unclaimed` more places than the one it takes itself,
    /// coming back within `wait`: the eviction's number.
    fn expect(&self, unclaimed: usize, wait: Duration) -> u64 {
        let mut list = self.list();
        let eviction = list.next;
        list.next += 1;
        // Listed even with none to claim: a newcomer that leaves gives its claim back here.
        let until = Instant::now() + wait;
        list.evictions.push_back(Coming {
            eviction,
            unclaimed,
            until,
        });
        eviction
    }

    /// Claims one of the places coming back (the one let go first): its eviction's number,
    /// `None` when none is coming.
    fn claim(&self) -> Option<u64> {
        let now = Instant::now();
        let mut list = self.list();
        // Kept until they are over, claimed or not: a claim may be given back.
        list.evictions.retain(|c| c.until > now);
        let first = list.evictions.iter_mut().find(|c| c.unclaimed > 0)?;
        first.unclaimed -= 1;
        Some(first.eviction)
    }

    /// A newcomer waiting for a place of `eviction` gave up (none came in time): its other
    /// places are not waited for either.
    fn forget(&self, eviction: u64) {
        self.list().evictions.retain(|c| c.eviction != eviction);
    }

    /// A newcomer waiting for a place of `eviction` left before it came: the place is still
    /// coming, for the next newcomer.
    fn give_back(&self, eviction: u64) {
        if let Some(c) = self
            .list()
            .evictions
            .iter_mut()
            .find(|c| c.eviction == eviction)
        {
            c.unclaimed += 1;
        }
    }
}

/// A newcomer waiting for a place of an eviction: when it leaves without having been told
/// whether the place came (its task was dropped: the server stopping, ...), its claim is given
/// back to the count.
struct Awaited<'a> {
    coming: &'a RoomComing,
    eviction: u64,
}

impl Awaited<'_> {
    /// The place came.
    fn came(self) {
        std::mem::forget(self);
    }

    /// No place came within the wait.
    fn did_not_come(self) {
        self.coming.forget(self.eviction);
        std::mem::forget(self);
    }
}

impl Drop for Awaited<'_> {
    fn drop(&mut self) {
        self.coming.give_back(self.eviction);
    }
}

/// The spare file descriptor that still lets the server answer `busy` when descriptors run
/// out (see the module's documentation), and the throttled log of failed accepts.
#[derive(Debug)]
pub struct SpareDescriptor {
    /// Closed to make room for one `busy` answer when descriptors run out.
    spare: Option<std::fs::File>,
    /// Failed accepts, logged a few per window: a crowd can make them fail all the time.
    accept_failures: crate::throttle::LogThrottle<()>,
}

impl Default for SpareDescriptor {
    fn default() -> SpareDescriptor {
        SpareDescriptor {
            spare: std::fs::File::open("/dev/null").ok(),
            accept_failures: Default::default(),
        }
    }
}

impl SpareDescriptor {
    /// After `accept` failed with `error`: when descriptors ran out, closes the spare one to
    /// accept the next client (to be told `busy`), and opens it again. Logs the failure (a few
    /// a window).
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

    #[test]
    fn seats_are_counted_per_network_and_given_back() {
        let admission = Admission::new(100, 8, 24, 64).with_seats(2, Duration::ZERO);
        let seats = admission.seats();
        let a: IpAddr = "203.0.113.1".parse().unwrap();
        let same_network: IpAddr = "203.0.113.200".parse().unwrap();
        let first = seats.take(a, 1).unwrap();
        let _second = seats.take(same_network, 2).unwrap();
        assert_eq!(seats.take(a, 3).unwrap_err(), Refusal::SeatsPerAddress(2));
        assert!(seats.take("203.0.114.1".parse().unwrap(), 4).is_ok());
        // A game over (or a player gone) gives its seat back.
        drop(first);
        assert!(seats.take(a, 5).is_ok());
        // No seat cap without a per-address cap, nor with a seat cap of 0.
        for admission in [
            Admission::new(100, 0, 32, 64).with_seats(1, Duration::ZERO),
            Admission::new(100, 8, 32, 64).with_seats(0, Duration::ZERO),
        ] {
            let seats = admission.seats();
            let tickets: Vec<_> = (0..5).map(|c| seats.take(a, c).unwrap()).collect();
            assert_eq!(tickets.len(), 5);
        }
    }

    #[tokio::test]
    async fn seated_players_make_room_after_handshakes_once_they_waited_on_their_first_action() {
        let grace = Duration::from_millis(100);
        let admission = Admission::new(100, 0, 32, 64).with_seats(0, grace);
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let (mut waited, mut acting, mut unprompted) = (
            seats.take(ip, 1).unwrap(),
            seats.take(ip, 2).unwrap(),
            seats.take(ip, 3).unwrap(),
        );
        let long_ago = Instant::now() - Duration::from_secs(2);
        waited.prompted(long_ago, 2, false);
        acting.prompted(long_ago, 2, false);
        // Prompted again: still listed once, from its first prompt.
        waited.prompted(Instant::now(), 2, false);
        acting.acted();
        let (old, _old_guard) = admission.handshaking(8);
        admission
            .idlers
            .lists()
            .handshakes
            .back_mut()
            .unwrap()
            .since = long_ago;
        let (fresh, _fresh_guard) = admission.handshaking(9);
        // A connection in its handshake that has had its chance goes first, giving back its
        // place.
        assert_eq!(admission.make_room(), 1);
        assert!(old.is_cancelled());
        assert!(!waited.made_room().is_cancelled());
        // Then the seated player prompted longest ago that has not acted (its game's places),
        // ahead of a connection that has not had its chance to finish its handshake.
        assert_eq!(admission.make_room(), 2);
        assert!(waited.made_room().is_cancelled());
        assert!(!fresh.is_cancelled(), "let in a moment ago");
        assert!(!acting.made_room().is_cancelled(), "it acted");
        assert!(!unprompted.made_room().is_cancelled(), "never prompted");
        // One prompted just now waits out the grace first: the fresh handshake goes all the
        // same, as nobody else can make room.
        unprompted.prompted(Instant::now(), 1, false);
        assert_eq!(admission.make_room(), 1);
        assert!(fresh.is_cancelled());
        assert!(!unprompted.made_room().is_cancelled());
        assert_eq!(admission.make_room(), 0);
        tokio::time::sleep(grace).await;
        assert_eq!(admission.make_room(), 1);
        assert!(unprompted.made_room().is_cancelled());
        assert_eq!(admission.make_room(), 0, "nobody left to make room");
        // A ticket dropped (its game over) is off the list.
        let mut gone = seats.take(ip, 4).unwrap();
        gone.prompted(long_ago, 2, false);
        drop(gone);
        assert_eq!(admission.make_room(), 0);
    }

    /// A game aborted to make room gives back its two places a moment apart: the second
    /// newcomer waits for the second place instead of letting the first newcomer (still in its
    /// handshake) go.
    #[tokio::test]
    async fn newcomers_take_the_places_an_aborted_game_gives_back_without_letting_more_go() {
        let admission = Admission::new(2, 0, 32, 64).with_seats(0, Duration::ZERO);
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let places = [admission.admit(ip).unwrap(), admission.admit(ip).unwrap()];
        let mut idle = seats.take(ip, 1).unwrap();
        idle.prompted(Instant::now(), 2, false);
        let token = idle.made_room().clone();
        // The game, aborted, gives its places back one at a time.
        let aborted = tokio::spawn(async move {
            token.cancelled().await;
            let [first, second] = places;
            drop(first);
            tokio::time::sleep(Duration::from_millis(50)).await;
            drop(second);
        });
        let wait = Duration::from_secs(5);
        let first = admission.admit_making_room(ip, wait).await.unwrap();
        let (first_token, _first_guard) = admission.handshaking(10);
        let second = admission.admit_making_room(ip, wait).await.unwrap();
        assert!(!first_token.is_cancelled(), "the first newcomer stays");
        aborted.await.unwrap();
        drop((first, second));
    }

    /// Unstarted games make room before games under way (whose idle player loses on time), and
    /// a game holding no connection never does (it gives back no place).
    #[test]
    fn games_under_way_make_room_only_after_unstarted_ones() {
        let admission = Admission::new(100, 0, 32, 64).with_seats(0, Duration::ZERO);
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let now = Instant::now();
        let (mut away, mut started, mut unstarted) = (
            seats.take(ip, 1).unwrap(),
            seats.take(ip, 2).unwrap(),
            seats.take(ip, 3).unwrap(),
        );
        away.prompted(now - Duration::from_secs(3), 0, false);
        started.prompted(now - Duration::from_secs(2), 2, true);
        unstarted.prompted(now - Duration::from_secs(1), 2, false);
        assert_eq!(admission.make_room(), 2);
        assert!(unstarted.made_room().is_cancelled());
        assert!(
            !started.made_room().is_cancelled(),
            "waited longer, but under way"
        );
        assert_eq!(admission.make_room(), 2);
        assert!(started.made_room().is_cancelled());
        assert_eq!(admission.make_room(), 0);
        assert!(!away.made_room().is_cancelled());
    }

    /// Two idle games of two players on a full server whose places are never given back: a
    /// newcomer lets the first game go and waits in vain; the next newcomer does not wait for
    /// the first game's other place (the places of a game come back together, or not at all),
    /// it lets the second game go. Before, it waited for that place, and was refused.
    #[tokio::test]
    async fn a_place_that_never_came_is_not_waited_for_again() {
        let admission = Admission::new(2, 0, 32, 64).with_seats(0, Duration::ZERO);
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let _held = [admission.admit(ip).unwrap(), admission.admit(ip).unwrap()];
        let (mut a, mut b) = (seats.take(ip, 1).unwrap(), seats.take(ip, 2).unwrap());
        a.prompted(Instant::now(), 2, false);
        b.prompted(Instant::now(), 2, false);
        let wait = Duration::from_millis(50);
        let first = admission.admit_making_room(ip, wait).await;
        assert_eq!(first.unwrap_err(), Refusal::Full(2));
        assert!(a.made_room().is_cancelled());
        assert!(admission.admit_making_room(ip, wait).await.is_err());
        assert!(b.made_room().is_cancelled(), "the next game made room");
    }

    /// A game let go gives back one place and never the other: once the wait it was let go
    /// for is over, the other is no longer counted as coming, and a newcomer makes room anew.
    #[tokio::test]
    async fn places_coming_are_counted_only_for_the_wait() {
        let admission = Admission::new(2, 0, 32, 64).with_seats(0, Duration::ZERO);
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let [given_back, _held] = [admission.admit(ip).unwrap(), admission.admit(ip).unwrap()];
        let (mut a, mut b) = (seats.take(ip, 1).unwrap(), seats.take(ip, 2).unwrap());
        a.prompted(Instant::now(), 2, false);
        b.prompted(Instant::now(), 2, false);
        let token = a.made_room().clone();
        let ended = tokio::spawn(async move {
            token.cancelled().await;
            drop(given_back);
        });
        let wait = Duration::from_millis(100);
        let _first = admission.admit_making_room(ip, wait).await.unwrap();
        ended.await.unwrap();
        tokio::time::sleep(wait).await;
        assert!(admission.admit_making_room(ip, wait).await.is_err());
        assert!(b.made_room().is_cancelled(), "the next game made room");
    }

    /// A newcomer that leaves while it waits for a place coming (its task dropped) gives its
    /// claim back: the next newcomer takes that place instead of letting another game go.
    #[tokio::test]
    async fn a_newcomer_that_leaves_while_it_waits_gives_its_claim_back() {
        let admission = Arc::new(Admission::new(2, 0, 32, 64).with_seats(0, Duration::ZERO));
        let seats = admission.seats();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let places = [admission.admit(ip).unwrap(), admission.admit(ip).unwrap()];
        let (mut a, mut b) = (seats.take(ip, 1).unwrap(), seats.take(ip, 2).unwrap());
        a.prompted(Instant::now(), 2, false);
        b.prompted(Instant::now(), 2, false);
        let wait = Duration::from_secs(5);
        let newcomer = |admission: Arc<Admission>| {
            tokio::spawn(async move { admission.admit_making_room(ip, wait).await })
        };
        let first = newcomer(admission.clone());
        a.made_room().cancelled().await;
        // The second claims the game's other place, and leaves.
        let left = tokio::time::timeout(
            Duration::from_millis(20),
            admission.admit_making_room(ip, wait),
        )
        .await;
        assert!(left.is_err(), "still waiting when it left");
        let third = newcomer(admission.clone());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !b.made_room().is_cancelled(),
            "the third waits for the place left"
        );
        drop(places);
        assert!(first.await.unwrap().is_ok());
        assert!(third.await.unwrap().is_ok());
    }
}
