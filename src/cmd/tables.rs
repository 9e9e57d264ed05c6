//! `anqi tables`: endgame tables, built, described and probed.

use anqi_core::rules::{Board, Colour, Game, Position, Variant};
use anqi_core::tables::{build_pair, file, Material, Table, TableRules, Tables, Verdict};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Endgame tables: every position with all pieces face-up and at most K pieces on the board,
/// won, drawn or lost for the side to move and in how many plies, by retrograde analysis
/// (protocol/SOLVING.md, "Endgame tables").
///
/// Values follow the capture and stalemate rules alone: a win is a forced capture of every
/// enemy piece or a stalemate, the winner taking the shortest way and the loser the longest;
/// a draw means neither side can force an end. Adjudication (`adjudicate = "tables"`) rules a
/// win only when its plies fit in what the no-progress rule leaves.
///
/// Examples:
///
///   anqi tables build --pieces 3                        # traditional-3.tables, seconds
///
///   anqi tables build --pieces 4                        # traditional-4.tables: ~2 CPU-minutes
///
///   anqi tables info traditional-4.tables
///
///   anqi tables probe traditional-4.tables --board K.......k......p................ --to-move red
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Build(BuildArgs),
    Info(InfoArgs),
    Probe(ProbeArgs),
}

/// Build the tables of every material of at most --pieces pieces, fewest pieces first, and
/// write them to one file.
#[derive(clap::Args)]
struct BuildArgs {
    /// The variant (a shipped name or a description file): its board, steps and capture rules
    /// make the values, and its pieces the materials.
    #[arg(default_value = "traditional")]
    variant: String,
    /// The most pieces on the board (both colours together; 2 or more).
    #[arg(long, value_name = "K")]
    pieces: usize,
    /// Only these materials (letters, as `KGkp`) and the ones their captures lead to, instead
    /// of all: for a quick table, or a test. Repeat it for more.
    #[arg(long, value_name = "LETTERS")]
    material: Vec<String>,
    /// Where to write them (default: VARIANT-K.tables in this directory).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Materials built at once, each with its colour swap on a thread of its own (default:
    /// the machine's cores). The file is the same whatever the number.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

/// Print a tables file's figures: materials, positions, wins, draws and losses, the longest
/// win, and the size on disk. The header is checked as a server checks it (the file's
/// format, the rules, each material's place and length); with --check, every material's
/// values too, as a server checks each the first time a game reaches it.
#[derive(clap::Args)]
struct InfoArgs {
    file: PathBuf,
    /// Also one line per material.
    #[arg(long)]
    materials: bool,
    /// Also read every material's values and check them (their SHA-256, their length once
    /// inflated, their counts): exit status 1 when one fails.
    #[arg(long)]
    check: bool,
    /// The variant, when the tables name one that is not shipped (a description file).
    #[arg(long)]
    variant: Option<String>,
}

/// The value of one position for the side to move, its best move, and every move's value.
#[derive(clap::Args)]
struct ProbeArgs {
    file: PathBuf,
    /// The board, one letter per cell as on the wire (`.` empty; every piece face-up).
    #[arg(long)]
    board: String,
    /// The colour to move.
    #[arg(long, value_name = "red|black")]
    to_move: String,
    /// The variant, when it is not the one the tables name.
    #[arg(long)]
    variant: Option<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Build(a) => build(a),
        Command::Info(a) => info(a),
        Command::Probe(a) => probe(a),
    }
}

/// The rules of a variant's tables.
fn rules_of(name: &str) -> Result<TableRules> {
    let variant = Variant::load(name).map_err(|e| anyhow!("{e}"))?;
    TableRules::new(Arc::new(variant)).map_err(|e| anyhow!("{e}"))
}

/// The rules to open a tables file with: those of the variant given on the command line, or
/// else of the shipped variant its header names (a name read from a file is never taken for a
/// path to read).
fn rules_for(header: &file::Header, path: &Path, given: Option<&str>) -> Result<TableRules> {
    if let Some(name) = given {
        return rules_of(name);
    }
    let variant = Variant::shipped(&header.variant).map_err(|_| {
        anyhow!(
            "{}: tables of variant {}, which is not a shipped variant: give its description with --variant FILE",
            path.display(),
            anqi_core::tables::clip(&header.variant, 60)
        )
    })?;
    TableRules::new(Arc::new(variant)).map_err(|e| anyhow!("{e}"))
}

