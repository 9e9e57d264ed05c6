//! The threads a `VecGame` runs its calls on: started once with the `VecGame` and kept until it
//! is dropped, so that a call hands its work to threads already running rather than starting
//! any.
//!
//! # Why not a thread per call
//! A call of a few hundred games takes tens of microseconds a thread; starting a thread (its
//! stack mapped, the scheduler finding it a core) and joining it took as long or longer, so
//! `threads=2` was slower than 1 (issue 34). Here a call is a counter bumped: the workers wait
//! for it spinning a little while after each call, which is what a loop of calls from Python
//! leaves between two of them, then sleep ([`std::thread::park`]) so that a `VecGame` left
//! idle, or a policy that thinks for milliseconds between steps, takes no processor.
//!
//! # Why each thread has its run of blocks
//! A call is cut into blocks, and each thread has its own run of them, the same at every call,
//! so that its games stay in its core's cache. Blocks were first free for any thread to take
//! when done with its own: the slower thread's last block went to the other, where it was cold
//! (and again at the next call, back on its own core), and blocks went back and forth between
//! the cores so much that two threads ran no faster than one. So a run is left to its thread
//! once that thread has come, however slow; only the run of a thread that has not come when
//! another is done with its own is taken over (see [`ADOPTED`]), and the call does not wait for
//! that thread: a worker the system has not given a core to yet (after a sleep, or on a
//! machine busy with other work) costs nothing but its share of the parallelism.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// The work of one call: `job(phase, block)`, once for every block of every phase.
pub type Job<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// The most phases a call may have (see [`Workers::run`]).
pub const PHASES: usize = 2;

/// How long a thread spins for the next call (a worker) or for the others (the caller, or a
/// thread at the end of a phase) before it sleeps: long enough to cover Python's own time
/// between two calls of a loop (under 5 microseconds between `step` and `random_actions`),
/// short enough to cost little when Python does more in between. And on a machine busy with
/// other work, a worker spinning for a call takes the core the calling thread waits for: with a
/// compile on one of two cores, `threads=2` made 0.67× `threads=1` spinning 50 microseconds and
/// 0.79× spinning 10 (medians of runs taking turns), and no more on an idle machine.
const SPIN: Duration = Duration::from_micros(20);

/// `Shared::entry`'s bit set when the caller has claimed every block: a worker that has not
/// joined the call by then stays out of it.
const CLOSED: u64 = 1 << 31;
/// `Shared::entry`'s bits that count the workers in the call.
const IN_CALL: u64 = CLOSED - 1;

/// `Run::state`: no thread has claimed from the run in this phase.
const UNTOUCHED: u8 = 0;
/// `Run::state`: its own thread claims from it.
const OWNED: u8 = 1;
/// `Run::state`: its own thread had not come when another was done with its own run, which
/// then claims from it, as does any other thread done with its own (and its own thread, if it
/// comes).
const ADOPTED: u8 = 2;

/// A thread's run of blocks in a call: in each phase, its blocks `next` (claimed from, by it
/// or by threads adopting it) to `end`. On a cache line of its own (two: a processor may fetch
/// lines in pairs), so that claims on one run do not slow another's.
#[repr(align(128))]
struct Run {
    next: [AtomicUsize; PHASES],
    end: AtomicUsize,
    state: [AtomicU8; PHASES],
}

