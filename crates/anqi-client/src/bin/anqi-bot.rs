//! The reference bots behind one command: random, greedy and search, of clearly different
//! strength (see `anqi_client::bots`).

use anqi_client::bots::{GreedyBot, PerfectBot, SearchBot};
use anqi_client::{play_game, Bot, RandomBot};
use anqi_core::tables::{TableRules, Tables};
use clap::{Parser, ValueEnum};
use std::sync::Arc;

/// Connects to an anqi server and plays with one of the reference bots.
///
/// Strategies, weakest first:
///
///   random  a uniformly random legal action.
///
///   greedy  one ply of material bookkeeping: takes the most valuable piece it safely can, moves
///           a threatened piece away, never hangs a piece for nothing, reveals where nothing it
///           would lose can appear. Beats random nearly always.
///
///   search  expectiminimax over the public state: reveals are chance nodes over the pieces
///           still face-down, capture sequences are followed past the depth; --depth plies
///           (default 3: about a millisecond per move on 4x8 in a release build). Beats greedy
///           clearly. With --tables FILE (`anqi tables build` writes it), endgames the tables
///           hold are played from them, and searched into.
///
///   perfect a solved variant played perfectly from its solution file (`anqi solve VARIANT`
///           writes it; --solution FILE): the best exact expectation at every choice.
///
/// Every choice is deterministic given --seed: game k of --games uses seed+k, sent to the server
/// as the SEED of (init NAME SEED) and used for the bot's tie-breaks.
///
/// Examples:
///
///   anqi-bot --connect 127.0.0.1:7700 --strategy greedy
///
///   anqi-bot --connect 127.0.0.1:7700 --strategy search --depth 4 --seed 7 --games 10
///
///   anqi-bot --connect 127.0.0.1:7700 --strategy search --variant strategic
///
///   anqi-bot --connect 127.0.0.1:7700 --strategy search --tables traditional-4.tables
///
///   anqi-bot --connect 127.0.0.1:7700 --strategy perfect --solution traditional-2x4.solution
#[derive(Parser)]
#[command(name = "anqi-bot", version, about, verbatim_doc_comment)]
struct Args {
    /// Server address, as printed by `anqi serve` (`listening on HOST:PORT`).
    #[arg(long, value_name = "HOST:PORT")]
    connect: String,
    /// How the bot plays.
    #[arg(long, value_enum, default_value_t = Strategy::Search)]
    strategy: Strategy,
    /// Search depth in plies (search only; at least 1). On 4x8 in a release build, depth 3 takes
    /// about 1 ms per move on average, depth 4 about 10 ms; a node budget caps every move.
    #[arg(long, value_name = "N", default_value_t = SearchBot::DEFAULT_DEPTH)]
    depth: u32,
    /// Name sent in (init NAME SEED) (default: the strategy's name, e.g. `search_bot`).
    #[arg(long)]
    name: Option<String>,
    /// Seed: sent as the SEED contribution and used for the bot's own choices (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// Token given by a tournament: sent as the SEED of (init NAME SEED) instead of the seed,
    /// which then only drives the bot's own choices. `anqi tournament` sets ANQI_TOKEN for the
    /// engines it starts; prefer it to this option, since a command line is readable by every
    /// local user (ps, /proc) and the token is a secret.
    #[arg(long, env = "ANQI_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Games to play one after another (a new connection each).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// The variant the server plays (a shipped name or a description file). Without it the bot
    /// plays by the description the server sends (the `variant` protocol extension), or, from
    /// a server without extensions, assumes the standard rules of the announced (game TYPE).
    #[arg(long, value_name = "NAME|FILE")]
    variant: Option<String>,
    /// Say with each move what the search found (`depth 3 nodes 5120 score 12.5`, in material
    /// units, a pawn being 10), as the `comment` protocol extension: the record keeps it in
    /// the ply's `comment`, and `anqi replay --plies` and the web pages show it. Search only.
    #[arg(long)]
    comment: bool,
    /// The solution file the perfect player plays by (`anqi solve` writes it; perfect only),
    /// read and checked as `anqi solve --verify` reads it. Its variant is the one played:
    /// --variant is not needed, and another is refused; a server that sends its rules (the
    /// `variant` extension, asked for) must play that variant, and one that does not must
    /// seat the bot in a game whose setup (game type, players and teams, board, pieces) is
    /// the variant's, else the game is not played (exit status 1, before any move).
    #[arg(long, value_name = "FILE")]
    solution: Option<String>,
    /// Endgame tables the search plays endgames from (`anqi tables build` writes them; search
    /// only): a position they hold, every piece face-up and few enough of them, is played
    /// by the tables (the soonest win, else a draw, else the latest loss), and the search
    /// takes every position they hold as a leaf of exact value. They are opened for --variant
    /// when it is given, else for the shipped variant they name; a game of other rules (board,
    /// steps or captures) is played without them. A material whose values fail their checks
    /// (protocol/SOLVING.md) is played without them too, said once on stderr.
    #[arg(long, value_name = "FILE")]
    tables: Option<String>,
    /// Wait this long before each action, after choosing it: a stand-in for an engine that
    /// thinks, for measuring a tournament runner at a known length of game (`anqi tournament
    /// --ray`'s cost per game, TOURNAMENTS.md) and for tests that need games still going.
    /// The choices are the same as without it.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    think_ms: u64,
}

