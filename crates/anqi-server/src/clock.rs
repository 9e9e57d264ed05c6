//! Clocks: each player's own time control (game time, moves per period, increment, per-move
//! limit), the time they have left, and the time they used.
//!
//! Time is measured by the server from the moment it queues the `turn` message to the moment
//! it reads the action (the client's network delay counts against the client).
//!
//! Every seat has its own [`TimeControl`], because tournaments give engines different ones
//! (time odds, as `tc` per engine in cutechess); the server's `[clock]` gives every seat the
//! same.

use crate::config::ClockConfig;
use anqi_core::rules::ClockDefaults;
use std::time::Duration;
use tokio::time::Instant;

pub use anqi_core::settings::TimeControl;

/// One seat's clock.
#[derive(Clone, Debug)]
struct SeatClock {
    control: TimeControl,
    /// Game time left; `None` without a game clock.
    remaining: Option<Duration>,
    used: Duration,
    /// Moves charged so far.
    moves: u32,
}

/// The clocks of one game.
#[derive(Clone, Debug)]
pub struct Clocks {
    /// Index = player id - 1.
    seats: Vec<SeatClock>,
}

impl Clocks {
    /// Clocks for `players` players, all on the same control: each setting comes from the
    /// server configuration when it sets it, else from the variant's `(clock ...)`, else it is
    /// off (0).
    pub fn new(config: &ClockConfig, variant: &ClockDefaults, players: usize) -> Clocks {
        Clocks::per_player(vec![TimeControl::resolve(config, variant); players])
    }

    /// Clocks with a control of its own for each player (index = player id - 1).
    pub fn per_player(controls: Vec<TimeControl>) -> Clocks {
        Clocks {
            seats: controls
                .into_iter()
                .map(|control| SeatClock {
                    control,
                    remaining: control.game,
                    used: Duration::ZERO,
                    moves: 0,
                })
                .collect(),
        }
    }

    /// When the flag of `player` falls if they started thinking at `since`; `None` = never
    /// (also for a limit so long that the moment cannot be represented).
    pub fn deadline(&self, player: usize, since: Instant) -> Option<Instant> {
        let s = &self.seats[player - 1];
        let limit = match (s.remaining, s.control.per_move) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        limit.and_then(|d| since.checked_add(d))
    }

    /// Whether a ply that took `spent` would make `player`'s flag fall (nothing is charged).
    pub fn would_fall(&self, player: usize, spent: Duration) -> bool {
        let s = &self.seats[player - 1];
        s.control.per_move.is_some_and(|m| spent > m) || s.remaining.is_some_and(|r| spent > r)
    }

    /// Charges `player` for a ply that took `spent`; false when that flag has fallen. A ply
    /// within time counts as one of the player's moves: it earns the increment, and ends a
    /// period every `period_moves` moves (the game time is added again).
    pub fn charge(&mut self, player: usize, spent: Duration) -> bool {
        let s = &mut self.seats[player - 1];
        s.used += spent;
        if s.control.per_move.is_some_and(|m| spent > m) {
            return false;
        }
        match &mut s.remaining {
            Some(r) if spent > *r => {
                *r = Duration::ZERO;
                return false;
            }
            Some(r) => *r = *r - spent + s.control.increment,
            None => {}
        }
        s.moves += 1;
        let period = s.control.period_moves;
        if period > 0 && s.moves % period == 0 {
            if let (Some(r), Some(game)) = (&mut s.remaining, s.control.game) {
                *r += game;
            }
        }
        true
    }

    /// Total thinking time used by `player`.
    pub fn used(&self, player: usize) -> Duration {
        self.seats[player - 1].used
    }

    /// The game time `player` has left (what their flag falls at, besides the per-move
    /// limit); `None` without a game clock.
    pub fn remaining(&self, player: usize) -> Option<Duration> {
        self.seats[player - 1].remaining
    }

    /// The time control `player` plays under.
    pub fn control(&self, player: usize) -> TimeControl {
        self.seats[player - 1].control
    }

    /// Moves `player` has left to make before their next period starts (UCI's `movestogo`);
    /// `None` when the game is one period or has no game clock.
    pub fn moves_to_go(&self, player: usize) -> Option<u32> {
        let s = &self.seats[player - 1];
        let period = s.control.period_moves;
        (period > 0 && s.control.game.is_some()).then(|| period - s.moves % period)
    }
}

