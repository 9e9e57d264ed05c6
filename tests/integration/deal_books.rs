//! Deal books over TCP: the real `anqi` binary writes books (`anqi book`), plays matches and
//! tournaments from them (the reference bots connect to the event's server), and checks the
//! records against them (`anqi report`, `anqi replay`); changed records, other books, short
//! books and books of another variant are refused by name.

use crate::common;

use anqi_core::record::GameRecord;
use common::cli::anqi;
use common::records_in;
use common::TempDir;
use std::path::{Path, PathBuf};

fn write(path: &Path, records: &[GameRecord]) {
    let text: String = records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(path, text).unwrap();
}

/// `anqi book new --deals N`: the book's path and its commitment, as `anqi book` says it.
fn new_book(dir: &Path, name: &str, deals: u32) -> (PathBuf, String) {
    let path = dir.join(name);
    let said = anqi(["book", "new", "--deals", &deals.to_string(), "--output"])
        .arg(&path)
        .succeeds()
        .stdout;
    let commitment = said.trim_end().rsplit(' ').next().unwrap().to_string();
    assert_eq!(commitment.len(), 64, "{said}");
    (path, commitment)
}

/// A match of `games` games of traditional-2x4 between two reference bots, its records in
/// `output`, with `extra` options.
fn play(a: &str, b: &str, games: u32, output: &Path, extra: &[&str]) -> common::cli::Ran {
    anqi(["match", a, b, "--variant", "traditional-2x4", "--games"])
        .arg(games.to_string())
        .arg("--output")
        .arg(output)
        .args(extra)
        .succeeds()
}

/// Each deal's server seed, deal 0 first, as the records played it (both games of a deal
/// on the same one).
fn deals_of(records: &[GameRecord]) -> Vec<String> {
    let mut by_deal: Vec<(u64, String)> = records
        .iter()
        .map(|r| (r.tournament.as_ref().unwrap().deal, r.seeds.server.clone()))
        .collect();
    by_deal.sort();
    let before = by_deal.len();
    by_deal.dedup();
    assert_eq!(by_deal.len() * 2, before, "two games per deal, on one seed");
    by_deal.into_iter().map(|(_, s)| s).collect()
}

/// `anqi COMMAND RECORDS --seed-file SEEDS --book BOOK`: the records checked against their
/// revealed seed and their book (or a proof of it).
fn checked_by(
    command: impl IntoIterator<Item = &'static str>,
    records: &Path,
    seeds: impl AsRef<std::ffi::OsStr>,
    book: &Path,
) -> common::cli::Anqi {
    anqi(command)
        .arg(records)
        .arg("--seed-file")
        .arg(seeds)
        .arg("--book")
        .arg(book)
}

fn seed_file(records: &Path) -> PathBuf {
    PathBuf::from(format!("{}.seed", records.display()))
}

