//! The standings as text for people (the JSON form is the serialized [`Standings`]).

use super::stats::Standings;
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

/// Renders standings, crosstable, pentanomials, terminations and the SPRT.
pub fn text(s: &Standings) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Standings: {} games of {}", s.games, s.variant);
    let _ = writeln!(
        o,
        "{:>3}  {:<20} {:>6} {:>7} {:>5} {:>5} {:>5} {:>7}  Elo [95%]",
        "#", "engine", "games", "points", "W", "D", "L", "score"
    );
    for (i, e) in s.engines.iter().enumerate() {
        let _ = writeln!(
            o,
            "{:>3}  {:<20} {:>6} {:>7.1} {:>5} {:>5} {:>5} {:>6.1}%  {} [{}, {}]",
            i + 1,
            e.name,
            e.games,
            e.points,
            e.wins,
            e.draws,
            e.losses,
            100.0 * e.score,
            elo(e.elo, e.score),
            elo(e.elo_low, e.score_low),
            elo(e.elo_high, e.score_high),
        );
    }
    if s.engines.len() > 1 {
        let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
        let _ = writeln!(
            o,
            "\nCrosstable (points of the row engine against the column engine):"
        );
        let _ = write!(o, "{:<20}", "");
        for n in &names {
            let _ = write!(o, " {:>12}", truncate(n, 12));
        }
        let _ = writeln!(o);
        for a in &names {
            let _ = write!(o, "{:<20}", truncate(a, 20));
            for b in &names {
                match s.crosstable.get(*a).and_then(|row| row.get(*b)) {
                    Some(c) if a != b => {
                        let _ = write!(o, " {:>12}", format!("{:.1}/{}", c.points, c.games));
                    }
                    _ => {
                        let _ = write!(o, " {:>12}", "-");
                    }
                }
            }
            let _ = writeln!(o);
        }
    }
    if !s.pentanomial.is_empty() {
        let _ = writeln!(o, "\nPentanomial (pairs of games on one deal, seats swapped; first engine's pair score 0, 0.5, 1, 1.5, 2):");
        for p in &s.pentanomial {
            let c = p.counts;
            let _ = writeln!(
                o,
                "  {} vs {}: [{}, {}, {}, {}, {}]",
                p.first, p.second, c[0], c[1], c[2], c[3], c[4]
            );
        }
    }
    let _ = writeln!(o, "\nTerminations per engine:");
    for e in &s.engines {
        let list: Vec<String> = e
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(o, "  {:<20} {}", e.name, list.join(", "));
    }
    if let Some(t) = &s.sprt {
        let _ = writeln!(
            o,
            "\nSPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} in [{:.2}, {:.2}]: {}",
            t.elo0,
            t.elo1,
            t.alpha,
            t.beta,
            t.llr,
            t.lower,
            t.upper,
            match t.verdict.as_str() {
                "H1" => "H1 accepted (the first engine is stronger)",
                "H0" => "H0 accepted (no such gain)",
                _ => "undecided",
            }
        );
    }
    o
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
