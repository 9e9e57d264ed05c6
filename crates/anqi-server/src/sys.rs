//! The operating-system calls that std and tokio do not wrap, for the server and the `anqi`
//! program's commands: each call with its safety argument and its failure reported to the
//! caller.
//!
//! The server needs the descriptor limit (its connection caps live under it) and a write past
//! the file-size limit to fail rather than kill it; the web pages run their threads at a lower
//! priority; the commands that only print give SIGPIPE back its default action. Everything
//! here is a no-op or `None` where the call does not exist (outside Linux for a thread's
//! priority, outside Unix for the rest). The calls for engine processes (parent death, the
//! subreaper, kills, descendants, cgroups) are `anqi-tournament`'s `process`.

use std::io;

/// The file-descriptor limits of this process: `(soft, hard)`, the hard one `None` when
/// unlimited. `None` where they cannot be known.
pub fn descriptor_limits() -> Option<(u64, Option<u64>)> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct passed to it.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
            return None;
        }
        let hard = (lim.rlim_max != libc::RLIM_INFINITY).then_some(lim.rlim_max);
        Some((lim.rlim_cur, hard))
    }
    #[cfg(not(unix))]
    None
}

/// Raises the soft file-descriptor limit to the hard one (allowed without privileges) and
/// returns the soft limit now in force, `None` where it cannot be known. When the raise is
/// refused, the soft limit stays as it was and is returned.
pub fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
                return None;
            }
            if lim.rlim_cur < lim.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: lim.rlim_max,
                    rlim_max: lim.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    lim.rlim_cur = lim.rlim_max;
                }
            }
        }
        Some(lim.rlim_cur)
    }
    #[cfg(not(unix))]
    None
}

/// Gives SIGPIPE back its default action (the process ends quietly), for a command that only
/// prints: `anqi variants | head -1` then stops like any Unix tool, instead of failing on the
/// closed pipe. Never for the server, a bridge or a tournament, whose writes to a closed
/// socket or pipe must fail as errors, not end the process.
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_DFL installs no handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ignores SIGXFSZ, so that a write past the file-size limit (`ulimit -f`) fails with EFBIG,
/// which the record sink handles, instead of killing the process with every game it runs.
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code; it only
    // changes what the kernel does with the signal.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Sets the calling thread's nice value to `nice` (0 to 19), to run it at a lower priority
/// than the process's other threads: when the processors are busy, they come first (the web
/// pages' threads, beside the games'). Linux only (a thread's nice value is its own there;
/// elsewhere it is the whole process's, and nothing is done). A value above the thread's own
/// needs no privilege; one below is refused.
///
/// # Errors
/// When the system refuses.
pub fn set_thread_nice(nice: i32) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes no argument and cannot fail; setpriority writes only the
        // scheduling attributes of the thread named.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            if libc::setpriority(libc::PRIO_PROCESS, tid, nice.clamp(0, 19)) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = nice;
        Ok(())
    }
}

/// The calling thread's nice value (Linux; elsewhere `None`).
pub fn thread_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes no argument and cannot fail; getpriority reads the thread's
        // scheduling attributes, and errno is read right after the call that may set it.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            *libc::__errno_location() = 0;
            let now = libc::getpriority(libc::PRIO_PROCESS, tid);
            (now != -1 || *libc::__errno_location() == 0).then_some(now)
        }
    }
    #[cfg(not(target_os = "linux"))]
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_descriptor_limit_is_raised_to_the_hard_one() {
        let soft = raise_descriptor_limit().expect("known on unix");
        let (now, hard) = descriptor_limits().expect("known on unix");
        assert_eq!(soft, now);
        if let Some(hard) = hard {
            assert_eq!(now, hard);
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_threads_priority_is_lowered_alone() {
        let before = thread_nice().unwrap();
        let lowered = std::thread::spawn(move || {
            set_thread_nice(before + 3).unwrap();
            thread_nice().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + 3).min(19));
        assert_eq!(
            thread_nice().unwrap(),
            before,
            "the other threads keep theirs"
        );
    }
}