#[test]
fn two_matches_with_one_book_play_the_same_deals_and_prove_it() {
    common::anqi_bot();
    let dir = TempDir::new("t-books-same");
    let (book, commitment) = new_book(&dir.0, "deals.book", 3);
    // The book is private, and `anqi book show` tells its size, never a deal.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&book).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "mode {mode:o}");
    }
    let shown = anqi(["book", "show"]).arg(&book).succeeds().stdout;
    assert!(
        shown.contains("3 deals, for any variant; commitment ") && shown.contains(&commitment),
        "{shown}"
    );
    let text = std::fs::read_to_string(&book).unwrap();
    let entries: Vec<String> = serde_json::from_str::<serde_json::Value>(&text).unwrap()["deals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    assert!(
        entries.iter().all(|d| !shown.contains(d.as_str())),
        "{shown}"
    );
    // Never written over.
    let again = anqi(["book", "new", "--deals", "2", "--output"])
        .arg(&book)
        .fails_with(2)
        .stderr;
    assert!(again.contains("cannot write the deal book"), "{again}");

    let (a, b) = (dir.0.join("a.jsonl"), dir.0.join("b.jsonl"));
    let ran = play(
        "random",
        "greedy",
        6,
        &a,
        &["--book", book.to_str().unwrap()],
    );
    assert!(
        ran.stderr.contains(&format!(
            "from a deal book of 3 deals, played in sequential order from entry 0 (book commitment {commitment})"
        )),
        "{}",
        ran.stderr
    );
    play(
        "search",
        "random",
        4,
        &b,
        &["--book", book.to_str().unwrap()],
    );
    let (ra, rb) = (records_in(&a), records_in(&b));
    // Both events played the book's first entries, in order, each deal twice.
    assert_eq!(deals_of(&ra), entries);
    assert_eq!(deals_of(&rb), entries[..2]);
    for r in ra.iter().chain(&rb) {
        let tag = r.tournament.as_ref().unwrap();
        let b = tag.book.as_ref().expect("the book's tag");
        assert_eq!(
            (b.commitment.as_str(), b.order.as_str()),
            (commitment.as_str(), "sequential")
        );
        assert_eq!(b.entry, tag.deal);
        assert!(r.seeds.clients.is_empty());
    }
    // Checked against the book and each event's revealed master seed.
    let report = checked_by(["report"], &a, seed_file(&a), &book)
        .succeeds()
        .stdout;
    assert!(
        report.contains(&format!(
            "Deals: all 6 games, deals 0 to 2 in order with none missing, dealt from the deal book committed to {commitment} in sequential order from entry 0 (checked against the book and the revealed master seed"
        )),
        "{report}"
    );
    let replay = checked_by(["replay", "--quiet"], &b, seed_file(&b), &book)
        .succeeds()
        .stdout;
    assert!(
        replay.contains("4 tournament deals checked") && replay.ends_with("4 verified, 0 failed\n"),
        "{replay}"
    );
    // A proof of b's entries (0 and 1) checks b without the book's entry 2, which it leaves
    // out; it cannot check a, which played entry 2, and no event plays it.
    let proof = dir.0.join("b.proof");
    let proved = anqi(["book", "prove"])
        .arg(&book)
        .arg(&b)
        .arg("--output")
        .arg(&proof)
        .succeeds()
        .stdout;
    assert!(
        proved.contains(&format!(
            "a proof of 2 entries of 3 deals, for any variant; commitment {commitment}"
        )),
        "{proved}"
    );
    let published = std::fs::read_to_string(&proof).unwrap();
    assert!(
        published.contains(&entries[1]) && !published.contains(&entries[2]),
        "{published}"
    );
    let checked = checked_by(["replay", "--quiet"], &b, seed_file(&b), &proof)
        .succeeds()
        .stdout;
    assert!(checked.ends_with("4 verified, 0 failed\n"), "{checked}");
    let short = checked_by(["report"], &a, seed_file(&a), &proof)
        .fails_with(2)
        .stderr;
    assert!(
        short.contains(
            "game 4: its deal is the book's entry 2, which the proof given does not hold"
        ),
        "{short}"
    );
    let refused = anqi(["match", "random", "greedy", "--variant", "traditional-2x4"])
        .args(["--games", "2", "--book"])
        .arg(&proof)
        .fails_with(2)
        .stderr;
    assert!(
        refused.contains("is a proof of 2 of a book's entries, not the book"),
        "{refused}"
    );
    // Games of another event (b's, first) fail on their commitment, and fix nothing for a's.
    let both = anqi(["replay", "--quiet"])
        .arg(&b)
        .arg(&a)
        .arg("--seed-file")
        .arg(seed_file(&a))
        .arg("--book")
        .arg(&book)
        .fails_with(1)
        .stdout;
    assert!(
        both.contains("6 tournament deals checked") && both.ends_with("6 verified, 4 failed\n"),
        "{both}"
    );
    // Without the book, the seed alone cannot check these deals: said so.
    let without = anqi(["report"])
        .arg(&a)
        .arg("--seed-file")
        .arg(seed_file(&a))
        .fails_with(2)
        .stderr;
    assert!(
        without.contains(&format!(
            "game 0 was dealt from the deal book with commitment {commitment}: give that book (--book FILE)"
        )),
        "{without}"
    );
    // And no seed: the report names the book, unchecked.
    let unchecked = anqi(["report"]).arg(&a).succeeds().stdout;
    assert!(
        unchecked.contains(&format!(
            "Deals: from the deal book committed to {commitment}"
        )),
        "{unchecked}"
    );
}

