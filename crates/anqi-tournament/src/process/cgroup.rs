//! A cgroup (version 2) of its own for each engine: the one container on Linux that no process
//! leaves by forking, by starting a new session or by losing its parent. Everything an engine
//! starts is born in the engine's cgroup and stays there, so ending the cgroup
//! (`cgroup.kill`) ends all of it at once, even a helper that forks and exits over and over
//! and so is never at the same pid long enough to be found and signalled.
//!
//! The cgroup is made below this process's own (as `/proc/self/cgroup` names it, in the cgroup
//! v2 hierarchy `/proc/self/mountinfo` shows), named `anqi-PID-N`. That works as root where the
//! hierarchy is writable (a container's own root cgroup), and for a user under systemd in the
//! subtree systemd delegates to them; elsewhere [`Cgroup::create`] says why it cannot, and the
//! caller falls back to process groups and descendant kills (see the crate's `keeper`). The
//! engine joins the cgroup between fork and exec ([`Cgroup::contain`]), before it runs a single
//! instruction of its own. On kernels before 5.14, which have no
//! `cgroup.kill`, the cgroup is frozen (`cgroup.freeze`, 5.2) and every process listed in it is
//! killed, round after round until it is empty.
//!
//! Ending a cgroup may take a while (up to twice [`END_LIMIT`]), so a cgroup dropped in async
//! code is ended on tokio's blocking threads, never on the thread that runs games; a process
//! that ends normally waits for those endings ([`wait_for_endings`]; a tokio runtime's own
//! shutdown waits for them too), and what a process killed with SIGKILL leaves is swept by
//! the next one ([`Cgroup::create`]).

use std::collections::BTreeSet;
use std::ffi::CString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// How long dropping a [`Cgroup`] waits for its processes to end before it leaves them (and
/// the cgroup's directory) behind: far more than the kernel needs to end them.
pub const END_LIMIT: Duration = Duration::from_secs(2);

/// The prefix of every cgroup anqi makes: `anqi-PID-N`.
const PREFIX: &str = "anqi-";

/// Why no cgroup can be made for an engine here. Cloned: the reason found once stands for
/// every engine of the process.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CgroupUnavailable {
    #[error("cgroups exist on Linux only")]
    NotLinux,
    #[error("no cgroup v2 hierarchy is mounted (none in /proc/self/mountinfo)")]
    NoHierarchy,
    #[error("this process's cgroup v2 is not known: {0}")]
    OwnUnknown(String),
    #[error("cannot create a cgroup in {dir}: {why} (root, or a cgroup v2 subtree delegated to this user, is needed)")]
    Create { dir: PathBuf, why: String },
    #[error("cannot move processes into the cgroups made in {dir}: {why} (its cgroup.procs is not writable: the subtree is not delegated to this user)")]
    NotDelegated { dir: PathBuf, why: String },
}

/// A cgroup made for one engine (and what it starts). Dropping it ends every process in it
/// and removes it.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
    /// `dir/cgroup.procs` as a C string, made before any fork: the child joins the cgroup by
    /// writing to it, where it may not allocate.
    procs: CString,
}

