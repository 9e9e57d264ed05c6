//! The ladder's matchmaking: which waiting accounts play each other now, and in which seats.
//! Pure logic over numbers, driven by the ladder's seating (`ladder`).
//!
//! Every round (each tick of the seating task) pairs the accounts that wait, longest waiting
//! first, each with the waiting opponent that costs least:
//!
//! - **close in rating:** the difference in Elo over [`RATING_SCALE`];
//! - **with variety:** plus [`REPEAT_COST`] for every game of the first account's last
//!   [`MatchRules::variety`] that was against this opponent, so that with a third account
//!   waiting, the same two do not meet over and over;
//! - **fair queues:** the longest waiting account chooses first, so nobody waits behind
//!   newcomers; an account with several connections waiting plays one game per round.
//!
//! The seats alternate: of two accounts that met before, the one that sat second last time
//! sits first now; two that never met sit in the order they chose (longest waiting first).
//! Deals are never replayed with the seats swapped, as tournaments' paired deals are: on a
//! ladder the same program plays both games, and in Banqi a deal seen once tells where every
//! face-down piece lies (see protocol/LADDER.md, Matchmaking).

use std::collections::VecDeque;

/// Elo points of difference that cost as much as one recent game against the same opponent.
pub const RATING_SCALE: f64 = 200.0;
/// What one recent game against an opponent adds to its cost.
pub const REPEAT_COST: f64 = 1.0;

/// How the ladder pairs.
#[derive(Clone, Copy, Debug)]
pub struct MatchRules {
    /// How many of an account's latest games count against meeting the same opponent again.
    pub variety: usize,
}

/// An account waiting for a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waiting {
    pub account: i64,
    pub rating: f64,
    /// When its longest-waiting connection came (ms since the Unix epoch; only the order
    /// matters, and a clock step back at worst reorders one round).
    pub since: u64,
}

/// The ladder's latest games, as (seat 1, seat 2) accounts, oldest first, bounded.
#[derive(Debug, Default)]
pub struct Recent {
    games: VecDeque<(i64, i64)>,
    keep: usize,
}

impl Recent {
    /// Keeps the latest `keep` games.
    pub fn new(keep: usize) -> Recent {
        Recent {
            games: VecDeque::new(),
            keep,
        }
    }

    /// A game started between `first` (seat 1) and `second`.
    pub fn push(&mut self, first: i64, second: i64) {
        self.games.push_back((first, second));
        while self.games.len() > self.keep {
            self.games.pop_front();
        }
    }

    /// How many of `account`'s latest `variety` games were against `opponent`.
    fn repeats(&self, account: i64, opponent: i64, variety: usize) -> usize {
        self.games
            .iter()
            .rev()
            .filter(|&&(a, b)| a == account || b == account)
            .take(variety)
            .filter(|&&(a, b)| a == opponent || b == opponent)
            .count()
    }

    /// Whether `account` sat first in its latest game against `opponent` (`None`: they never
    /// met, as far as this memory goes).
    fn sat_first(&self, account: i64, opponent: i64) -> Option<bool> {
        self.games.iter().rev().find_map(|&(a, b)| {
            if (a, b) == (account, opponent) {
                Some(true)
            } else if (a, b) == (opponent, account) {
                Some(false)
            } else {
                None
            }
        })
    }
}

/// This round's games, each as (seat 1, seat 2) accounts.
pub fn pairs(waiting: &[Waiting], recent: &Recent, rules: MatchRules) -> Vec<(i64, i64)> {
    let mut queue: Vec<Waiting> = waiting.to_vec();
    // Longest waiting first; the account number settles ties, so a round is reproducible.
    queue.sort_by_key(|w| (w.since, w.account));
    let mut taken = vec![false; queue.len()];
    let mut games = Vec::new();
    for i in 0..queue.len() {
        if taken[i] {
            continue;
        }
        let me = queue[i];
        let cost = |other: &Waiting| {
            (me.rating - other.rating).abs() / RATING_SCALE
                + REPEAT_COST * recent.repeats(me.account, other.account, rules.variety) as f64
        };
        let best = (i + 1..queue.len())
            .filter(|&j| !taken[j] && queue[j].account != me.account)
            // The first of equal costs: the longer waiting.
            .min_by(|&a, &b| cost(&queue[a]).total_cmp(&cost(&queue[b])));
        let Some(j) = best else { continue };
        taken[i] = true;
        taken[j] = true;
        let them = queue[j].account;
        games.push(match recent.sat_first(me.account, them) {
            Some(true) => (them, me.account),
            _ => (me.account, them),
        });
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(account: i64, rating: f64, since: u64) -> Waiting {
        Waiting {
            account,
            rating,
            since,
        }
    }

    const RULES: MatchRules = MatchRules { variety: 4 };

    #[test]
    fn the_longest_waiting_chooses_the_closest_rating() {
        let waiting = [
            w(1, 1500.0, 5),
            w(2, 1900.0, 1),
            w(3, 1850.0, 9),
            w(4, 1480.0, 7),
        ];
        let games = pairs(&waiting, &Recent::new(16), RULES);
        assert_eq!(games, vec![(2, 3), (1, 4)]);
    }

    #[test]
    fn an_odd_one_out_waits_and_one_account_plays_once_a_round() {
        let waiting = [w(1, 1500.0, 1), w(1, 1500.0, 2), w(2, 1500.0, 3)];
        assert_eq!(pairs(&waiting, &Recent::new(16), RULES), vec![(1, 2)]);
        assert!(pairs(&[w(1, 1500.0, 1)], &Recent::new(16), RULES).is_empty());
    }

    #[test]
    fn recent_opponents_cost_so_a_third_account_gets_its_turn() {
        let mut recent = Recent::new(16);
        recent.push(1, 2);
        recent.push(2, 1);
        // 2 is 60 points closer to 1, but they met twice lately: 3 is chosen.
        let waiting = [w(1, 1500.0, 1), w(2, 1520.0, 2), w(3, 1580.0, 3)];
        assert_eq!(pairs(&waiting, &recent, RULES), vec![(1, 3)]);
        // Far enough apart in rating, the repeat is still the better game; 1 sat second in
        // their latest, so it sits first now.
        let waiting = [w(1, 1500.0, 1), w(2, 1520.0, 2), w(3, 2200.0, 3)];
        assert_eq!(pairs(&waiting, &recent, RULES), vec![(1, 2)]);
    }

    #[test]
    fn seats_alternate_between_two_accounts() {
        let mut recent = Recent::new(16);
        let waiting = [w(7, 1500.0, 1), w(9, 1500.0, 2)];
        let first = pairs(&waiting, &recent, RULES);
        assert_eq!(first, vec![(7, 9)]);
        recent.push(7, 9);
        assert_eq!(pairs(&waiting, &recent, RULES), vec![(9, 7)]);
        recent.push(9, 7);
        assert_eq!(pairs(&waiting, &recent, RULES), vec![(7, 9)]);
    }

    #[test]
    fn recent_games_are_bounded() {
        let mut recent = Recent::new(3);
        for i in 0..10 {
            recent.push(i, i + 1);
        }
        assert_eq!(recent.games.len(), 3);
        assert_eq!(recent.games.front(), Some(&(7, 8)));
    }
}
