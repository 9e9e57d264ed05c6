//! One-side games (single-player, cooperative): each engine's and each team's success rate,
//! with its 95% Wilson interval, and how the games ended.

use super::elo::wilson_rate;
use serde::Serialize;
use std::collections::BTreeMap;

/// The results of one one-side variant's games: a game is a success when its side reached the
/// goal (the record's `winner_side` is the side, 0), and every engine of the game shares it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GoalStandings {
    /// The variant's name, and its `(game TYPE)` (`single`, `cooperative`, ...).
    pub variant: String,
    pub game_type: String,
    pub games: usize,
    pub successes: usize,
    /// Successes per game.
    pub success_rate: f64,
    /// Engines, best success rate first (ties in the engines' order).
    pub engines: Vec<GoalStats>,
    /// Cooperative games: the engines that played a game together (whatever their seats),
    /// best first. Empty for single-player games.
    pub teams: Vec<GoalStats>,
}

/// Successes out of games, of an engine or of a team of engines.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GoalStats {
    /// The engine's name; a team's engines joined by ` + `.
    pub name: String,
    /// The engine itself, or the team's engines.
    pub engines: Vec<String>,
    pub games: usize,
    pub successes: usize,
    pub success_rate: f64,
    /// The 95% Wilson interval of the success rate.
    pub success_low: f64,
    pub success_high: f64,
    /// How the games ended, by termination.
    pub terminations: BTreeMap<String, usize>,
}

/// The 95% Wilson score interval of `successes` out of `n` (see the module documentation);
/// (0, 1) without games.
pub fn wilson(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    wilson_rate(successes as f64 / n as f64, n as f64)
}

/// Games, successes and terminations, summed up as the records come.
#[derive(Default)]
struct GoalTally {
    games: usize,
    successes: usize,
    terminations: BTreeMap<String, usize>,
}

impl GoalTally {
    fn add(&mut self, success: bool, reason: &str) {
        self.games += 1;
        self.successes += usize::from(success);
        *self.terminations.entry(reason.to_string()).or_default() += 1;
    }

    fn stats(self, name: String, engines: Vec<String>) -> GoalStats {
        let (success_low, success_high) = wilson(self.successes, self.games);
        GoalStats {
            name,
            engines,
            games: self.games,
            successes: self.successes,
            success_rate: self.successes as f64 / self.games.max(1) as f64,
            success_low,
            success_high,
            terminations: self.terminations,
        }
    }
}

/// One one-side variant's games as the records come.
pub(super) struct GoalSection {
    game_type: String,
    all: GoalTally,
    /// By engine rank.
    engines: BTreeMap<usize, GoalTally>,
    /// By the team's engine ranks, sorted (cooperative games).
    teams: BTreeMap<Vec<usize>, GoalTally>,
}

impl GoalSection {
    /// A section for the games of a variant of this `(game TYPE)`.
    pub(super) fn new(game_type: String) -> GoalSection {
        GoalSection {
            game_type,
            all: GoalTally::default(),
            engines: BTreeMap::new(),
            teams: BTreeMap::new(),
        }
    }

    /// One game of the engines of ranks `team` (one per seat; `cooperative`: a team game),
    /// a success or not, ended for `reason`.
    pub(super) fn add(
        &mut self,
        mut team: Vec<usize>,
        cooperative: bool,
        success: bool,
        reason: &str,
    ) {
        self.all.add(success, reason);
        for &rank in &team {
            self.engines.entry(rank).or_default().add(success, reason);
        }
        if cooperative {
            team.sort_unstable();
            self.teams.entry(team).or_default().add(success, reason);
        }
    }

    pub(super) fn standings(self, variant: String, names: &[String]) -> GoalStandings {
        // Best rate first; the sort is stable, so ties keep the engines' order.
        let by_rate = |a: &GoalStats, b: &GoalStats| b.success_rate.total_cmp(&a.success_rate);
        let mut engines: Vec<GoalStats> = self
            .engines
            .into_iter()
            .map(|(rank, t)| t.stats(names[rank].clone(), vec![names[rank].clone()]))
            .collect();
        engines.sort_by(by_rate);
        let mut teams: Vec<GoalStats> = self
            .teams
            .into_iter()
            .map(|(ranks, t)| {
                let members: Vec<String> = ranks.iter().map(|&r| names[r].clone()).collect();
                t.stats(members.join(" + "), members)
            })
            .collect();
        teams.sort_by(by_rate);
        let all = self.all.stats(String::new(), Vec::new());
        GoalStandings {
            variant,
            game_type: self.game_type,
            games: all.games,
            successes: all.successes,
            success_rate: all.success_rate,
            engines,
            teams,
        }
    }
}
