//! Runs of the `anqi` program under test, as a user runs it from a shell: one builder in place
//! of a hand-made `std::process::Command` in each test, and one place that puts what a failed
//! run printed into the test's failure message.
//!
//! ```ignore
//! let standings = anqi(["report"]).arg(&records).succeeds().stdout;
//! let refused = anqi(["match", "random", "greedy", "--games", "3"]).fails_with(2).stderr;
//! ```

use std::ffi::OsStr;
use std::process::{Child, Command, ExitStatus, Stdio};

/// The `anqi` binary cargo built for these tests.
pub const ANQI: &str = env!("CARGO_BIN_EXE_anqi");

/// `anqi ARGS...`, not started yet: add arguments, then run it with [`Anqi::output`],
/// [`Anqi::succeeds`], [`Anqi::fails_with`] or [`Anqi::spawn`].
pub struct Anqi(Command);

/// `anqi` with `args`.
pub fn anqi<I, S>(args: I) -> Anqi
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(ANQI);
    command.args(args);
    Anqi(command)
}

/// What a finished run printed, as text (lossy UTF-8), and how it ended.
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Anqi {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Anqi {
        self.0.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Anqi
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.0.args(args);
        self
    }

    /// Runs it to its end with no standard input, whatever its exit status.
    pub fn output(mut self) -> Ran {
        let out = self
            .0
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {ANQI}: {e}"));
        Ran {
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs it and asserts that it succeeded (the failure message has its stderr).
    pub fn succeeds(self) -> Ran {
        let ran = self.output();
        assert!(
            ran.status.success(),
            "anqi failed ({}):\n{}",
            ran.status,
            ran.stderr
        );
        ran
    }

    /// Runs it and asserts that it exited with status `code` (the failure message has its
    /// stderr).
    pub fn fails_with(self, code: i32) -> Ran {
        let ran = self.output();
        assert_eq!(ran.status.code(), Some(code), "{}", ran.stderr);
        ran
    }

    /// Starts it in the background with no standard input and `stdout` and `stderr` as given.
    pub fn spawn(mut self, stdout: Stdio, stderr: Stdio) -> Child {
        self.0
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {ANQI}: {e}"))
    }
}
