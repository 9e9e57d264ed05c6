//! The standings as text for people (the JSON form is the serialized [`Standings`]). Lines fit
//! in 100 columns for engine names of up to 10 characters.

use super::stats::{
    GoalStandings, GoalStats, Model, PairStats, SprtResult, Standings, Verdict, MIN_SAMPLE,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// An Elo value; a score of 0 or 1 has none and prints as -inf or +inf.
fn elo(v: Option<f64>, score: f64) -> String {
    match v {
        // Adding 0.0 turns -0.0 into 0.0, so an even score prints as +0.
        Some(e) => format!("{:+.0}", e.round() + 0.0),
        None if score >= 1.0 => "+inf".into(),
        None => "-inf".into(),
    }
}

/// A pair's Elo with its interval: `+89 [-40, +248]`. A missing end is infinite: the low end
/// is -inf unless the score itself is 1, the high end +inf unless the score itself is 0.
fn elo_interval(p: &PairStats) -> String {
    let side = if p.score >= 0.5 { 1.0 } else { 0.0 };
    let (at_one, at_zero) = (
        p.elo.is_none() && side == 1.0,
        p.elo.is_none() && side == 0.0,
    );
    format!(
        "{} [{}, {}]",
        elo(p.elo, side),
        elo(p.elo_low, if at_one { 1.0 } else { 0.0 }),
        elo(p.elo_high, if at_zero { 0.0 } else { 1.0 }),
    )
}

/// The 95% half-width of a pair's Elo (`±79`, `±inf`).
fn elo_error(p: &PairStats) -> String {
    match (p.elo_low, p.elo_high) {
        (Some(l), Some(h)) => format!("±{:.0}", (h - l) / 2.0),
        _ => "±inf".into(),
    }
}

/// nElo with its error (`+105 ±152`), or `-` when the results have no spread.
fn nelo(p: &PairStats) -> String {
    match (p.nelo, p.nelo_error) {
        (Some(n), Some(e)) => format!("{:+.0} ±{:.0}", n.round() + 0.0, e),
        _ => "-".into(),
    }
}

/// What the text shows in place of Elo, nElo and LOS below [`MIN_SAMPLE`] observations.
const TOO_SMALL: &str = "sample too small";

/// The line under a table that hid figures of a sample too small.
fn too_small_note(o: &mut String, what: &str) {
    let _ = writeln!(
        o,
        "  ({TOO_SMALL}: fewer than {MIN_SAMPLE} {what}; figures in the JSON only)"
    );
}

fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
}

/// Renders standings, team standings, crosstable, pair statistics, pentanomials, terminations
/// and the SPRT of the competitive games, then the success rates of each one-side variant.
pub fn text(s: &Standings) -> String {
    let mut o = String::new();
    // Records of one-side games only: nothing competitive to show.
    if !s.engines.is_empty() || s.one_side.is_empty() {
        competitive(&mut o, s);
    }
    for (i, g) in s.one_side.iter().enumerate() {
        if i > 0 || !s.engines.is_empty() {
            o.push('\n');
        }
        one_side(&mut o, g);
    }
    if let Some(t) = &s.sprt {
        o.push('\n');
        o.push_str(&sprt(t));
    }
    if let Some(d) = &s.deals {
        o.push('\n');
        o.push_str(&deals(d));
    }
    o
}

/// How the deals stand against the event's commitment.
fn deals(d: &super::deals::DealsCheck) -> String {
    match (&d.commitment, d.verified, &d.book) {
        (Some(c), true, None) => format!(
            "Deals: all {} games, deals 0 to {} in order with none missing, dealt from the master seed committed to {c} (checked against the revealed seed)\n",
            d.checked,
            d.deals.saturating_sub(1)
        ),
        (Some(c), true, Some(b)) => format!(
            "Deals: all {} games, deals 0 to {} in order with none missing, dealt from the deal book committed to {b} in {} (checked against the book and the revealed master seed, committed to {c})\n",
            d.checked,
            d.deals.saturating_sub(1),
            d.book_order.as_deref().unwrap_or("its order"),
        ),
        (Some(c), false, None) => format!(
            "Deals: committed to {c}; not checked: once the event is over, give its revealed seed (--seed-file FILE, or --seed SEED) to check every deal\n"
        ),
        (Some(c), false, Some(b)) => format!(
            "Deals: from the deal book committed to {b}, master seed committed to {c}; not checked: once the event is over, give its revealed seed (--seed-file FILE, or --seed SEED) and the book (--book FILE) to check every deal\n"
        ),
        (None, _, _) => "Deals: not committed to a master seed (records of an older anqi, or of no tournament)\n".into(),
    }
}

/// A success rate with its interval: `70.0% [39.7%, 89.2%]`.
fn rate(g: &GoalStats) -> String {
    format!(
        "{:>5.1}% [{:.1}%, {:.1}%]",
        100.0 * g.success_rate,
        100.0 * g.success_low,
        100.0 * g.success_high
    )
}

