//! The operating-system calls for engine processes that std and tokio do not wrap: each call
//! with its safety argument and its failure reported to the caller.
//!
//! Tournaments, bridges, `anqi keep` and the bench need them to keep engine processes from
//! outliving their runner (parent death, the subreaper, kills, descendants) and to read a
//! process's CPU time. Everything here is a no-op or `None` where the call does not exist
//! (outside Linux for `prctl`, outside Unix for the rest). [`cgroup`] holds the containment
//! that nothing an engine starts escapes: a cgroup v2 per engine, where one can be made;
//! [`exit`] says how a process ended, in words (`was killed by signal 9 (SIGKILL)`).

#[cfg(unix)]
pub mod cgroup;
pub mod exit;

use std::io;
use std::path::Path;

/// Asks the kernel to kill the process `cmd` starts when the thread that started it dies (a
/// bridge, a tournament runner, a bench run), even by SIGKILL: no engine is left behind, and
/// some engines never exit by themselves. The child fails to start, with the error, if the
/// kernel refuses. Does nothing outside Linux.
///
/// For a `tokio::process::Command`, pass `command.as_std_mut()`.
pub fn die_with_parent(cmd: &mut std::process::Command) {
    signal_at_parent_death(cmd, SignalOnDeath::Kill);
}

/// As [`die_with_parent`], but with SIGTERM: for a child that cleans up after itself before it
/// exits (an engine's keeper, a bridge), so that what it started dies with it.
pub(crate) fn stop_with_parent(cmd: &mut std::process::Command) {
    signal_at_parent_death(cmd, SignalOnDeath::Terminate);
}

/// The signal a child gets when its parent dies.
#[derive(Clone, Copy)]
enum SignalOnDeath {
    Kill,
    Terminate,
}

fn signal_at_parent_death(cmd: &mut std::process::Command, signal: SignalOnDeath) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let signal = match signal {
            SignalOnDeath::Kill => libc::SIGKILL,
            SignalOnDeath::Terminate => libc::SIGTERM,
        };
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: prctl is one, and it changes nothing but the
        // child's death signal.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, signal) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (cmd, signal);
}

/// Makes this process a child subreaper (Linux): a process it started, or one of theirs, that
/// loses its parent (a helper started in a new session by an engine that then exits) becomes
/// this process's child instead of init's, so that it can still be found and ended.
///
/// # Errors
/// When the kernel refuses; outside Linux, `Unsupported`.
pub fn become_subreaper() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER sets a flag of this process; no memory is
        // passed.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    Err(io::ErrorKind::Unsupported.into())
}

/// Reaps every child of this process that has exited, without waiting; returns how many. For
/// a subreaper, whose adopted children no one else waits for. Never call it while a child is
/// waited for by someone else (tokio's `Child::wait`): it would take that child's status.
#[cfg(unix)]
pub(crate) fn reap_exited() -> usize {
    let mut n = 0;
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status into the integer passed; WNOHANG never blocks.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return n;
        }
        n += 1;
    }
}

/// Sends SIGKILL to the process `pid`.
///
/// # Errors
/// When the process no longer exists (`ESRCH`) or may not be signalled.
#[cfg(unix)]
pub(crate) fn kill(pid: u32) -> io::Result<()> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: kill(2) on one process; it has no memory effects.
    if unsafe { libc::kill(pid, libc::SIGKILL) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The living descendants of the process `root` (children, theirs, ...; zombies left out), from
/// `/proc`: a process that started a new session or group is still found by its parent. Empty
/// where `/proc` is not there.
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name (field 2) may hold spaces: count fields after its closing ')'.
        let mut fields = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace())
            .into_iter()
            .flatten();
        let (Some(state), Some(ppid)) = (fields.next(), fields.next()) else {
            continue;
        };
        if state == "Z" {
            continue;
        }
        if let Ok(ppid) = ppid.parse::<u32>() {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut out = Vec::new();
    let mut todo = vec![root];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).into_iter().flatten() {
            if !out.contains(&c) {
                out.push(c);
                todo.push(c);
            }
        }
    }
    out
}

/// A pipe whose ends are closed on exec, so that a child started meanwhile inherits neither
/// end unless it is handed one: `(read end, write end)`.
///
/// # Errors
/// When the process has no descriptor left.
#[cfg(unix)]
pub(crate) fn pipe() -> io::Result<(std::fs::File, std::fs::File)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two new descriptors into `fds`, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened by pipe2 and nothing else owns them.
    Ok(unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    })
}

/// Whether this process may execute the file at `path` (access(2) with `X_OK`): what the
/// operating system will check when the file is started.
#[cfg(unix)]
pub(crate) fn may_execute(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) reads the NUL-terminated path and has no other effect.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// Sends SIGKILL to every process of the group that `leader` leads (a child started with
/// `process_group(0)`), its own children included.
///
/// # Errors
/// When the group no longer exists (`ESRCH`) or may not be signalled.
#[cfg(unix)]
pub fn kill_process_group(leader: u32) -> io::Result<()> {
    let pid = libc::pid_t::try_from(leader).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: kill(2) with a negative pid signals a process group; it has no memory effects.
    if unsafe { libc::kill(-pid, libc::SIGKILL) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sends SIGTERM to the process `pid`, asking it to exit.
///
/// # Errors
/// When the process no longer exists (`ESRCH`) or may not be signalled.
#[cfg(unix)]
pub(crate) fn terminate(pid: u32) -> io::Result<()> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: kill(2) on one process; it has no memory effects.
    if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The kernel's clock ticks per second (`_SC_CLK_TCK`), the unit of the CPU times in
/// `/proc/PID/stat`; at least 1.
#[cfg(unix)]
pub fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a system setting.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).unwrap_or(0).max(1)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_carries_bytes_and_closes_on_exec() {
        use std::io::{Read, Write};
        use std::os::fd::AsRawFd;
        let (mut read, mut write) = pipe().unwrap();
        // SAFETY: fcntl with F_GETFD only reads the descriptor's flags.
        let flags = unsafe { libc::fcntl(write.as_raw_fd(), libc::F_GETFD) };
        assert_ne!(flags & libc::FD_CLOEXEC, 0);
        write.write_all(b"ok").unwrap();
        drop(write);
        let mut text = String::new();
        read.read_to_string(&mut text).unwrap();
        assert_eq!(text, "ok");
    }

    #[test]
    fn execute_permission_is_what_access_says() {
        assert!(may_execute(Path::new("/bin/sh")));
        assert!(!may_execute(Path::new("/etc/hostname-that-does-not-exist")));
        assert!(!may_execute(Path::new("/etc/passwd")));
    }

    #[test]
    fn a_group_is_killed_and_a_gone_one_is_an_error() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        kill_process_group(child.id()).unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(kill_process_group(child.id()).is_err(), "the group is gone");
        assert!(terminate(child.id()).is_err(), "the process is gone");
    }

    #[test]
    fn clock_ticks_are_known() {
        assert!(clock_ticks_per_second() >= 1);
    }
}
