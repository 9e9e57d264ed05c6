//! Clocks: each player's remaining game time, the per-move limit and the increment.
//!
//! Time is measured by the server from the moment it queues the `turn` message to the moment
//! it reads the action (the client's network delay counts against the client).

use crate::config::ClockConfig;
use crate::rules::ClockDefaults;
use std::time::Duration;
use tokio::time::Instant;

/// The clocks of one game.
#[derive(Clone, Debug)]
pub struct Clocks {
    /// Remaining time per player (index = player id - 1); `None` without a game clock.
    remaining: Vec<Option<Duration>>,
    /// The game time each player started with.
    initial: Vec<Option<Duration>>,
    used: Vec<Duration>,
    per_move: Option<Duration>,
    increment: Duration,
}

impl Clocks {
    /// Clocks for `players` players: each setting comes from the server configuration when it
    /// sets it, else from the variant's `(clock ...)`, else it is off (0).
    pub fn new(config: &ClockConfig, variant: &ClockDefaults, players: usize) -> Clocks {
        let pick = |c: Option<u64>, v: Option<u64>| c.or(v).unwrap_or(0);
        let ms = |v: u64| (v > 0).then(|| Duration::from_millis(v));
        Clocks {
            remaining: vec![ms(pick(config.game_ms, variant.game_ms)); players],
            initial: vec![ms(pick(config.game_ms, variant.game_ms)); players],
            used: vec![Duration::ZERO; players],
            per_move: ms(pick(config.move_ms, variant.move_ms)),
            increment: Duration::from_millis(pick(config.increment_ms, variant.increment_ms)),
        }
    }

    /// When the flag of `player` falls if they started thinking at `since`; `None` = never.
    pub fn deadline(&self, player: usize, since: Instant) -> Option<Instant> {
        let limit = match (self.remaining[player - 1], self.per_move) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        limit.map(|d| since + d)
    }

    /// Whether a ply that took `spent` would make `player`'s flag fall (nothing is charged).
    pub fn would_fall(&self, player: usize, spent: Duration) -> bool {
        self.per_move.is_some_and(|m| spent > m)
            || self.remaining[player - 1].is_some_and(|r| spent > r)
    }

    /// Charges `player` for a ply that took `spent`; false when that flag has fallen.
    pub fn charge(&mut self, player: usize, spent: Duration) -> bool {
        let i = player - 1;
        self.used[i] += spent;
        if self.per_move.is_some_and(|m| spent > m) {
            return false;
        }
        match &mut self.remaining[i] {
            Some(r) if spent > *r => {
                *r = Duration::ZERO;
                false
            }
            Some(r) => {
                *r = *r - spent + self.increment;
                true
            }
            None => true,
        }
    }

    /// Total thinking time used by `player`.
    pub fn used(&self, player: usize) -> Duration {
        self.used[player - 1]
    }

    /// The game time `player` has left; `None` without a game clock.
    pub fn remaining(&self, player: usize) -> Option<Duration> {
        self.remaining[player - 1]
    }

    /// `player`'s time control as the `clock` extension states it, in milliseconds: game time,
    /// increment, move limit, moves per period (0 = none).
    pub fn control_ms(&self, player: usize) -> [u64; 4] {
        let ms = |d: Option<Duration>| d.map_or(0, |d| d.as_millis() as u64);
        [
            ms(self.initial[player - 1]),
            self.increment.as_millis() as u64,
            ms(self.per_move),
            0,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_clock_with_increment_and_move_limit() {
        let cfg = ClockConfig {
            game_ms: Some(1000),
            move_ms: Some(300),
            increment_ms: Some(100),
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
}
