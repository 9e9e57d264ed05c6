//! Endgame tables files are untrusted input (issue 32, section 5), over TCP with the real
//! `anqi serve`: a tables file whose header holds together but whose values of one material
//! were changed (a value flipped, a decompression bomb) never loses or misjudges a game: every
//! game finishes and is recorded, the material is left out with one logged line for the whole
//! server (not one a game), the other materials still end games, the server's memory stays
//! small, and `anqi replay --tables` with the right file verifies every record. A header that
//! does not hold together (a length past the end of the file, more stored bytes than DEFLATE
//! writes) stops the server before it listens, with the reason; a material's stored bytes are
//! read a chunk at a time, never held whole.
//!
//! The files are changed through their JSON header, whatever its format, so the test reads as
//! well against the files of the format before checksums (where it fails: issue 32).

use crate::common;

use anqi_core::record::GameRecord;
use anqi_core::rules::{Colour, Game, Variant};
use anqi_core::tables::Material;
use anqi_core::wire::ClientMessage;
use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

const ANQI: &str = env!("CARGO_BIN_EXE_anqi");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Games each server plays.
const GAMES: u64 = 40;

/// The materials whose stored values are changed: a king and a pawn against a king, and its
/// colour swap. The tables hold positions with red to move, so a game where a pawn was taken
/// looks up one of them with one side to move and the other with the other side to move:
/// with both changed, such a game goes on until a second capture, past several look-ups.
const BAD: [&str; 2] = ["KPk", "Kkp"];

/// traditional-2x4's rules with a king and a pawn a side, written to `dir`: every game is an
/// endgame once its four pieces are revealed.
fn kpkp(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(format!("{ROOT}/protocol/variants/traditional-2x4.sexp"))
        .unwrap()
        .replace("(name traditional-2x4)", "(name kpkp)")
        .replace("(pieces KPPPkppp)", "(pieces KPkp)");
    let path = dir.join("kpkp.sexp");
    std::fs::write(&path, text).unwrap();
    path
}

