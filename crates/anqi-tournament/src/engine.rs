//! Engine processes: checked before the event starts (the program exists and can be run),
//! started per game with the placeholders filled in, their output sent to a log (see
//! `Log`), and killed with their whole process group when the game is over (or when the
//! tournament process dies), so no process is left behind. Each engine runs under a keeper
//! (`anqi keep`, or its bridge) that ends what the engine started (see `keeper`); the keeper
//! itself runs in a cgroup of its own where one can be made, ended with the game, so that
//! nothing is left behind even by a keeper killed with SIGKILL.

use super::config::EngineConfig;
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::process::{Child, Command};

/// How long a keeper (or bridge) told to stop has to end its engine and exit before it is
/// killed.
const KEEPER_GRACE: Duration = Duration::from_secs(3);

/// The keepers (and bridges) of the engines running now, so that a stopping tournament can end
/// them all.
static RUNNING: std::sync::Mutex<std::collections::BTreeSet<u32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Tells every running engine's keeper to stop (the tournament is stopping: SIGINT, SIGTERM).
pub fn kill_all() {
    let keepers = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in keepers {
        // The keeper (or bridge) ends its engine and everything below it, then exits.
        let _ = crate::process::terminate(pid);
    }
}

/// The environment variable every started engine finds its token in.
///
/// The environment, unlike the command line, is private to the process's owner: any local user
/// can read `/proc/PID/cmdline` (or run `ps`), but `/proc/PID/environ` only the owner and root.
pub(crate) const TOKEN_ENV: &str = "ANQI_TOKEN";

/// What the placeholders of a seat stand for.
pub(crate) struct Placeholders<'a> {
    pub host: &'a str,
    pub port: u16,
    pub token: &'a str,
    pub seed: u64,
    pub name: &'a str,
    pub game: u64,
    pub seat: usize,
}

impl Placeholders<'_> {
    /// Replaces `{host}`, `{port}`, `{addr}`, `{token}`, `{seed}`, `{name}`, `{game}`, `{seat}`.
    pub(crate) fn fill(&self, s: &str) -> String {
        self.fill_but_address(
            &s.replace("{host}", self.host)
                .replace("{port}", &self.port.to_string())
                .replace("{addr}", &format!("{}:{}", self.host, self.port)),
        )
    }

    /// Replaces every placeholder but `{host}`, `{port}` and `{addr}`: the command line of an
    /// engine behind a bridge, which never connects to the server, and for which those name
    /// the bridge's own address (a `cdc-platform` engine connects to its bridge).
    pub(crate) fn fill_but_address(&self, s: &str) -> String {
        s.replace("{token}", self.token)
            .replace("{seed}", &self.seed.to_string())
            .replace("{name}", self.name)
            .replace("{game}", &self.game.to_string())
            .replace("{seat}", &self.seat.to_string())
    }
}

/// Where one engine process's stdout and stderr go.
#[derive(Clone, Debug)]
pub(crate) enum Log {
    /// A file of its own, created for this game.
    File(PathBuf),
    /// A file shared by every game of the engine, appended line by line, each line starting
    /// with `prefix` (`game 12 seat 1: `): games played at the same time stay apart.
    Shared { path: PathBuf, prefix: String },
    /// Nowhere.
    Off,
}

/// What the engines' logs may still take in this run of the event, all engines and games
/// together (`engine_log_bytes`'s `event`): shared by the copiers of every game, so that a long
/// event of noisy engines cannot fill the disk N games × the per-game cap at a time.
#[derive(Clone, Debug)]
pub(crate) struct EventLogBudget {
    left: std::sync::Arc<std::sync::atomic::AtomicU64>,
    limit: u64,
}

impl EventLogBudget {
    /// A budget of `limit` bytes for the run.
    pub(crate) fn new(limit: u64) -> EventLogBudget {
        EventLogBudget {
            left: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(limit)),
            limit,
        }
    }

    /// Takes `n` bytes from what is left, if that many are: whether they may be written.
    fn take(&self, n: u64) -> bool {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }
}