/// One one-side variant: success rates per engine (and per team), and terminations.
fn one_side(o: &mut String, g: &GoalStandings) {
    let _ = writeln!(
        o,
        "Success rates: {} games of {} ({}: a game succeeds when the side reaches its goal), {} successes, {:.1}%",
        g.games,
        g.variant,
        g.game_type,
        g.successes,
        100.0 * g.success_rate
    );
    let table = |o: &mut String, what: &str, width: usize, rows: &[GoalStats]| {
        let _ = writeln!(
            o,
            "{:>3}  {:<width$} {:>6} {:>9}  success rate [95% Wilson]",
            "#", what, "games", "successes"
        );
        for (i, e) in rows.iter().enumerate() {
            let _ = writeln!(
                o,
                "{:>3}  {:<width$} {:>6} {:>9}  {}",
                i + 1,
                e.name,
                e.games,
                e.successes,
                rate(e)
            );
        }
    };
    table(o, "engine", 20, &g.engines);
    if !g.teams.is_empty() {
        let _ = writeln!(o, "\nTeams (the engines that played a game together):");
        table(o, "team", 30, &g.teams);
    }
    terminations(o, g.engines.iter().map(|e| (&e.name, &e.terminations)));
}

/// The competitive games: standings, teams, crosstable, pairs, pentanomials, terminations.
fn competitive(o: &mut String, s: &Standings) {
    engines(o, s);
    teams(o, s);
    crosstable(o, s);
    pairs(o, s);
    pentanomials(o, s);
    terminations(o, s.engines.iter().map(|e| (&e.name, &e.terminations)));
}

/// The engines of the competitive games, best first, with Elo from single games.
fn engines(o: &mut String, s: &Standings) {
    let _ = writeln!(
        o,
        "Standings: {} games of {}",
        s.games - goal_games(s),
        s.variant
    );
    let _ = writeln!(
        o,
        "{:>3}  {:<20} {:>6} {:>7} {:>5} {:>5} {:>5} {:>7}  Elo [95%] from single games",
        "#", "engine", "games", "points", "W", "D", "L", "score"
    );
    for (i, e) in s.engines.iter().enumerate() {
        let figures = if e.small_sample {
            TOO_SMALL.to_string()
        } else {
            format!(
                "{} [{}, {}]",
                elo(e.elo, e.score),
                elo(e.elo_low, e.score_low),
                elo(e.elo_high, e.score_high)
            )
        };
        let _ = writeln!(
            o,
            "{:>3}  {:<20} {:>6} {:>7.1} {:>5} {:>5} {:>5} {:>6.1}%  {figures}",
            i + 1,
            e.name,
            e.games,
            e.points,
            e.wins,
            e.draws,
            e.losses,
            100.0 * e.score,
        );
    }
    if s.engines.iter().any(|e| e.small_sample) {
        too_small_note(o, "games");
    }
}

/// The teams of team games, best first (nothing without team games).
fn teams(o: &mut String, s: &Standings) {
    if !s.teams.is_empty() {
        let _ = writeln!(o, "\nTeams (the engines on one side of a team game):");
        let _ = writeln!(
            o,
            "{:>3}  {:<30} {:>6} {:>7} {:>5} {:>5} {:>5} {:>7}",
            "#", "team", "games", "points", "W", "D", "L", "score"
        );
        for (i, t) in s.teams.iter().enumerate() {
            let _ = writeln!(
                o,
                "{:>3}  {:<30} {:>6} {:>7.1} {:>5} {:>5} {:>5} {:>6.1}%",
                i + 1,
                t.name,
                t.games,
                t.points,
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score,
            );
        }
    }
}

/// Points of each engine against each other (nothing with one engine).
fn crosstable(o: &mut String, s: &Standings) {
    if s.engines.len() > 1 {
        let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
        let _ = writeln!(
            o,
            "\nCrosstable (points of the row engine against the column engine):"
        );
        // Whole names: two engines whose names share a beginning (`anqi-bot-greedy`,
        // `anqi-bot-search`) must not look alike.
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .max(9);
        let _ = write!(o, "{:<width$}", "");
        for n in &names {
            let _ = write!(o, " {n:>width$}");
        }
        let _ = writeln!(o);
        for a in &names {
            let _ = write!(o, "{a:<width$}");
            for b in &names {
                match s.crosstable.get(*a).and_then(|row| row.get(*b)) {
                    Some(c) if a != b => {
                        let _ = write!(o, " {:>width$}", format!("{:.1}/{}", c.points, c.games));
                    }
                    _ => {
                        let _ = write!(o, " {:>width$}", "-");
                    }
                }
            }
            let _ = writeln!(o);
        }
    }
}

