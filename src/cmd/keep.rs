//! `anqi keep -- PROGRAM ARGS...` (hidden): runs one engine of a tournament so that everything
//! it starts ends with it (see `keeper`): in a cgroup of its own where one can be made, in a
//! process group of its own, under this process as a subreaper. `anqi tournament` starts each
//! engine of anqi's own protocol this way.

use anyhow::{Context, Result};
use std::process::ExitCode;

/// Run a program so that every process it starts ends with it (anqi tournament starts each
/// engine this way).
///
/// When the program exits, or this process gets SIGTERM or SIGINT (or its parent dies), every
/// process the program started is killed. On Linux: everything in the cgroup v2 made for the
/// program, where this process may make one (nothing the program starts can leave it, so a
/// helper in a new session, or one that forks and exits over and over, is ended too); the
/// cgroup is then removed. Else, and as well: the program's process group, and every process
/// below this one (it is a subreaper: orphans of the program become its children). Where no
/// cgroup can be made, a line on stderr says why.
///
/// Exits with the program's status, 128 + the signal when a signal ended it, 127 when it
/// cannot be started.
#[derive(clap::Args)]
#[command(hide = true)]
pub struct Args {
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    command: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    // Without it (outside Linux) the engine's own process group is still ended.
    let _ = anqi_tournament::process::become_subreaper();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let code = runtime.block_on(keep(&args.command))?;
    anqi_tournament::keeper::end_descendants(std::time::Duration::from_secs(2));
    Ok(ExitCode::from(code))
}

/// Runs the program until it exits, or until this keeper is told to stop (then ends its
/// process group); ends its cgroup, if it has one; returns the exit code to pass on.
async fn keep(command: &[String]) -> Result<u8> {
    let (program, args) = command.split_first().context("no program given")?;
    let signals = super::stop_signals()?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).process_group(0);
    anqi_tournament::process::die_with_parent(cmd.as_std_mut());
    // Dropped when this returns: whatever the program started and left running is ended.
    let cgroup = anqi_tournament::keeper::engine_cgroup();
    if let Some(cgroup) = &cgroup {
        cgroup.contain(cmd.as_std_mut());
    }
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("anqi keep: cannot start {program:?}: {e}");
            return Ok(127);
        }
    };
    let status = tokio::select! {
        status = child.wait() => status?,
        _ = signals => {
            if let Some(pid) = child.id() {
                let _ = anqi_tournament::process::kill_process_group(pid);
            }
            child.wait().await?
        }
    };
    Ok(exit_code(status))
}

/// The code a shell gives a status: the exit code, or 128 + the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(255),
        (None, None) => 1,
    }
}
