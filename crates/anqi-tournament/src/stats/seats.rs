//! Each engine's win rate in each seat of the competitive games, with its Wilson interval: what
//! the first move (or any seat) is worth ([`seats`]).

use super::one_side::wilson;
use super::table::{engine_order, tournament_records, variant_of};
use anqi_core::record::GameRecord;
use anqi_core::rules::Variant;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One engine's games in one seat.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeatStats {
    pub name: String,
    /// The seat (the player id, 1-based).
    pub seat: usize,
    pub games: usize,
    /// Games its side won (a draw is no win).
    pub wins: usize,
    /// Wins per game.
    pub win_rate: f64,
    /// The 95% Wilson interval of the win rate.
    pub win_low: f64,
    pub win_high: f64,
}

/// The win rate of every engine in every seat it held in the competitive games of `records`
/// (the tournament records, as [`super::standings`] counts them; one-side games have success
/// rates instead), in the engines' order (`order`, then as the records show them), then by
/// seat. Every seat counts, also a second seat of an engine fielding a whole side.
pub fn seats(records: &[GameRecord], order: &[String]) -> Vec<SeatStats> {
    let records = tournament_records(records);
    let names = engine_order(&records, order);
    let mut variants: HashMap<&str, Variant> = HashMap::new();
    // (engine rank, seat) -> (games, wins)
    let mut tally: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    for r in &records {
        let v = variants
            .entry(r.variant_source.as_str())
            .or_insert_with(|| variant_of(r));
        if crate::one_side(v) {
            continue;
        }
        let engines = &r.tournament.as_ref().expect("filtered").engines;
        for (i, e) in engines.iter().enumerate().take(v.players) {
            let seat = i + 1;
            let rank = names
                .iter()
                .position(|n| n == e)
                .expect("every engine ranked");
            let won = r.result.winner_side == Some(v.side_of(seat));
            let t = tally.entry((rank, seat)).or_default();
            t.0 += 1;
            t.1 += usize::from(won);
        }
    }
    tally
        .into_iter()
        .map(|((rank, seat), (games, wins))| {
            let (win_low, win_high) = wilson(wins, games);
            SeatStats {
                name: names[rank].clone(),
                seat,
                games,
                wins,
                win_rate: wins as f64 / games as f64,
                win_low,
                win_high,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use anqi_core::record::TournamentTag;

    /// The game of `tests/data/one-game.jsonl` (traditional-2x4, won by seat 2), as game
    /// `index` of an event with `engines` in its seats, won by `winner_side`.
    fn game(index: u64, engines: [&str; 2], winner_side: Option<usize>) -> GameRecord {
        let line = include_str!("../../../../tests/data/one-game.jsonl")
            .lines()
            .next()
            .expect("a record");
        let mut r: GameRecord = serde_json::from_str(line).expect("a record");
        r.result.winner_side = winner_side;
        r.tournament = Some(TournamentTag {
            index,
            deal: index / 2,
            engines: engines.map(String::from).to_vec(),
            seats: Vec::new(),
            commitment: None,
            node: None,
            book: None,
        });
        r
    }

    #[test]
    fn every_engine_in_every_seat_with_its_wilson_interval() {
        let records = [
            game(0, ["a", "b"], Some(0)),
            game(1, ["b", "a"], Some(0)),
            game(2, ["a", "b"], None),
            game(3, ["b", "a"], Some(1)),
            game(4, ["a", "b"], Some(0)),
        ];
        let rows = seats(&records, &["b".to_string()]);
        let got: Vec<(&str, usize, usize, usize)> = rows
            .iter()
            .map(|s| (s.name.as_str(), s.seat, s.games, s.wins))
            .collect();
        // b first (the order given), then by seat; a draw is no win.
        assert_eq!(
            got,
            [
                ("b", 1, 2, 1),
                ("b", 2, 3, 0),
                ("a", 1, 3, 2),
                ("a", 2, 2, 1)
            ]
        );
        let a1 = &rows[2];
        assert_eq!((a1.win_low, a1.win_high), wilson(2, 3));
        assert!((a1.win_rate - 2.0 / 3.0).abs() < 1e-12);
        // Not a tournament's game: not counted.
        let mut loose = game(5, ["a", "b"], Some(0));
        loose.tournament = None;
        assert_eq!(seats(&[loose], &[]), []);
    }
}