/// What the caller and the workers share.
struct Shared {
    /// Bumped for every call, and to stop the workers.
    generation: AtomicU64,
    /// The call workers may join: its generation's low 32 bits above bit 32, [`CLOSED`], and
    /// the workers in it ([`IN_CALL`]). A worker joins with a compare-and-swap that fails
    /// once the call is closed or another posted.
    entry: AtomicU64,
    /// The job: a pointer to the caller's `&Job`, alive until the call is closed and no
    /// worker is in it (the caller waits for both before it returns).
    job: AtomicPtr<&'static Job<'static>>,
    /// The call's blocks in each phase, and its phases.
    blocks: AtomicUsize,
    phases: AtomicUsize,
    /// The blocks of the call done, of every phase: phase `p` is over at `(p + 1) * blocks`.
    done: AtomicUsize,
    /// Each thread's run of blocks (the caller's first).
    runs: Vec<Run>,
    /// The workers asleep or about to be, which must be woken for a call.
    sleeping: AtomicUsize,
    /// Every thread but the caller's, by index (set once they are all started): for a call,
    /// thread `t` wakes threads `2t + 1` and `2t + 2`, so that waking sixteen sleeping
    /// threads takes four wake-ups one after the other, not fifteen.
    threads: std::sync::OnceLock<Vec<Thread>>,
    /// Set when the `Workers` are dropped: the workers end.
    stop: AtomicBool,
    /// The thread that made the call, which the last worker out of a closed call wakes.
    caller: Mutex<Option<Thread>>,
    /// The first panic of a block run by a worker, raised again on the caller's thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// `threads - 1` worker threads and the caller: see the module.
pub struct Workers {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    /// The threads asked for, the caller included.
    threads: usize,
    /// [`FORKS`] when the workers started.
    forks: u64,
}

/// How many times this process is a child forked from its parent (`os.fork`, `multiprocessing`
/// with "fork"), counted by the hook [`watch_forks`] gives Python: a child has none of its
/// parent's threads, and a `VecGame` made before the fork starts its own (a counter read at
/// each call rather than the process id, a call into the system each time).
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Has Python count forks into [`FORKS`] (`os.register_at_fork`), once a process; before a
/// `VecGame` starts its workers. Where Python has no fork (Windows), there is none to count.
pub fn watch_forks(py: pyo3::Python<'_>) -> pyo3::PyResult<()> {
    use pyo3::prelude::*;
    // Set under the GIL, which every caller holds: one hook a process.
    static WATCHING: AtomicBool = AtomicBool::new(false);
    let os = py.import("os")?;
    if WATCHING.load(Ordering::Relaxed) || !os.hasattr("register_at_fork")? {
        return Ok(());
    }
    let count = pyo3::types::PyCFunction::new_closure(py, None, None, |_, _| {
        FORKS.fetch_add(1, Ordering::Relaxed);
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("after_in_child", count)?;
    os.call_method("register_at_fork", (), Some(&kwargs))?;
    WATCHING.store(true, Ordering::Relaxed);
    Ok(())
}

impl Workers {
    /// The caller and `threads - 1` workers (none for 1). Err when the system refuses a thread.
    pub fn new(threads: usize) -> std::io::Result<Workers> {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            entry: AtomicU64::new(CLOSED),
            job: AtomicPtr::new(std::ptr::null_mut()),
            blocks: AtomicUsize::new(0),
            phases: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            runs: (0..threads)
                .map(|_| Run {
                    next: Default::default(),
                    end: AtomicUsize::new(0),
                    state: Default::default(),
                })
                .collect(),
            sleeping: AtomicUsize::new(0),
            threads: std::sync::OnceLock::new(),
            stop: AtomicBool::new(false),
            caller: Mutex::new(None),
            panic: Mutex::new(None),
        });
        let mut workers = Workers {
            shared,
            handles: Vec::new(),
            threads,
            forks: FORKS.load(Ordering::Relaxed),
        };
        for index in 1..threads {
            let shared = workers.shared.clone();
            // A small stack: a worker runs rules and writes arrays, nothing deep (a failure
            // here drops `workers`, which stops those already started).
            let handle = thread::Builder::new()
                .name(format!("anqi-vecgame-{index}"))
                .stack_size(256 << 10)
                .spawn(move || work(&shared, index))?;
            workers.handles.push(handle);
        }
        let threads = workers.handles.iter().map(|h| h.thread().clone());
        let _ = workers.shared.threads.set(threads.collect());
        Ok(workers)
    }

    /// How many threads the next call may run on, the caller included. In a process forked
    /// since the workers started, which has none of them, new ones are started first (or none,
    /// and the caller runs every call alone, if the system refuses).
    pub fn ready(&mut self) -> usize {
        if self.threads > 1 && FORKS.load(Ordering::Relaxed) != self.forks {
            // The parent's workers and what they share are left alone: their threads are not
            // in this process, and a lock one of them held at the fork stays held here.
            let fresh = Workers::new(self.threads)
                .unwrap_or_else(|_| Workers::new(1).expect("a single thread starts no thread"));
            std::mem::forget(std::mem::replace(self, fresh));
        }
        self.handles.len() + 1
    }

    /// Runs `f` on each of `parts` once, over the threads (part `k` on the same thread call
    /// after call, when every thread is on a core), and returns when all are done. A panic in
    /// any is raised again here, after every thread is out of the call.
    pub fn run_parts<P: Send>(&mut self, parts: Vec<P>, f: impl Fn(P) + Sync) {
        let parts = Parts::new(parts);
        self.run(parts.len(), 1, &|_, b| f(parts.take(b)));
    }

    /// Runs `job(phase, b)` once for every block `b` in `0..blocks` of every phase in
    /// `0..phases` (at most [`PHASES`]), over the threads (see the module), and returns when
    /// all are done. A phase starts on every thread once every block of the one before is
    /// done. A panic in any block is raised again here, after every thread is out of the call.
    pub fn run(&mut self, blocks: usize, phases: usize, job: &Job<'_>) {
        assert!(phases <= PHASES, "at most {PHASES} phases");
        if self.handles.is_empty() {
            for phase in 0..phases {
                (0..blocks).for_each(|b| job(phase, b));
            }
            return;
        }
        let shared = &*self.shared;
        {
            let mut caller = shared.caller.lock().unwrap_or_else(PoisonError::into_inner);
            if caller.as_ref().map(Thread::id) != Some(thread::current().id()) {
                *caller = Some(thread::current());
            }
        }
        let threads = shared.runs.len();
        for (t, run) in shared.runs.iter().enumerate() {
            for phase in 0..phases {
                run.next[phase].store(blocks * t / threads, Ordering::Relaxed);
                run.state[phase].store(UNTOUCHED, Ordering::Relaxed);
            }
            run.end.store(blocks * (t + 1) / threads, Ordering::Relaxed);
        }
        shared.blocks.store(blocks, Ordering::Relaxed);
        shared.phases.store(phases, Ordering::Relaxed);
        shared.done.store(0, Ordering::Relaxed);
        // SAFETY (of the workers' dereference, in `work`): the pointer is to `job_ref`, which
        // lives until this function returns, and this function returns only when the call is
        // closed (no worker joins it after) and every worker that joined it has left (after
        // its last use of the job). The lifetime is erased only to store it.
        let job_ref: &Job<'_> = job;
        let erased = std::ptr::from_ref(&job_ref).cast::<&'static Job<'static>>();
        shared.job.store(erased.cast_mut(), Ordering::Relaxed);
        let generation = shared.generation.load(Ordering::Relaxed).wrapping_add(1);
        shared
            .entry
            .store((generation & 0xffff_ffff) << 32, Ordering::Relaxed);
        // SeqCst with `sleeping`: a worker about to sleep sees the new call, or is seen.
        shared.generation.store(generation, Ordering::SeqCst);
        wake_next(shared, 0);
        claim(shared, 0, job);
        // Every block is claimed: close the call, then wait for the workers in it.
        let entry = shared.entry.fetch_or(CLOSED, Ordering::AcqRel);
        if entry & IN_CALL != 0 {
            wait_until(
                || shared.entry.load(Ordering::Acquire) & IN_CALL == 0,
                Sleep::Woken,
            );
        }
        let panic = shared
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(panic) = panic {
            resume_unwind(panic);
        }
    }
}

/// One part of a call's data for each block, each taken (or read, in an earlier phase) by
/// the thread that claims its block: a lock a block, never waited for.
pub struct Parts<P>(Vec<Mutex<Option<P>>>);

impl<P> Parts<P> {
    pub fn new(parts: Vec<P>) -> Parts<P> {
        Parts(parts.into_iter().map(|p| Mutex::new(Some(p))).collect())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `f` of part `b`, not yet taken.
    pub fn with<R>(&self, b: usize, f: impl FnOnce(&mut P) -> R) -> R {
        let mut part = self.0[b].lock().unwrap_or_else(PoisonError::into_inner);
        f(part.as_mut().expect("a part is read before it is taken"))
    }

    /// Part `b`, taken: once.
    pub fn take(&self, b: usize) -> P {
        let part = self.0[b]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        part.expect("each block is claimed once")
    }
}

/// Runs `job` on every block thread `t` can claim, phase by phase: its own run first, then
/// those of threads that have not come (see the module), then it waits for the phase's other
/// blocks to be done. A panic in a block is kept for the caller, and the block counted done.
fn claim(shared: &Shared, t: usize, job: &Job<'_>) {
    let runs = &shared.runs;
    let blocks = shared.blocks.load(Ordering::Relaxed);
    let phases = shared.phases.load(Ordering::Relaxed);
    for phase in 0..phases {
        for k in 0..runs.len() {
            let run = &runs[(t + k) % runs.len()];
            let state = &run.state[phase];
            if k == 0 {
                state.store(OWNED, Ordering::Relaxed);
            } else if state
                .compare_exchange(UNTOUCHED, ADOPTED, Ordering::Relaxed, Ordering::Relaxed)
                .is_err_and(|state| state == OWNED)
            {
                continue;
            }
            let end = run.end.load(Ordering::Relaxed);
            loop {
                let b = run.next[phase].fetch_add(1, Ordering::Relaxed);
                if b >= end {
                    break;
                }
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| job(phase, b))) {
                    let mut first = shared.panic.lock().unwrap_or_else(PoisonError::into_inner);
                    first.get_or_insert(panic);
                }
                shared.done.fetch_add(1, Ordering::Release);
            }
        }
        // The next phase waits for this one's blocks, whoever runs them; after the last, the
        // caller waits for the workers in the call to leave, which they do when done.
        if phase + 1 < phases {
            let over = (phase + 1) * blocks;
            wait_until(|| shared.done.load(Ordering::Acquire) >= over, Sleep::Naps);
        }
    }
}

