//! How a process ended, in words a record or a log can show after "it": `exited with status
//! 1`, `was killed by signal 9 (SIGKILL)`. std's own `Display` (`signal: 9 (SIGKILL)`) reads as a
//! field, and says nothing of the keeper's `128 + N` convention.

use std::process::ExitStatus;

/// The name of signal `n` on this system (`SIGKILL` for 9 on Linux), for the signals an engine
/// dies of; `None` for the others.
pub fn signal_name(n: i32) -> Option<&'static str> {
    #[cfg(unix)]
    {
        let names: &[(i32, &str)] = &[
            (libc::SIGHUP, "SIGHUP"),
            (libc::SIGINT, "SIGINT"),
            (libc::SIGQUIT, "SIGQUIT"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGTRAP, "SIGTRAP"),
            (libc::SIGABRT, "SIGABRT"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGFPE, "SIGFPE"),
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGUSR1, "SIGUSR1"),
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGUSR2, "SIGUSR2"),
            (libc::SIGPIPE, "SIGPIPE"),
            (libc::SIGALRM, "SIGALRM"),
            (libc::SIGTERM, "SIGTERM"),
            (libc::SIGXCPU, "SIGXCPU"),
            (libc::SIGXFSZ, "SIGXFSZ"),
            (libc::SIGSYS, "SIGSYS"),
        ];
        names.iter().find(|(s, _)| *s == n).map(|(_, name)| *name)
    }
    #[cfg(not(unix))]
    {
        let _ = n;
        None
    }
}

/// `was killed by signal 9 (SIGKILL)`, with `, core dumped` when it did.
pub fn killed_by(signal: i32, core_dumped: bool) -> String {
    let name = signal_name(signal).map_or(String::new(), |n| format!(" ({n})"));
    let core = if core_dumped { ", core dumped" } else { "" };
    format!("was killed by signal {signal}{name}{core}")
}

/// How a process ended, as a verb phrase: `exited with status 1`, `exited normally (status
/// 0)`, or `was killed by signal 9 (SIGKILL)`.
pub fn describe(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return killed_by(signal, status.core_dumped());
        }
    }
    match status.code() {
        Some(0) => "exited normally (status 0)".into(),
        Some(code) => format!("exited with status {code}"),
        None => status.to_string(),
    }
}

/// How a kept process ended, from its keeper's status (`anqi keep` exits with the program's
/// status, or 128 + the signal that ended it, as a shell does): `was killed by signal 9
/// (SIGKILL)` for a keeper's 137.
pub fn describe_kept(status: &ExitStatus) -> String {
    match status.code() {
        Some(code @ 129..=192) => killed_by(code - 128, false),
        _ => describe(status),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn deaths_name_their_signal() {
        // Wait statuses as the kernel writes them: the signal in the low 7 bits, the exit code
        // in the next 8, bit 7 for a core dump.
        assert_eq!(
            describe(&ExitStatus::from_raw(9)),
            "was killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe(&ExitStatus::from_raw(11 | 0x80)),
            "was killed by signal 11 (SIGSEGV), core dumped"
        );
        assert_eq!(
            describe(&ExitStatus::from_raw(1 << 8)),
            "exited with status 1"
        );
        assert_eq!(
            describe(&ExitStatus::from_raw(0)),
            "exited normally (status 0)"
        );
        assert_eq!(
            describe_kept(&ExitStatus::from_raw(137 << 8)),
            "was killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe_kept(&ExitStatus::from_raw(2 << 8)),
            "exited with status 2"
        );
        assert_eq!(killed_by(64, false), "was killed by signal 64");
    }
}
