//! The standings summed up as the records come: one section per concern (engines, the
//! crosstable, pairs and their deals, teams, one-side games), each filled by its own method
//! and turned into its part of [`Standings`] by another.

use super::elo::Sample;
use super::one_side::{GoalSection, GoalStandings};
use super::pairs::{wdl, PairStats, Pentanomial};
use super::{EngineStats, Score, Standings, TeamStats};
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A game's result for one engine: 1, 0.5 or 0.
fn result_for(record: &GameRecord, seat: usize, variant: &Variant) -> f64 {
    match record.result.winner_side {
        None => 0.5,
        Some(side) if variant.side_of(seat) == side => 1.0,
        Some(_) => 0.0,
    }
}

/// Everything but the SPRT, and the engines in tie-break order.
pub(super) fn table(records: &[GameRecord], order: &[String]) -> (Standings, Vec<String>) {
    let records = tournament_records(records);
    let mut table = Table::new(&records, order);
    for r in &records {
        table.add(r);
    }
    let standings = Standings {
        variant: table
            .competitive_variant
            .clone()
            .or_else(|| records.first().map(|r| r.variant.clone()))
            .unwrap_or_default(),
        games: records.len(),
        engines: table.engine_standings(),
        crosstable: std::mem::take(&mut table.cross),
        pentanomial: Vec::new(),
        pairs: table.pair_stats(),
        teams: table.team_standings(),
        sprt: None,
        one_side: table.goal_standings(),
        deals: None,
    };
    let pentanomial = standings
        .pairs
        .iter()
        .filter_map(|p| {
            let counts = p.pentanomial.filter(|c| c.iter().sum::<usize>() > 0)?;
            Some(Pentanomial {
                first: p.first.clone(),
                second: p.second.clone(),
                counts,
            })
        })
        .collect();
    (
        Standings {
            pentanomial,
            ..standings
        },
        table.names,
    )
}

/// The standings as the records come, one field per section, each filled by its own method
/// and turned into its part of [`Standings`] by another.
/// A game of two sides, each one engine's: the engines by side, and each side's result.
type SidesGame<'r> = (Vec<&'r str>, [f64; 2]);

struct Table<'r> {
    /// Engines in tie-break order: the given order, then as the records show them. An
    /// engine's rank is its place here.
    names: Vec<String>,
    /// Each description met, parsed once.
    variants: HashMap<&'r str, Arc<Variant>>,
    /// The variant of the first competitive game.
    competitive_variant: Option<String>,
    /// Each engine's result in each competitive game it played, and how those games ended.
    per_engine: BTreeMap<String, Vec<f64>>,
    terminations: BTreeMap<String, BTreeMap<String, usize>>,
    /// Points of the row engine against the column engine.
    cross: BTreeMap<String, BTreeMap<String, Score>>,
    /// (first, second) by rank -> the first engine's result in each game they met.
    pair_games: BTreeMap<(usize, usize), Vec<f64>>,
    /// Pairs that met in two-player games, and their pentanomial counts.
    two_player: BTreeMap<(usize, usize), [usize; 5]>,
    /// Deal -> its games of two sides each held by one engine (two-player games, or team
    /// games where each engine fields a side), as (the engines by side, their results), in
    /// index order, for pentanomials.
    deals: BTreeMap<u64, Vec<SidesGame<'r>>>,
    /// Team (engine ranks, sorted) -> its results.
    team_games: BTreeMap<Vec<usize>, Vec<f64>>,
    /// One-side games, by variant name, in the order first seen.
    goals: Vec<(String, GoalSection)>,
}

