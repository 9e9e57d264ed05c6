//! The solution file, and its check by an independent pass.
//!
//! A solution file is one line of JSON (the header: format, variant description, semantics,
//! denominator, number of states, the start's value), then every state as 24 bytes sorted by
//! key: the [`Key`] (16 bytes, little-endian) and its value (8 bytes, little-endian, times
//! the denominator).
//!
//! [`verify`] re-derives each stored value from its children's stored values (a maximum, a
//! minimum, or a reveal's average) and checks that every value other than a draw is
//! *grounded*: the side it favours can reach a reveal, a capture or an end worth it without
//! going round a cycle (values that hold each other up around a cycle are consistent but
//! wrong). Both checks together leave one table of values possible: the right one.

use super::{solver_variant, Key, Scale, Score};
use crate::rules::{Action, Game, Variant};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::Arc;

/// The file's first line.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// The variant's public description (`Variant::public_description`): enough to rebuild it.
    pub variant: String,
    pub semantics: String,
    pub denominator: u64,
    pub states: u64,
    /// The start's value, times the denominator.
    pub value: Score,
}

/// The semantics every solution file of this version has (see the module `solve`).
pub const SEMANTICS: &str = "quiet play forever is a draw; no other draw rule";

/// Writes a solution: the header, then the states sorted by key.
pub fn write(
    out: &mut impl Write,
    variant: &Variant,
    scale: Scale,
    value: Score,
    values: &HashMap<Key, Score>,
) -> std::io::Result<()> {
    let header = Header {
        format: "anqi-solution".into(),
        version: 1,
        variant: variant.public_description(),
        semantics: SEMANTICS.into(),
        denominator: scale.denominator,
        states: values.len() as u64,
        value,
    };
    serde_json::to_writer(&mut *out, &header)?;
    out.write_all(b"\n")?;
    let mut entries: Vec<(&Key, &Score)> = values.iter().collect();
    entries.sort_unstable();
    for (k, v) in entries {
        out.write_all(&k.0.to_le_bytes())?;
        out.write_all(&v.to_le_bytes())?;
    }
    out.flush()
}

/// Reads a solution file: its header and its table.
pub fn read(input: &mut impl BufRead) -> Result<(Header, HashMap<Key, Score>), String> {
    let mut line = String::new();
    input
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the header: {e}"))?;
    let header: Header =
        serde_json::from_str(&line).map_err(|e| format!("not a solution file's header: {e}"))?;
    if header.format != "anqi-solution" || header.version != 1 {
        return Err(format!(
            "format {} version {}: this anqi reads anqi-solution version 1",
            header.format, header.version
        ));
    }
    let mut values = HashMap::with_capacity(header.states as usize);
    let mut record = [0u8; 24];
    for i in 0..header.states {
        input
            .read_exact(&mut record)
            .map_err(|e| format!("state {i} of {}: {e}", header.states))?;
        let key = Key(u128::from_le_bytes(
            record[..16].try_into().expect("16 bytes"),
        ));
        let value = Score::from_le_bytes(record[16..].try_into().expect("8 bytes"));
        values.insert(key, value);
    }
    if input.fill_buf().map(|b| !b.is_empty()).unwrap_or(false) {
        return Err(format!(
            "more than the {} states the header says",
            header.states
        ));
    }
    Ok((header, values))
}

/// What one state's actions lead to, from the table.
struct Derived {
    /// The value the state should have.
    value: Score,
    /// Whether an action worth `value` leaves the component (a reveal, a capture, an end).
    exit_at_value: bool,
    /// The quiet moves' targets, with their stored values.
    quiet: Vec<(Key, Score)>,
}