impl Cgroup {
    /// Makes a new, empty cgroup below this process's own. The first call also ends and
    /// removes the cgroups there that anqi processes no longer running left behind (one killed
    /// with SIGKILL cannot remove its own), those of an earlier process with this very pid
    /// included (see `remove_stale`).
    ///
    /// # Errors
    /// Why no cgroup can be made here (no cgroup v2, no permission, not delegated).
    pub fn create() -> Result<Cgroup, CgroupUnavailable> {
        if !cfg!(target_os = "linux") {
            return Err(CgroupUnavailable::NotLinux);
        }
        let parent = own_dir()?;
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| remove_stale(parent));
        let cgroup = Cgroup::make_below(parent)?;
        // Moving a process takes write permission on the cgroup.procs of the destination and
        // of the common ancestor of where it comes from and where it goes: this process's own.
        for dir in [parent, cgroup.dir.as_path()] {
            if let Err(e) = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
            {
                return Err(CgroupUnavailable::NotDelegated {
                    dir: parent.to_path_buf(),
                    why: e.to_string(),
                });
            }
        }
        Ok(cgroup)
    }

    /// Makes `parent/anqi-PID-N`, with the first N not taken.
    fn make_below(parent: &Path) -> Result<Cgroup, CgroupUnavailable> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = parent.join(format!("{PREFIX}{pid}-{n}"));
            // Noted as this process's while it is made: a sweep never sees it unclaimed.
            let mut made = made();
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    made.insert(dir.clone());
                    return Ok(Cgroup::at(dir));
                }
                // Left by an earlier process with this pid that is still being swept.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => continue,
                Err(e) => {
                    return Err(CgroupUnavailable::Create {
                        dir: parent.to_path_buf(),
                        why: e.to_string(),
                    })
                }
            }
        }
    }

    /// The cgroup at `dir`, which exists.
    fn at(dir: PathBuf) -> Cgroup {
        use std::os::unix::ffi::OsStrExt;
        // A path read from the kernel's own files, or made from one, holds no NUL byte.
        let procs =
            CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).unwrap_or_default();
        Cgroup { dir, procs }
    }

    /// The cgroup's directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Makes the process `cmd` starts join this cgroup before it executes its program (it
    /// writes `0`, "myself", to `cgroup.procs`): nothing it ever starts is born outside. When
    /// the kernel refuses, the child is not started and `spawn` returns the error.
    ///
    /// For a `tokio::process::Command`, pass `command.as_std_mut()`.
    pub fn contain(&self, cmd: &mut std::process::Command) {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            let procs = self.procs.clone();
            // SAFETY: the closure runs in the child between fork and exec, where only
            // async-signal-safe calls are allowed: open, write and close are, and nothing is
            // allocated (the path was made before the fork; last_os_error only reads errno).
            // The descriptor is the closure's own, closed before it returns.
            unsafe {
                cmd.pre_exec(move || {
                    let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                    let error = io::Error::last_os_error();
                    libc::close(fd);
                    if written != 1 {
                        return Err(error);
                    }
                    Ok(())
                });
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = cmd;
    }

    /// Whether a living process is in the cgroup or below it (an exited one that nobody
    /// reaped yet is not). False once the cgroup is gone.
    pub fn is_populated(&self) -> bool {
        events(&self.dir, "populated")
    }

    /// Ends every process in the cgroup and below it, and waits (at most `limit`) until none
    /// is left; returns whether none is. `cgroup.kill` where the kernel has it (5.14), else
    /// the cgroup is frozen and its processes killed one by one, round after round.
    pub fn kill_all(&self, limit: Duration) -> bool {
        kill_all(&self.dir, limit)
    }
}

impl Drop for Cgroup {
    /// Ends every process left in the cgroup, then removes it: on tokio's blocking threads
    /// when dropped in a runtime (async code must not wait for it), else here and now. See
    /// `Ending`.
    fn drop(&mut self) {
        Ending::new(std::mem::take(&mut self.dir)).start();
    }
}

/// The cgroups this process made and has not finished removing: the stale sweep leaves
/// them alone, and ends every other `anqi-{own pid}-N` (an earlier process's).
fn made() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    static MADE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    MADE.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many [`Ending`]s are not done yet, and the signal that one is.
static UNDER_WAY: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// A cgroup being ended: every process in it killed, then its directory removed. The work
/// is done when the `Ending` is dropped, wherever that happens: on a blocking thread
/// ([`Ending::start`]), or where tokio drops a blocking task it never ran (a runtime shutting
/// down), so that no cgroup handed over is ever forgotten.
struct Ending {
    dir: PathBuf,
}

impl Ending {
    fn new(dir: PathBuf) -> Ending {
        *UNDER_WAY.0.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        Ending { dir }
    }

    /// Ends the cgroup: on tokio's blocking threads when called from within a runtime (a
    /// games thread must not sleep up to twice [`END_LIMIT`] on it), else on this thread.
    fn start(self) {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(self))),
            Err(_) => drop(self),
        }
    }
}

