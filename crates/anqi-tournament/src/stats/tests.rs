//! The formulas against values computed by hand and against fastchess's own tests.

use super::pairs::PairStats;
use super::sprt::sprt_result;
use super::*;

fn close(got: f64, want: f64, tolerance: f64) {
    assert!(
        (got - want).abs() <= tolerance,
        "got {got}, want {want} ± {tolerance}"
    );
}

#[test]
fn elo_of_even_and_skewed_scores() {
    assert_eq!(elo_of(0.5), Some(0.0));
    assert!((elo_of(0.75).unwrap() - 190.85).abs() < 0.1);
    assert_eq!(elo_of(1.0), None);
    assert_eq!(elo_of(0.0), None);
}

/// Wilson intervals by hand: 7/10 gives p̂ = 0.7, centre (0.7 + 0.19208)/1.38415 = 0.64446,
/// half-width 1.96/1.38415 · √(0.021 + 0.0096040) = 0.24776: [0.3967, 0.8922]. All or
/// nothing keeps a one-sided interval: 0/10 is [0, 0.2775].
#[test]
fn wilson_intervals_by_hand() {
    let (low, high) = wilson(7, 10);
    close(low, 0.3967, 0.0001);
    close(high, 0.8922, 0.0001);
    let (low, high) = wilson(0, 10);
    close(low, 0.0, 1e-12);
    close(high, 0.2775, 0.0001);
    let (low, high) = wilson(10, 10);
    close(low, 0.7225, 0.0001);
    close(high, 1.0, 1e-12);
    assert_eq!(wilson(0, 0), (0.0, 1.0));
}

/// Where the normal interval of the score reaches 0 or 1, the Wilson interval of the points
/// stands in: 60 wins of 60 games have no spread (a normal interval of no width, +inf
/// [+inf, +inf]) and read +inf [+477.5, +inf]: Wilson's low end for 60/60 is 0.939828. 19 wins
/// and a loss (μ = 0.95, normal high end 1.045) read [+203.9, +819.1] (Wilson for 0.95 over
/// 20). Pairs count their games: 10 pairs won in full are 20 games, [+286.6, +inf].
#[test]
fn elo_intervals_stay_honest_at_the_edges() {
    let (elo, low, high) = Sample::trinomial(60, 0, 0).elo();
    assert_eq!((elo, high), (None, None));
    close(low.unwrap(), 477.46, 0.01);
    let (elo, low, high) = Sample::trinomial(0, 0, 60).elo();
    assert_eq!((elo, low), (None, None));
    close(high.unwrap(), -477.46, 0.01);
    let (_, low, high) = Sample::trinomial(19, 0, 1).elo();
    close(low.unwrap(), 203.95, 0.01);
    close(high.unwrap(), 819.06, 0.01);
    let (_, low, high) = Sample::pentanomial(&[0, 0, 0, 0, 10]).elo();
    assert_eq!(high, None);
    close(low.unwrap(), 286.61, 0.01);
    // Inside (0, 1) the normal interval is kept (trinomial_by_hand).
    assert_eq!(Sample::trinomial(0, 0, 0).score_interval(), (0.0, 1.0));
}

#[test]
fn normal_cdf_at_known_points() {
    close(normal_cdf(0.0), 0.5, 1e-7);
    close(normal_cdf(1.959963984540054), 0.975, 1e-7);
    close(normal_cdf(-1.0), 0.158_655_253_9, 1e-7);
    close(normal_cdf(3.0), 0.998_650_101_97, 1e-7);
    close(normal_cdf(-8.0), 0.0, 1e-12);
}

/// W/D/L = 10/5/5 by hand: μ = 12.5/20 = 0.625; σ² = (10·0.375² + 5·0.125² + 5·0.625²)/20
/// = 0.171875; se = √(σ²/20) = 0.092702; Elo = −400·log₁₀(0.6) = 88.74; interval
/// 0.625 ± 1.96·0.092702 = [0.44331, 0.80669] → [−39.6, +248.2]; LOS = Φ(0.125/0.092702)
/// = Φ(1.3484) = 0.9112; nElo = 0.125/√0.171875 · 347.436 = 104.76.
#[test]
fn trinomial_by_hand() {
    let s = Sample::trinomial(10, 5, 5);
    close(s.mean, 0.625, 1e-12);
    close(s.variance, 0.171875, 1e-12);
    let (elo, low, high) = s.elo();
    close(elo.unwrap(), 88.74, 0.01);
    close(low.unwrap(), -39.56, 0.01);
    close(high.unwrap(), 248.18, 0.01);
    close(s.los().unwrap(), 0.9112, 0.0001);
    close(s.nelo().unwrap(), 104.76, 0.01);
}