/// A bot that takes `ms` milliseconds over each action (`--think-ms`).
struct Thinking {
    bot: Box<dyn Bot>,
    ms: u64,
}

impl Bot for Thinking {
    fn choose(&mut self, view: &anqi_client::View<'_>) -> anqi_core::rules::Action {
        let action = self.bot.choose(view);
        // This process plays one game at a time, so a blocking wait holds up nothing else.
        std::thread::sleep(std::time::Duration::from_millis(self.ms));
        action
    }

    fn comments(&self) -> bool {
        self.bot.comments()
    }

    fn comment(&self) -> Option<String> {
        self.bot.comment()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Strategy {
    /// Uniformly random legal actions.
    Random,
    /// One ply of material bookkeeping.
    Greedy,
    /// Depth-limited expectiminimax with chance nodes for reveals.
    Search,
    /// A solved variant, from its solution file (--solution).
    Perfect,
}

impl Strategy {
    fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Greedy => "greedy",
            Strategy::Search => "search",
            Strategy::Perfect => "perfect",
        }
    }

    fn bot(
        self,
        seed: u64,
        depth: u32,
        comment: bool,
        perfect: Option<&PerfectBot>,
        tables: Option<&Arc<Tables>>,
    ) -> Box<dyn Bot> {
        match self {
            Strategy::Perfect => {
                let p = perfect.expect("a perfect player has its solution");
                let bot = PerfectBot::new(p.variant().clone(), p.scale(), p.table());
                if comment {
                    Box::new(bot.with_comments())
                } else {
                    Box::new(bot)
                }
            }
            Strategy::Random => Box::new(RandomBot::new(seed)),
            Strategy::Greedy => Box::new(GreedyBot::new(seed)),
            Strategy::Search => {
                let mut bot = SearchBot::with_depth(seed, depth);
                if comment {
                    bot = bot.with_comments();
                }
                if let Some(t) = tables {
                    bot = bot.with_tables(t.clone());
                }
                Box::new(bot)
            }
        }
    }
}

/// The tables file at `path`, opened for the rules of `variant` (a shipped name or a
/// description file) when it is given, else of the shipped variant its header names. Each game
/// then checks that the server plays the rules they were built for.
fn open_tables(path: &str, variant: Option<&str>) -> Result<Tables, String> {
    let path = std::path::Path::new(path);
    match variant {
        None => Tables::open_named(path).map_err(|e| e.to_string()),
        Some(name) => {
            let variant = anqi_core::rules::Variant::load(name).map_err(|e| e.to_string())?;
            let rules = TableRules::new(Arc::new(variant)).map_err(|e| e.to_string())?;
            Tables::open(path, rules).map_err(|e| e.to_string())
        }
    }
}