/// Longest line copied to a log in one piece; longer ones are cut into several, so an engine
/// that never writes a newline cannot make anqi buffer without end.
const MAX_LOG_LINE: u64 = 64 * 1024;

impl Log {
    /// Where to read it, for messages (`tournament-logs/x.log, lines "game 3 seat 1: "`).
    pub(crate) fn describe(&self) -> String {
        match self {
            Log::File(path) => path.display().to_string(),
            Log::Shared { path, prefix } => {
                format!("{}, lines starting {:?}", path.display(), prefix)
            }
            Log::Off => "nowhere (engine_logs = \"off\")".into(),
        }
    }

    /// Adds a line of anqi's own (why the engine could not start, how it ended) to the log.
    pub(crate) fn note(&self, text: &str) {
        let (path, prefix) = match self {
            Log::File(path) => (path, ""),
            Log::Shared { path, prefix } => (path, prefix.as_str()),
            Log::Off => return,
        };
        let line = format!("{prefix}anqi: {text}\n");
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
    }

    /// The stdout and stderr to give the process (one destination for both, so their lines
    /// stay in order), and the copier to start once the process runs: the output goes through
    /// a pipe, so that at most `limit` bytes of it are kept in this game, and no more than the
    /// event's `budget` has left (`engine_log_bytes`).
    fn outputs(
        &self,
        limit: u64,
        budget: &EventLogBudget,
    ) -> std::io::Result<(Stdio, Stdio, Option<Copier>)> {
        let (to, prefix) = match self {
            Log::Off => return Ok((Stdio::null(), Stdio::null(), None)),
            Log::File(path) => (std::fs::File::create(path)?, String::new()),
            Log::Shared { path, prefix } => (
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?,
                prefix.clone(),
            ),
        };
        let (read, write) = crate::process::pipe()?;
        let err = write.try_clone()?;
        let copier = Copier {
            from: read,
            to,
            prefix,
            limit,
            budget: budget.clone(),
        };
        Ok((write.into(), err.into(), Some(copier)))
    }
}

/// Copies an engine's output from its pipe to its log, a line at a time (each starting with
/// the prefix of a shared log), up to a number of bytes.
struct Copier {
    from: std::fs::File,
    to: std::fs::File,
    prefix: String,
    /// The most bytes written to the log (prefixes included); the rest of the output is read
    /// and dropped, and counted.
    limit: u64,
    /// What every engine's log may still take in this run of the event.
    budget: EventLogBudget,
}

impl Copier {
    /// Runs on a thread of its own until every writer of the pipe is gone (the engine and its
    /// children), writing each line with one `write`, which appending files keep whole. Past
    /// the limit, says so once, goes on reading (an engine writing to a pipe nobody reads
    /// would block, or die of SIGPIPE) and, at the end, says how much was dropped.
    fn start(self) {
        let Copier {
            from,
            mut to,
            prefix,
            limit,
            budget,
        } = self;
        // Without a thread (the system is out of them) the pipe is closed: the engine loses its
        // output, anqi does not panic.
        let _ = std::thread::Builder::new()
            .name("engine-log".into())
            .spawn(move || {
                let mut reader = std::io::BufReader::new(from);
                let mut line = prefix.clone().into_bytes();
                let (mut kept, mut dropped) = (0u64, 0u64);
                loop {
                    line.truncate(prefix.len());
                    match std::io::Read::take(&mut reader, MAX_LOG_LINE)
                        .read_until(b'\n', &mut line)
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    if line.last() != Some(&b'\n') {
                        line.push(b'\n');
                    }
                    // What goes into the log, prefix included: the limit is on the disk it takes.
                    let bytes = line.len() as u64;
                    // The game's cap first: a line over it takes nothing from the event's.
                    let over = if kept + bytes > limit {
                        Some(format!("engine_log_bytes ({limit} bytes)"))
                    } else if !budget.take(bytes) {
                        Some(format!(
                            "engine_log_bytes's event cap ({} bytes for all engines in this run of the event)",
                            budget.limit
                        ))
                    } else {
                        None
                    };
                    if dropped > 0 || over.is_some() {
                        if let (0, Some(over)) = (dropped, over) {
                            let note = format!(
                                "{prefix}anqi: the engine's output passed {over}; the rest is dropped\n"
                            );
                            let _ = to.write_all(note.as_bytes());
                        }
                        dropped += bytes;
                        continue;
                    }
                    kept += bytes;
                    // On a write error (a full disk) the output is dropped but still read.
                    let _ = to.write_all(&line);
                }
                if dropped > 0 {
                    let note = format!(
                        "{prefix}anqi: {dropped} bytes of the engine's output were dropped\n"
                    );
                    let _ = to.write_all(note.as_bytes());
                }
            });
    }
}