/// fastchess's app/tests/elo_test.cpp, "EloWDL 1" to "EloWDL 3" (its Stats(W, L, D)).
#[test]
fn trinomial_matches_fastchess() {
    let s = Sample::trinomial(76, 123, 89);
    close(s.nelo().unwrap(), -20.76, 0.01);
    close(s.nelo_error().unwrap(), 40.13, 0.01);
    assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "15.53");
    let s = Sample::trinomial(136, 111, 96);
    close(s.nelo().unwrap(), 49.77, 0.01);
    close(s.nelo_error().unwrap(), 36.77, 0.01);
    let (elo, low, high) = s.elo();
    close(elo.unwrap(), 40.70, 0.01);
    close((high.unwrap() - low.unwrap()) / 2.0, 30.43, 0.01);
    assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "99.60");
    let s = Sample::trinomial(34, 0, 356);
    close(s.nelo().unwrap(), -508.44, 0.01);
    close(s.nelo_error().unwrap(), 34.48, 0.01);
}

/// fastchess's app/tests/elo_test.cpp, "EloPentanomial 1" to "3" (its Stats(LL, LD, WL, DD,
/// WD, WW); WL and DD both score one point in two games, our middle count).
#[test]
fn pentanomial_matches_fastchess() {
    let s = Sample::pentanomial(&[34, 54, 31 + 32, 64, 75]);
    close(s.nelo().unwrap(), 57.94, 0.01);
    close(s.nelo_error().unwrap(), 28.28, 0.01);
    let (elo, low, high) = s.elo();
    close(elo.unwrap(), 55.58, 0.01);
    close((high.unwrap() - low.unwrap()) / 2.0, 27.65, 0.01);
    assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "100.00");
    let s = Sample::pentanomial(&[332, 433, 457 + 41, 333, 334]);
    close(s.nelo().unwrap(), -9.17, 0.01);
    close(s.nelo_error().unwrap(), 10.96, 0.01);
    let (elo, low, high) = s.elo();
    close(elo.unwrap(), -8.64, 0.01);
    close((high.unwrap() - low.unwrap()) / 2.0, 10.33, 0.01);
    assert_eq!(format!("{:.2}", 100.0 * s.los().unwrap()), "5.05");
    let s = Sample::pentanomial(&[7895, 8757, 5485 + 200, 568, 9999]);
    close(s.nelo().unwrap(), -19.01, 0.01);
    close(s.nelo_error().unwrap(), 2.65, 0.01);
    let (elo, low, high) = s.elo();
    close(elo.unwrap(), -21.04, 0.01);
    close((high.unwrap() - low.unwrap()) / 2.0, 2.95, 0.01);
}

/// Five pairs by hand: [0, 1, 2, 1, 1] pairs scoring 0..2, i.e. per-game 0.25, 0.5, 0.5,
/// 0.75, 1: μ = 3/5 = 0.6; σ² = (0.35² + 2·0.1² + 0.15² + 0.4²)/5 = 0.065; nElo =
/// 0.1/√(2·0.065) · 347.436 = 96.36.
#[test]
fn pentanomial_by_hand() {
    let s = Sample::pentanomial(&[0, 1, 2, 1, 1]);
    close(s.mean, 0.6, 1e-12);
    close(s.variance, 0.065, 1e-12);
    close(s.nelo().unwrap(), 96.36, 0.01);
    close(
        s.los().unwrap(),
        normal_cdf(0.1 / (0.065f64 / 5.0).sqrt()),
        1e-12,
    );
}