/// The materials to build: all of at most `k` pieces, or the named ones and those their
/// captures lead to; each with its colour swap.
fn materials(rules: &TableRules, k: usize, named: &[String]) -> Result<Vec<Material>> {
    let all = rules.materials(k);
    if named.is_empty() {
        return Ok(all);
    }
    let mut wanted = std::collections::BTreeSet::new();
    let mut todo = Vec::new();
    for name in named {
        let m = Material::parse(name).map_err(|e| anyhow!("--material: {e}"))?;
        if !all.contains(&m) {
            bail!("--material {name}: not a material of at most {k} pieces of the variant, with a piece of each colour");
        }
        todo.push(m);
    }
    while let Some(m) = todo.pop() {
        for m in [m, m.swapped()] {
            if m.of_colour(Colour::Red) == 0 || m.of_colour(Colour::Black) == 0 {
                continue;
            }
            if wanted.insert(m) {
                let counts = m.counts();
                todo.extend((0..14).filter(|&i| counts[i] > 0).map(|i| m.without(i)));
            }
        }
    }
    Ok(all.into_iter().filter(|m| wanted.contains(m)).collect())
}

fn build(args: BuildArgs) -> Result<ExitCode> {
    if args.pieces < 2 {
        bail!(
            "--pieces {}: a table needs a piece of each colour, so 2 or more",
            args.pieces
        );
    }
    let rules = rules_of(&args.variant)?;
    let wanted = materials(&rules, args.pieces, &args.material)?;
    for &m in &wanted {
        if rules.layout(m).is_none() {
            bail!("material {m}: too many positions to index (more than 2^40)");
        }
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("{}-{}.tables", rules.variant.name, args.pieces)));
    // Each table is compressed as soon as it is built and its bytes go to a part file beside
    // the output; the tables of the last level are then dropped (only the smaller ones are
    // needed to build on), so memory holds K-1 pieces' tables, not K's.
    let part_path = out.with_extension("tables.part");
    let positions: HashMap<Material, u64> = wanted
        .iter()
        .map(|&m| (m, rules.layout(m).map_or(0, |l| l.len())))
        .collect();
    let builder = Builder {
        rules: &rules,
        threads,
        progress: Progress {
            total: positions.values().sum(),
            done: AtomicU64::new(0),
            positions,
        },
        part: Mutex::new((
            std::io::BufWriter::new(
                std::fs::File::create(&part_path)
                    .with_context(|| format!("cannot write {}", part_path.display()))?,
            ),
            0u64,
            Vec::new(),
        )),
        part_path: &part_path,
        started: Instant::now(),
    };
    let mut solved: HashMap<Material, Table> = HashMap::new();
    for level in 2..=args.pieces {
        builder.level(level, &wanted, level < args.pieces, &mut solved)?;
    }
    eprintln!();
    drop(solved);
    let seconds = builder.started.elapsed().as_secs_f64();
    let (mut writer, _, mut entries) = builder.part.into_inner().expect("no panic while held");
    std::io::Write::flush(&mut writer)
        .with_context(|| format!("cannot write {}", part_path.display()))?;
    drop(writer);
    // The file, in a stable order (fewest pieces, then name), whatever order threads built in.
    entries.sort_by_key(|(e, _)| {
        (
            Material::parse(&e.name).map_or(0, |m| m.pieces()),
            e.name.clone(),
        )
    });
    let header = file::header(
        &rules,
        args.pieces,
        seconds,
        entries.iter().map(|(e, _)| e.clone()).collect(),
    );
    write_tables(&out, &header, &part_path, &entries)
        .with_context(|| format!("cannot write {}", out.display()))?;
    std::fs::remove_file(&part_path)
        .with_context(|| format!("cannot remove {}", part_path.display()))?;
    println!("{}", summary(&header, &out, rules.variant.topology.size())?);
    println!(
        "built in {seconds:.1} s on {threads} threads, peak memory {}",
        crate::cmd::solve::peak_memory()
    );
    Ok(ExitCode::SUCCESS)
}

/// The part file of a build: its writer, the bytes written so far, and each table's entry with
/// its offset in it.
type Part = Mutex<(
    std::io::BufWriter<std::fs::File>,
    u64,
    Vec<(file::MaterialEntry, u64)>,
)>;

/// How far a build is, in positions: a material's work grows with its positions (each is
/// decoded, its moves generated and looked up), so the share of positions built is the share
/// of the time spent, near enough for an estimate of the time left. Larger materials take a
/// little longer per position (more moves), so the estimate errs short early on.
struct Progress {
    /// The positions of each material to build.
    positions: HashMap<Material, u64>,
    total: u64,
    done: AtomicU64,
}

impl Progress {
    /// Counts material `m`'s tables (it and its colour swap) as built; the share of all
    /// positions built so far.
    fn built(&self, m: Material) -> f64 {
        let mut n = self.positions.get(&m).copied().unwrap_or(0);
        if m.swapped() != m {
            n += self.positions.get(&m.swapped()).copied().unwrap_or(0);
        }
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        done as f64 / self.total.max(1) as f64
    }
}