impl Drop for Ending {
    /// Ends every process left in the cgroup, then removes it. Whatever is still running
    /// after [`END_LIMIT`] (a kernel that would not end it) is left, logged, with its cgroup.
    fn drop(&mut self) {
        if !kill_all(&self.dir, END_LIMIT) {
            tracing::warn!(
                "processes in {} are still running after {END_LIMIT:?}",
                self.dir.display()
            );
        }
        if !remove(&self.dir, END_LIMIT) {
            tracing::warn!("cannot remove the cgroup {}", self.dir.display());
        }
        made().remove(&self.dir);
        let (count, done) = &UNDER_WAY;
        let mut count = count.lock().unwrap_or_else(|e| e.into_inner());
        *count -= 1;
        done.notify_all();
    }
}

/// Waits until every cgroup dropped so far in this process has been ended and removed, those
/// handed to tokio's blocking threads included, for at most `limit`; whether all were. Call it
/// before a process that made cgroups in async code exits (a tokio runtime's shutdown waits
/// for its blocking threads too, but `std::process::exit` does not).
pub fn wait_for_endings(limit: Duration) -> bool {
    let (count, done) = &UNDER_WAY;
    let count = count.lock().unwrap_or_else(|e| e.into_inner());
    let (count, _) = done
        .wait_timeout_while(count, limit, |n| *n > 0)
        .unwrap_or_else(|e| e.into_inner());
    *count == 0
}

/// Ends every process in the cgroup `dir` and below it, and waits (at most `limit`) until
/// none is left; returns whether none is. `cgroup.kill` where the kernel has it (5.14), else
/// [`kill_listed`].
fn kill_all(dir: &Path, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    if !events(dir, "populated") {
        return true;
    }
    if write_file(&dir.join("cgroup.kill"), "1").is_ok() {
        return wait_until(until, || !events(dir, "populated"));
    }
    kill_listed(dir, until)
}

/// What [`kill_all`] does on a kernel without `cgroup.kill`: freeze the cgroup (where
/// `cgroup.freeze` exists, so that no process in it can fork meanwhile), SIGKILL every
/// process listed in it and below, thaw it, and start over until it is empty.
fn kill_listed(dir: &Path, until: Instant) -> bool {
    let freeze = dir.join("cgroup.freeze");
    let populated = || events(dir, "populated");
    loop {
        let frozen = write_file(&freeze, "1").is_ok()
            && wait_until(Instant::now() + Duration::from_millis(100), || {
                events(dir, "frozen") || !populated()
            });
        for pid in pids(dir) {
            // One gone meanwhile is not an error: it is what was wanted.
            let _ = super::kill(pid);
        }
        // A frozen process takes SIGKILL all the same; thawed, nothing is left frozen
        // should one of them refuse the signal.
        if frozen {
            let _ = write_file(&freeze, "0");
        }
        let round = (Instant::now() + Duration::from_millis(50)).min(until);
        if wait_until(round, || !populated()) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
    }
}

/// The processes listed in the cgroup `dir` and in every cgroup below it.
fn pids(dir: &Path) -> Vec<u32> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if let Ok(text) = std::fs::read_to_string(dir.join("cgroup.procs")) {
            out.extend(text.lines().filter_map(|l| l.trim().parse::<u32>().ok()));
        }
        todo.extend(subgroups(&dir));
    }
    out
}

/// Removes the cgroup `dir` and the cgroups below it (each must be empty of processes), the
/// deepest first; returns whether it is gone. An empty cgroup may still be busy for an
/// instant after its last process died: tried again for up to `limit`.
fn remove(dir: &Path, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    wait_until(until, || remove_tree(dir))
}

