//! The rules: random action sequences on the shipped variants.
//!
//! Input: the variant (one byte), the deal's seed (eight bytes), then steps, each a byte saying
//! who tries what, followed by its numbers. The invariants are those of
//! `tests/rules_walk/mod.rs`, shared with the property tests (`tests/integration/rules_properties.rs`): the
//! game only ever accepts what it listed as legal, a refusal changes nothing, and the game ends
//! only through its rules.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/rules_walk/mod.rs"]
mod rules_walk;

use rules_walk::{Choice, RawAction, Step, Who};

/// One step from the input: bit 7 of the first byte picks who (the mover, or the seat in the
/// next byte), bits 0..3 what (half the time a listed action, so that games go on).
fn step(u: &mut Unstructured) -> Result<Step> {
    let b: u8 = u.arbitrary()?;
    let who = match b & 0x80 {
        0 => Who::Mover,
        _ => Who::Seat(u.arbitrary()?),
    };
    let choice = match b & 0x7 {
        0..=3 => Choice::Listed(usize::from(u.arbitrary::<u16>()?)),
        4 => Choice::Raw(RawAction::Reveal(u.arbitrary()?)),
        5 => Choice::Raw(RawAction::Move(u.arbitrary()?, u.arbitrary()?)),
        6 => Choice::Raw(RawAction::Bag),
        _ => Choice::Raw(RawAction::Put(u.arbitrary()?, u.arbitrary()?)),
    };
    Ok(Step { who, choice })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let variants = rules_walk::shipped();
    let (Ok(index), Ok(seed)) = (u.choose_index(variants.len()), u.arbitrary::<u64>()) else {
        return;
    };
    let variant = &variants[index].1;
    let seeds = rules_walk::seeds(variant, seed);
    let steps = std::iter::from_fn(|| {
        if u.is_empty() {
            None
        } else {
            step(&mut u).ok()
        }
    });
    rules_walk::walk(variant, &seeds, steps);
});