/// A duration to the nearest sensible unit: `40 s`, `3 min 20 s`, `2 h 05 min`.
fn duration_text(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// The progress line: the level, its materials built, the share of all positions, the time
/// spent and, once something is built, the time left at the pace so far.
fn progress_line(level: usize, built: usize, units: usize, share: f64, spent: f64) -> String {
    let left = if share > 0.0 && share < 1.0 {
        format!(
            ", about {} left",
            duration_text(spent * (1.0 - share) / share)
        )
    } else {
        String::new()
    };
    format!(
        "tables: {level} pieces: {built}/{units} materials and their colour swaps; {:.0}% of all positions in {}{left}",
        100.0 * share,
        duration_text(spent)
    )
}

/// What every level of `anqi tables build` shares: the rules, the threads, how far the build
/// is, the part file the compressed tables go to as they are built, and when the build started
/// (for the progress).
struct Builder<'a> {
    rules: &'a TableRules,
    threads: usize,
    progress: Progress,
    part: Part,
    part_path: &'a Path,
    started: Instant,
}

impl Builder<'_> {
    /// Builds the tables of `level` pieces among `wanted`, one material and its colour swap at
    /// a time on each thread, from the smaller tables in `solved`, each written to the part
    /// file as soon as it is built; they join `solved` when `keep` (a larger level builds on
    /// them), and a line on stderr says how far the level is.
    fn level(
        &self,
        level: usize,
        wanted: &[Material],
        keep: bool,
        solved: &mut HashMap<Material, Table>,
    ) -> Result<()> {
        // One unit per material and its swap.
        let mut units: Vec<Material> = Vec::new();
        for &m in wanted.iter().filter(|m| m.pieces() == level) {
            if !units.contains(&m.swapped()) {
                units.push(m);
            }
        }
        let next = AtomicUsize::new(0);
        let built = AtomicUsize::new(0);
        let done = Mutex::new(Vec::new());
        let failed = Mutex::new(None);
        let shown = Mutex::new(Instant::now());
        let total = units.len();
        let solved_so_far = &*solved;
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(total.max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&m) = units.get(i) else { break };
                    let tables = build_pair(self.rules, m, solved_so_far);
                    let packed: Vec<file::Packed> = tables.iter().map(file::pack_table).collect();
                    {
                        let mut part = self.part.lock().expect("no panic while held");
                        let (writer, offset, entries) = &mut *part;
                        for p in packed {
                            if let Err(e) = std::io::Write::write_all(writer, &p.bytes) {
                                *failed.lock().expect("no panic while held") = Some(e);
                            }
                            entries.push((p.entry, *offset));
                            *offset += p.bytes.len() as u64;
                        }
                    }
                    if keep {
                        done.lock().expect("no panic while held").extend(tables);
                    }
                    let share = self.progress.built(m);
                    let count = built.fetch_add(1, Ordering::Relaxed) + 1;
                    let mut shown = shown.lock().expect("no panic while held");
                    if shown.elapsed().as_secs_f64() >= 1.0 || count == total {
                        *shown = Instant::now();
                        let spent = self.started.elapsed().as_secs_f64();
                        eprint!("\r{}   ", progress_line(level, count, total, share, spent));
                    }
                });
            }
        });
        if let Some(e) = failed.into_inner().expect("no panic while held") {
            bail!("cannot write {}: {e}", self.part_path.display());
        }
        for t in done.into_inner().expect("no panic while held") {
            solved.insert(t.layout().material(), t);
        }
        Ok(())
    }
}

/// Writes the tables file `out`: the header, then each table's bytes copied from the part file
/// in the header's order.
fn write_tables(
    out: &Path,
    header: &file::Header,
    part_path: &Path,
    entries: &[(file::MaterialEntry, u64)],
) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut writer = std::io::BufWriter::new(std::fs::File::create(out)?);
    file::write_header(&mut writer, header)?;
    let mut part = std::fs::File::open(part_path)?;
    for (e, at) in entries {
        part.seek(SeekFrom::Start(*at))?;
        std::io::copy(&mut (&mut part).take(e.bytes), &mut writer)?;
    }
    writer.flush()?;
    Ok(())
}