/// This process's own cgroup's directory, found once: the first cgroup2 mount in
/// `/proc/self/mountinfo`, and the path `/proc/self/cgroup` gives (`0::/PATH`) below the
/// mount's root.
fn own_dir() -> Result<&'static Path, CgroupUnavailable> {
    static OWN: OnceLock<Result<PathBuf, CgroupUnavailable>> = OnceLock::new();
    OWN.get_or_init(|| {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .map_err(|e| CgroupUnavailable::OwnUnknown(format!("cannot read {path}: {e}")))
        };
        let (root, mount) =
            cgroup2_mount(&read("/proc/self/mountinfo")?).ok_or(CgroupUnavailable::NoHierarchy)?;
        let own = read("/proc/self/cgroup")?
            .lines()
            .find_map(|l| l.strip_prefix("0::").map(str::to_owned))
            .ok_or_else(|| {
                CgroupUnavailable::OwnUnknown("/proc/self/cgroup has no cgroup v2 line".into())
            })?;
        let below = if root == "/" {
            own.as_str()
        } else {
            own.strip_prefix(root.as_str())
                .filter(|rest| rest.is_empty() || rest.starts_with('/'))
                .ok_or_else(|| {
                    CgroupUnavailable::OwnUnknown(format!(
                        "its cgroup {own} is outside the mounted subtree {root}"
                    ))
                })?
        };
        let dir = mount.join(below.trim_start_matches('/'));
        if !dir.join("cgroup.procs").is_file() {
            return Err(CgroupUnavailable::OwnUnknown(format!(
                "{} is not a cgroup directory",
                dir.display()
            )));
        }
        Ok(dir)
    })
    .as_ref()
    .map(PathBuf::as_path)
    .map_err(Clone::clone)
}

/// The root (within the hierarchy) and the mount point of the first cgroup2 mount of a
/// `mountinfo` text. Fields: `ID PARENT MAJ:MIN ROOT MOUNT OPTIONS... - TYPE SOURCE SUPER`;
/// spaces and the like in paths are written as octal escapes (`\040`).
fn cgroup2_mount(mountinfo: &str) -> Option<(String, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        let (head, tail) = line.split_once(" - ")?;
        if tail.split(' ').next()? != "cgroup2" {
            return None;
        }
        let mut fields = head.split(' ');
        let root = fields.nth(3)?;
        let mount = fields.next()?;
        Some((unescape(root), PathBuf::from(unescape(mount))))
    })
}

/// A `mountinfo` path with its octal escapes (`\040` for a space) read back.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                let value = d.iter().fold(0u32, |v, c| v * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Ends and removes the cgroups `anqi-PID-N` in `parent` whose process no longer runs: left
/// by an anqi process killed with SIGKILL (a tournament runner's keepers' cgroups are below
/// the runner's), with whatever escaped there. Those named with this process's own pid that
/// it did not make are an earlier process's, with the same pid (pids are reused, and soon in
/// a container): they go too. A pid now used by another process keeps its cgroups: they may
/// be that process's. Each is ended as a dropped [`Cgroup`] is (in the background in a
/// runtime).
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let stale = if pid == me {
            !made().contains(&entry.path())
        } else {
            !Path::new(&format!("/proc/{pid}")).exists()
        };
        if stale {
            Ending::new(entry.path()).start();
        }
    }
}