/// Re-derives a state's value from the table. `Err` names a child missing from it.
fn derive(
    variant: &Arc<Variant>,
    scale: Scale,
    values: &HashMap<Key, Score>,
    key: Key,
) -> Result<Derived, String> {
    let position = key.position(variant.topology.size());
    let game = Game::from_position(variant.clone(), &position)
        .map_err(|e| format!("state {:032x} is no position: {e}", key.0))?;
    if game.outcome().is_some() {
        return Err(format!("state {:032x} is an ended game", key.0));
    }
    let max = variant.side_of(game.to_move()) == 0;
    let mover = game.to_move();
    let ended = |g: &Game| {
        g.outcome().map(|o| match o.winner {
            None => scale.draw(),
            Some(0) => scale.win(),
            Some(_) => 0,
        })
    };
    let stored = |g: &Game| -> Result<Score, String> {
        let k = Key::of(g);
        values
            .get(&k)
            .copied()
            .ok_or_else(|| format!("state {:032x} (a child of {:032x}) is missing", k.0, key.0))
    };
    let mut exits: Vec<Score> = Vec::new();
    let mut quiet = Vec::new();
    for action in game.legal_actions() {
        match action {
            Action::Reveal(cell) => {
                let (mut sum, mut total) = (0u128, 0u128);
                for (i, &n) in game.face_down_counts().iter().enumerate() {
                    if n == 0 {
                        continue;
                    }
                    let piece = crate::rules::Piece::new(
                        crate::rules::Colour::ALL[i / 7],
                        crate::rules::Kind::ALL[i % 7],
                    );
                    let mut child = game.clone();
                    child.arrange_reveal(cell, piece).map_err(|e| e.0)?;
                    child.play(mover, action).map_err(|e| e.to_string())?;
                    let v = match ended(&child) {
                        Some(v) => v,
                        None => stored(&child)?,
                    };
                    sum += u128::from(n) * u128::from(v);
                    total += u128::from(n);
                }
                if sum % total != 0 {
                    return Err(format!(
                        "state {:032x}: a reveal's average is no multiple of 1/{}",
                        key.0, scale.denominator
                    ));
                }
                exits.push((sum / total) as Score);
            }
            _ => {
                let mut child = game.clone();
                let played = child.play(mover, action).map_err(|e| e.to_string())?;
                if let Some(v) = ended(&child) {
                    exits.push(v);
                } else if played.captured.is_some() {
                    exits.push(stored(&child)?);
                } else {
                    quiet.push((Key::of(&child), stored(&child)?));
                }
            }
        }
    }
    let all = exits.iter().chain(quiet.iter().map(|(_, v)| v)).copied();
    let value = if max { all.max() } else { all.min() }.expect("a game not ended has a move");
    Ok(Derived {
        value,
        exit_at_value: exits.contains(&value),
        quiet,
    })
}

/// What [`verify`] found.
#[derive(Debug, Default)]
pub struct Verified {
    pub states: u64,
    pub start: Score,
}

/// Checks a solution file's table (see the module documentation), calling `progress` with the
/// states checked so far every so often. `Err` says the first thing wrong.
pub fn verify(
    header: &Header,
    values: &HashMap<Key, Score>,
    mut progress: impl FnMut(u64),
) -> Result<Verified, String> {
    let variant = Variant::parse(&header.variant)
        .map_err(|e| format!("the header's variant does not read: {e}"))?;
    let variant = solver_variant(&variant).map_err(|e| e.0)?;
    let scale = Scale::for_pieces(variant.pieces.len()).expect("a solvable variant");
    if scale.denominator != header.denominator {
        return Err(format!(
            "denominator {} where the variant's is {}",
            header.denominator, scale.denominator
        ));
    }
    // Every state, in key order (so that a failure names the same state every run).
    let mut keys: Vec<Key> = values.keys().copied().collect();
    keys.sort_unstable();
    let at: HashMap<Key, u32> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, i as u32))
        .collect();
    let mut derived = Vec::with_capacity(keys.len());
    for (n, key) in keys.iter().enumerate() {
        let d = derive(&variant, scale, values, *key)?;
        if d.value != values[key] {
            return Err(format!(
                "state {:032x}: stored {}/{}, its children give {}/{}",
                key.0, values[key], scale.denominator, d.value, scale.denominator
            ));
        }
        derived.push(d);
        if n % 65_536 == 65_535 {
            progress(n as u64 + 1);
        }
    }
    // Grounding: a value above the draw must be reachable by the maximizer without cycling
    // (and one below, by the minimizer). Each state is grounded once an exit gives its value,
    // or (the favoured side moving) one quiet move to a grounded state of that value does, or
    // (the other side moving) every quiet move to a state of that value does.
    let max_moves = |key: Key| {
        let p = key.position(variant.topology.size());
        variant.side_of(variant.order[p.turn_place]) == 0
    };
    let n = keys.len();
    let mut grounded = vec![false; n];
    let mut open = vec![0u32; n];
    let mut before: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut todo = Vec::new();
    for (i, d) in derived.iter().enumerate() {
        if d.value == scale.draw() {
            grounded[i] = true;
            continue;
        }
        let favoured = max_moves(keys[i]) == (d.value > scale.draw());
        let same: Vec<u32> = d
            .quiet
            .iter()
            .filter(|(_, v)| *v == d.value)
            .map(|(k, _)| at[k])
            .collect();
        for &j in &same {
            before[j as usize].push(i as u32);
        }
        open[i] = if favoured { 1 } else { same.len() as u32 };
        if (favoured && d.exit_at_value) || (!favoured && same.is_empty()) {
            grounded[i] = true;
            todo.push(i as u32);
        }
    }
    while let Some(j) = todo.pop() {
        for &i in &before[j as usize] {
            let i = i as usize;
            if grounded[i] {
                continue;
            }
            open[i] -= 1;
            if open[i] == 0 {
                grounded[i] = true;
                todo.push(i as u32);
            }
        }
    }
    if let Some(i) = grounded.iter().position(|g| !g) {
        return Err(format!(
            "state {:032x}: its value {}/{} is held up by a cycle, not reached",
            keys[i].0, derived[i].value, scale.denominator
        ));
    }
    Ok(Verified {
        states: n as u64,
        start: header.value,
    })
}
