//! `anqi solve`: the exact value of a small variant, and the check of a solution file.

use anqi_core::rules::{Action, Game, Variant};
use anqi_core::solve::{file, Scale, Solver};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Solve a small variant exactly: player 1's expected score (win 1, draw 1/2, loss 0)
/// under best play, as a fraction and a decimal, the value of every first action and of
/// every piece a first reveal may turn up, the states by material and by depth, and a
/// solution file.
///
/// The semantics (protocol/SOLVING.md): a state is the public board, the unseen pieces,
/// the player to move and the colours; play that never reveals nor captures again is a
/// draw, in place of the variant's no-progress and repetition rules. Two-player capture
/// variants without bag or chain captures, on at most 16 cells, whose start puts every
/// piece face-down on a full board (of the shipped variants, traditional-2x4).
///
/// Examples:
///
///   anqi solve traditional-2x4                    # writes traditional-2x4.solution
///
///   anqi solve --verify traditional-2x4.solution  # re-derives every stored value
///
///   anqi solve my-board.sexp --out my-board.solution --max-states 100000000
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// A variant name or description file; with --verify, a solution file.
    target: String,
    /// Where to write the solution file (default: NAME.solution in this directory).
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Check a solution file by an independent pass: every stored value re-derived from its
    /// children's, and its plies from theirs (values held up around a cycle fail).
    #[arg(long)]
    verify: bool,
    /// Stop (exit status 3) once more than N states are valued: for finding how far a board
    /// goes in the memory at hand (about 75 bytes a state while solving).
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.verify {
        return verify(&args.target);
    }
    let variant = Variant::load(&args.target).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut solver = Solver::new(&variant)?;
    let start = solver.start()?;
    let started = Instant::now();
    watch(&mut solver, variant.name.clone(), started, args.max_states);
    let value = solver.value(&start);
    let seconds = started.elapsed().as_secs_f64();
    eprintln!();
    let scale = solver.scale();
    println!(
        "{}: player 1's expected score under best play",
        variant.name
    );
    println!("  value: {}", shown(scale, value));
    first_actions(&mut solver, &start)?;
    let stats = solver.stats().clone();
    state_counts(&solver, &variant);
    println!(
        "{} states in {} components, {:.1} s, peak memory {}; the longest forced quiet play {} plies",
        stats.states,
        stats.components,
        seconds,
        peak_memory(),
        stats.longest_forced
    );
    let out = args
        .out
        .unwrap_or_else(|| format!("{}.solution", variant.name).into());
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&out).with_context(|| format!("cannot write {}", out.display()))?,
    );
    file::write(&mut w, &variant, scale, value, solver.values())
        .with_context(|| format!("cannot write {}", out.display()))?;
    w.flush()?;
    println!(
        "solution: {} ({} bytes); check it with anqi solve --verify {}",
        out.display(),
        std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Shows the solve's progress on stderr, and stops the program (exit status 3, with a line on
/// stdout) once more than `max_states` states are valued.
fn watch(solver: &mut Solver, name: String, started: Instant, max_states: Option<u64>) {
    solver.on_progress(move |stats| {
        eprint!(
            "\rsolving: {} states, {} components, {:.0} s   ",
            stats.states,
            stats.components,
            started.elapsed().as_secs_f64()
        );
        if max_states.is_some_and(|max| stats.states > max) {
            eprintln!();
            println!(
                "{name}: stopped after more than {} states ({} components, {:.0} s, peak memory {}): not solved within --max-states",
                stats.states,
                stats.components,
                started.elapsed().as_secs_f64(),
                peak_memory()
            );
            std::process::exit(3);
        }
    });
}

/// The value of each of player 1's first actions from `start`, and of a reveal, of each piece
/// it may turn up (with how many of it are face-down).
fn first_actions(solver: &mut Solver, start: &Game) -> Result<()> {
    let scale = solver.scale();
    let show = |v: u64| shown(scale, v);
    println!("first actions (player 1), and what each reveal may turn up:");
    let mover = start.to_move();
    for action in start.legal_actions() {
        match action {
            Action::Reveal(cell) => {
                let v = solver.reveal_value(start, cell);
                println!("  (rev {cell}): {}", show(v));
                for (piece, n, v) in solver.reveal_outcomes(start, cell) {
                    println!("      {piece} (x{n}): {}", show(v));
                }
            }
            other => {
                let mut child = start.clone();
                child.play(mover, other)?;
                println!("  {other}: {}", show(solver.value(&child)));
            }
        }
    }
    Ok(())
}

/// The states valued, counted by pieces on the board and face-down cells, by pieces alone, and
/// by depth from the start.
fn state_counts(solver: &Solver, variant: &Variant) {
    let cells = solver.cells();
    let mut by_material: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for key in solver.values().keys() {
        *by_material.entry(key.material(cells)).or_default() += 1;
    }
    println!("states by pieces on the board (face-up and face-down) and face-down cells:");
    let mut by_pieces: BTreeMap<u32, u64> = BTreeMap::new();
    for (&(down, pieces), &n) in &by_material {
        *by_pieces.entry(pieces).or_default() += n;
        println!("  {pieces:2} pieces, {down:2} face-down: {n:>12}");
    }
    for (pieces, n) in by_pieces.iter().rev() {
        println!("  {pieces:2} pieces in all: {n:>12}");
    }
    // A piece is captured face-up, so a state's reveals and captures since the start are its
    // face-down cells and pieces short of the start's.
    let all = variant.pieces.len() as u32;
    let mut by_depth: BTreeMap<u32, u64> = BTreeMap::new();
    for (&(down, pieces), &n) in &by_material {
        *by_depth.entry(2 * all - down - pieces).or_default() += n;
    }
    println!("states by depth (reveals and captures since the start):");
    for (depth, n) in &by_depth {
        println!("  {depth:2}: {n:>12}");
    }
}

fn verify(path: &str) -> Result<ExitCode> {
    // The header and every state's order are checked as the file is read: a file that fails
    // those is not verified either (status 1), with the reason.
    let (header, values) = match file::open(std::path::Path::new(path)) {
        Ok(read) => read,
        Err(e) => {
            println!("{path}: NOT verified: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let started = Instant::now();
    let total = values.len();
    let result = file::verify(&header, &values, |n| {
        eprint!("\rverifying: {n} of {total} states   ");
    });
    eprintln!();
    match result {
        Ok(done) => {
            let scale = Scale {
                denominator: header.denominator,
            };
            println!(
                "{path}: verified: {} states, every value and its plies re-derived from its children ({:.1} s); value {}",
                done.states,
                started.elapsed().as_secs_f64(),
                shown(scale, done.start)
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("{path}: NOT verified: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// A value as a reduced fraction and a decimal: `31/80 = 0.387500`.
fn shown(scale: Scale, v: u64) -> String {
    let (n, d) = scale.fraction(v);
    format!("{n}/{d} = {:.6}", scale.decimal(v))
}

/// The process's peak resident memory (Linux: VmHWM), or "unknown".
pub fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
