//! The processes `anqi bench` starts (the server, the echo server, the clients), all this same
//! binary, each killed when its guard is dropped, on every exit path.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

/// A child process, killed and reaped when dropped.
pub struct Child {
    process: std::process::Child,
    /// What it is, for messages (`server`, `echo server`, `S2 client`).
    what: String,
    stdout: Option<BufReader<ChildStdout>>,
    stdin: Option<ChildStdin>,
    /// Where its stderr goes, when not to ours: quoted when it fails.
    log: Option<File>,
}

impl Child {
    /// Starts this binary with `args`, its stdout read by us. With `log`, its stderr goes to
    /// a file of no name (a server's log would otherwise mix with the report); without, to
    /// ours (a client's progress).
    ///
    /// # Errors
    /// When the process cannot be started.
    pub fn start(what: &str, args: &[String], log: bool) -> Result<Child> {
        Child::start_program(None, what, args, log)
    }

    /// As [`Child::start`], running `program` (another build of anqi) instead of this binary
    /// when given.
    ///
    /// # Errors
    /// When the process cannot be started.
    pub fn start_program(
        program: Option<&std::path::Path>,
        what: &str,
        args: &[String],
        log: bool,
    ) -> Result<Child> {
        let exe = match program {
            Some(p) => p.to_path_buf(),
            None => std::env::current_exe().context("cannot find the anqi binary")?,
        };
        let log = log.then(unnamed_file).transpose()?;
        let stderr = match &log {
            Some(file) => Stdio::from(file.try_clone()?),
            None => Stdio::inherit(),
        };
        let mut command = Command::new(exe);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        // Killed with us even when we are killed with no chance to drop the guard.
        anqi_tournament::process::die_with_parent(&mut command);
        let mut process = command
            .spawn()
            .with_context(|| format!("cannot start the {what}"))?;
        let stdout = process.stdout.take().map(BufReader::new);
        let stdin = process.stdin.take();
        Ok(Child {
            process,
            what: what.to_string(),
            stdout,
            stdin,
            log,
        })
    }

    /// Starts a server (`anqi serve` or `anqi bench-echo`) and returns it with the address it
    /// printed in its `listening on HOST:PORT` line.
    ///
    /// # Errors
    /// When it cannot be started or stops before it listens.
    pub fn listening(
        program: Option<&std::path::Path>,
        what: &str,
        args: &[String],
    ) -> Result<(Child, String)> {
        let mut child = Child::start_program(program, what, args, true)?;
        loop {
            let line = child.line()?;
            if let Some(addr) = line.trim().strip_prefix("listening on ") {
                let addr = addr.to_string();
                return Ok((child, addr));
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// The next line of its stdout.
    ///
    /// # Errors
    /// When it ends its stdout first (with its log's end, if it has one).
    pub fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        let stdout = self.stdout.as_mut().expect("stdout is read until the end");
        let n = stdout
            .read_line(&mut line)
            .with_context(|| format!("reading the {}'s output", self.what))?;
        if n == 0 {
            let status = self
                .process
                .wait()
                .map_or_else(|e| e.to_string(), |s| s.to_string());
            bail!("the {} stopped ({status}){}", self.what, self.log_tail());
        }
        Ok(line)
    }

    /// Closes its stdin (a client holding connections open lets them go), reads the rest of
    /// its stdout and waits for it to exit.
    ///
    /// # Errors
    /// When it fails (a status other than 0).
    pub fn finish(mut self) -> Result<String> {
        drop(self.stdin.take());
        let mut rest = String::new();
        if let Some(mut stdout) = self.stdout.take() {
            stdout
                .read_to_string(&mut rest)
                .with_context(|| format!("reading the {}'s output", self.what))?;
        }
        let status = self.process.wait()?;
        if !status.success() {
            bail!("the {} failed ({status}){}", self.what, self.log_tail());
        }
        Ok(rest)
    }

    /// Its resident memory now, in KiB (`VmRSS` of `/proc/PID/status`).
    ///
    /// # Errors
    /// Where `/proc` cannot tell (not Linux).
    pub fn rss_kib(&self) -> Result<u64> {
        let path = format!("/proc/{}/status", self.pid());
        let status =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .ok_or_else(|| anyhow!("{path} has no VmRSS line"))
    }

    /// The processor time it has used so far (user and system, all threads), in seconds, from
    /// `/proc/PID/stat` (to the kernel's tick, usually 10 ms).
    ///
    /// # Errors
    /// Where `/proc` cannot tell (not Linux).
    pub fn cpu_seconds(&self) -> Result<f64> {
        let path = format!("/proc/{}/stat", self.pid());
        let stat = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        // The command name (field 2) may hold spaces: count fields after its closing ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        // utime and stime are fields 14 and 15, the 12th and 13th after the name.
        let (user, system) = ticks(11)
            .zip(ticks(12))
            .ok_or_else(|| anyhow!("{path} has no utime and stime"))?;
        let per_second = anqi_tournament::process::clock_ticks_per_second() as f64;
        Ok((user + system) as f64 / per_second)
    }

    /// The last lines of its log, to explain a failure.
    fn log_tail(&self) -> String {
        let mut text = String::new();
        let Some(mut file) = self.log.as_ref() else {
            return text;
        };
        if file
            .rewind()
            .and_then(|()| file.read_to_string(&mut text))
            .is_err()
        {
            return String::new();
        }
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(10)..].join("\n");
        format!(":\n{tail}")
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if matches!(self.process.try_wait(), Ok(None)) {
            let _ = self.process.kill();
        }
        let _ = self.process.wait();
    }
}

/// A scratch file already removed from its directory, so that nothing is left behind however
/// the run ends: it lives as long as the descriptors open on it.
fn unnamed_file() -> Result<File> {
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("anqi-bench-{}-{n}.log", std::process::id()));
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let _ = std::fs::remove_file(&path);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_scratch_file_has_no_name_but_keeps_what_is_written() {
        let mut file = unnamed_file().unwrap();
        let prefix = format!("anqi-bench-{}-", std::process::id());
        let named = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix));
        assert!(!named, "a file named {prefix}... is left");
        file.write_all(b"logged").unwrap();
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "logged");
    }
}