/// How a thread that waits in [`wait_until`] sleeps, once done spinning.
#[derive(Clone, Copy)]
enum Sleep<'a> {
    /// Until woken ([`Thread::unpark`]) by whoever makes the wait over, who knows to: the
    /// last worker out of a call wakes the caller.
    Woken,
    /// Until woken, counted in this while asleep: the caller wakes the workers for a call
    /// only when one may sleep.
    Counted(&'a AtomicUsize),
    /// In short naps: nobody wakes a thread waiting for the end of a phase (it is meant to be
    /// short, and every block done would otherwise have to wake the waiting threads).
    Naps,
}

/// Spins until `done()`, for [`SPIN`] at most, then sleeps until it is (see [`Sleep`]). A
/// wake-up may come early or for an earlier call: `done` is asked again after each.
fn wait_until(done: impl Fn() -> bool, sleep: Sleep<'_>) {
    let start = Instant::now();
    let mut spins = 0u32;
    while !done() {
        spins = spins.wrapping_add(1);
        // The clock read now and then only: it costs more than a spin.
        if spins % 64 != 0 || start.elapsed() < SPIN {
            std::hint::spin_loop();
            continue;
        }
        match sleep {
            Sleep::Woken => thread::park(),
            Sleep::Counted(sleeping) => {
                sleeping.fetch_add(1, Ordering::SeqCst);
                // Asked again once counted (SeqCst, as the caller's call and its reading of
                // the count): whoever makes it so after this sees the count and wakes.
                if !done() {
                    thread::park();
                }
                sleeping.fetch_sub(1, Ordering::SeqCst);
            }
            Sleep::Naps => thread::park_timeout(SPIN),
        }
    }
}