/// Checks, before the event starts, that an engine's program can be started: its `dir` exists,
/// and its command names an executable file, found as the operating system will look for it
/// (a name with a `/` relative to `dir`, or else to the current directory; a bare name in each
/// directory of `PATH`, the engine's own `env` PATH if it sets one). Returns the file found.
///
/// A command with placeholders (`{seat}`) is not checked: it is known only at its games.
///
/// # Errors
/// What is wrong, naming the engine, the program and where it was looked for.
pub(crate) fn check_program(config: &EngineConfig) -> Result<Option<PathBuf>, String> {
    let Some(command) = config.command.as_deref() else {
        return Ok(None);
    };
    let name = &config.name;
    let dir = config.dir.as_deref().map(Path::new);
    if let Some(dir) = dir {
        if !dir.is_dir() {
            return Err(format!(
                "engine {name:?}: its dir {:?} is not a directory (paths are relative to where anqi runs)",
                dir.display()
            ));
        }
    }
    if command.contains('{') {
        return Ok(None);
    }
    if command.is_empty() {
        return Err(format!("engine {name:?}: its command is empty"));
    }
    let relative_to_dir = |p: &Path| match dir {
        Some(d) if p.is_relative() => d.join(p),
        _ => p.to_path_buf(),
    };
    if command.contains('/') {
        let path = relative_to_dir(Path::new(command));
        return executable(&path).map(Some).map_err(|why| {
            format!(
                "engine {name:?}: cannot start program {command:?}: {} {why} (a path with a / is relative to the engine's dir, or to where anqi runs)",
                path.display()
            )
        });
    }
    let search: OsString = match config.env.get("PATH") {
        Some(p) => p.into(),
        None => std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()),
    };
    for entry in std::env::split_paths(&search) {
        // An empty entry is the current directory (POSIX).
        let candidate = relative_to_dir(&entry.join(command));
        if executable(&candidate).is_ok() {
            return Ok(Some(candidate));
        }
    }
    Err(format!(
        "engine {name:?}: cannot start program {command:?}: not found in PATH ({}); install it, or give its path (with a /: relative to the engine's dir, or to where anqi runs)",
        search.to_string_lossy()
    ))
}

/// Whether `path` is a file this process may execute; if not, why.
fn executable(path: &Path) -> Result<PathBuf, &'static str> {
    let meta = std::fs::metadata(path).map_err(|_| "does not exist")?;
    if !meta.is_file() {
        return Err("is not a file");
    }
    if !crate::process::may_execute(path) {
        return Err("is not executable (chmod +x it, or run it through its interpreter)");
    }
    Ok(path.to_path_buf())
}

/// The program and arguments that start an engine, placeholders filled: its own command, or,
/// for an engine of another protocol, `anqi bridge` with its command after `--` (the bridge
/// starts the engine and translates); an engine of anqi's protocol under `anqi keep`. Either
/// way the engine's keeper ends everything the engine started (see `keeper`).
fn launch(
    config: &EngineConfig,
    values: &Placeholders<'_>,
) -> std::io::Result<(String, Vec<String>)> {
    if !config.protocol.is_bridged() {
        // Under `anqi keep`, which ends every process the engine starts (see `keeper`).
        let program = values.fill(config.command.as_deref().unwrap_or_default());
        let mut keep = vec!["keep".to_string(), "--".to_string(), program];
        keep.extend(config.args.iter().map(|a| values.fill(a)));
        return Ok((anqi_program()?, keep));
    }
    let program = values.fill_but_address(config.command.as_deref().unwrap_or_default());
    let args: Vec<String> = config
        .args
        .iter()
        .map(|a| values.fill_but_address(a))
        .collect();
    let mut bridge = bridge_args(config, values.name);
    bridge.extend([
        "--connect".to_string(),
        format!("{}:{}", values.host, values.port),
        "--".to_string(),
        program,
    ]);
    bridge.extend(args);
    Ok((anqi_program()?, bridge))
}