#[test]
fn no_spread_and_no_observations() {
    let all_draws = Sample::trinomial(0, 4, 0);
    assert_eq!(all_draws.nelo(), None);
    assert_eq!(all_draws.los(), Some(0.5));
    assert_eq!(Sample::trinomial(3, 0, 0).los(), Some(1.0));
    assert_eq!(Sample::trinomial(3, 0, 0).elo().0, None);
    assert_eq!(Sample::pentanomial(&[0; 5]).los(), None);
}

/// fastchess's app/tests/sprt_test.cpp, the logistic cases: the normal approximation
/// agrees to the two decimals given.
#[test]
fn llr_matches_fastchess() {
    let penta = [0.0, 0.25, 0.5, 0.75, 1.0];
    let tri = [0.0, 0.5, 1.0];
    close(
        llr(&penta, &[223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5),
        -3.07,
        0.01,
    );
    close(
        llr(&penta, &[871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0),
        -4.98,
        0.01,
    );
    // Stats(W, L, D): counts are L, D, W.
    close(llr(&tri, &[21184, 40708, 21404], 0.5, 2.5), -1.57, 0.01);
    close(llr(&tri, &[57030, 106593, 57433], 0.0, 2.0), -2.59, 0.01);
}

fn pair(wins: usize, draws: usize, losses: usize, penta: Option<[usize; 5]>) -> PairStats {
    let mut results = vec![1.0; wins];
    results.extend(std::iter::repeat_n(0.5, draws));
    results.extend(std::iter::repeat_n(0.0, losses));
    PairStats::new("new", "old", &results, penta)
}

#[test]
fn sprt_accepts_a_clearly_stronger_engine_and_rejects_an_equal_one() {
    let cfg = SprtConfig {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let run =
        |penta: [usize; 5]| sprt_result(&cfg, "new", "old", Some(&pair(0, 0, 0, Some(penta))));
    let strong = run([0, 1, 3, 6, 20]);
    assert_eq!(strong.verdict, Verdict::H1, "{strong:?}");
    assert_eq!(
        (strong.first.as_str(), strong.second.as_str()),
        ("new", "old")
    );
    assert_eq!(
        (strong.model, strong.observations),
        (Model::Pentanomial, 30)
    );
    let equal = run([30, 60, 120, 60, 30]);
    assert_eq!(equal.verdict, Verdict::H0, "{equal:?}");
    assert_eq!(run([0, 0, 1, 1, 0]).verdict, Verdict::Continue);
    // One pair won 2-0 proves nothing, nor do three.
    assert_eq!(run([0, 0, 0, 0, 1]).verdict, Verdict::Continue);
    assert_eq!(run([0, 0, 0, 0, 3]).verdict, Verdict::Continue);
    assert_eq!(run([3, 0, 0, 0, 0]).verdict, Verdict::Continue);
    // Met only in games of more players: single games.
    let team = sprt_result(&cfg, "new", "old", Some(&pair(60, 20, 5, None)));
    assert_eq!((team.model, team.observations), (Model::Trinomial, 85));
    assert_eq!(team.verdict, Verdict::H1);
    // Not met yet: nothing to decide on.
    assert_eq!(
        sprt_result(&cfg, "new", "old", None).verdict,
        Verdict::Continue
    );
}

#[test]
fn pair_statistics_take_the_pentanomial_when_there_are_pairs() {
    let p = pair(10, 5, 5, Some([0, 1, 3, 4, 2]));
    assert_eq!((p.model, p.observations), (Model::Pentanomial, 10));
    close(p.score, 0.625, 1e-12);
    close(p.draw_ratio, 0.25, 1e-12);
    assert_eq!(p.nelo, Sample::pentanomial(&[0, 1, 3, 4, 2]).nelo());
    // A lone shard: two-player games but no complete pair.
    let p = pair(10, 5, 5, Some([0; 5]));
    assert_eq!((p.model, p.observations), (Model::Trinomial, 20));
    close(p.elo.unwrap(), 88.74, 0.01);
    close(p.los.unwrap(), 0.9112, 0.0001);
    // Seen from the other side: everything mirrored.
    let f = pair(10, 5, 5, Some([0, 1, 3, 4, 2])).flipped();
    assert_eq!((f.first.as_str(), f.wins, f.losses), ("old", 5, 10));
    assert_eq!(f.pentanomial, Some([2, 4, 3, 1, 0]));
    close(f.score, 0.375, 1e-12);
    close(
        f.nelo.unwrap(),
        -Sample::pentanomial(&[0, 1, 3, 4, 2]).nelo().unwrap(),
        1e-9,
    );
}

/// An engine of the standings with no games: enough for the SPRT's choice of pair.
fn engine_named(name: &str) -> EngineStats {
    EngineStats {
        name: name.into(),
        games: 0,
        points: 0.0,
        wins: 0,
        draws: 0,
        losses: 0,
        score: 0.0,
        score_low: 0.0,
        score_high: 0.0,
        elo: None,
        elo_low: None,
        elo_high: None,
        small_sample: true,
        terminations: BTreeMap::new(),
    }
}

#[test]
fn the_sprt_says_which_pair_it_cannot_test() {
    let cfg = SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut s = standings(&[], &[], None);
    assert_eq!(
        s.run_sprt(&cfg, None),
        Err(SprtError::TooFewEngines { count: 0 })
    );
    s.engines = ["a", "b", "c"].map(engine_named).to_vec();
    let e = s.run_sprt(&cfg, None).unwrap_err();
    assert!(
        matches!(&e, SprtError::PairNeeded { engines } if engines.len() == 3),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "the records hold 3 engines (a, b, c): name the pair to test with --pair FIRST,SECOND"
    );
    let e = s.run_sprt(&cfg, Some(("a", "z"))).unwrap_err();
    assert!(
        matches!(&e, SprtError::NoSuchEngine { name, .. } if name == "z"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        r#"no engine "z" in the records (engines: a, b, c)"#
    );
    assert_eq!(
        s.run_sprt(&cfg, Some(("a", "a"))),
        Err(SprtError::AgainstItself { name: "a".into() })
    );
    let e = s.run_sprt(&cfg, Some(("a", "c"))).unwrap_err();
    assert_eq!(
        e,
        SprtError::NeverMet {
            first: "a".into(),
            second: "c".into()
        }
    );
    assert_eq!(e.to_string(), "a and c never met");
    assert_eq!(s.sprt, None);
}

/// One pair of games scoring 1.5 of 2 (issue 38): every observation alike, so the normal
/// interval has no width; the Wilson one is used, and the pair is marked too small to report.
#[test]
fn a_sample_of_one_pair_is_too_small_and_its_interval_keeps_a_width() {
    let one = pair(1, 1, 0, Some([0, 0, 0, 1, 0]));
    assert_eq!((one.observations, one.small_sample), (1, true));
    let (low, high) = (one.elo_low.unwrap(), one.elo_high.unwrap());
    assert!(low < 0.0 && high > 300.0, "[{low}, {high}]");
    // Two draws: a score of ½ with no spread is no proof of equality either.
    let draws = Sample::trinomial(0, 2, 0).score_interval();
    assert!(draws.0 < 0.2 && draws.1 > 0.8, "{draws:?}");
    // MIN_SAMPLE pairs are reported.
    let five = pair(5, 5, 0, Some([0, 0, 0, 5, 0]));
    assert!(!five.small_sample, "{five:?}");
}

#[test]
fn the_text_says_the_sample_is_too_small_instead_of_degenerate_figures() {
    let standings = Standings {
        variant: "traditional".into(),
        games: 2,
        engines: vec![engine_named("new"), engine_named("old")],
        crosstable: BTreeMap::new(),
        pentanomial: Vec::new(),
        pairs: vec![pair(1, 1, 0, Some([0, 0, 0, 1, 0]))],
        teams: Vec::new(),
        sprt: None,
        one_side: Vec::new(),
        deals: None,
    };
    let text = crate::report::text(&standings);
    assert!(!text.contains("+191"), "{text}");
    assert!(!text.contains("100.0%  pairs"), "{text}");
    let line = text.lines().find(|l| l.contains("new vs old")).unwrap();
    assert!(line.contains("sample too small"), "{line}");
    assert!(
        text.contains("sample too small: fewer than 5 pairs (or games, without pairs)"),
        "{text}"
    );
}