/// Wakes thread `t`'s two in the tree of wake-ups (see `Shared::threads`), if a worker may
/// be asleep: a worker spinning needs no wake-up, and waking one is an atomic swap then.
fn wake_next(shared: &Shared, t: usize) {
    if shared.sleeping.load(Ordering::SeqCst) == 0 {
        return;
    }
    let threads = shared.threads.get().map_or(&[][..], Vec::as_slice);
    for next in [2 * t + 1, 2 * t + 2] {
        // Thread `next` is `threads[next - 1]`: the caller, thread 0, is not in it.
        if let Some(thread) = threads.get(next - 1) {
            thread.unpark();
        }
    }
}

/// Joins the call of `generation`, unless it is closed or over: whether it did.
fn join(shared: &Shared, generation: u64) -> bool {
    let mut entry = shared.entry.load(Ordering::Relaxed);
    loop {
        if entry >> 32 != generation & 0xffff_ffff || entry & CLOSED != 0 {
            return false;
        }
        match shared.entry.compare_exchange_weak(
            entry,
            entry + 1,
            Ordering::Acquire,
            Ordering::Relaxed,
        ) {
            Ok(_) => return true,
            Err(now) => entry = now,
        }
    }
}

/// Worker `index`'s life: each call it can join, until told to stop.
fn work(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        wait_until(
            || shared.generation.load(Ordering::SeqCst) != seen,
            Sleep::Counted(&shared.sleeping),
        );
        seen = shared.generation.load(Ordering::Acquire);
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        wake_next(shared, index);
        if !join(shared, seen) {
            continue;
        }
        // SAFETY: see `Workers::run`: the job is alive while this worker is in the call,
        // which it leaves below.
        let job: &Job<'_> = unsafe { *shared.job.load(Ordering::Relaxed) };
        claim(shared, index, job);
        let left = shared.entry.fetch_sub(1, Ordering::Release) - 1;
        if left & CLOSED != 0 && left & IN_CALL == 0 {
            // The last one out of a closed call: the caller may be asleep (if it is not, the
            // wake-up is kept and ends one later sleep of its thread early, which every
            // sleeper allows for).
            let caller = shared.caller.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(caller) = caller.as_ref() {
                caller.unpark();
            }
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        for handle in self.handles.drain(..) {
            handle.thread().unpark();
            // A worker's panics are caught in `claim`: it ends only when told to.
            let _ = handle.join();
        }
    }
}
