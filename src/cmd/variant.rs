//! `anqi variant check`: a plain-text account of a variant description, for people writing one.

use anqi_core::rules::{Colour, ColourRule, Kind, Objective, Repetition, Start, Topology, Variant};
use anyhow::Result;
use std::fmt::Write;
use std::process::ExitCode;

/// Tools for variant descriptions.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: VariantCommand,
}

#[derive(clap::Subcommand)]
enum VariantCommand {
    /// Validate a description (a file, or a shipped name) and print what it describes: board
    /// size, move and jump counts, pieces, players, sides and every rule.
    ///
    /// When the description is invalid (or over a limit of protocol/VARIANTS.md, Limits), or
    /// the file cannot be read, or no shipped variant has the name, prints `invalid:` with the
    /// file, the line and the problem, and exits with status 2.
    Check {
        #[arg(value_name = "FILE|NAME")]
        file: String,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    let VariantCommand::Check { file } = args.command;
    Ok(match Variant::load(&file) {
        Ok(v) => {
            print!("{}", report(&v));
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("invalid: {e}");
            ExitCode::from(2)
        }
    })
}

/// Largest grid (rows x columns of the display positions) the report draws.
const MAX_DRAWN: usize = 128 * 128;

/// Describes a valid variant: its board (with the paper's counts checked on rectangles), pieces,
/// players, and every rule.
fn report(v: &Variant) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "variant {}: valid", v.name);
    if !v.summary.is_empty() {
        let _ = writeln!(o, "  summary:    {}", v.summary);
    }
    let _ = writeln!(
        o,
        "  game type:  {} (sent as (game {}))",
        v.game_type, v.game_type
    );
    board(&mut o, &v.topology);
    if let Some(coords) = v.topology.coords() {
        grid(&mut o, coords);
    }
    pieces(&mut o, v);
    players(&mut o, v);
    play(&mut o, v);
    captures(&mut o, v);
    ends(&mut o, v);
    o
}

/// The board's line: its cells, moves, jump targets and rays, and on a rectangle the paper's
/// formulas for the moves and jumps checked against the counts.
fn board(o: &mut String, t: &Topology) {
    let rays: usize = (0..t.size()).map(|c| t.rays(c).len()).sum();
    let _ = writeln!(
        o,
        "  board:      {t}: {} cells, {} moves, {} jump targets on {rays} rays",
        t.size(),
        t.moves().len(),
        t.jump_target_count()
    );
    if let Some((l, c)) = t.rectangle_dims() {
        let (moves, jumps) = (
            4 * l * c - 2 * l - 2 * c,
            l * (c - 2) * (c - 1) + c * (l - 2) * (l - 1),
        );
        let ok = |a: usize, b: usize| if a == b { "ok" } else { "MISMATCH" };
        let _ = writeln!(
            o,
            "              paper's formulas: 4LC-2L-2C = {moves} ({}), L(C-2)(C-1)+C(L-2)(L-1) = {jumps} ({})",
            ok(moves, t.moves().len()),
            ok(jumps, t.jump_target_count())
        );
    }
}

/// The board drawn as its cell numbers at their display positions (a board that has them),
/// apart from the board's line: only a grid that fits on a screen is drawn.
fn grid(o: &mut String, coords: &[(usize, usize)]) {
    let rows = coords.iter().map(|&(r, _)| r).max().unwrap_or(0) + 1;
    let cols = coords.iter().map(|&(_, c)| c).max().unwrap_or(0) + 1;
    // A few cells may be spread over a huge grid (positions go up to 4095): draw only a
    // grid that fits on a screen, or nearly.
    if rows * cols <= MAX_DRAWN {
        let mut grid = vec![vec!["  .".to_string(); cols]; rows];
        for (cell, &(r, c)) in coords.iter().enumerate() {
            grid[r][c] = format!("{cell:>3}");
        }
        for row in grid {
            let _ = writeln!(o, "             {}", row.concat());
        }
    } else {
        let _ = writeln!(
            o,
            "              (not drawn: the positions span {rows} rows and {cols} columns)"
        );
    }
}

/// The pieces: their number and wire string, then each colour's pieces counted by kind.
fn pieces(o: &mut String, v: &Variant) {
    let _ = writeln!(o, "  pieces:     {} ({})", v.pieces.len(), v.pieces_wire());
    for colour in Colour::ALL {
        let counts: Vec<String> = Kind::ALL
            .iter()
            .filter_map(|&k| {
                let n = v
                    .pieces
                    .iter()
                    .filter(|p| p.colour == colour && p.kind == k)
                    .count();
                (n > 0).then(|| format!("{}x{}", n, k.name()))
            })
            .collect();
        let _ = writeln!(o, "              {}: {}", colour.name(), counts.join(", "));
    }
}

