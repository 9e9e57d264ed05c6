//! The engines' logs are capped per engine and game (`engine_log_bytes`, 8 MiB) and, since an
//! event of N games could still fill N × that, per run of the event, all engines together
//! (`engine_log_bytes = { game = ..., event = ... }`, 1 GiB by default). A real event over
//! TCP with two engines that print 40 kB each per game.

use crate::common::{engine_entry, records_in, run_event, TempDir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// An engine of anqi's own protocol (the Python random bot) that first prints 40,000 bytes on
/// stderr, in lines of 100.
fn loud(name: &str) -> String {
    let script = format!(
        "head -c 40000 /dev/zero | tr '\\0' x | fold -w 99 >&2; exec python3 {ROOT}/clients/python/anqi_random_bot.py --connect {{addr}} --seed {{seed}} --name {{name}} --quiet"
    );
    engine_entry(name, "anqi", "sh", &["-c", &script])
}

#[test]
fn the_engines_logs_keep_no_more_than_the_events_cap_all_together() {
    let dir = TempDir::new("t-log-event");
    let logs = dir.0.join("logs");
    // 2 deals, 2 games each: 4 games of 2 engines, 320 kB of output; 100 kB kept per game and
    // engine, and 100 kB for the whole run.
    let settings = format!(
        "variant = \"traditional-2x4\"\nseed = \"logs\"\ndeals = 2\noutput = \"{}\"\nlogs = \"{}\"\nengine_logs = \"game\"\nengine_log_bytes = {{ game = 100000, event = 100000 }}\n",
        dir.0.join("out.jsonl").display(),
        logs.display(),
    );
    let run = run_event(&dir.0, &settings, &[loud("a"), loud("b")]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let records = records_in(&dir.0.join("out.jsonl"));
    assert_eq!(records.len(), 4);
    let mut total = 0;
    let mut capped = 0;
    for entry in std::fs::read_dir(&logs).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        // What the engine wrote, without anqi's own notes (which no cap counts).
        total += text
            .lines()
            .filter(|l| !l.starts_with("anqi: "))
            .map(|l| l.len() + 1)
            .sum::<usize>();
        if text.contains(
            "anqi: the engine's output passed engine_log_bytes's event cap (100000 bytes for all engines in this run of the event); the rest is dropped",
        ) {
            capped += 1;
            assert!(text.contains("bytes of the engine's output were dropped"), "{text}");
        }
    }
    // 320 kB printed, 100 kB kept, all logs together; every game past the cap says so.
    assert!((99_000..=100_000).contains(&total), "{total} bytes kept");
    assert!(capped >= 5, "{capped} logs say the event's cap was passed");
}