/// The cgroups directly below `dir`.
fn subgroups(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// Removes `dir` and the cgroups below it, the deepest first; whether it is gone.
fn remove_tree(dir: &Path) -> bool {
    for sub in subgroups(dir) {
        remove_tree(&sub);
    }
    match std::fs::remove_dir(dir) {
        Ok(()) => true,
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    }
}

/// Whether `key` is `1` in the cgroup's `cgroup.events` (`populated`, `frozen`); false when
/// it cannot be read.
fn events(dir: &Path, key: &str) -> bool {
    std::fs::read_to_string(dir.join("cgroup.events")).is_ok_and(|text| {
        text.lines()
            .any(|l| l.strip_prefix(key).is_some_and(|v| v.trim() == "1"))
    })
}

/// Writes `text` to an existing file of the cgroup filesystem (never creating one).
fn write_file(path: &Path, text: &str) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// Polls `done` every millisecond until it holds or `until` passes; whether it held.
fn wait_until(until: Instant, mut done: impl FnMut() -> bool) -> bool {
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A pid hopper: a shell that forks a child that forks again, and exits; the grandchild
    /// (an orphan, at a new pid) does the same, over and over, until the file `$1` exists.
    /// Each generation writes its pid to the file `$2` (through a rename, so that it is never
    /// read half written).
    const HOPPER: &str = r#"[ -e "$1" ] && exit 0
echo $$ > "$2.$$" && mv -f "$2.$$" "$2"
(sh -c "$HOP" hop "$1" "$2" &)
exit 0"#;

    /// A cgroup, or `None` when none can be made here; then the test says it was skipped
    /// (on the terminal, past the test harness's capture), or fails with
    /// `ANQI_CGROUP_TESTS=require`.
    fn cgroup_or_skip(test: &str) -> Option<Cgroup> {
        match Cgroup::create() {
            Ok(c) => Some(c),
            Err(why) => {
                let required = std::env::var("ANQI_CGROUP_TESTS").is_ok_and(|v| v == "require");
                assert!(!required, "ANQI_CGROUP_TESTS=require, but {why}");
                let _ = writeln!(io::stderr(), "{test} SKIPPED: no cgroup can be made: {why}");
                None
            }
        }
    }

    /// Held by a test that sweeps the stale cgroups itself: a sweep ends every `anqi-{own
    /// pid}-N` this process did not make, so one test's sweep would end the hopper another
    /// test had just started in the stale cgroup it made to be swept.
    fn sweeping() -> MutexGuard<'static, ()> {
        static SWEEPING: Mutex<()> = Mutex::new(());
        SWEEPING.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A temporary directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("anqi-cgroup-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            // Whatever still hops stops at its next generation.
            let _ = std::fs::write(self.0.join("stop"), "");
            std::thread::sleep(Duration::from_millis(100));
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Starts the hopper in `cgroup` and waits until it has hopped a few times.
    fn start_hopper(cgroup: &Cgroup, dir: &Path) -> PathBuf {
        let beat = dir.join("beat");
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(HOPPER)
            .arg("hop")
            .arg(dir.join("stop"))
            .arg(&beat)
            .env("HOP", HOPPER);
        cgroup.contain(&mut cmd);
        let mut first = cmd.spawn().unwrap();
        first.wait().unwrap();
        let mut seen = std::collections::BTreeSet::new();
        let until = Instant::now() + Duration::from_secs(10);
        while seen.len() < 4 && Instant::now() < until {
            if let Ok(pid) = std::fs::read_to_string(&beat) {
                seen.insert(pid);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(seen.len() >= 4, "the hopper did not hop: {seen:?}");
        assert!(cgroup.is_populated(), "the hopper is in the cgroup");
        beat
    }

    /// Whether the beat file stays as it is for half a second.
    fn beat_stopped(beat: &Path) -> bool {
        let before = std::fs::read_to_string(beat).ok();
        std::thread::sleep(Duration::from_millis(500));
        before == std::fs::read_to_string(beat).ok()
    }

    #[test]
    fn a_pid_hopper_ends_with_its_cgroup() {
        let Some(cgroup) = cgroup_or_skip("a_pid_hopper_ends_with_its_cgroup") else {
            return;
        };
        let scratch = Scratch::new("kill");
        let beat = start_hopper(&cgroup, &scratch.0);
        let dir = cgroup.path().to_path_buf();
        drop(cgroup);
        assert!(beat_stopped(&beat), "the hopper is still running");
        assert!(!dir.exists(), "the cgroup is removed");
    }

    #[test]
    fn without_cgroup_kill_the_listed_processes_are_killed() {
        let Some(cgroup) = cgroup_or_skip("without_cgroup_kill_the_listed_processes_are_killed")
        else {
            return;
        };
        let scratch = Scratch::new("listed");
        let beat = start_hopper(&cgroup, &scratch.0);
        // What a kernel before 5.14 gets.
        assert!(kill_listed(
            cgroup.path(),
            Instant::now() + Duration::from_secs(5)
        ));
        assert!(!cgroup.is_populated());
        assert!(beat_stopped(&beat), "the hopper is still running");
    }

    #[test]
    fn cgroups_left_by_a_process_gone_are_removed() {
        let Some(cgroup) = cgroup_or_skip("cgroups_left_by_a_process_gone_are_removed") else {
            return;
        };
        let _sweeping = sweeping();
        let parent = cgroup.path().parent().unwrap().to_path_buf();
        // A pid no process has: one that exited and was reaped.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        let stale = parent.join(format!("{PREFIX}{}-0", gone.id()));
        std::fs::create_dir(&stale).unwrap();
        std::fs::create_dir(stale.join("below")).unwrap();
        remove_stale(&parent);
        assert!(!stale.exists(), "the stale cgroup is removed");
        assert!(cgroup.path().exists(), "a living process's cgroup stays");
    }

    #[test]
    fn cgroups_of_an_earlier_process_with_this_pid_are_removed() {
        // A process killed with SIGKILL leaves its cgroups, and pids are reused (soon, in a
        // container): the sweep skipped every `anqi-{own pid}-N` as this living process's.
        let Some(cgroup) =
            cgroup_or_skip("cgroups_of_an_earlier_process_with_this_pid_are_removed")
        else {
            return;
        };
        let _sweeping = sweeping();
        let parent = cgroup.path().parent().unwrap().to_path_buf();
        let stale = parent.join(format!("{PREFIX}{}-999999", std::process::id()));
        std::fs::create_dir(&stale).unwrap();
        std::fs::create_dir(stale.join("below")).unwrap();
        // What the earlier process left running there.
        let scratch = Scratch::new("own-pid");
        let left = std::mem::ManuallyDrop::new(Cgroup::at(stale.clone()));
        let beat = start_hopper(&left, &scratch.0);
        remove_stale(&parent);
        assert!(!stale.exists(), "the earlier process's cgroup is removed");
        assert!(beat_stopped(&beat), "what it left running is ended");
        assert!(cgroup.path().exists(), "this process's own cgroup stays");
    }

    #[test]
    fn dropped_in_async_code_a_cgroup_is_ended_on_a_blocking_thread() {
        // Dropping ended the cgroup on the dropping thread, sleeping up to 4 s on a thread
        // that runs games. Here the only blocking thread is busy: the drop must return at
        // once, leaving the ending queued for it.
        let Some(cgroup) =
            cgroup_or_skip("dropped_in_async_code_a_cgroup_is_ended_on_a_blocking_thread")
        else {
            return;
        };
        let scratch = Scratch::new("async");
        let beat = start_hopper(&cgroup, &scratch.0);
        let dir = cgroup.path().to_path_buf();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .max_blocking_threads(1)
            .build()
            .unwrap();
        let (release, held) = std::sync::mpsc::channel::<()>();
        runtime.block_on(async {
            let busy = tokio::task::spawn_blocking(move || held.recv());
            drop(cgroup);
            assert!(dir.exists(), "the cgroup was not ended on the async thread");
            assert!(
                !beat_stopped(&beat),
                "its hopper runs until a blocking thread ends it"
            );
            release.send(()).unwrap();
            busy.await.unwrap().unwrap();
            let ended = tokio::task::spawn_blocking(|| wait_for_endings(Duration::from_secs(20)));
            assert!(ended.await.unwrap(), "every ending is done");
        });
        assert!(!dir.exists(), "the cgroup is removed");
        assert!(beat_stopped(&beat), "the hopper is ended");
    }

    #[test]
    fn a_cgroup_dropped_in_async_code_is_gone_once_its_runtime_is() {
        // What a process that ends normally (anqi tournament, keep, bridge) counts on.
        let Some(cgroup) =
            cgroup_or_skip("a_cgroup_dropped_in_async_code_is_gone_once_its_runtime_is")
        else {
            return;
        };
        let scratch = Scratch::new("runtime-end");
        let beat = start_hopper(&cgroup, &scratch.0);
        let dir = cgroup.path().to_path_buf();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move { drop(cgroup) });
        drop(runtime);
        assert!(!dir.exists(), "the cgroup is removed");
        assert!(beat_stopped(&beat), "the hopper is ended");
    }

    #[test]
    fn mountinfo_gives_the_cgroup2_mount() {
        let text = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
                    41 31 0:38 /docker/ab /sys/fs/cgroup/my\\040dir rw,relatime - cgroup2 cgroup2 rw\n";
        let (root, mount) = cgroup2_mount(text).unwrap();
        assert_eq!(root, "/docker/ab");
        assert_eq!(mount, Path::new("/sys/fs/cgroup/my dir"));
        assert!(cgroup2_mount("31 23 0:28 / /x rw - tmpfs tmpfs rw\n").is_none());
    }
}