/// Every pair of engines that met, with Elo, nElo and LOS (nothing when none met).
fn pairs(o: &mut String, s: &Standings) {
    if !s.pairs.is_empty() {
        let _ = writeln!(
            o,
            "\nPairs (the first engine's results against the second; Elo, nElo and LOS from the\n\
             pairs of games listed under Pentanomial below where there are any, else from single\n\
             games, as the `from` column says: an interval from pairs is usually narrower than the\n\
             standings' one, which always counts single games):"
        );
        let _ = writeln!(
            o,
            " {:<24} {:>5} {:>4} {:>4} {:>4} {:>6} {:>5} {:<17} {:>9} {:>6} {:<5}",
            "pair", "games", "W", "D", "L", "score", "draws", "Elo [95%]", "nElo", "LOS", "from"
        );
        for p in &s.pairs {
            let (elo, nelo, los) = if p.small_sample {
                (TOO_SMALL.to_string(), "-".to_string(), "-".to_string())
            } else {
                (elo_interval(p), nelo(p), percent(p.los))
            };
            let _ = writeln!(
                o,
                " {:<24} {:>5} {:>4} {:>4} {:>4} {:>5.1}% {:>4.0}% {:<17} {:>9} {:>6} {:<5}",
                format!("{} vs {}", p.first, p.second),
                p.games,
                p.wins,
                p.draws,
                p.losses,
                100.0 * p.score,
                100.0 * p.draw_ratio,
                elo,
                nelo,
                los,
                match p.model {
                    Model::Pentanomial => "pairs",
                    Model::Trinomial => "games",
                },
            );
        }
        if s.pairs.iter().any(|p| p.small_sample) {
            too_small_note(o, "pairs (or games, without pairs)");
        }
    }
}

/// The pentanomial counts of the pairs that played pairs of games on one deal.
fn pentanomials(o: &mut String, s: &Standings) {
    let paired: Vec<&PairStats> = s
        .pairs
        .iter()
        .filter(|p| p.model == Model::Pentanomial)
        .collect();
    if !paired.is_empty() {
        let _ = writeln!(
            o,
            "\nPentanomial (pairs of games on one deal, seats swapped: how many pairs the first\n\
             engine scored 0, 0.5, 1, 1.5, 2 points in; errors at 95% from the pairs' variance):"
        );
        let _ = writeln!(
            o,
            " {:<24} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}  {:>11} {:>11}",
            "pair", "pairs", "0", "0.5", "1", "1.5", "2", "Elo", "nElo"
        );
        for p in paired {
            let c = p.pentanomial.unwrap_or_default();
            let (elo, nelo) = if p.small_sample {
                ("too small".to_string(), "-".to_string())
            } else {
                (format!("{} {}", elo(p.elo, p.score), elo_error(p)), nelo(p))
            };
            let _ = writeln!(
                o,
                " {:<24} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}  {:>11} {:>11}",
                format!("{} vs {}", p.first, p.second),
                p.observations,
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                elo,
                nelo,
            );
        }
    }
}

/// The "Terminations per engine" section: how each engine's games ended.
fn terminations<'a>(
    o: &mut String,
    engines: impl Iterator<Item = (&'a String, &'a BTreeMap<String, usize>)>,
) {
    let _ = writeln!(o, "\nTerminations per engine:");
    for (name, ends) in engines {
        let list: Vec<String> = ends.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(o, "  {name:<20} {}", list.join(", "));
    }
}

/// Games of one-side variants.
fn goal_games(s: &Standings) -> usize {
    s.one_side.iter().map(|g| g.games).sum()
}

/// The SPRT in four lines: the pair and whose point of view, the hypotheses, the verdict.
pub fn sprt(t: &SprtResult) -> String {
    let (a, b) = (&t.first, &t.second);
    let verdict = match t.verdict {
        Verdict::H1 => format!(
            "H1 accepted: {a} - {b} is {} Elo rather than {}",
            t.elo1, t.elo0
        ),
        Verdict::H0 => format!(
            "H0 accepted: {a} - {b} is {} Elo rather than {}",
            t.elo0, t.elo1
        ),
        Verdict::Continue => "undecided, play on".into(),
    };
    format!(
        "SPRT {a} vs {b}, from {a}'s point of view ({}: {} {}):\n  \
         H0: {a} - {b} = {} Elo (logistic)\n  \
         H1: {a} - {b} = {} Elo; alpha {}, beta {}\n  \
         LLR {:.2} in [{:.2}, {:.2}]: {verdict}\n",
        match t.model {
            Model::Pentanomial => "pentanomial",
            Model::Trinomial => "trinomial",
        },
        t.observations,
        match t.model {
            Model::Pentanomial => "pairs of games",
            Model::Trinomial => "games",
        },
        t.elo0,
        t.elo1,
        t.alpha,
        t.beta,
        t.llr,
        t.lower,
        t.upper,
    )
}