/// `bridge --protocol P --name NAME [--assumes A]`: the start of an engine's bridge command.
fn bridge_args(config: &EngineConfig, name: &str) -> Vec<String> {
    let mut out = vec![
        "bridge".to_string(),
        "--protocol".to_string(),
        config.protocol.name().to_string(),
        "--name".to_string(),
        name.to_string(),
    ];
    if let Some(a) = &config.assumes {
        out.extend(["--assumes".to_string(), a.clone()]);
    }
    if !config.optional_commands {
        out.push("--no-optional-commands".to_string());
    }
    out
}

/// The anqi binary that runs bridges: this very program.
fn anqi_program() -> std::io::Result<String> {
    std::env::current_exe().map(|p| p.display().to_string())
}

/// Runs a bridged engine's protocol handshake once, before the event (`anqi bridge --check`,
/// in the engine's directory and environment), so that an engine that cannot start stops the
/// event with its name instead of losing every game. Engines of anqi's own protocol, and
/// commands known only at their games (placeholders in the program), are not run.
///
/// # Errors
/// What the bridge said, naming the engine.
pub(crate) async fn check_handshake(config: &EngineConfig, variant: &str) -> Result<(), String> {
    let Some(command) = config.command.as_deref() else {
        return Ok(());
    };
    if !config.protocol.is_bridged() || command.contains('{') {
        return Ok(());
    }
    let values = Placeholders {
        host: "127.0.0.1",
        port: 0,
        token: "",
        seed: 0,
        name: &config.name,
        game: 0,
        seat: 1,
    };
    let program = anqi_program().map_err(|e| format!("cannot find the anqi program: {e}"))?;
    let mut cmd = Command::new(program);
    cmd.args(bridge_args(config, &config.name))
        .arg("--check")
        .args(["--variant", variant])
        .arg("--")
        .arg(command)
        .args(config.args.iter().map(|a| values.fill_but_address(a)))
        .envs(config.env.iter().map(|(k, v)| (k, values.fill(v))))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    if let Some(dir) = &config.dir {
        cmd.current_dir(dir);
    }
    // A backstop only: the bridge keeps its own limits (each handshake answer, and each of the
    // at most 5 acknowledgements of a game's start, with the engine's ANQI_ACK_TIMEOUT).
    let ack = config
        .env
        .get(crate::bridge::ACK_TIMEOUT_ENV)
        .and_then(|s| s.trim().parse().ok())
        .map_or(crate::bridge::ACK_TIMEOUT, Duration::from_secs);
    let limit = 4 * crate::bridge::HANDSHAKE_TIMEOUT + 5 * ack + Duration::from_secs(5);
    let out = tokio::time::timeout(limit, cmd.output())
        .await
        .map_err(|_| {
            format!(
                "engine {:?}: its {} handshake did not end within {} s",
                config.name,
                config.protocol,
                limit.as_secs()
            )
        })?
        .map_err(|e| format!("engine {:?}: cannot run its bridge: {e}", config.name))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(format!(
        "engine {:?} ({} protocol) cannot play: {}",
        config.name,
        config.protocol,
        said.trim().trim_start_matches("anqi bridge: ")
    ))
}

/// A running engine.
pub(crate) struct Engine {
    child: Child,
    /// Kept apart: `Child::id` forgets it once the child is reaped.
    pid: Option<u32>,
    /// The keeper's cgroup, where one could be made. Dropped last (with the engine, after
    /// `stop`), it ends whatever is still in it: what the keeper had no time to end. That is
    /// done on the runtime's blocking threads, never on a thread that runs games; the
    /// runtime's shutdown at the event's end waits for it.
    _cgroup: Option<crate::process::cgroup::Cgroup>,
}