#[test]
fn changed_records_other_books_and_another_run_are_caught() {
    common::anqi_bot();
    let dir = TempDir::new("t-books-caught");
    let (book, _) = new_book(&dir.0, "deals.book", 4);
    let (other, other_commitment) = new_book(&dir.0, "other.book", 4);
    let a = dir.0.join("a.jsonl");
    play(
        "random",
        "greedy",
        4,
        &a,
        &["--book", book.to_str().unwrap()],
    );
    let seeds = seed_file(&a);
    // Game 2 (deal 1) moved to the book's entry 3, with that entry's seed: a deal the
    // organizer chose, though it is in the book. Both its tag and its seed agree, and still
    // the order of the book says deal 1 is entry 1.
    let text = std::fs::read_to_string(&book).unwrap();
    let entries: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut records = records_in(&a);
    records[2].seeds.server = entries["deals"][3].as_str().unwrap().to_string();
    records[2]
        .tournament
        .as_mut()
        .unwrap()
        .book
        .as_mut()
        .unwrap()
        .entry = 3;
    let changed = dir.0.join("changed.jsonl");
    write(&changed, &records);
    let e = checked_by(["report"], &changed, &seeds, &book)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains("game 2: deal 1 is not the book's entry 1, as the event's order of the book gives it: the record was changed"),
        "{e}"
    );
    // The replay finds the changed seed deals another game; with the seed left alone and only
    // the tag changed, it is the book's check that fails.
    let mut records = records_in(&a);
    records[2]
        .tournament
        .as_mut()
        .unwrap()
        .book
        .as_mut()
        .unwrap()
        .entry = 3;
    write(&changed, &records);
    let replayed = checked_by(["replay", "--quiet"], &changed, &seeds, &book)
        .fails_with(1)
        .stdout;
    assert!(
        replayed.contains("game 2: deal 1 is not the book's entry 1"),
        "{replayed}"
    );
    // A proof of such records would publish entry 3, never played: refused.
    let e = anqi(["book", "prove"])
        .arg(&book)
        .arg(&changed)
        .arg("--output")
        .arg(dir.0.join("changed.proof"))
        .fails_with(2)
        .stderr;
    assert!(
        e.contains("game 2 names the book's entry 3, but it was not dealt that entry's deal"),
        "{e}"
    );
    assert!(!dir.0.join("changed.proof").exists());
    // Another book: named by both commitments.
    let e = checked_by(["report"], &a, &seeds, &other)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains(&format!(
            "but the book given has commitment {other_commitment}: it is not that book"
        )),
        "{e}"
    );
    // A changed book no longer matches its own commitment.
    let tampered = dir.0.join("tampered.book");
    std::fs::write(
        &tampered,
        text.replacen(entries["deals"][0].as_str().unwrap(), "00", 1),
    )
    .unwrap();
    let e = anqi(["book", "show"]).arg(&tampered).fails_with(2).stderr;
    assert!(
        e.contains("do not match the commitment written in it"),
        "{e}"
    );
    // A run that stopped after its first deal (as after a crash: two records, the seed not
    // revealed yet).
    write(&a, &records_in(&a)[..2]);
    let kept = std::fs::read_to_string(&seeds).unwrap();
    let unrevealed: serde_json::Value = serde_json::from_str(&kept).unwrap();
    let mut unrevealed = unrevealed.as_object().unwrap().clone();
    assert_eq!(
        unrevealed.remove("revealed"),
        Some(serde_json::Value::Bool(true))
    );
    std::fs::write(&seeds, serde_json::to_string(&unrevealed).unwrap()).unwrap();
    // Resuming it with another book, or none, is refused before any game.
    for extra in [vec!["--book", other.to_str().unwrap()], vec![]] {
        let e = anqi(["match", "random", "greedy", "--variant", "traditional-2x4"])
            .args(["--games", "4", "--output"])
            .arg(&a)
            .args(&extra)
            .fails_with(2)
            .stderr;
        assert!(
            e.contains("this run plays another deal book, or none, or in another order"),
            "{extra:?}: {e}"
        );
    }
    // The same book resumes it: the second deal is the book's entry 1.
    play(
        "random",
        "greedy",
        4,
        &a,
        &["--book", book.to_str().unwrap()],
    );
    let records = records_in(&a);
    assert_eq!(records.len(), 4);
    assert_eq!(
        records[3]
            .tournament
            .as_ref()
            .unwrap()
            .book
            .as_ref()
            .unwrap()
            .entry,
        1
    );
}

