//! Engine processes: started per game with the placeholders filled in, their output sent to a
//! log file, and killed with their whole process group when the game is over (or when the
//! tournament process dies), so no process is left behind.

use super::config::EngineConfig;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::process::{Child, Command};

/// Process groups of the engines running now, so that a stopping tournament can kill them all.
static RUNNING: std::sync::Mutex<std::collections::BTreeSet<u32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Kills every running engine's process group (the tournament is stopping: SIGINT, SIGTERM).
pub fn kill_all() {
    let groups = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in groups {
        kill_group(Some(pid));
    }
}

/// The environment variable every started engine finds its token in.
///
/// The environment, unlike the command line, is private to the process's owner: any local user
/// can read `/proc/PID/cmdline` (or run `ps`), but `/proc/PID/environ` only the owner and root.
pub const TOKEN_ENV: &str = "ANQI_TOKEN";

/// What the placeholders of a seat stand for.
pub struct Placeholders<'a> {
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
    pub fn fill(&self, s: &str) -> String {
        s.replace("{host}", self.host)
            .replace("{port}", &self.port.to_string())
            .replace("{addr}", &format!("{}:{}", self.host, self.port))
            .replace("{token}", self.token)
            .replace("{seed}", &self.seed.to_string())
            .replace("{name}", self.name)
            .replace("{game}", &self.game.to_string())
            .replace("{seat}", &self.seat.to_string())
    }
}

/// A running engine.
pub struct Engine {
    child: Child,
    /// Kept apart: `Child::id` forgets it once the child is reaped.
    pid: Option<u32>,
}

impl Engine {
    /// Starts `config`'s command with stdout and stderr appended to `log`, and its token in
    /// [`TOKEN_ENV`] (the engine's own `env` entries come after, and may override it).
    ///
    /// # Errors
    /// When the log cannot be created or the program cannot be started.
    pub fn start(
        config: &EngineConfig,
        values: &Placeholders<'_>,
        log: &Path,
    ) -> std::io::Result<Engine> {
        let program = values.fill(config.command.as_deref().unwrap_or_default());
        let out = std::fs::File::create(log)?;
        let err = out.try_clone()?;
        let mut cmd = Command::new(&program);
        cmd.args(config.args.iter().map(|a| values.fill(a)))
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
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to kill this child when
        // the tournament process dies, so a crashed runner leaves no engine behind.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start {program:?}: {e}")))?;
        let pid = child.id();
        if let Some(pid) = pid {
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(pid);
        }
        Ok(Engine { child, pid })
    }

    /// Gives the engine `grace` to exit by itself, then kills its process group; reaps it.
    /// Returns the exit status when it exited by itself, `None` when it had to be killed.
    pub async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        let exited = tokio::time::timeout(grace, self.child.wait()).await;
        // Kill the group while the leader's pid cannot have been reused: it is a zombie or
        // just reaped, and nothing else runs in between.
        kill_group(self.forget());
        match exited {
            Ok(Ok(status)) => Some(status),
            _ => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                None
            }
        }
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
    /// An engine dropped without `stop` (an error path, a panic) still takes its whole group
    /// down, not only its own process.
    fn drop(&mut self) {
        let pid = self.forget();
        kill_group(pid);
    }
}

/// Kills every process in the engine's group (its children too).
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads
        // (process_group(0) made it a leader); it has no memory effects.
        unsafe {
            libc::kill(-(pid as i32), libc::SIGKILL);
        }
    }
}