/// One game of the perfect player, seated with the `variant` extension asked for: the game
/// is checked against the solution's variant before a move is played
/// ([`PerfectBot::check_setup`]: the server's rules when it sends them, else everything its
/// setup tells), and a game of another variant, or one the bot cannot tell, is refused (the
/// connection closed, the game lost) rather than played from values that are not its own.
async fn play_perfect(
    addr: &str,
    name: &str,
    seed: &str,
    bot: &mut dyn Bot,
    perfect: &PerfectBot,
) -> Result<anqi_client::GameResult, String> {
    use anqi_core::wire::{Extension, Extensions};
    let mut conn = anqi_client::Connection::connect(addr)
        .await
        .map_err(|e| format!("{e:#}"))?;
    let mut asked = vec![Extension::Variant];
    if bot.comments() {
        asked.push(Extension::Comment);
    }
    let seated = anqi_client::join_with(
        &mut conn,
        name,
        seed,
        asked.into_iter().collect::<Extensions>(),
        anqi_client::tracker::ExtRequest::Apart,
    )
    .await
    .map_err(|e| format!("{e:#}"))?;
    if !perfect
        .check_setup(&seated.setup)
        .map_err(|e| e.to_string())?
    {
        eprintln!(
            "anqi-bot: the server did not send its rules (the variant extension); its setup is that of the solution's variant {}, whose capture and draw rules are assumed",
            perfect.variant().name
        );
    }
    anqi_client::play_seated(&mut conn, seated, bot, Some(perfect.variant()))
        .await
        .map_err(|e| format!("{e:#}"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let setup = match Setup::of(&args) {
        Ok(setup) => setup,
        Err(e) => {
            eprintln!("anqi-bot: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{}_bot", args.strategy.name()));
    for g in 0..args.games {
        if let Err(e) = play_one(&args, &setup, &name, seed.wrapping_add(g as u64)).await {
            eprintln!("anqi-bot: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    std::process::ExitCode::SUCCESS
}

/// What the command line names, opened and checked before the first game: the perfect
/// player's solution, the search's endgame tables, and the variant the bot plays by.
struct Setup {
    perfect: Option<PerfectBot>,
    tables: Option<Arc<Tables>>,
    variant: Option<anqi_core::rules::Variant>,
}

impl Setup {
    /// Checks the options against the strategy and opens the files they name.
    ///
    /// # Errors
    /// What is wrong with the command line, in words (the program exits with status 2).
    fn of(args: &Args) -> Result<Setup, String> {
        if args.depth == 0 {
            return Err("--depth must be at least 1".into());
        }
        if args.comment && !matches!(args.strategy, Strategy::Search | Strategy::Perfect) {
            return Err(
                "--comment is for --strategy search or perfect (the others have nothing to tell of)"
                    .into(),
            );
        }
        let perfect = match (args.strategy, args.solution.as_deref()) {
            (Strategy::Perfect, None) => {
                return Err("--strategy perfect plays from a solution file: give --solution FILE (anqi solve VARIANT writes one)".into());
            }
            (Strategy::Perfect, Some(path)) => {
                Some(PerfectBot::from_file(path).map_err(|e| e.to_string())?)
            }
            (_, Some(_)) => return Err("--solution is for --strategy perfect".into()),
            (_, None) => None,
        };
        let tables = match (args.strategy, args.tables.as_deref()) {
            (Strategy::Search, Some(path)) => Some(Arc::new(
                open_tables(path, args.variant.as_deref()).map_err(|e| format!("--tables: {e}"))?,
            )),
            (_, Some(_)) => return Err("--tables is for --strategy search".into()),
            (_, None) => None,
        };
        let variant = played_variant(args.variant.as_deref(), perfect.as_ref())?;
        Ok(Setup {
            perfect,
            tables,
            variant,
        })
    }
}

/// The variant the bot plays by: `--variant` when given, which must be the solution's for
/// the perfect player; else the solution's variant for the perfect player, and none for the
/// others (they play by what the server says).
fn played_variant(
    name: Option<&str>,
    perfect: Option<&PerfectBot>,
) -> Result<Option<anqi_core::rules::Variant>, String> {
    match name.map(anqi_core::rules::Variant::load).transpose() {
        // The perfect player plays the variant its solution was made for, and no other.
        Ok(None) if perfect.is_some() => Ok(perfect.map(|p| (**p.variant()).clone())),
        Ok(Some(v)) if perfect.is_some_and(|p| !p.solves(&v)) => Err(format!(
            "--variant {} is not the variant of the solution (--solution), {}",
            v.name,
            perfect.map_or("", |p| &p.variant().name)
        )),
        Ok(v) => Ok(v),
        Err(e) => Err(e.to_string()),
    }
}

/// Game `game_seed` of the run: a fresh bot on a new connection, played to its end; prints the
/// result and the server's error replies.
///
/// # Errors
/// Why the game could not be played (connection, protocol, a setup the perfect player
/// refuses).
async fn play_one(args: &Args, setup: &Setup, name: &str, game_seed: u64) -> Result<(), String> {
    let mut bot = args.strategy.bot(
        game_seed,
        args.depth,
        args.comment,
        setup.perfect.as_ref(),
        setup.tables.as_ref(),
    );
    if args.think_ms > 0 {
        bot = Box::new(Thinking {
            bot,
            ms: args.think_ms,
        });
    }
    let seed_text = args.token.clone().unwrap_or_else(|| game_seed.to_string());
    let r = match &setup.perfect {
        Some(p) => play_perfect(&args.connect, name, &seed_text, &mut *bot, p).await,
        None => play_game(
            &args.connect,
            name,
            &seed_text,
            &mut *bot,
            setup.variant.as_ref(),
        )
        .await
        .map_err(|e| format!("{e:#}")),
    }?;
    println!(
        "game over: (win {} {}), I was player {}",
        r.win.0, r.win.1, r.me
    );
    for (code, text) in &r.errors {
        eprintln!(
            "anqi-bot: the server answered (error {} {text:?})",
            code.name()
        );
    }
    Ok(())
}