/// The first-move deadline (`[referee] first_move_ms`): each player's first action of a game
/// is due within a limit of its first prompt, whatever its clock allows, so that a player that
/// never acts holds its seats for that long, not for a whole game clock. One that misses it
/// while no ply has been played has not started playing: the referee aborts the game
/// (termination `aborted`, no result). Once a ply has been played (player 2 and later movers
/// are first prompted after one), it has seen the game start: it loses on time. Once a player
/// has acted, it has no such deadline again.
#[derive(Clone, Debug)]
pub struct FirstMoves {
    /// `None`: no deadline (0 in the configuration).
    limit: Option<Duration>,
    /// Index = player id - 1.
    seats: Vec<FirstMove>,
}

/// Where one player stands with its first action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FirstMove {
    NotPrompted,
    /// First prompted at this moment, and has not acted since.
    Prompted(Instant),
    Acted,
}

impl FirstMoves {
    /// No player of `players` prompted yet; a first action due `limit_ms` after the first
    /// prompt (0: never due).
    pub fn new(limit_ms: u64, players: usize) -> FirstMoves {
        FirstMoves {
            limit: (limit_ms > 0).then(|| Duration::from_millis(limit_ms)),
            seats: vec![FirstMove::NotPrompted; players],
        }
    }

    /// `player` is prompted at `at`; true when this is its first prompt.
    pub fn prompted(&mut self, player: usize, at: Instant) -> bool {
        let seat = &mut self.seats[player - 1];
        let first = *seat == FirstMove::NotPrompted;
        if first {
            *seat = FirstMove::Prompted(at);
        }
        first
    }

    /// `player` made an action: its first, or a later one.
    pub fn acted(&mut self, player: usize) {
        self.seats[player - 1] = FirstMove::Acted;
    }

    /// Whether `player` has made an action in this game.
    pub fn has_acted(&self, player: usize) -> bool {
        self.seats[player - 1] == FirstMove::Acted
    }

    /// When `player`'s first action is due: `None` once it has acted, before its first
    /// prompt, without a limit, or for a limit so long that the moment cannot be represented.
    pub fn deadline(&self, player: usize) -> Option<Instant> {
        match self.seats[player - 1] {
            FirstMove::Prompted(at) => self.limit.and_then(|limit| at.checked_add(limit)),
            FirstMove::NotPrompted | FirstMove::Acted => None,
        }
    }