/// A tables file's figures, as `build` and `info` print them.
fn summary(header: &file::Header, path: &Path, cells: usize) -> Result<String> {
    let bytes = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let (mut stored, mut all, mut wins, mut draws, mut losses, mut longest) =
        (0u64, 0u128, 0, 0, 0, 0);
    for m in &header.materials {
        stored += m.stats.positions;
        // Either colour to move.
        all += 2 * Material::parse(&m.name)
            .map_err(|e| anyhow!(e))?
            .placements(cells);
        wins += m.stats.wins;
        draws += m.stats.draws;
        losses += m.stats.losses;
        longest = longest.max(m.stats.longest);
    }
    let pct = |n: u64| 100.0 * n as f64 / stored.max(1) as f64;
    Ok(format!(
        "{path}: {variant} tables of at most {k} pieces, {materials} materials\n\
         positions: {all} (either colour to move), {stored} stored: x{ratio:.2} fewer by the colour swap and {syms} board symmetries\n\
         side to move: wins {wins} ({w:.1}%), draws {draws} ({d:.1}%), losses {losses} ({l:.1}%); the longest win or loss {longest} plies\n\
         on disk: {bytes} bytes ({per:.3} bytes a stored position)",
        path = path.display(),
        variant = header.variant,
        k = header.pieces,
        materials = header.materials.len(),
        ratio = all as f64 / stored.max(1) as f64,
        syms = header.symmetries,
        w = pct(wins),
        d = pct(draws),
        l = pct(losses),
        per = bytes as f64 / stored.max(1) as f64,
    ))
}

fn read_header(path: &Path) -> Result<file::Header> {
    file::read_header(path).map_err(|e| anyhow!(e))
}

fn info(args: InfoArgs) -> Result<ExitCode> {
    let header = read_header(&args.file)?;
    let rules = rules_for(&header, &args.file, args.variant.as_deref())?;
    let cells = rules.variant.topology.size();
    let tables = Tables::open(&args.file, rules).map_err(|e| anyhow!(e))?;
    println!("{}", summary(&header, &args.file, cells)?);
    if header.build_seconds > 0.0 {
        println!("built in {:.1} s", header.build_seconds);
    }
    if args.materials {
        for m in &header.materials {
            println!(
                "{:<8} {:>10} positions  wins {:>10}  draws {:>10}  losses {:>10}  longest {:>3}  {:>9} bytes",
                m.name, m.stats.positions, m.stats.wins, m.stats.draws, m.stats.losses, m.stats.longest, m.bytes
            );
        }
    }
    if args.check {
        let faults = tables.check_all();
        for fault in &faults {
            println!("FAILED: {fault}");
        }
        println!(
            "checked: {} materials, {} failed",
            header.materials.len(),
            faults.len()
        );
        if !faults.is_empty() {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn probe(args: ProbeArgs) -> Result<ExitCode> {
    let header = read_header(&args.file)?;
    let rules = rules_for(&header, &args.file, args.variant.as_deref())?;
    let variant = rules.variant.clone();
    let tables = Tables::open(&args.file, rules).map_err(|e| anyhow!(e))?;
    let board = Board::parse(&args.board).map_err(|e| anyhow!("--board: {e}"))?;
    if board.len() != variant.topology.size() {
        bail!(
            "--board: {} cells, the {} board has {}",
            board.len(),
            variant.name,
            variant.topology.size()
        );
    }
    let mover = match args.to_move.as_str() {
        "red" => Colour::Red,
        "black" => Colour::Black,
        other => bail!("--to-move {other}: red or black"),
    };
    let Some(verdict) = tables.probe(&board, mover).map_err(|e| anyhow!(e))? else {
        println!("not in the tables: they hold boards with every piece face-up, a piece of each colour and at most {} pieces", tables.pieces());
        return Ok(ExitCode::from(1));
    };
    println!("{} to move: {}", mover.name(), verdict_text(verdict));
    // Each move's value, from a game at the position (side 0 plays red).
    let position = Position {
        squares: board.squares().to_vec(),
        face_down: Vec::new(),
        turn_place: mover.index(),
        side_colours: vec![Some(Colour::Red), Some(Colour::Black)],
    };
    let game = Game::from_position(variant.clone(), &position).map_err(|e| anyhow!("{e}"))?;
    if let Some(mut moves) = tables.action_verdicts(&game).map_err(|e| anyhow!(e))? {
        // Best first; a stable sort keeps the legal order among equals.
        moves.sort_by_key(|&(_, v)| std::cmp::Reverse(v.rank()));
        if let Some(&(best, v)) = moves.first() {
            println!("best: {best} ({})", verdict_text(v));
        }
        for (action, v) in moves {
            println!("  {action}: {}", verdict_text(v));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Win { plies } => format!("win in {plies} plies"),
        Verdict::Loss { plies } => format!("loss in {plies} plies"),
        Verdict::Draw => "draw (neither side can force an end)".into(),
    }
}
