//! The shared legal-count tables (`tests/data/legal_counts/`, see its README): positions of
//! every shipped variant, each given by exactly the public state a client knows, with its legal
//! actions and their counts. The same rows check the standard-library Python client
//! (`clients/python/test_legal_counts.py`), so the two rules implementations are held to one set
//! of answers.
//!
//! - [`the_core_agrees_with_every_row`] rebuilds a [`PublicState`] from each row and compares
//!   the core's counts and sorted action clauses: a change in any count fails it.
//! - [`the_tables_cover_every_shipped_variant`] checks the files themselves: one per shipped
//!   variant, well-formed rows, the situations each variant can reach (chain captures, bag draws
//!   and puts, cannon jumps, both colours, no colour yet...), and their size.
//! - [`the_generator_writes_rows_the_core_agrees_with`] runs the generator (random walks of the
//!   core) and puts its rows through the two checks above; with `ANQI_WRITE_LEGAL_COUNTS=1` it
//!   also rewrites the tables.

use anqi_core::rules::{
    Action, ActionKind, Board, Colour, ColourRule, Control, Game, Objective, Piece, PublicState,
    SeedInputs, Start, Variant, SHIPPED,
};
use anqi_core::wire::ServerClause;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/legal_counts");
/// The topology of every variant as the setup message gives it (one line per variant).
const SETUPS: &str = "setups.jsonl";
const MAX_ROWS: usize = 40;
const MIN_ROWS: usize = 10;
const MAX_BYTES: u64 = 1_500_000;

/// One position: the public state (what a client knows when asked to act), then the answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    variant: String,
    /// Why the row is there (`opening`, `chain`, `hand`, `bag`, `cannon`, `other`, `late`,
    /// `mid`): a label for readers and for the coverage check, not an input.
    tag: String,
    /// The board as sent on the wire: in a bag game an `X` is a cell that never held a piece.
    board: String,
    /// What the player may move: `red`, `black`, `both` or `none` (no colour yet).
    control: String,
    /// The piece drawn from the bag and still to put.
    hand: Option<String>,
    /// The cell of the piece that must capture again (chain capture in progress).
    chain: Option<usize>,
    /// Whether the bag still holds pieces (a `(bag)` draw is possible).
    bag_has_pieces: bool,
    counts: Counts,
    /// The legal actions as wire clauses, sorted.
    actions: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Counts {
    moves: u32,
    jumps: u32,
    reveals: u32,
    bags: u32,
    puts: u32,
}

impl Counts {
    fn add(&mut self, kind: ActionKind) {
        match kind {
            ActionKind::Step => self.moves += 1,
            ActionKind::Jump => self.jumps += 1,
            ActionKind::Reveal => self.reveals += 1,
            ActionKind::Bag => self.bags += 1,
            ActionKind::Put => self.puts += 1,
        }
    }

    fn total(&self) -> usize {
        (self.moves + self.jumps + self.reveals + self.bags + self.puts) as usize
    }
}

/// A line of `setups.jsonl`.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Setup {
    variant: String,
    /// `((game ...)(size N)(pieces ...)(moves ...)(jumps ...))`: the setup message's clauses
    /// that describe the board, printed by the server's own message types.
    setup: String,
}

