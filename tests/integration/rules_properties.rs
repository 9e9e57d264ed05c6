//! Property tests of the rules core: random action sequences on every shipped variant, with the
//! invariants of `rules_walk` checked at every step (the game accepts exactly the listed legal
//! actions, a refusal changes nothing, the counts match the list, the game ends only through
//! its rules). The `rules` fuzz target checks the same invariants (`fuzz/README.md`).

use crate::rules_walk;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};
use rules_walk::{Choice, RawAction, Step, Who};
use std::cell::Cell;

/// Games per variant and run. Each is a walk of up to `STEPS` steps; a failure is shrunk to a
/// short sequence and reported with the variant's name.
const CASES: u32 = 64;
const STEPS: usize = 1500;

fn raw_action() -> impl Strategy<Value = RawAction> {
    prop_oneof![
        any::<u16>().prop_map(RawAction::Reveal),
        (any::<u16>(), any::<u16>()).prop_map(|(a, b)| RawAction::Move(a, b)),
        Just(RawAction::Bag),
        (any::<u8>(), any::<u16>()).prop_map(|(p, c)| RawAction::Put(p, c)),
    ]
}

/// Mostly the mover playing a listed action, so that games get somewhere; also other seats,
/// and actions with any numbers (nearly always illegal, sometimes not).
fn step() -> impl Strategy<Value = Step> {
    let who = prop_oneof![6 => Just(Who::Mover), 1 => any::<u8>().prop_map(Who::Seat)];
    let choice = prop_oneof![
        3 => any::<u16>().prop_map(|n| Choice::Listed(usize::from(n))),
        1 => raw_action().prop_map(Choice::Raw),
    ];
    (who, choice).prop_map(|(who, choice)| Step { who, choice })
}

#[test]
fn every_shipped_variant_accepts_exactly_the_listed_actions() {
    for (name, variant) in rules_walk::shipped() {
        let mut runner = TestRunner::new(Config {
            cases: CASES,
            // The variant loop is not the macro's: nothing to persist failures against.
            failure_persistence: None,
            ..Config::default()
        });
        // `run` takes an `Fn`: the tallies are cells.
        let plies = Cell::new(0);
        let ended = Cell::new(0);
        let result = runner.run(&(any::<u64>(), vec(step(), 0..STEPS)), |(seed, steps)| {
            let walk = rules_walk::walk(variant, &rules_walk::seeds(variant, seed), steps);
            plies.set(plies.get() + walk.plies);
            ended.set(ended.get() + u32::from(walk.outcome.is_some()));
            Ok(())
        });
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, (seed, steps))) => {
                panic!("{name}, seed {seed}: {why}\nminimal steps: {steps:?}")
            }
            Err(e) => panic!("{name}: {e}"),
        }
        // Not a vacuous walk: the games were played, on every variant.
        assert!(plies.get() > 0, "{name}: no action was ever accepted");
        println!(
            "{name}: {CASES} games, {} plies, {} ended",
            plies.get(),
            ended.get()
        );
    }
}