/// The players, the sides they make and the turn order.
fn players(o: &mut String, v: &Variant) {
    let sides: Vec<String> = v
        .sides
        .iter()
        .map(|s| {
            format!(
                "({})",
                s.iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect();
    let order: Vec<String> = v.order.iter().map(|p| p.to_string()).collect();
    let _ = writeln!(
        o,
        "  players:    {}; sides {}; turn order {}",
        v.players,
        sides.join(" "),
        order.join(" ")
    );
}

/// How a game starts and is won: the start, the colour rule and the objective.
fn play(o: &mut String, v: &Variant) {
    let start = match &v.start {
        Start::FaceDown => "every piece face-down, dealt at random".to_string(),
        Start::Reveal(k) => format!("dealt face-down at random, then {k} turned face-up at random"),
        Start::Open => "dealt at random, every piece face-up".to_string(),
        Start::Fixed { board, deal: None } => {
            format!("fixed board {board}, face-down pieces dealt at random")
        }
        Start::Fixed {
            board,
            deal: Some(d),
        } => format!("fixed board {board} with deal {d} (no randomness)"),
        Start::Bag => "empty board, every piece in the bag: (bag) then (put P POS)".to_string(),
    };
    let _ = writeln!(o, "  start:      {start}");
    let colours = match v.colours {
        ColourRule::FirstReveal => "decided by the first reveal or bag draw",
        ColourRule::Fixed => "fixed: side 1 red, side 2 black",
    };
    let _ = writeln!(o, "  colours:    {colours}");
    let objective = match v.objective {
        Objective::Capture => {
            "capture: a side with no pieces left, or no legal action, loses".to_string()
        }
        Objective::Clear { ply_cap } => {
            format!(
                "clear: every player moves both colours; remove one colour within {ply_cap} plies"
            )
        }
    };
    let _ = writeln!(o, "  objective:  {objective}");
}

/// The capture rules: the ranks, the table of step captures, the cannon and chain capture.
fn captures(o: &mut String, v: &Variant) {
    let ranks: Vec<String> = Kind::ALL
        .iter()
        .map(|k| format!("{}{}", k.letter(), v.capture.ranks[k.index()]))
        .collect();
    let _ = writeln!(o, "  ranks:      {}", ranks.join(" "));
    let _ = writeln!(o, "  step captures (row takes column):");
    let _ = writeln!(
        o,
        "                 {}",
        Kind::ALL
            .iter()
            .map(|k| format!(" {}", k.letter()))
            .collect::<String>()
    );
    for a in Kind::ALL {
        let row: String = Kind::ALL
            .iter()
            .map(|&t| {
                if v.capture.can_step_capture(a, t) {
                    " x"
                } else {
                    " ."
                }
            })
            .collect();
        let _ = writeln!(o, "               {} {row}", a.letter());
    }
    let _ = writeln!(
        o,
        "  cannon:     {}",
        if v.capture.cannon_jump {
            "captures by jumping exactly one screen"
        } else {
            "does not jump"
        }
    );
    let _ = writeln!(
        o,
        "  chain capture: {}",
        if v.chain_capture { "yes" } else { "no" }
    );
}

/// How a game may end in a draw, and the clock the description sets.
fn ends(o: &mut String, v: &Variant) {
    let draw = &v.draw;
    let no_progress = draw
        .no_progress
        .map_or("none".to_string(), |n| format!("{n} plies"));
    let repetition = match draw.repetition {
        None => "none".to_string(),
        Some(Repetition::Occurrence(n)) => format!("a position's occurrence number {n}"),
        Some(Repetition::Cycle { times, extra }) => {
            format!("a cycle repeated {times} times in a row, plus {extra} plies")
        }
    };
    let _ = writeln!(
        o,
        "  draws:      no progress: {no_progress}; repetition: {repetition}"
    );
    let ms = |v: Option<u64>| v.map_or("server default".to_string(), |n| format!("{n} ms"));
    let _ = writeln!(
        o,
        "  clock:      game {}, move {}, increment {}",
        ms(v.clock.game_ms),
        ms(v.clock.move_ms),
        ms(v.clock.increment_ms)
    );
}
