//! The schedule: every game of the event, numbered, with its deal and its seating. It depends
//! only on the configuration, so every run (and every shard) agrees on what game N is. What
//! each deal is comes from the event's master seed (`seeds`).

use super::config::{Format, TournamentConfig};
use anqi_core::rules::Variant;

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 0-based index in the schedule.
    pub index: u64,
    /// The deal it plays: the games of one deal differ only in seating.
    pub deal: u64,
    /// Engine (index into the config's engines) in each seat, seat 1 first.
    pub seats: Vec<usize>,
}

/// Why the engines of a configuration cannot be scheduled in its variant ([`build`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// A round robin with fewer engines than seats, in a game not of two sides.
    #[error("a {seats}-player variant needs at least {seats} engines, or two engines that each field a side (a game of two sides)")]
    TooFewEngines { seats: usize },
    /// A gauntlet in a single-player game (`variant` names it).
    #[error("{variant} is a single-player game: there is nobody to play a gauntlet against; use format = \"round-robin\" (every engine alone, on the same deals)")]
    SinglePlayerGauntlet { variant: String },
    /// A gauntlet with fewer engines than seats.
    #[error("a {seats}-player gauntlet needs at least {seats} engines")]
    TooFewForGauntlet { seats: usize },
}

/// Builds the schedule of `variant`'s games.
///
/// With fewer engines than seats in a game of two sides (two engines in `2v2` or `1v2`), each
/// engine fields a whole side, and each deal is played twice, the sides swapped.
///
/// Round robin: every group of as many engines as the variant has seats (every pair in a
/// two-player game, every engine alone in a single-player one), in config order: in a team
/// game the seats go in that order, so the listing makes the teams (with sides `(1 3) (2 4)`,
/// engines A B C D play A + C against B + D, then rotated); gauntlet: the
/// gauntlet engine with each other one (two-player variants; with more seats, the gauntlet
/// engine and the others in turn fill the groups). For each group, `cycles` times `deals`
/// deals, each played once per cyclic rotation of the seats.
///
/// In a competitive game each group has deals of its own (the seat rotations already make a
/// deal fair between the engines that play it). In a one-side game (single-player,
/// cooperative) every group plays the same deals, so that success rates compare engines (or
/// teams) on the same puzzles, and the schedule goes deal by deal (every group on deal 0, then
/// on deal 1, ...).
///
/// # Errors
/// Too few engines for the variant's seats, or a gauntlet of a single-player game.
pub fn build(
    config: &TournamentConfig,
    variant: &Variant,
) -> Result<Vec<ScheduledGame>, ScheduleError> {
    let seats = variant.players;
    let shared_deals = super::one_side(variant);
    let n = config.engines.len();
    // Fewer engines than seats in a game of two sides: each engine fields a whole side (every
    // seat of it), and the two engines of a pairing swap sides on each deal.
    if n >= 2 && n < seats && variant.sides.len() == 2 && !shared_deals {
        return Ok(sides_schedule(config, variant, n));
    }
    let groups: Vec<Vec<usize>> = match config.format {
        Format::RoundRobin => {
            if n < seats {
                return Err(ScheduleError::TooFewEngines { seats });
            }
            combinations(n, seats)
        }
        Format::Gauntlet if seats == 1 => {
            return Err(ScheduleError::SinglePlayerGauntlet {
                variant: variant.name.clone(),
            })
        }
        Format::Gauntlet => {
            let g = gauntlet_index(config);
            let others: Vec<usize> = (0..n).filter(|&i| i != g).collect();
            if others.len() < seats - 1 {
                return Err(ScheduleError::TooFewForGauntlet { seats });
            }
            combinations(others.len(), seats - 1)
                .into_iter()
                .map(|c| {
                    std::iter::once(g)
                        .chain(c.into_iter().map(|i| others[i]))
                        .collect()
                })
                .collect()
        }
    };
    let mut games = Vec::new();
    let mut push = |group: &[usize], deal: u64| {
        for rotation in 0..seats {
            let seating = (0..seats).map(|s| group[(s + rotation) % seats]).collect();
            games.push(ScheduledGame {
                index: games.len() as u64,
                deal,
                seats: seating,
            });
        }
    };
    let mut deal = 0u64;
    for _cycle in 0..config.cycles {
        if shared_deals {
            // Deal by deal, every group on each: the standings compare everyone on the same
            // deals as the event goes, and more deals only add games at the end (`--deals`
            // extends an event).
            for _ in 0..config.deals {
                for group in &groups {
                    push(group, deal);
                }
                deal += 1;
            }
        } else {
            for group in &groups {
                for _ in 0..config.deals {
                    push(group, deal);
                    deal += 1;
                }
            }
        }
    }
    Ok(games)
}

