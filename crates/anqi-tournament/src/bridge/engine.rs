//! An engine that talks in lines over its stdin and stdout (the `tcg` and `uci-banqi`
//! protocols). Its stderr goes where the bridge's goes (the engine's log in a tournament).
//! Every line is logged on the bridge's stderr with `--verbose`; lines the protocol did not
//! expect (debug output on stdout) are logged always, as `engine: ...`.

use super::error::BridgeError;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The longest line kept from an engine; the rest of a longer one is skipped, so an engine
/// cannot make the bridge hold unbounded memory.
const MAX_LINE: usize = 64 * 1024;

/// How long an engine whose pipe closed is waited for, to say how it ended.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// How many lines an engine's output the protocol does not expect (debug output on stdout)
/// are shown on the bridge's stderr in one game, and how much of each: an engine printing
/// megabytes a second must not fill the disk of a tournament's logs.
pub const NOISE_LINES: u32 = 100;
/// The most of one such line shown, in bytes.
pub const NOISE_LINE_BYTES: usize = 1024;

/// The lines an engine printed that its protocol does not expect, shown as `engine: ...` on
/// stderr: the first [`NOISE_LINES`], each cut at [`NOISE_LINE_BYTES`], then only counted
/// (and the count said when the game ends).
#[derive(Debug, Default)]
pub struct Noise {
    shown: u32,
    left_out: u64,
}

impl Noise {
    /// Shows (or counts) one line.
    pub fn line(&mut self, text: &str) {
        if self.shown < NOISE_LINES {
            self.shown += 1;
            let mut end = text.len().min(NOISE_LINE_BYTES);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let cut = if end < text.len() { " [...]" } else { "" };
            say(&format!("engine: {}{cut}", &text[..end]));
            if self.shown == NOISE_LINES {
                say(&format!(
                    "anqi bridge: the engine printed {NOISE_LINES} lines its protocol does not expect; further ones are counted, not shown"
                ));
            }
        } else {
            self.left_out += 1;
        }
    }

    /// Says how many lines were counted and not shown, if any.
    pub fn finish(&mut self) {
        if self.left_out > 0 {
            say(&format!(
                "anqi bridge: {} more lines the engine printed were not shown",
                std::mem::take(&mut self.left_out)
            ));
        }
    }
}

impl Drop for Noise {
    fn drop(&mut self) {
        self.finish();
    }
}