    /// The limit, when there is one.
    pub fn limit(&self) -> Option<Duration> {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_action_is_due_from_the_first_prompt_until_it_is_made() {
        let mut f = FirstMoves::new(60_000, 2);
        let t0 = Instant::now();
        assert_eq!(f.deadline(1), None, "not prompted yet");
        assert!(f.prompted(1, t0));
        // Prompted again (after an error reply, say): still due from the first prompt.
        assert!(!f.prompted(1, t0 + Duration::from_secs(5)));
        assert_eq!(f.deadline(1), Some(t0 + Duration::from_secs(60)));
        assert!(!f.has_acted(1));
        f.acted(1);
        assert!(f.has_acted(1));
        assert_eq!(f.deadline(1), None, "acted: never due again");
        assert!(!f.prompted(1, t0), "no first prompt after an action");
        assert_eq!(f.deadline(1), None);
        // Player 2's own first prompt starts its own limit.
        let t1 = t0 + Duration::from_secs(30);
        assert!(f.prompted(2, t1));
        assert_eq!(f.deadline(2), Some(t1 + Duration::from_secs(60)));
        assert_eq!(f.limit(), Some(Duration::from_secs(60)));
    }

    #[test]
    fn a_first_move_limit_of_0_is_none() {
        let mut f = FirstMoves::new(0, 1);
        assert!(f.prompted(1, Instant::now()));
        assert_eq!(f.deadline(1), None);
        assert_eq!(f.limit(), None);
    }

    #[test]
    fn game_clock_with_increment_and_move_limit() {
        let cfg = ClockConfig {
            game_ms: Some(1000),
            move_ms: Some(300),
            increment_ms: Some(100),
            period_moves: None,
        };
        let mut c = Clocks::new(&cfg, &ClockDefaults::default(), 2);
        let t0 = Instant::now();
        assert_eq!(c.deadline(1, t0), Some(t0 + Duration::from_millis(300)));
        assert!(c.charge(1, Duration::from_millis(250)));
        // 1000 - 250 + 100 = 850 left; the move limit still binds.
        assert_eq!(c.deadline(1, t0), Some(t0 + Duration::from_millis(300)));
        assert!(
            !c.charge(1, Duration::from_millis(301)),
            "move limit exceeded"
        );
        assert!(c.charge(2, Duration::from_millis(10)));
        assert_eq!(c.used(1), Duration::from_millis(551));
    }

    #[test]
    fn the_configuration_overrides_the_variant_and_0_is_off() {
        let cfg = ClockConfig {
            game_ms: Some(0),
            move_ms: None,
            increment_ms: None,
            period_moves: None,
        };
        let variant = ClockDefaults {
            game_ms: Some(5000),
            move_ms: None,
            increment_ms: None,
        };
        let mut c = Clocks::new(&cfg, &variant, 2);
        assert_eq!(c.deadline(2, Instant::now()), None);
        assert!(c.charge(2, Duration::from_secs(3600)));
    }

    #[test]
    fn the_variants_clock_applies_when_the_configuration_is_silent() {
        let cfg = ClockConfig::default();
        let variant = ClockDefaults {
            game_ms: Some(100),
            move_ms: None,
            increment_ms: None,
        };
        let mut c = Clocks::new(&cfg, &variant, 2);
        assert!(c.charge(1, Duration::from_millis(60)));
        let t0 = Instant::now();
        assert_eq!(c.deadline(1, t0), Some(t0 + Duration::from_millis(40)));
        assert!(!c.charge(1, Duration::from_millis(41)));
    }

    #[test]
    fn a_period_adds_the_game_time_again_after_every_nth_move() {
        let cfg = ClockConfig {
            game_ms: Some(1000),
            move_ms: None,
            increment_ms: Some(10),
            period_moves: Some(2),
        };
        let mut c = Clocks::new(&cfg, &ClockDefaults::default(), 2);
        assert_eq!(c.moves_to_go(1), Some(2));
        assert!(c.charge(1, Duration::from_millis(400)));
        // 1000 - 400 + 10.
        assert_eq!(c.remaining(1), Some(Duration::from_millis(610)));
        assert_eq!(c.moves_to_go(1), Some(1));
        assert!(c.charge(1, Duration::from_millis(500)));
        // The second move ends the period: 610 - 500 + 10, then 1000 more.
        assert_eq!(c.remaining(1), Some(Duration::from_millis(1120)));
        assert_eq!(c.moves_to_go(1), Some(2));
        // Player 2's clock is untouched.
        assert_eq!(c.remaining(2), Some(Duration::from_millis(1000)));
        // Over the time left, even within a period: the flag falls.
        assert!(c.charge(1, Duration::from_millis(1000)));
        assert!(!c.would_fall(1, Duration::from_millis(130)));
        assert!(c.would_fall(1, Duration::from_millis(131)));
        assert!(!c.charge(1, Duration::from_millis(131)));
        assert_eq!(c.remaining(1), Some(Duration::ZERO));
    }

    #[test]
    fn each_player_runs_on_their_own_control() {
        let fast = TimeControl {
            per_move: Some(Duration::from_millis(50)),
            ..TimeControl::default()
        };
        let slow = TimeControl {
            game: Some(Duration::from_secs(60)),
            increment: Duration::from_millis(500),
            ..TimeControl::default()
        };
        let mut c = Clocks::per_player(vec![fast, slow]);
        let t0 = Instant::now();
        assert_eq!(c.deadline(1, t0), Some(t0 + Duration::from_millis(50)));
        assert_eq!(c.deadline(2, t0), Some(t0 + Duration::from_secs(60)));
        assert_eq!(c.remaining(1), None, "no game clock");
        assert_eq!(c.control(2), slow);
        assert_eq!(c.moves_to_go(2), None, "one period");
        assert!(c.would_fall(1, Duration::from_millis(51)));
        assert!(!c.would_fall(2, Duration::from_millis(51)));
        assert!(c.charge(2, Duration::from_secs(1)));
        assert_eq!(c.remaining(2), Some(Duration::from_millis(59_500)));
        assert!(TimeControl::default().is_unlimited());
        assert!(!fast.is_unlimited());
    }
}