impl<'r> Table<'r> {
    fn new(records: &[&'r GameRecord], order: &[String]) -> Table<'r> {
        Table {
            names: engine_order(records, order),
            variants: HashMap::new(),
            competitive_variant: None,
            per_engine: BTreeMap::new(),
            terminations: BTreeMap::new(),
            cross: BTreeMap::new(),
            pair_games: BTreeMap::new(),
            two_player: BTreeMap::new(),
            deals: BTreeMap::new(),
            team_games: BTreeMap::new(),
            goals: Vec::new(),
        }
    }

    fn rank(&self, name: &str) -> usize {
        rank_of(&self.names, name)
    }

    /// Takes in one tournament record.
    fn add(&mut self, r: &'r GameRecord) {
        let v = self
            .variants
            .entry(r.variant_source.as_str())
            .or_insert_with(|| Arc::new(variant_of(r)))
            .clone();
        if crate::one_side(&v) {
            return self.add_goal(r, &v);
        }
        self.competitive_variant
            .get_or_insert_with(|| r.variant.clone());
        let engines = &r.tournament.as_ref().expect("filtered").engines;
        let seats = engines.len().min(v.players);
        let results: Vec<f64> = (1..=seats).map(|seat| result_for(r, seat, &v)).collect();
        self.add_engines(r, &v, &engines[..seats], &results);
        self.add_pairs(&v, &engines[..seats], &results);
        self.add_teams(&v, &engines[..seats], &results);
        // Two sides, each one engine's (a two-player game, or a team game where each engine
        // fields a side): the game joins its deal's pair for the pentanomial counts.
        if seats == v.players && v.sides.len() == 2 {
            let by_side: Vec<Vec<&'r str>> = v
                .sides
                .iter()
                .map(|members| {
                    let mut names: Vec<&'r str> =
                        members.iter().map(|&p| engines[p - 1].as_str()).collect();
                    names.dedup();
                    names
                })
                .collect();
            if let [first, second] = by_side.as_slice() {
                if first.len() == 1 && second.len() == 1 {
                    let deal = r.tournament.as_ref().expect("filtered").deal;
                    let results = [results[v.sides[0][0] - 1], results[v.sides[1][0] - 1]];
                    self.deals
                        .entry(deal)
                        .or_default()
                        .push((vec![first[0], second[0]], results));
                }
            }
        }
    }

    /// A one-side game: a success for its engines and its team when the side reached its goal.
    fn add_goal(&mut self, r: &GameRecord, v: &Variant) {
        let tag = r.tournament.as_ref().expect("filtered");
        let team: Vec<usize> = tag
            .engines
            .iter()
            .take(v.players)
            .map(|e| self.rank(e))
            .collect();
        let i = match self.goals.iter().position(|(name, _)| *name == v.name) {
            Some(i) => i,
            None => {
                self.goals
                    .push((v.name.clone(), GoalSection::new(v.game_type.clone())));
                self.goals.len() - 1
            }
        };
        // The only side is 0: the game succeeded when it won.
        let success = r.result.winner_side == Some(0);
        self.goals[i]
            .1
            .add(team, v.players > 1, success, r.result.reason.name());
    }

    /// Each seat's result for its engine, how the game ended, and the crosstable's cells of
    /// every two engines on opposite sides.
    fn add_engines(&mut self, r: &GameRecord, v: &Variant, engines: &[String], results: &[f64]) {
        let side = |seat_index: usize| v.side_of(seat_index + 1);
        // An engine in several seats of one side (it fields the side) plays the game once: its
        // first seat counts, and each opponent once.
        let first_seat = |i: usize| engines.iter().position(|e| *e == engines[i]) == Some(i);
        for (i, e) in engines.iter().enumerate() {
            if !first_seat(i) {
                continue;
            }
            self.per_engine
                .entry(e.clone())
                .or_default()
                .push(results[i]);
            *self
                .terminations
                .entry(e.clone())
                .or_default()
                .entry(super::termination_name(r).to_string())
                .or_default() += 1;
            for (j, other) in engines.iter().enumerate() {
                if side(i) != side(j) && first_seat(j) {
                    let cell = self
                        .cross
                        .entry(e.clone())
                        .or_default()
                        .entry(other.clone())
                        .or_default();
                    cell.points += results[i];
                    cell.games += 1;
                }
            }
        }
    }

    /// The game for every pair of opponents, once whatever the seats they hold; an engine on
    /// both sides of a game has no result against anyone in it.
    fn add_pairs(&mut self, v: &Variant, engines: &[String], results: &[f64]) {
        let seats = engines.len();
        let side = |seat_index: usize| v.side_of(seat_index + 1);
        let ranks: Vec<usize> = engines.iter().map(|e| self.rank(e)).collect();
        let sides_of = |rank: usize| -> Vec<usize> {
            let mut s: Vec<usize> = (0..seats).filter(|&i| ranks[i] == rank).map(side).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let mut met: Vec<(usize, usize, usize)> = Vec::new(); // (first, second, seat of first)
        for i in 0..seats {
            for j in 0..seats {
                let (a, b) = (ranks[i], ranks[j]);
                if a < b
                    && side(i) != side(j)
                    && sides_of(a).len() == 1
                    && sides_of(b).len() == 1
                    && !met.iter().any(|&(x, y, _)| (x, y) == (a, b))
                {
                    met.push((a, b, i));
                }
            }
        }
        for (a, b, seat) in met {
            self.pair_games
                .entry((a, b))
                .or_default()
                .push(results[seat]);
            if seats == 2 {
                self.two_player.entry((a, b)).or_insert([0; 5]);
            }
        }
    }

    /// In a team game, each side's result for its team of engines.
    fn add_teams(&mut self, v: &Variant, engines: &[String], results: &[f64]) {
        if !v.has_teams() {
            return;
        }
        let seats = engines.len();
        for members in &v.sides {
            let mut team: Vec<usize> = members
                .iter()
                .filter(|&&p| p <= seats)
                .map(|&p| self.rank(&engines[p - 1]))
                .collect();
            team.sort_unstable();
            team.dedup();
            // An engine fielding a side alone is no team: the engines' table has it.
            if team.len() < 2 {
                continue;
            }
            if let Some(&first) = members.first().filter(|&&p| p <= seats) {
                self.team_games
                    .entry(team)
                    .or_default()
                    .push(results[first - 1]);
            }
        }
    }

    /// The engines of competitive games, most points first (fewer games first on equal points).
    fn engine_standings(&mut self) -> Vec<EngineStats> {
        let mut engines: Vec<EngineStats> = self
            .names
            .iter()
            .filter_map(|name| {
                let results = self.per_engine.get(name)?;
                let (wins, draws, losses) = wdl(results);
                let sample = Sample::trinomial(wins, draws, losses);
                let (score_low, score_high) = sample.score_interval();
                let (elo, elo_low, elo_high) = sample.elo();
                Some(EngineStats {
                    name: name.clone(),
                    games: results.len(),
                    points: results.iter().sum(),
                    wins,
                    draws,
                    losses,
                    score: sample.mean,
                    score_low,
                    score_high,
                    elo,
                    elo_low,
                    elo_high,
                    small_sample: results.len() < super::MIN_SAMPLE,
                    terminations: self.terminations.remove(name).unwrap_or_default(),
                })
            })
            .collect();
        engines.sort_by(|a, b| b.points.total_cmp(&a.points).then(a.games.cmp(&b.games)));
        engines
    }

    /// Every pair that met, with its pentanomial counts: two-seat deals played exactly twice
    /// by the same two engines, swapped.
    fn pair_stats(&mut self) -> Vec<PairStats> {
        for games in self.deals.values() {
            if let [(ea, ra), (eb, rb)] = games.as_slice() {
                if ea.len() != 2
                    || eb.len() != 2
                    || ea[0] != eb[1]
                    || ea[1] != eb[0]
                    || ea[0] == ea[1]
                {
                    continue;
                }
                let (i, j) = (rank_of(&self.names, ea[0]), rank_of(&self.names, ea[1]));
                let (first, first_seat_a) = if i < j { ((i, j), 0) } else { ((j, i), 1) };
                let first_points = ra[first_seat_a] + rb[1 - first_seat_a];
                self.two_player.entry(first).or_insert([0; 5])
                    [(first_points * 2.0).round() as usize] += 1;
            }
        }
        self.pair_games
            .iter()
            .map(|(&(i, j), results)| {
                PairStats::new(
                    &self.names[i],
                    &self.names[j],
                    results,
                    self.two_player.get(&(i, j)).copied(),
                )
            })
            .collect()
    }

    /// The teams of team games, most points first.
    fn team_standings(&self) -> Vec<TeamStats> {
        let mut teams: Vec<TeamStats> = self
            .team_games
            .iter()
            .map(|(members, results)| {
                let engines: Vec<String> = members.iter().map(|&m| self.names[m].clone()).collect();
                let (wins, draws, losses) = wdl(results);
                let points: f64 = results.iter().sum();
                TeamStats {
                    name: engines.join(" + "),
                    engines,
                    games: results.len(),
                    points,
                    wins,
                    draws,
                    losses,
                    score: points / results.len() as f64,
                }
            })
            .collect();
        teams.sort_by(|a, b| b.points.total_cmp(&a.points).then(a.games.cmp(&b.games)));
        teams
    }

    /// Each one-side variant's success rates.
    fn goal_standings(&mut self) -> Vec<GoalStandings> {
        std::mem::take(&mut self.goals)
            .into_iter()
            .map(|(variant, section)| section.standings(variant, &self.names))
            .collect()
    }
}

/// The tournament records among `records` (the others are no event's games), in the order of
/// their game numbers.
pub(super) fn tournament_records(records: &[GameRecord]) -> Vec<&GameRecord> {
    let mut records: Vec<&GameRecord> = records.iter().filter(|r| r.tournament.is_some()).collect();
    records.sort_by_key(|r| r.tournament.as_ref().map(|t| t.index));
    records
}

/// Engines in tie-break order: `order`, then as the records (in game order) show them.
pub(super) fn engine_order(records: &[&GameRecord], order: &[String]) -> Vec<String> {
    let mut names: Vec<String> = order.to_vec();
    for r in records {
        for e in &r.tournament.as_ref().expect("filtered").engines {
            if !names.contains(e) {
                names.push(e.clone());
            }
        }
    }
    names
}

/// The variant a record was played under.
pub(super) fn variant_of(r: &GameRecord) -> Variant {
    Variant::parse(&r.variant_source).unwrap_or_else(|_| placeholder(r))
}

fn placeholder(r: &GameRecord) -> Variant {
    // A record whose description no longer parses still counts: assume one player per side.
    let mut v = Variant::shipped("traditional").expect("shipped");
    v.players = r.players.len();
    v.sides = (1..=r.players.len()).map(|p| vec![p]).collect();
    v
}

fn rank_of(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap_or(usize::MAX)
}