/// One line on stderr, in one write (a line of a shared log stays whole).
fn say(line: &str) {
    use std::io::Write as _;
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// A running line-protocol engine.
pub struct LineEngine {
    child: Child,
    /// The engine's own cgroup, where one could be made: dropped with the engine, it ends
    /// whatever the engine started (see `keeper`), on the runtime's blocking threads; the
    /// bridge waits for that before it exits (`keeper::end_descendants`).
    _cgroup: Option<crate::process::cgroup::Cgroup>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The line being read (kept across cancelled reads).
    pending: Vec<u8>,
    program: String,
    verbose: bool,
    noise: Noise,
}

impl LineEngine {
    /// Starts `command` (program and arguments) with piped stdin and stdout.
    ///
    /// # Errors
    /// [`BridgeError::EngineStart`] when the program cannot be started.
    pub fn spawn(command: &[String], verbose: bool) -> Result<LineEngine, BridgeError> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| BridgeError::EngineStart("no engine command given".into()))?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            // A group of its own, ended with the game (see `keeper`).
            .process_group(0);
        crate::process::die_with_parent(cmd.as_std_mut());
        let cgroup = crate::keeper::engine_cgroup();
        if let Some(cgroup) = &cgroup {
            cgroup.contain(cmd.as_std_mut());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| BridgeError::EngineStart(format!("cannot start {program:?}: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        Ok(LineEngine {
            child,
            _cgroup: cgroup,
            stdin,
            stdout: BufReader::new(stdout),
            pending: Vec::new(),
            noise: Noise::default(),
            program: program.clone(),
            verbose,
        })
    }

    /// The program's name, for messages.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// Sends one line (a newline is added).
    ///
    /// # Errors
    /// [`BridgeError::Engine`] when the engine has closed its input (it died).
    pub async fn send(&mut self, line: &str) -> Result<(), BridgeError> {
        if self.verbose {
            eprintln!("bridge> {line}");
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let written = match self.stdin.write_all(&bytes).await {
            Ok(()) => self.stdin.flush().await,
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            let ended = self.how_it_ended().await;
            return Err(BridgeError::Engine(format!(
                "{} stopped reading its input ({e}; {ended})",
                self.program
            )));
        }
        Ok(())
    }

    /// The next line from the engine, trailing `\r` removed. Cancel-safe.
    ///
    /// # Errors
    /// [`BridgeError::Engine`] when the engine closed its output (it exited) or wrote
    /// something that is not text.
    pub async fn recv(&mut self) -> Result<String, BridgeError> {
        loop {
            // `fill_buf` is cancel-safe, and what it returned is consumed before any await.
            let buf = match self.stdout.fill_buf().await {
                Ok(buf) => buf,
                Err(e) => {
                    return Err(BridgeError::Engine(format!(
                        "cannot read {}'s output: {e}",
                        self.program
                    )))
                }
            };
            if buf.is_empty() {
                let ended = self.how_it_ended().await;
                return Err(BridgeError::Engine(format!(
                    "{} closed its output ({ended})",
                    self.program
                )));
            }
            let (chunk, ends) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let room = MAX_LINE.saturating_sub(self.pending.len());
            self.pending
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = chunk.len() + usize::from(ends);
            self.stdout.consume(used);
            if ends {
                let mut line = String::from_utf8_lossy(&self.pending).into_owned();
                self.pending.clear();
                if line.ends_with('\r') {
                    line.pop();
                }
                if self.verbose {
                    eprintln!("bridge< {line}");
                }
                return Ok(line);
            }
        }
    }

    /// Reads lines until `accept` takes one (returning what it made of it); the other lines are
    /// logged as the engine's noise. Gives up after `limit`, if one is given.
    ///
    /// # Errors
    /// As [`LineEngine::recv`], and [`BridgeError::SlowAck`] when `limit` passes first (the
    /// engine is alive: it closed nothing, it only did not answer).
    pub async fn expect<T>(
        &mut self,
        what: &str,
        limit: Option<Duration>,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, BridgeError> {
        let wait = async {
            loop {
                let line = self.recv().await?;
                if let Some(t) = accept(&line) {
                    return Ok(t);
                }
                if !self.verbose {
                    self.noise.line(&line);
                }
            }
        };
        match limit {
            None => wait.await,
            Some(limit) => tokio::time::timeout(limit, wait).await.map_err(|_| {
                BridgeError::SlowAck(format!(
                    "{} did not answer `{what}` within {} ms",
                    self.program,
                    limit.as_millis()
                ))
            })?,
        }
    }

    /// How the engine ended, once its output or input closed: `it was killed by signal 9
    /// (SIGKILL)`, `it exited with status 1`. A pipe closes a moment before the kernel
    /// reports the death, so the status is waited for a little ([`EXIT_WAIT`]); an engine
    /// still running after that closed its pipe and lives on.
    async fn how_it_ended(&mut self) -> String {
        match tokio::time::timeout(EXIT_WAIT, self.child.wait()).await {
            Ok(Ok(status)) => format!("it {}", crate::process::exit::describe(&status)),
            Ok(Err(e)) => format!("its exit status is unknown: {e}"),
            Err(_) => format!("it was still running {} ms later", EXIT_WAIT.as_millis()),
        }
    }

    /// Gives the engine `grace` to exit by itself (after a quit command), then kills it; then
    /// everything it started (its cgroup, dropped with it).
    pub async fn finish(mut self, grace: Duration) {
        drop(self.stdin);
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            // Its whole group, while the leader's pid cannot have been reused (not reaped).
            if let Some(pid) = self.child.id() {
                let _ = crate::process::kill_process_group(pid);
            }
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }
}