/// `anqi tables build VARIANT --pieces 3 --out DIR/kpkp-3.tables`.
fn build_tables(variant: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("kpkp-3.tables");
    let run = Command::new(ANQI)
        .args(["tables", "build"])
        .arg(variant)
        .args(["--pieces", "3", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

/// A tables file taken apart: its first line, its header (JSON), and its materials' bytes.
struct TablesFile {
    magic: Vec<u8>,
    header: serde_json::Value,
    body: Vec<u8>,
}

impl TablesFile {
    fn read(path: &Path) -> TablesFile {
        let bytes = std::fs::read(path).unwrap();
        let mut lines = bytes.splitn(3, |&b| b == b'\n');
        let magic = lines.next().unwrap().to_vec();
        let header = serde_json::from_slice(lines.next().unwrap()).unwrap();
        let body = lines.next().unwrap().to_vec();
        TablesFile {
            magic,
            header,
            body,
        }
    }

    fn entry(&mut self, name: &str) -> &mut serde_json::Value {
        self.header["materials"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("no material {name}"))
    }

    /// A material's stored bytes.
    fn stored(&mut self, name: &str) -> Vec<u8> {
        let m = self.entry(name);
        let (at, n) = (m["offset"].as_u64().unwrap(), m["bytes"].as_u64().unwrap());
        self.body[at as usize..(at + n) as usize].to_vec()
    }

    /// Puts `bytes` in place of a material's stored bytes, the header's lengths and offsets
    /// made to fit; its SHA-256 (in a file that has them) recomputed when `sha` is set, as a
    /// forger would, else left as it was.
    fn replace(&mut self, name: &str, bytes: Vec<u8>, sha: bool) {
        let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
        let names: Vec<String> = self.header["materials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_string())
            .collect();
        for n in &names {
            let stored = if n == name {
                bytes.clone()
            } else {
                self.stored(n)
            };
            parts.push((n.clone(), stored));
        }
        let mut offset = 0u64;
        self.body.clear();
        for (n, stored) in &parts {
            let m = self.entry(n);
            m["offset"] = offset.into();
            m["bytes"] = (stored.len() as u64).into();
            if sha && n == name && m.get("sha256").is_some() {
                use sha2::Digest;
                let digest = sha2::Sha256::digest(stored);
                m["sha256"] = digest
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
                    .into();
            }
            offset += stored.len() as u64;
            self.body.extend_from_slice(stored);
        }
    }

    fn write(&self, path: &Path) {
        let mut out = self.magic.clone();
        out.push(b'\n');
        out.extend_from_slice(&serde_json::to_vec(&self.header).unwrap());
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        std::fs::write(path, out).unwrap();
    }
}

/// `n` zero bytes, deflated a megabyte at a time (the test never holds them whole).
fn zeros_deflated(n: usize) -> Vec<u8> {
    use miniz_oxide::deflate::core::{
        compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
    };
    let mut compressor = CompressorOxide::new(create_comp_flags_from_zip_params(6, 0, 0));
    let chunk = vec![0u8; 1 << 20];
    let mut buffer = vec![0u8; 1 << 16];
    let (mut out, mut left) = (Vec::new(), n);
    loop {
        let (input, flush) = if left > 0 {
            (&chunk[..left.min(chunk.len())], TDEFLFlush::None)
        } else {
            (&chunk[..0], TDEFLFlush::Finish)
        };
        let (status, used, made) = compress(&mut compressor, input, &mut buffer, flush);
        out.extend_from_slice(&buffer[..made]);
        left -= used;
        match status {
            TDEFLStatus::Done => return out,
            TDEFLStatus::Okay => {}
            s => panic!("deflate: {s:?}"),
        }
    }
}

/// A server's run: its records, its log, its peak memory.
struct Run {
    records: Vec<GameRecord>,
    records_path: PathBuf,
    log: String,
    /// VmHWM, in KiB (Linux).
    peak_kib: Option<u64>,
}

/// `anqi serve` of `variant` adjudicating by `tables`, playing [`GAMES`] games of random bots
/// one after another; stopped by SIGTERM once every game is recorded.
async fn serve_games(dir: &Path, variant: &Path, tables: &Path, tag: &str) -> Run {
    let config = dir.join(format!("{tag}.toml"));
    std::fs::write(
        &config,
        format!(
            "[referee]\nadjudicate = \"tables\"\ntables = \"{}\"\n[seed]\nserver = \"untrusted\"\n[clock]\ngame_ms = 0\n",
            tables.display()
        ),
    )
    .unwrap();
    let records_path = dir.join(format!("{tag}.jsonl"));
    let log_path = dir.join(format!("{tag}.log"));
    let mut command = Command::new(ANQI);
    command
        .arg("serve")
        .arg("--variant")
        .arg(variant)
        .args(["--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .arg("--records")
        .arg(&records_path)
        .stderr(std::fs::File::create(&log_path).unwrap());
    let (mut child, addr) = common::spawn_server(command);
    for game in 0..GAMES {
        for bot in common::random_bots(&addr, 2, 1000 + 2 * game) {
            let r = bot.await.unwrap().expect("every game is played to its end");
            assert!(r.errors.is_empty(), "{:?}", r.errors);
        }
    }
    let lines = || {
        std::fs::read_to_string(&records_path)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    for _ in 0..100 {
        if lines() == GAMES as usize {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let peak_kib = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        });
    stop(&mut child);
    let records = anqi_core::record::read_records(&records_path)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .collect();
    Run {
        records,
        records_path,
        log: std::fs::read_to_string(&log_path).unwrap(),
        peak_kib,
    }
}

/// SIGTERM, and the exit awaited.
fn stop(child: &mut Child) {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    for _ in 0..100 {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("the server did not stop within 10 s of SIGTERM");
}

/// Whether `record`'s game reached, after some ply, a position the referee looked up in the
/// stored table of `bad` (every piece face-up, at most 3 pieces, a piece of each colour; a
/// position with black to move looked up with the colours swapped).
fn probes(record: &GameRecord, bad: Material) -> bool {
    let variant = Arc::new(Variant::parse(&record.variant_source).unwrap());
    let mut game = Game::new(variant.clone(), record.seeds.deal_for(&variant));
    for ply in &record.plies {
        let msg = ClientMessage::parse(format!("({})", ply.action).as_bytes()).unwrap();
        let action = msg.0[0].action().unwrap();
        game.play(ply.player, action).unwrap();
        if game.outcome().is_some() {
            break;
        }
        let Some(m) = Material::of_board(game.board()) else {
            continue;
        };
        let mover = game.colour_of_side(game.side_of(game.to_move()));
        let stored = if mover == Some(Colour::Black) {
            m.swapped()
        } else {
            m
        };
        if stored == bad {
            return true;
        }
    }
    false
}

/// What every run with a bad material shows: every game recorded, none lost by a fault, the
/// bad material reached by several games and logged once, games still ended by the tables'
/// good materials, and every record verified by the right tables.
fn check_run(run: &Run, good: &Path, what: &str) {
    assert_eq!(
        run.records.len(),
        GAMES as usize,
        "{what}: every game recorded"
    );
    for r in &run.records {
        assert!(!r.result.reason.is_fault(), "{what}: {:?}", r.result);
    }
    let mut reached_twice = false;
    for name in BAD {
        let bad = Material::parse(name).unwrap();
        let reached = run.records.iter().filter(|r| probes(r, bad)).count();
        reached_twice |= reached >= 2;
        let logged: Vec<&str> = run
            .log
            .lines()
            .filter(|l| l.contains(&format!("material {name}:")))
            .collect();
        assert_eq!(
            logged.len(),
            usize::from(reached > 0),
            "{what}: one line for {name}, reached in {reached} games:\n{}",
            run.log
        );
        for line in logged {
            assert!(
                line.contains("ERROR") && line.contains("games go on without them"),
                "{what}: {line}"
            );
            assert!(line.len() < 600, "{what}: a line of {} bytes", line.len());
        }
    }
    assert!(
        reached_twice,
        "{what}: no bad material reached by two games or more"
    );
    let adjudicated = run
        .records
        .iter()
        .filter(|r| r.result.reason == anqi_core::rules::Termination::Adjudicated)
        .count();
    assert!(
        adjudicated > 0,
        "{what}: the good materials still end games"
    );
    let out = Command::new(ANQI)
        .args(["replay", "--quiet", "--tables"])
        .arg(good)
        .arg(&run.records_path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{GAMES} verified, 0 failed\n"),
        "{what}: every record verified by the right tables"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tables_file_with_a_changed_material_loses_no_game_and_misjudges_none() {
    let dir = TempDir::new("tables-untrusted");
    let variant = kpkp(&dir.0);
    let good = build_tables(&variant, &dir.0);

    // Every decided value of the material with its lowest bit flipped (a win in 3 becomes a
    // loss in 2...), its bytes deflated again and the header's lengths made to fit: a file
    // with changed values and a header that holds together.
    let mut file = TablesFile::read(&good);
    for name in BAD {
        let width = file.entry(name)["width"].as_u64().unwrap() as usize;
        let mut values = miniz_oxide::inflate::decompress_to_vec(&file.stored(name)).unwrap();
        for (i, v) in values.iter_mut().enumerate() {
            if i % width == 0 && *v >= 2 {
                *v ^= 1;
            }
        }
        file.replace(
            name,
            miniz_oxide::deflate::compress_to_vec(&values, 6),
            false,
        );
    }
    let flipped = dir.0.join("flipped.tables");
    file.write(&flipped);
    let run = serve_games(&dir.0, &variant, &flipped, "flipped").await;
    check_run(&run, &good, "flipped values");
    assert!(
        run.log.contains("do not match the SHA-256"),
        "the fault named:\n{}",
        run.log
    );

    // A bomb: 1 MiB of zeros in about 1 KiB (the most stored bytes a header may claim for
    // a material of 128 bytes: a longer one, such as 512 MiB of zeros in half a megabyte, is
    // refused before the server listens), with the lengths, offsets and SHA-256 of the header
    // made to fit. Inflating stops past the 128 bytes the material holds.
    let mut file = TablesFile::read(&good);
    let bomb_bytes = zeros_deflated(1 << 20);
    assert!(bomb_bytes.len() <= 128 + 16 + 1024, "{}", bomb_bytes.len());
    for name in BAD {
        file.replace(name, bomb_bytes.clone(), true);
    }
    let bomb = dir.0.join("bomb.tables");
    file.write(&bomb);
    let run = serve_games(&dir.0, &variant, &bomb, "bomb").await;
    check_run(&run, &good, "a bomb");
    assert!(run.log.contains("inflate past"), "{}", run.log);
    if let Some(kib) = run.peak_kib {
        assert!(
            kib < 200 << 10,
            "the server's peak memory: {kib} KiB for a material of 128 entries"
        );
    }
}

/// `anqi serve` with `tables`: its exit status and stderr, or a panic if it starts.
fn refused_start(dir: &Path, variant: &Path, tables: &Path) -> (Option<i32>, String) {
    let config = dir.join("refused.toml");
    std::fs::write(
        &config,
        format!(
            "[referee]\nadjudicate = \"tables\"\ntables = \"{}\"\n",
            tables.display()
        ),
    )
    .unwrap();
    let mut child = Command::new(ANQI)
        .arg("serve")
        .arg("--variant")
        .arg(variant)
        .args(["--listen", "127.0.0.1:0", "--records", "", "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return (status.code(), stderr);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the server started with {}", tables.display());
}

#[test]
fn a_header_whose_lengths_cannot_be_right_stops_the_server_before_it_listens() {
    let dir = TempDir::new("tables-untrusted-header");
    let variant = kpkp(&dir.0);
    let good = build_tables(&variant, &dir.0);
    // 10^15 bytes aborted the server at the first game that reached the material (every
    // running game lost); 2^63 panicked the referee.
    for bytes in [1_000_000_000_000_000u64, 1 << 63] {
        let mut file = TablesFile::read(&good);
        file.entry(BAD[0])["bytes"] = bytes.into();
        let huge = dir.0.join("huge.tables");
        file.write(&huge);
        let (code, stderr) = refused_start(&dir.0, &variant, &huge);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("material {}: {bytes} bytes at offset", BAD[0]))
                && stderr.contains("pass the end of the file"),
            "{stderr}"
        );
        assert!(stderr.len() < 1000, "{stderr}");
    }
    // A bomb of 512 MiB of zeros in half a megabyte, its SHA-256 made to fit: more stored
    // bytes than DEFLATE writes for the material's 128 (before, it opened, and each material
    // read could be made as long as the file).
    let mut file = TablesFile::read(&good);
    file.replace(BAD[0], zeros_deflated(512 << 20), true);
    let bomb = dir.0.join("long-bomb.tables");
    file.write(&bomb);
    let (code, stderr) = refused_start(&dir.0, &variant, &bomb);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("material {}: ", BAD[0]))
            && stderr.contains("where the 128 bytes its layout holds take at most 1168"),
        "{stderr}"
    );
}

/// `anqi tables info --check` reads every material as a server would: the changed one is
/// named with its fault (status 1), the file as built passes (status 0); the header names a
/// variant that is not shipped, so it is given with --variant (a name in a file is not a path
/// to read).
#[test]
fn tables_info_check_names_a_material_whose_bytes_were_changed() {
    let dir = TempDir::new("tables-untrusted-info");
    let variant = kpkp(&dir.0);
    let good = build_tables(&variant, &dir.0);
    let info = |file: &Path, more: &[&str]| {
        let out = Command::new(ANQI)
            .args(["tables", "info", "--check"])
            .arg(file)
            .args(more)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, stderr) = info(&good, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("tables of variant kpkp, which is not a shipped variant")
            && stderr.contains("--variant FILE"),
        "{stderr}"
    );
    let with_variant = ["--variant", variant.to_str().unwrap()];
    let (code, stdout, stderr) = info(&good, &with_variant);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("checked: 8 materials, 0 failed"),
        "{stdout}"
    );
    let mut file = TablesFile::read(&good);
    let mut stored = file.stored(BAD[1]);
    let last = stored.len() - 1;
    stored[last] ^= 0x10;
    file.replace(BAD[1], stored, false);
    let changed = dir.0.join("changed.tables");
    file.write(&changed);
    let (code, stdout, _) = info(&changed, &with_variant);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "FAILED: {}: material {}: its bytes do not match the SHA-256",
            changed.display(),
            BAD[1]
        )) && stdout.contains("checked: 8 materials, 1 failed"),
        "{stdout}"
    );
}

/// `anqi ARGS`'s exit status and stdout, run with at most `limit` bytes of address space
/// (RLIMIT_AS), so that an allocation past it fails. (Its peak resident set, from wait4, would
/// count the test process's own: Linux keeps the high-water mark of the memory a child was
/// forked with across exec.)
#[cfg(target_os = "linux")]
fn run_limited(args: &[&std::ffi::OsStr], limit: u64) -> (Option<i32>, String) {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(ANQI);
    command.args(args).stderr(Stdio::inherit());
    // SAFETY: the closure runs in the child between fork and exec, and calls setrlimit only,
    // which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A material's stored bytes are read a chunk at a time, never held whole (the review of
/// issue 32): a header of traditional's 6-piece material KGBRkp (512 MiB in memory once read)
/// claiming the most stored bytes it may (576 MiB), the file's length made to fit with a
/// sparse file of zeros (no disk taken), checked by `anqi tables info --check` in 128 MiB of
/// address space. Before, it read the 576 MiB into memory before their SHA-256 could tell them
/// wrong (a peak of 597 MB), and here failed to: `cannot read its 603980800 bytes back (out of
/// memory)`. (A server's first probe of the material did the same.)
#[cfg(target_os = "linux")]
#[test]
fn a_sparse_material_is_checked_without_holding_its_stored_bytes() {
    use anqi_core::tables::{file, TableRules, TableStats};
    let dir = TempDir::new("tables-untrusted-sparse");
    let rules = TableRules::new(Arc::new(Variant::load("traditional").unwrap())).unwrap();
    let m = Material::parse("KGBRkp").unwrap();
    let entries = rules.layout(m).unwrap().len();
    let bytes = file::max_stored_bytes(entries * 2);
    let entry = file::MaterialEntry {
        name: m.to_string(),
        entries,
        stats: TableStats::default(),
        width: 2,
        offset: 0,
        bytes,
        sha256: "0".repeat(64),
    };
    let path = dir.0.join("sparse.tables");
    let mut out = std::fs::File::create(&path).unwrap();
    file::write_header(&mut out, &file::header(&rules, 6, 0.0, vec![entry])).unwrap();
    let body = out.metadata().unwrap().len();
    out.set_len(body + bytes).unwrap();
    drop(out);
    assert!(bytes > 512 << 20, "{bytes}");
    let (code, stdout) = run_limited(
        &[
            "tables".as_ref(),
            "info".as_ref(),
            "--check".as_ref(),
            path.as_os_str(),
        ],
        128 << 20,
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("material KGBRkp: its bytes do not match the SHA-256"),
        "{stdout}"
    );
}

/// A server process killed when dropped (a test that fails leaves none behind).
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Whether a thread of process `pid` waits in `open` of a FIFO for its other end.
#[cfg(target_os = "linux")]
fn waits_on_a_fifo(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("wchan"))
            .is_ok_and(|w| w.contains("wait_for_partner") || w.contains("fifo_open"))
    })
}

/// A referee reading a material from the file blocks no other task of the server (the review
/// of issue 32), and a material that could not be read is read again later. The server runs
/// on one worker thread (`TOKIO_WORKER_THREADS=1`) and its tables file is swapped, once it is
/// open, for a FIFO: the first game that reaches a position of the tables blocks in opening
/// it, for as long as the test likes. Meanwhile a new connection is still greeted: before, the
/// referee blocked the only worker, and no other task of the server ran (no greeting, no
/// other game) until the read ended. Then the FIFO is let go (the read finds no bytes: said
/// once in the log, the game goes on by the rules), the file is put back, and the tables end
/// games again: a failure to read is not kept.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_material_being_read_blocks_no_other_task_and_a_failed_read_is_tried_again() {
    let dir = TempDir::new("tables-untrusted-blocking");
    let variant = kpkp(&dir.0);
    let good = build_tables(&variant, &dir.0);
    let served = dir.0.join("served.tables");
    std::fs::copy(&good, &served).unwrap();
    let config = dir.0.join("blocking.toml");
    std::fs::write(
        &config,
        format!(
            "[referee]\nadjudicate = \"tables\"\ntables = \"{}\"\n[seed]\nserver = \"blocking\"\n[clock]\ngame_ms = 0\n",
            served.display()
        ),
    )
    .unwrap();
    let records_path = dir.0.join("blocking.jsonl");
    let log_path = dir.0.join("blocking.log");
    let mut command = Command::new(ANQI);
    command
        .arg("serve")
        .arg("--variant")
        .arg(&variant)
        .args(["--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .arg("--records")
        .arg(&records_path)
        .env("TOKIO_WORKER_THREADS", "1")
        .stderr(std::fs::File::create(&log_path).unwrap());
    let (child, addr) = common::spawn_server(command);
    let mut server = KillOnDrop(child);
    let pid = server.0.id();

    let kept = dir.0.join("kept.tables");
    std::fs::rename(&served, &kept).unwrap();
    let fifo = std::ffi::CString::new(served.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only creates a file at the given path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

    // Games one after another until one reaches the tables and its referee blocks.
    let mut played = 0;
    let blocked_game = 'games: loop {
        assert!(played < 40, "no game reached the tables in {played} games");
        let bots = common::random_bots(&addr, 2, 7000 + 2 * played);
        played += 1;
        loop {
            if waits_on_a_fifo(pid) {
                break 'games bots;
            }
            if bots.iter().all(|b| b.is_finished()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for bot in bots {
            bot.await
                .unwrap()
                .expect("a game before the tables were reached");
        }
    };

    // The server's other tasks still run: a new connection is greeted.
    let mut newcomer = common::RawClient::connect(&addr).await;
    assert_eq!(newcomer.line().await, "((version 1.0))");
    assert!(waits_on_a_fifo(pid), "the referee still reads");
    drop(newcomer);

    // The FIFO's other end opened and closed: the read finds no bytes.
    let fifo_path = served.clone();
    tokio::task::spawn_blocking(move || {
        drop(std::fs::OpenOptions::new().write(true).open(fifo_path))
    })
    .await
    .unwrap();
    std::fs::remove_file(&served).unwrap();
    std::fs::rename(&kept, &served).unwrap();
    for bot in blocked_game {
        let r = tokio::time::timeout(Duration::from_secs(30), bot)
            .await
            .expect("the blocked game ends once the read is let go")
            .unwrap()
            .expect("the blocked game is played to its end");
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }

    // The file back: the tables end games again (the failed read was not kept).
    let adjudicated = |records: &Path| {
        anqi_core::record::read_records(records)
            .unwrap()
            .into_iter()
            .filter(|(_, r)| {
                r.as_ref().unwrap().result.reason == anqi_core::rules::Termination::Adjudicated
            })
            .count()
    };
    let before = adjudicated(&records_path);
    let mut more = 0;
    while adjudicated(&records_path) == before {
        assert!(
            more < 40,
            "no game adjudicated in {more} games after the file came back"
        );
        for bot in common::random_bots(&addr, 2, 9000 + 2 * more) {
            bot.await.unwrap().expect("every game is played to its end");
        }
        more += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop(&mut server.0);
    let log = std::fs::read_to_string(&log_path).unwrap();
    let read_faults: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("cannot read its"))
        .collect();
    assert_eq!(read_faults.len(), 1, "{log}");
    assert!(read_faults[0].contains("ERROR"), "{log}");
    let records = anqi_core::record::read_records(&records_path).unwrap();
    assert_eq!(records.len() as u64, played + more);
    for (_, r) in records {
        assert!(!r.unwrap().result.reason.is_fault());
    }
}