/// The gauntlet engine's index: the one named, else the first listed.
fn gauntlet_index(config: &TournamentConfig) -> usize {
    config
        .gauntlet
        .as_ref()
        .and_then(|name| config.engines.iter().position(|e| &e.name == name))
        .unwrap_or(0)
}

/// The games of engines that each field a whole side (see [`build`]): every pair of engines
/// (round robin) or the gauntlet engine with each other one, `cycles` times `deals` deals each,
/// every deal played twice, the sides swapped.
fn sides_schedule(config: &TournamentConfig, variant: &Variant, n: usize) -> Vec<ScheduledGame> {
    let pairs: Vec<(usize, usize)> = match config.format {
        Format::RoundRobin => combinations(n, 2)
            .into_iter()
            .map(|c| (c[0], c[1]))
            .collect(),
        Format::Gauntlet => {
            let g = gauntlet_index(config);
            (0..n).filter(|&i| i != g).map(|i| (g, i)).collect()
        }
    };
    let seating = |first: usize, second: usize| -> Vec<usize> {
        (1..=variant.players)
            .map(|p| {
                if variant.side_of(p) == 0 {
                    first
                } else {
                    second
                }
            })
            .collect()
    };
    let mut games = Vec::new();
    let mut deal = 0u64;
    for _cycle in 0..config.cycles {
        for &(a, b) in &pairs {
            for _ in 0..config.deals {
                for seats in [seating(a, b), seating(b, a)] {
                    games.push(ScheduledGame {
                        index: games.len() as u64,
                        deal,
                        seats,
                    });
                }
                deal += 1;
            }
        }
    }
    games
}

