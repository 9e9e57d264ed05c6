use super::*;
use crate::rules::Variant;

/// traditional-2x4's rules on a 2x2 board with KPkp: solved in a moment.
fn small() -> Variant {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../protocol/variants/traditional-2x4.sexp"
    ))
    .unwrap()
    .replace("(name traditional-2x4)", "(name tiny)")
    .replace("(rectangle 2 4)", "(rectangle 2 2)")
    .replace("(pieces KPPPkppp)", "(pieces KPkp)");
    Variant::parse(&text).unwrap()
}

fn solved(v: &Variant) -> (Solver, Score) {
    let mut solver = Solver::new(v).unwrap();
    let start = solver.start().unwrap();
    let value = solver.value(&start);
    (solver, value)
}

#[test]
fn a_solution_file_reads_back_and_verifies() {
    let v = small();
    let (solver, value) = solved(&v);
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, solver.scale(), value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    assert_eq!(header.value, value);
    assert_eq!(&values, solver.values());
    let done = file::verify(&header, &values, |_| {}).unwrap();
    assert_eq!(done.states, values.len() as u64);
}

#[test]
fn a_changed_value_fails_the_check() {
    let v = small();
    let (solver, value) = solved(&v);
    let scale = solver.scale();
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, scale, value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    // Every state changed in turn by a little: each change is caught.
    let mut keys: Vec<Key> = values.keys().copied().collect();
    keys.sort_unstable();
    for key in keys.iter().step_by(7) {
        let mut wrong = values.clone();
        let v = wrong[key];
        wrong.insert(*key, if v > 0 { v - 1 } else { 1 });
        assert!(
            file::verify(&header, &wrong, |_| {}).is_err(),
            "a change at {:032x} went unseen",
            key.0
        );
    }
}

#[test]
fn values_held_up_by_a_cycle_fail_the_check() {
    // A component where both sides can only shuffle (a king each, nothing else face-up or
    // down, neither able to take the other) is a draw; claiming a win for all of it is
    // consistent move by move, but reached by nobody.
    let v = small();
    let (solver, value) = solved(&v);
    let scale = solver.scale();
    let cells = solver.cells();
    let mut bytes = Vec::new();
    file::write(&mut bytes, &v, scale, value, solver.values()).unwrap();
    let (header, values) = file::read(&mut bytes.as_slice()).unwrap();
    // Find a component of draws: states worth a draw with nothing face-down.
    let draws: Vec<Key> = values
        .iter()
        .filter(|(k, &val)| val == scale.draw() && k.material(cells).0 == 0)
        .map(|(k, _)| *k)
        .collect();
    assert!(!draws.is_empty(), "the small game has drawn endings");
    let mut wrong = values.clone();
    for k in &draws {
        wrong.insert(*k, scale.win());
    }
    let err = file::verify(&header, &wrong, |_| {}).unwrap_err();
    assert!(
        err.contains("stored") || err.contains("cycle"),
        "unexpected error: {err}"
    );
}

#[test]
fn the_tiny_game_is_symmetric_and_its_values_are_exact() {
    let v = small();
    let (mut solver, value) = solved(&v);
    let scale = solver.scale();
    let start = solver.start().unwrap();
    // Every first reveal of the 2x2 board is alike (each cell is a corner), and each colour
    // turned up is worth the same as the other.
    let first: Vec<Score> = (0..4).map(|c| solver.reveal_value(&start, c)).collect();
    assert!(first.iter().all(|&f| f == value), "{first:?} vs {value}");
    let outcomes = solver.reveal_outcomes(&start, 0);
    assert_eq!(outcomes.len(), 4);
    let by: std::collections::HashMap<char, Score> =
        outcomes.iter().map(|(p, _, v)| (p.letter(), *v)).collect();
    assert_eq!(by[&'K'], by[&'k']);
    assert_eq!(by[&'P'], by[&'p']);
    // The average of the four outcomes is the value, exactly.
    assert_eq!(outcomes.iter().map(|o| o.2).sum::<Score>(), 4 * value);
    assert!(value <= scale.win());
}

#[test]
fn variants_the_solver_cannot_hold_are_refused_with_the_reason() {
    for (name, why) in [
        ("strategic-2x4", "bag"),
        ("2v2", "players"),
        ("single", "two-player"),
        ("traditional", "at most 16"),
    ] {
        let v = Variant::shipped(name).unwrap();
        let err = Solver::new(&v).err().map(|e| e.0).unwrap_or_default();
        assert!(err.contains(why), "{name}: {err}");
    }
}