#[test]
fn a_book_from_an_events_records_replays_its_deals_in_its_variant_only() {
    common::anqi_bot();
    let dir = TempDir::new("t-books-from");
    let first = dir.0.join("first.jsonl");
    play("random", "greedy", 4, &first, &[]);
    let book = dir.0.join("first.book");
    let said = anqi(["book", "from"])
        .arg(&first)
        .arg("--output")
        .arg(&book)
        .succeeds()
        .stdout;
    assert!(
        said.contains("2 deals, for the variant traditional-2x4"),
        "{said}"
    );
    let again = dir.0.join("again.jsonl");
    let ran = play(
        "search",
        "greedy",
        4,
        &again,
        &["--book", book.to_str().unwrap()],
    );
    assert!(
        ran.stderr.contains("note: the deal book holds the deals of earlier traditional-2x4 games (anqi book from): whoever has read their records knows these deals"),
        "{}",
        ran.stderr
    );
    assert_eq!(deals_of(&records_in(&again)), deals_of(&records_in(&first)));
    // Its seeds deal other games in another variant: refused, naming both.
    let e = anqi(["match", "random", "greedy", "--games", "2", "--book"])
        .arg(&book)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains("holds deals of traditional-2x4, and this event plays traditional"),
        "{e}"
    );
    // Too short a book is refused before any game, with the fix.
    let e = anqi(["match", "random", "greedy", "--variant", "traditional-2x4"])
        .args(["--games", "6", "--book"])
        .arg(&book)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains("the event plays 3 deals, but the book holds 2: no deal is played twice, so play fewer deals, or write a larger book (anqi book new --deals 3: new deals, not these)"),
        "{e}"
    );
    // Shards of one event (one fixed seed) merged: one dealt from the book, one from the
    // seed, are not one event's.
    let (x, y) = (dir.0.join("x.jsonl"), dir.0.join("y.jsonl"));
    let fixed = ["--seed", "7"];
    play(
        "random",
        "greedy",
        4,
        &x,
        &[fixed[0], fixed[1], "--book", book.to_str().unwrap()],
    );
    play("random", "greedy", 4, &y, &fixed);
    write(&x, &records_in(&x)[..2]);
    write(&y, &records_in(&y)[2..]);
    let e = anqi(["merge", "--output"])
        .arg(dir.0.join("merged.jsonl"))
        .arg(&x)
        .arg(&y)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains("game 2 takes its deal from the master seed, but game 0 from the deal book")
            && e.contains("give every shard the same [tournament.book]"),
        "{e}"
    );
    // Records of games with client seeds make no book.
    let mut loose = records_in(&first);
    loose[0].seeds.clients = vec!["x".into()];
    let changed = dir.0.join("loose.jsonl");
    write(&changed, &loose);
    let e = anqi(["book", "from"])
        .arg(&changed)
        .arg("--output")
        .arg(dir.0.join("loose.book"))
        .fails_with(2)
        .stderr;
    assert!(e.contains("was dealt with client seeds too"), "{e}");
}