/// Every k-element subset of 0..n, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn go(start: usize, n: usize, k: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if current.len() == k {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            go(i + 1, n, k, current, out);
            current.pop();
        }
    }
    go(0, n, k, &mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(engines: usize, format: &str, deals: u32) -> TournamentConfig {
        let mut text = format!("[tournament]\nformat = \"{format}\"\ndeals = {deals}\n");
        for i in 0..engines {
            text.push_str(&format!(
                "[[tournament.engine]]\nname = \"e{i}\"\ncommand = \"x\"\n"
            ));
        }
        TournamentConfig::parse(&text).unwrap()
    }

    fn build(
        config: &TournamentConfig,
        variant: &str,
    ) -> Result<Vec<ScheduledGame>, ScheduleError> {
        super::build(config, &Variant::shipped(variant).unwrap())
    }

    #[test]
    fn round_robin_plays_each_deal_with_seats_swapped() {
        let s = build(&config(3, "round-robin", 2), "traditional").unwrap();
        assert_eq!(s.len(), 3 * 2 * 2);
        assert_eq!(s[0].seats, vec![0, 1]);
        assert_eq!(s[1].seats, vec![1, 0]);
        assert_eq!((s[0].deal, s[1].deal, s[2].deal), (0, 0, 1));
        assert!(s.iter().enumerate().all(|(i, g)| g.index == i as u64));
    }

    #[test]
    fn multi_seat_groups_rotate_every_seat() {
        let s = build(&config(4, "round-robin", 1), "2v2").unwrap();
        assert_eq!(s.len(), 4);
        let firsts: Vec<usize> = s.iter().map(|g| g.seats[0]).collect();
        assert_eq!(firsts, vec![0, 1, 2, 3]);
    }

    #[test]
    fn fewer_engines_than_seats_each_field_a_side_and_swap_sides_on_each_deal() {
        // Three engines in 2v2 (sides (1 3) (2 4)): every pair, each engine in both seats of
        // its side, each deal twice.
        let s = build(&config(3, "round-robin", 1), "2v2").unwrap();
        let seats: Vec<(Vec<usize>, u64)> = s.iter().map(|g| (g.seats.clone(), g.deal)).collect();
        assert_eq!(
            seats,
            [
                (vec![0, 1, 0, 1], 0),
                (vec![1, 0, 1, 0], 0),
                (vec![0, 2, 0, 2], 1),
                (vec![2, 0, 2, 0], 1),
                (vec![1, 2, 1, 2], 2),
                (vec![2, 1, 2, 1], 2),
            ]
        );
        // 1v2 (sides (1) (2 3)): the lone seat, then the pair of seats.
        let s = build(&config(2, "round-robin", 1), "1v2").unwrap();
        assert_eq!(s[0].seats, vec![0, 1, 1]);
        assert_eq!(s[1].seats, vec![1, 0, 0]);
        // One engine has nobody to play.
        assert_eq!(
            build(&config(1, "round-robin", 1), "2v2"),
            Err(ScheduleError::TooFewEngines { seats: 4 })
        );
    }

    #[test]
    fn one_side_groups_all_play_the_same_deals() {
        // Single-player: every engine alone, each deal once per engine, deal by deal.
        let s = build(&config(3, "round-robin", 2), "single").unwrap();
        let games: Vec<(Vec<usize>, u64)> = s.iter().map(|g| (g.seats.clone(), g.deal)).collect();
        assert_eq!(
            games,
            [
                (vec![0], 0),
                (vec![1], 0),
                (vec![2], 0),
                (vec![0], 1),
                (vec![1], 1),
                (vec![2], 1)
            ]
        );
        // More deals extend the schedule: the games so far keep their indexes.
        let more = build(&config(3, "round-robin", 3), "single").unwrap();
        assert_eq!(more[..6], s[..]);
        // Cooperative: every pair, seats rotated, every pair on the same deals; the next cycle
        // deals new ones.
        let mut c = config(3, "round-robin", 1);
        c.cycles = 2;
        let s = build(&c, "cooperative").unwrap();
        assert_eq!(s.len(), 2 * 3 * 2);
        let first_cycle: Vec<u64> = s[..6].iter().map(|g| g.deal).collect();
        assert_eq!(first_cycle, [0; 6]);
        assert!(s[6..].iter().all(|g| g.deal == 1));
        assert_eq!(
            (s[0].seats.clone(), s[1].seats.clone()),
            (vec![0, 1], vec![1, 0])
        );
        let e = build(&config(3, "gauntlet", 1), "single").unwrap_err();
        assert!(
            matches!(&e, ScheduleError::SinglePlayerGauntlet { variant } if variant == "single"),
            "{e:?}"
        );
        assert!(e.to_string().contains("round-robin"), "{e}");
    }

    #[test]
    fn gauntlet_pairs_the_first_engine_with_each_other() {
        let s = build(&config(4, "gauntlet", 1), "traditional").unwrap();
        let pairs: Vec<Vec<usize>> = s.iter().map(|g| g.seats.clone()).collect();
        assert_eq!(
            pairs,
            vec![
                vec![0, 1],
                vec![1, 0],
                vec![0, 2],
                vec![2, 0],
                vec![0, 3],
                vec![3, 0]
            ]
        );
    }
}