impl Engine {
    /// Starts `config`'s command with stdout and stderr going to `log` (the log, the most bytes
    /// it keeps of this game, and what the event's logs have left), and its token in
    /// [`TOKEN_ENV`] (the engine's own `env` entries come after, and may override it).
    ///
    /// # Errors
    /// When the log cannot be opened or the program cannot be started.
    pub(crate) fn start(
        config: &EngineConfig,
        values: &Placeholders<'_>,
        log: (&Log, u64, &EventLogBudget),
        report: Option<&std::path::Path>,
    ) -> std::io::Result<Engine> {
        let (program, args) = launch(config, values)?;
        let (log, game_limit, budget) = log;
        let (out, err, copier) = log.outputs(game_limit, budget)?;
        let mut cmd = Command::new(&program);
        if let Some(path) = report {
            // Where the bridge says why it gave the game up (`bridge::translator::report`).
            cmd.env(crate::bridge::REPORT_ENV, path);
        }
        cmd.args(args)
            .env(TOKEN_ENV, values.token)
            .envs(config.env.iter().map(|(k, v)| (k, values.fill(v))))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(true)
            .process_group(0);
        if let Some(dir) = &config.dir {
            cmd.current_dir(dir);
        }
        // A crashed runner leaves no engine behind: its keeper (or bridge) is told to stop,
        // and ends everything below it.
        crate::process::stop_with_parent(cmd.as_std_mut());
        let cgroup = crate::keeper::engine_cgroup();
        if let Some(cgroup) = &cgroup {
            cgroup.contain(cmd.as_std_mut());
        }
        let child = cmd
            .spawn()
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start {program:?}: {e}")))?;
        // The command (and with it our copy of the pipe's write end) is gone: the copier sees
        // the end of the output when the engine's processes are.
        drop(cmd);
        if let Some(copier) = copier {
            copier.start();
        }
        let pid = child.id();
        if let Some(pid) = pid {
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(pid);
        }
        Ok(Engine {
            child,
            pid,
            _cgroup: cgroup,
        })
    }

    /// Waits until the engine's process exits (by itself: this does not kill it).
    pub(crate) async fn wait(&mut self) -> Option<ExitStatus> {
        self.child.wait().await.ok()
    }

    /// Gives the engine `grace` to exit by itself, then kills its process group; reaps it.
    /// Returns the exit status when it exited by itself, `None` when it had to be killed.
    pub(crate) async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        if let Ok(Ok(status)) = tokio::time::timeout(grace, self.child.wait()).await {
            self.forget();
            return Some(status);
        }
        // Told to stop, the keeper (or bridge) ends its engine and everything below it, then
        // exits; one that does not is killed.
        if let Some(pid) = self.child.id() {
            let _ = crate::process::terminate(pid);
        }
        if tokio::time::timeout(KEEPER_GRACE, self.child.wait())
            .await
            .is_err()
        {
            // Kill the group while the leader's pid cannot have been reused: not reaped yet.
            kill_group(self.child.id());
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
        self.forget();
        None
    }
}

impl Engine {
    /// Takes the pid out of the registry (and out of `self`, so `Drop` does nothing more).
    fn forget(&mut self) -> Option<u32> {
        let pid = self.pid.take();
        if let Some(pid) = pid {
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&pid);
        }
        pid
    }
}

impl Drop for Engine {
    /// An engine dropped without `stop` (an error path, a panic) is still ended: its keeper
    /// (or bridge) is told to stop, and ends everything below it.
    fn drop(&mut self) {
        if let Some(pid) = self.forget() {
            let _ = crate::process::terminate(pid);
        }
    }
}

/// Kills every process in the engine's group (its children too). A group already gone is
/// not an error: the engine and its helpers have exited.
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid {
        let _ = crate::process::kill_process_group(pid);
    }
}