#[test]
fn cutechess_openings_and_a_tournament_file_play_a_book_in_random_order() {
    common::anqi_bot();
    let dir = TempDir::new("t-books-random");
    let (book, commitment) = new_book(&dir.0, "deals.book", 20);
    let output = dir.0.join("m.jsonl");
    let openings = format!("file={}", book.display());
    let ran = anqi(["match", "-engine", "cmd=random", "-engine", "cmd=greedy"])
        .args(["-rounds", "3", "-games", "2", "-variant", "traditional-2x4"])
        .args([
            "-openings",
            &openings,
            "format=anqi",
            "order=random",
            "policy=round",
        ])
        .arg("-pgnout")
        .arg(&output)
        .succeeds();
    assert!(
        ran.stderr.contains("-openings policy=round"),
        "{}",
        ran.stderr
    );
    let records = records_in(&output);
    let entries: Vec<u64> = records
        .iter()
        .map(|r| r.tournament.as_ref().unwrap().book.as_ref().unwrap().entry)
        .collect();
    assert_eq!(entries.len(), 6);
    assert!(
        entries.chunks(2).all(|pair| pair[0] == pair[1]),
        "{entries:?}"
    );
    let mut distinct = entries.clone();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        3,
        "three deals, each a different entry: {entries:?}"
    );
    assert!(records
        .iter()
        .all(|r| r.tournament.as_ref().unwrap().book.as_ref().unwrap().order == "random"));
    let report = checked_by(["report"], &output, seed_file(&output), &book)
        .succeeds()
        .stdout;
    assert!(
        report.contains(&format!(
            "dealt from the deal book committed to {commitment} in random order (checked"
        )),
        "{report}"
    );
    // A proof of the entries played checks the shuffle too: it fixes the book's length.
    let proof = dir.0.join("m.proof");
    anqi(["book", "prove"])
        .arg(&book)
        .arg(&output)
        .arg("--output")
        .arg(&proof)
        .succeeds();
    checked_by(["report"], &output, seed_file(&output), &proof).succeeds();
    // Entries swapped between two deals keep their seeds right but not the shuffle the
    // master seed gives.
    let mut swapped = records.clone();
    let (e0, e2) = (entries[0], entries[2]);
    let (s0, s2) = (
        swapped[0].seeds.server.clone(),
        swapped[2].seeds.server.clone(),
    );
    for (i, (e, s)) in [
        (0, (e2, &s2)),
        (1, (e2, &s2)),
        (2, (e0, &s0)),
        (3, (e0, &s0)),
    ] {
        swapped[i].seeds.server = s.clone();
        swapped[i]
            .tournament
            .as_mut()
            .unwrap()
            .book
            .as_mut()
            .unwrap()
            .entry = e;
    }
    let changed = dir.0.join("swapped.jsonl");
    write(&changed, &swapped);
    let e = checked_by(["report"], &changed, seed_file(&output), &book)
        .fails_with(2)
        .stderr;
    assert!(
        e.contains(&format!("game 0: deal 0 is not the book's entry {e0}")),
        "{e}"
    );

    // A tournament file: [tournament.book] with skip, played from entry 5 on.
    let file = dir.0.join("t.toml");
    let tour_out = dir.0.join("t.jsonl");
    std::fs::write(
        &file,
        format!(
            "[tournament]\nvariant = \"traditional-2x4\"\ndeals = 2\noutput = {:?}\nlogs = {:?}\n\n[tournament.book]\nfile = {:?}\nskip = 5\n\n{}{}",
            tour_out.display().to_string(),
            dir.0.join("logs").display().to_string(),
            book.display().to_string(),
            common::bot_engine("alpha"),
            common::bot_engine("beta"),
        ),
    )
    .unwrap();
    // --prepare publishes both commitments before the games; the quiet run says them again.
    let prepared = anqi(["tournament", "--prepare"])
        .arg(&file)
        .succeeds()
        .stdout;
    assert!(
        prepared.contains(&format!(
            "\nbook commitment {commitment}, sequential order from entry 5\n"
        )),
        "{prepared}"
    );
    let quiet = anqi(["tournament", "--quiet"]).arg(&file).succeeds().stderr;
    assert!(
        quiet.contains(&format!(
            "\nbook commitment {commitment}, sequential order from entry 5\n"
        )),
        "{quiet}"
    );
    let played: Vec<u64> = records_in(&tour_out)
        .iter()
        .map(|r| r.tournament.as_ref().unwrap().book.as_ref().unwrap().entry)
        .collect();
    assert_eq!(played, [5, 5, 6, 6]);
    // skip with random order makes no sense: refused by the file's check.
    std::fs::write(
        &file,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("skip = 5", "skip = 5\norder = \"random\""),
    )
    .unwrap();
    let e = anqi(["tournament"]).arg(&file).fails_with(2).stderr;
    assert!(e.contains("a book in random order skips no entries"), "{e}");
}
