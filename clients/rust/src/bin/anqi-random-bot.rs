//! A bot that plays uniformly random legal actions: the smallest complete client.

use anqi_client::{play_game, RandomBot};
use clap::Parser;

/// Connects to an anqi server and plays random legal actions.
///
/// Example: anqi-random-bot --connect 127.0.0.1:7700 --games 10
#[derive(Parser)]
#[command(name = "anqi-random-bot", version, about)]
struct Args {
    /// Server address, as printed by `anqi serve` (`listening on HOST:PORT`).
    #[arg(long, value_name = "HOST:PORT")]
    connect: String,
    /// Name sent in (init NAME SEED).
    #[arg(long, default_value = "rand_player")]
    name: String,
    /// Seed: sent as the SEED contribution and used for the bot's own choices (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// Token given by a tournament: sent as the SEED of (init NAME SEED) instead of the seed
    /// (which then only drives the bot's own choices).
    #[arg(long)]
    token: Option<String>,
    /// Games to play one after another (a new connection each).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// The variant the server plays (a shipped name or a description file), for its exact
    /// rules. Without it the bot assumes the standard rules for the announced (game TYPE).
    #[arg(long, value_name = "NAME|FILE")]
    variant: Option<String>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let variant = match args
        .variant
        .as_deref()
        .map(anqi::rules::Variant::load)
        .transpose()
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("anqi-random-bot: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    for g in 0..args.games {
        let game_seed = seed.wrapping_add(g as u64);
        let mut bot = RandomBot::new(game_seed);
        match play_game(
            &args.connect,
            &args.name,
            &args.token.clone().unwrap_or_else(|| game_seed.to_string()),
            &mut bot,
            variant.as_ref(),
        )
        .await
        {
            Ok(r) => println!(
                "game over: (win {} {}), I was player {}",
                r.win.0, r.win.1, r.me
            ),
            Err(e) => {
                eprintln!("anqi-random-bot: {e:#}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