fn variant(name: &str) -> Arc<Variant> {
    Arc::new(Variant::shipped(name).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn setup_of(variant: &Variant) -> String {
    let clauses = ServerClause::variant_setup(variant);
    format!("({})", clauses.map(|c| c.to_string()).concat())
}

fn control_name(control: Control) -> &'static str {
    match control {
        Control::Nothing => "none",
        Control::Colour(Colour::Red) => "red",
        Control::Colour(Colour::Black) => "black",
        Control::Both => "both",
    }
}

/// The board a row's wire string stands for: in a bag game nothing is face-down, and an `X`
/// is a cell that never held a piece, so it is empty.
fn board_of(variant: &Variant, wire: &str) -> Result<Board, String> {
    let text = if variant.start == Start::Bag {
        wire.replace('X', ".")
    } else {
        wire.to_string()
    };
    let board = Board::parse(&text).map_err(|e| e.to_string())?;
    if board.len() != variant.topology.size() {
        return Err(format!(
            "{} cells, the variant has {}",
            board.len(),
            variant.topology.size()
        ));
    }
    Ok(board)
}

/// What the core says about a row's public state: the counts and the sorted clauses.
fn core_answer(variant: &Variant, row: &Row) -> Result<(Counts, Vec<String>), String> {
    let board = board_of(variant, &row.board)?;
    let control = match row.control.as_str() {
        "none" => Control::Nothing,
        "red" => Control::Colour(Colour::Red),
        "black" => Control::Colour(Colour::Black),
        "both" => Control::Both,
        other => return Err(format!("unknown control {other:?}")),
    };
    let hand = match &row.hand {
        None => None,
        Some(letter) => {
            let mut chars = letter.chars();
            match (chars.next().and_then(Piece::from_letter), chars.next()) {
                (Some(piece), None) => Some(piece),
                _ => return Err(format!("hand {letter:?} is not one piece letter")),
            }
        }
    };
    if row.chain.is_some_and(|c| c >= board.len()) {
        return Err(format!("chain cell {:?} is off the board", row.chain));
    }
    let state = PublicState {
        variant,
        board: &board,
        control,
        hand,
        chain: row.chain,
        bag_has_pieces: row.bag_has_pieces,
    };
    let mut counts = Counts::default();
    let mut actions = Vec::new();
    state.for_each_legal(|action, kind| {
        counts.add(kind);
        actions.push(action.to_string());
    });
    actions.sort();
    Ok((counts, actions))
}

/// Every disagreement between the core and `rows`, in words.
fn disagreements(variant: &Variant, rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        let at = format!("{} row {} ({}, {})", row.variant, n + 1, row.tag, row.board);
        match core_answer(variant, row) {
            Err(e) => out.push(format!("{at}: {e}")),
            Ok((counts, actions)) => {
                if counts != row.counts {
                    out.push(format!(
                        "{at}: counts {:?}, the table says {:?}",
                        counts, row.counts
                    ));
                }
                if actions != row.actions {
                    let core: BTreeSet<_> = actions.iter().collect();
                    let table: BTreeSet<_> = row.actions.iter().collect();
                    out.push(format!(
                        "{at}: only the core has {:?}; only the table has {:?}",
                        core.difference(&table).collect::<Vec<_>>(),
                        table.difference(&core).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    out
}

/// What is wrong with one variant's rows as a table: form, and the situations it must cover.
fn table_problems(variant: &Variant, rows: &[Row]) -> Vec<String> {
    let name = &variant.name;
    let mut out = Vec::new();
    if !(MIN_ROWS..=MAX_ROWS).contains(&rows.len()) {
        out.push(format!(
            "{name}: {} rows, not {MIN_ROWS}..={MAX_ROWS}",
            rows.len()
        ));
    }
    let mut seen = HashSet::new();
    for (n, row) in rows.iter().enumerate() {
        let at = format!("{name} row {}", n + 1);
        if row.variant != *name {
            out.push(format!("{at}: variant {:?}", row.variant));
        }
        if !seen.insert((
            &row.board,
            &row.control,
            &row.hand,
            row.chain,
            row.bag_has_pieces,
        )) {
            out.push(format!("{at}: the same public state as an earlier row"));
        }
        if row.counts.total() != row.actions.len() {
            out.push(format!(
                "{at}: counts {:?} add up to {}, but {} actions are listed",
                row.counts,
                row.counts.total(),
                row.actions.len()
            ));
        }
        if row.actions.windows(2).any(|w| w[0] >= w[1]) {
            out.push(format!("{at}: actions not sorted or listed twice"));
        }
    }
    // The situations a variant can reach, each in at least one row.
    let any = |f: &dyn Fn(&Row) -> bool| rows.iter().any(f);
    let mut want = |what: &str, applies: bool, found: bool| {
        if applies && !found {
            out.push(format!("{name}: no row with {what}"));
        }
    };
    let cannons = variant.pieces.iter().any(|p| p.letter() == 'C');
    let clear = matches!(variant.objective, Objective::Clear { .. });
    let bag = variant.start == Start::Bag;
    want("a move", true, any(&|r| r.counts.moves > 0));
    want(
        "a reveal",
        variant.start.has_unknowns() && !bag,
        any(&|r| r.counts.reveals > 0),
    );
    want(
        "a cannon jump",
        cannons && variant.capture.cannon_jump,
        any(&|r| r.counts.jumps > 0),
    );
    want(
        "a chain capture in progress",
        variant.chain_capture,
        any(&|r| r.chain.is_some()),
    );
    want("a piece in hand", bag, any(&|r| r.hand.is_some()));
    want("a bag draw", bag, any(&|r| r.counts.bags > 0));
    want("both colours", clear, any(&|r| r.control == "both"));
    want(
        "no colour yet",
        !clear && variant.colours == ColourRule::FirstReveal,
        any(&|r| r.control == "none"),
    );
    want(
        "a player not to move",
        variant.players > 1,
        any(&|r| r.tag == "other"),
    );
    out
}

fn read_rows(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), n + 1))
        })
        .collect()
}

fn table_path(name: &str) -> PathBuf {
    Path::new(DIR).join(format!("{name}.jsonl"))
}

#[test]
fn the_core_agrees_with_every_row() {
    let mut problems = Vec::new();
    let mut rows = 0;
    for (name, _) in SHIPPED {
        let v = variant(name);
        let table = read_rows(&table_path(name));
        rows += table.len();
        problems.extend(disagreements(&v, &table));
    }
    assert!(
        problems.is_empty(),
        "{} of {rows} rows disagree with the core:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every file held rows: an empty directory must not pass for agreement.
    assert!(rows >= MIN_ROWS * SHIPPED.len(), "{rows} rows");
}

#[test]
fn the_tables_cover_every_shipped_variant() {
    let mut problems = Vec::new();
    let mut files = BTreeSet::new();
    let mut bytes = 0;
    for entry in std::fs::read_dir(DIR).expect("tests/data/legal_counts exists") {
        let path = entry.unwrap().path();
        bytes += std::fs::metadata(&path).unwrap().len();
        if path.extension().is_some_and(|e| e == "jsonl") {
            files.insert(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    let mut expected: BTreeSet<String> = SHIPPED.iter().map(|(n, _)| n.to_string()).collect();
    expected.insert("setups".into());
    assert_eq!(files, expected, "one table per shipped variant, and setups");
    assert!(bytes <= MAX_BYTES, "the tables take {bytes} bytes");

    // The setups are what the server sends, so a client can decode the topology from them.
    let setups = std::fs::read_to_string(Path::new(DIR).join(SETUPS)).unwrap();
    let setups: Vec<Setup> = setups
        .lines()
        .map(|l| serde_json::from_str(l).expect("a setups.jsonl line"))
        .collect();
    let names: Vec<&str> = setups.iter().map(|s| s.variant.as_str()).collect();
    assert_eq!(names, SHIPPED.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    for s in &setups {
        assert_eq!(
            s.setup,
            setup_of(&variant(&s.variant)),
            "setups.jsonl is stale for {}",
            s.variant
        );
    }

    for (name, _) in SHIPPED {
        problems.extend(table_problems(
            &variant(name),
            &read_rows(&table_path(name)),
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// -----------------------------------------------------------------------------------------
// The generator
// -----------------------------------------------------------------------------------------

/// Random games per variant, and the longest walk.
const GAMES: u64 = 60;
const MAX_PLIES: u32 = 400;
/// Plies at which a mid-game position (and another player's view of it) is a candidate.
const MID_PLIES: [u32; 11] = [6, 12, 20, 30, 45, 60, 80, 110, 150, 200, 260];
/// Rows kept per tag, in this order; `mid` fills what the others leave of [`MAX_ROWS`].
const QUOTAS: [(&str, usize); 7] = [
    ("opening", 4),
    ("chain", 6),
    ("hand", 5),
    ("bag", 3),
    ("cannon", 7),
    ("other", 4),
    ("late", 4),
];

/// The row of a public state, with the core's answer.
fn row_of(variant: &Variant, tag: &str, wire: String, state: &PublicState) -> Row {
    let mut counts = Counts::default();
    let mut actions = Vec::new();
    state.for_each_legal(|action, kind| {
        counts.add(kind);
        actions.push(action.to_string());
    });
    actions.sort();
    Row {
        variant: variant.name.clone(),
        tag: tag.into(),
        board: wire,
        control: control_name(state.control).into(),
        hand: state.hand.map(|p| p.letter().to_string()),
        chain: state.chain,
        bag_has_pieces: state.bag_has_pieces,
        counts,
        actions,
    }
}

/// The mover's row of `game`, tagged by what is most interesting about it.
fn mover_row(game: &Game, seed: u64, last: bool) -> Option<Row> {
    let state = game.public_state();
    let row = row_of(game.variant(), "", game.wire_board(), &state);
    let ply = game.ply();
    let tag = if state.chain.is_some() {
        "chain"
    } else if state.hand.is_some() {
        "hand"
    } else if ply < 3 && seed < 2 {
        "opening"
    } else if MID_PLIES.contains(&ply) && !last {
        "mid"
    } else if row.counts.jumps > 0 && ply > 0 {
        "cannon"
    } else if row.counts.bags > 0 && ply > 0 {
        "bag"
    } else if last {
        "late"
    } else {
        return None;
    };
    Some(Row {
        tag: tag.into(),
        ..row
    })
}

/// Another player's view of `game` (what `Game::counts_of` counts): their control, no hand, no
/// chain.
fn other_row(game: &Game) -> Option<Row> {
    let mover = game.to_move();
    let player = (1..=game.variant().players).find(|&p| p != mover)?;
    let state = PublicState {
        control: game.control_of(player),
        hand: None,
        chain: None,
        ..game.public_state()
    };
    Some(row_of(game.variant(), "other", game.wire_board(), &state))
}

/// Candidates of one variant, by tag, each with the game it came from.
fn candidates(variant: &Arc<Variant>) -> BTreeMap<String, Vec<(u64, Row)>> {
    let mut found: BTreeMap<String, Vec<(u64, Row)>> = BTreeMap::new();
    for seed in 0..GAMES {
        let deal = SeedInputs {
            clients: vec![format!("legal-counts-{seed}")],
            server: variant.name.clone(),
        }
        .deal_for(variant);
        let mut game = Game::new(variant.clone(), deal);
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut previous: Option<Row> = None;
        while game.outcome().is_none() && game.ply() < MAX_PLIES {
            let mut add = |row: Row| found.entry(row.tag.clone()).or_default().push((seed, row));
            if let Some(row) = mover_row(&game, seed, false) {
                add(row);
            }
            if MID_PLIES.contains(&game.ply()) {
                if let Some(row) = other_row(&game) {
                    add(row);
                }
            }
            previous = mover_row(&game, seed, true);
            let actions: Vec<Action> = game.legal_actions();
            let action = actions[(rng.next_u64() % actions.len() as u64) as usize];
            game.play(game.to_move(), action)
                .unwrap_or_else(|e| panic!("{}: a listed action is refused: {e}", variant.name));
        }
        // The last position before the end: few pieces left.
        if let Some(row) = previous.filter(|r| r.tag == "late") {
            found.entry("late".into()).or_default().push((seed, row));
        }
    }
    found
}

/// Picks at most `quota` rows from `pool`: first one per game, then the rest, skipping public
/// states already taken.
fn pick(pool: &[(u64, Row)], quota: usize, taken: &mut HashSet<String>, out: &mut Vec<Row>) {
    let start = out.len();
    let mut games = HashSet::new();
    for first_pass in [true, false] {
        for (seed, row) in pool {
            if out.len() - start >= quota {
                return;
            }
            if first_pass && !games.insert(*seed) {
                continue;
            }
            let key = serde_json::to_string(&(
                &row.board,
                &row.control,
                &row.hand,
                row.chain,
                row.bag_has_pieces,
            ))
            .unwrap();
            if taken.insert(key) {
                out.push(row.clone());
            }
        }
    }
}

/// The table of one variant.
fn generate(variant: &Arc<Variant>) -> Vec<Row> {
    let found = candidates(variant);
    let mut rows = Vec::new();
    let mut taken = HashSet::new();
    for (tag, quota) in QUOTAS {
        pick(
            found.get(tag).map_or(&[], Vec::as_slice),
            quota,
            &mut taken,
            &mut rows,
        );
    }
    let rest = MAX_ROWS - rows.len();
    pick(
        found.get("mid").map_or(&[], Vec::as_slice),
        rest,
        &mut taken,
        &mut rows,
    );
    rows
}

fn jsonl<T: Serialize>(items: &[T]) -> String {
    items
        .iter()
        .map(|item| serde_json::to_string(item).unwrap() + "\n")
        .collect()
}

/// Writes `text` to `path` through a temporary file, so that a reader never sees half a table.
fn write_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("jsonl.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn the_generator_writes_rows_the_core_agrees_with() {
    let write = std::env::var_os("ANQI_WRITE_LEGAL_COUNTS").is_some_and(|v| v == "1");
    let mut problems = Vec::new();
    let mut setups = Vec::new();
    if write {
        std::fs::create_dir_all(DIR).unwrap();
    }
    for (name, _) in SHIPPED {
        let v = variant(name);
        let rows = generate(&v);
        // The rows hold all a client knows: rebuilt from their text alone, the core agrees.
        problems.extend(disagreements(&v, &rows));
        problems.extend(table_problems(&v, &rows));
        setups.push(Setup {
            variant: name.to_string(),
            setup: setup_of(&v),
        });
        if write {
            write_atomically(&table_path(name), &jsonl(&rows));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    if write {
        write_atomically(&Path::new(DIR).join(SETUPS), &jsonl(&setups));
        eprintln!("wrote the tables in {DIR}");
    }
}
