//! `anqi serve`: the server, with the configuration file and the command line's overrides.

use anqi_core::rules::Variant;
use anqi_server::config::{Config, SeedSource};
use anqi_server::{Hub, Server};
use anqi_web::Web;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

/// Run the server: seat clients as they complete their handshake (each game's seats in the
/// order the connections were accepted), as many per game as the variant has
/// players, and referee the games.
///
/// Prints `listening on HOST:PORT` on stdout once clients can connect, and with --http (or
/// [http] listen) `web on http://HOST:PORT/`, where every game can be watched live in a
/// browser (protocol/WEB.md), and with --metrics (or [metrics] listen) `metrics on
/// http://HOST:PORT/metrics`. Every finished game
/// is appended to the records file as one JSON line. Ctrl-C (SIGINT) or SIGTERM stops the
/// server gracefully: running games are aborted and recorded.
///
/// Example: anqi serve --listen 127.0.0.1:0 --variant traditional-2x4
///
/// In a browser, to watch every game and play the bots: anqi serve --http 127.0.0.1:8080
/// --humans
///
/// For Prometheus, without the pages: anqi serve --metrics 127.0.0.1:9100
#[derive(clap::Args)]
pub struct Args {
    /// Configuration file (see config.toml for every key); keys left out keep the defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on, overriding [server] listen; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Variant to play: a shipped name (see `anqi variants`) or a description file. An
    /// invalid description, or one over a limit (protocol/VARIANTS.md, Limits), stops the
    /// server before it listens, with the problem on stderr and status 2.
    #[arg(long, value_name = "NAME|FILE")]
    variant: Option<String>,
    /// Records file, overriding [records] path ("" keeps no records).
    #[arg(long, value_name = "FILE")]
    records: Option<String>,
    /// Also serve web pages where every game is watched live, and their JSON API
    /// (protocol/WEB.md), overriding [http] listen; port 0 picks a free port. Keep it on
    /// loopback (127.0.0.1:8080) unless the games are public.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    /// Let people play from the pages, overriding [http] humans: a visitor takes a waiting
    /// player's seat, or plays against anqi-bot (random, greedy or search) by clicking the
    /// board (protocol/WEB.md, Play). Needs --http.
    #[arg(long)]
    humans: bool,
    /// Run a rated ladder on this database, overriding [ladder] database: a SQLite file (made
    /// when missing), or a PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DB, that
    /// several servers share (each with its own [ladder] server name). Bots connect with
    /// their account's secret as the SEED of (init NAME SECRET) (`anqi ladder add NAME`
    /// makes one), are paired close in rating and with variety, and each game updates the
    /// ratings. Two-player variants only; needs a records file. With --http the pages show
    /// the leaderboard and each player (protocol/LADDER.md).
    #[arg(long, value_name = "FILE|URL")]
    ladder: Option<String>,
    /// Serve only what an operator reads, GET /metrics (Prometheus's text format), /healthz
    /// and /readyz (protocol/WEB.md), at this address, overriding [metrics] listen; printed as
    /// `metrics on http://HOST:PORT/metrics`. The pages (--http) serve them too.
    #[arg(long, value_name = "HOST:PORT")]
    metrics: Option<String>,
    /// How log lines are written on stderr: `text` for people, `json` (one object per line)
    /// for log shippers.
    #[arg(long, value_enum, default_value_t = super::LogFormat::Text)]
    log_format: super::LogFormat,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut cfg = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if let Some(l) = args.listen {
        cfg.server.listen = l;
    }
    if let Some(v) = args.variant {
        cfg.server.variant = v;
    }
    if let Some(r) = args.records {
        cfg.records.path = r;
    }
    if let Some(h) = args.http {
        cfg.http.listen = h;
    }
    if args.humans {
        cfg.http.humans = true;
    }
    if let Some(l) = args.ladder {
        cfg.ladder.database = l;
    }
    if let Some(m) = args.metrics {
        cfg.metrics.listen = m;
    }
    cfg.validate()?;
    let variant = Variant::load(&cfg.server.variant)?;
    if cfg.http.humans && cfg.http.listen.is_empty() {
        anyhow::bail!(
            "[http] humans = true seats people from the web pages, which are off: give --http ADDR (or [http] listen)"
        );
    }
    if !cfg.ladder.database.is_empty() && cfg.ladder.registration && cfg.http.listen.is_empty() {
        anyhow::bail!(
            "[ladder] registration = true makes accounts on the pages' API (POST /api/ladder/accounts), which is off: give --http ADDR (or [http] listen)"
        );
    }
    if !cfg.ladder.database.is_empty() && cfg.ladder.guests && !cfg.http.humans {
        anyhow::bail!(
            "[ladder] guests = true seats people from the web seats, which are off: give --humans (or [http] humans = true)"
        );
    }
    let ladder = if cfg.ladder.database.is_empty() {
        None
    } else {
        Some(super::ladder::open_for_serving(&cfg, &variant)?)
    };
    super::init_logging(tracing::Level::INFO, args.log_format);
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(async move {
        let mut server = Server::bind(cfg.clone(), variant.clone()).await?;
        let addr = server.local_addr()?;
        let shutdown = CancellationToken::new();
        // The hub first (the server's counters become its own), then the ladder (counting
        // in them), then the pages (which show the ladder, and seat people by it).
        let hub = watch_hub(&cfg, &mut server);
        let ladder_task = match ladder {
            Some(ledger) => {
                let (task, pages) = super::ladder::start(&mut server, &cfg, ledger)?;
                if let Some(hub) = &hub {
                    hub.set_ladder(pages);
                }
                Some(task)
            }
            None => None,
        };
        let (web, ops) = bind_web(&cfg, &mut server, &variant, &shutdown, hub).await?;
        let signals = super::stop_signals()?;
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            signals.await;
            on_signal.cancel();
        });
        println!("listening on {addr}");
        let web_task = spawn_web(web, "web on http://{}/", "web pages", &shutdown)?;
        let ops_task = spawn_web(ops, "metrics on http://{}/metrics", "metrics", &shutdown)?;
        std::io::stdout().flush()?;
        tracing::info!(%addr, variant = %cfg.server.variant, records = %cfg.records.path, "serving");
        server.run(shutdown.clone()).await?;
        // The ladder ends once it has counted the last record the server wrote.
        if let Some(task) = ladder_task {
            let _ = task.await;
        }
        // The server stops on the token; so do the pages (live ones are closed).
        shutdown.cancel();
        for task in [web_task, ops_task].into_iter().flatten() {
            match task.await {
                Ok(Err(e)) => tracing::warn!(error = %e, "the web server stopped with an error"),
                Err(e) => tracing::warn!(error = %e, "the web server's task failed"),
                Ok(Ok(())) => {}
            }
        }
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// The hub the pages (`[http] listen`) and the operator's address (`[metrics] listen`) read
/// the games through, when either is configured; the server publishes to it, and counts in
/// its counters.
fn watch_hub(cfg: &Config, server: &mut Server) -> Option<Hub> {
    let (pages, metrics) = (&cfg.http.listen, &cfg.metrics.listen);
    if pages.is_empty() && metrics.is_empty() {
        return None;
    }
    // Without the pages, the hub only counts: no game's events are made for nobody.
    let hub = if pages.is_empty() {
        Hub::counting_only(&cfg.http)
    } else {
        Hub::new(&cfg.http, cfg.seed.server != SeedSource::Random)
    };
    server.watch(hub.clone());
    Some(hub)
}

/// The pages and the operator's address, each bound when configured, on `hub`.
async fn bind_web(
    cfg: &Config,
    server: &mut Server,
    variant: &Variant,
    shutdown: &CancellationToken,
    hub: Option<Hub>,
) -> Result<(Option<Web>, Option<Web>)> {
    let Some(hub) = hub else {
        return Ok((None, None));
    };
    let (pages, metrics) = (&cfg.http.listen, &cfg.metrics.listen);
    let mut web = None;
    if !pages.is_empty() {
        // The games from before a restart are on the pages before they answer anyone.
        server.read_past().await;
        let mut bound = Web::bind(pages, cfg, hub.clone(), shutdown.clone()).await?;
        if cfg.http.humans {
            bound.seat_people(server.door(), variant, cfg);
        }
        web = Some(bound);
    }
    let ops = if metrics.is_empty() {
        None
    } else {
        Some(Web::bind_ops(metrics, cfg, hub, shutdown.clone(), web.as_ref()).await?)
    };
    Ok((web, ops))
}

/// Starts serving `web`, if bound, once its address is printed on stdout by `line` (`{}`:
/// the address) and logged as serving `what`.
fn spawn_web(
    web: Option<Web>,
    line: &str,
    what: &str,
    shutdown: &CancellationToken,
) -> Result<Option<tokio::task::JoinHandle<std::io::Result<()>>>> {
    let Some(web) = web else { return Ok(None) };
    let addr = web.local_addr()?;
    println!("{}", line.replace("{}", &addr.to_string()));
    tracing::info!(%addr, "serving the {what}");
    Ok(Some(tokio::spawn(web.run(shutdown.clone()))))
}
