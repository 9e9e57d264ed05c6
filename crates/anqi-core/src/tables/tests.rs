use super::*;
use crate::rules::playout::SplitMix64;
use crate::rules::{Board, Colour, Game, Piece, Position, Square, Variant};
use crate::solve::Solver;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// traditional-2x4's rules with other pieces (and so cannons and guards) on a 2x4 board.
fn like_2x4(pieces: &str) -> Arc<Variant> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../protocol/variants/traditional-2x4.sexp"
    ))
    .unwrap()
    .replace("(name traditional-2x4)", "(name small)")
    .replace("(pieces KPPPkppp)", &format!("(pieces {pieces})"));
    Arc::new(Variant::parse(&text).unwrap())
}

/// A random position of `m` (red to move as the tables store it), as a board.
fn random_board(m: Material, cells: usize, rng: &mut SplitMix64) -> Board {
    let mut board = Board::parse(&".".repeat(cells)).unwrap();
    let counts = m.counts();
    for (i, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            loop {
                let c = rng.below(cells as u32) as usize;
                if board.get(c) == Square::Empty {
                    board.set(c, Square::Up(Piece::from_index(i)));
                    break;
                }
            }
        }
    }
    board
}

/// A game at `board` with `mover`'s side to move (side 0 plays red).
fn game_at(v: &Arc<Variant>, board: &Board, mover: Colour) -> Game {
    let position = Position {
        squares: board.squares().to_vec(),
        face_down: Vec::new(),
        turn_place: mover.index(),
        side_colours: vec![Some(Colour::Red), Some(Colour::Black)],
    };
    Game::from_position(v.clone(), &position).unwrap()
}

/// Every stored value follows from its children's: a win in `d` has a child lost in `d - 1`
/// and none sooner, a loss in `d` only children won, the latest in `d - 1`, a draw no child
/// lost and a child drawn. Distances going down ground every win and loss.
fn check_from_children(v: &Arc<Variant>, tables: &Tables, solved: &HashMap<Material, Table>) {
    let syms = &tables.rules().symmetries;
    let mut pieces = Vec::new();
    let mut checked = 0;
    for (m, table) in solved {
        for i in 0..table.layout().len() {
            if !table.layout().decode(i, syms, &mut pieces) {
                continue;
            }
            let mut board = Board::parse(&".".repeat(v.topology.size())).unwrap();
            for &(p, c) in &pieces {
                board.set(
                    usize::from(c),
                    Square::Up(Piece::from_index(usize::from(p))),
                );
            }
            let game = game_at(v, &board, Colour::Red);
            let stored = Verdict::of_code(table.values()[i as usize]).unwrap();
            let mut best: Option<Verdict> = None;
            for a in game.legal_actions() {
                let mut next = game.clone();
                next.play(game.to_move(), a).unwrap();
                let child = match next.outcome() {
                    Some(o) if o.winner == Some(0) => Verdict::Win { plies: 1 },
                    Some(o) => panic!("{m}: a move ends the game as {o:?}"),
                    None => match tables.probe_game(&next).unwrap().unwrap().flipped() {
                        Verdict::Win { plies } => Verdict::Win { plies: plies + 1 },
                        Verdict::Loss { plies } => Verdict::Loss { plies: plies + 1 },
                        Verdict::Draw => Verdict::Draw,
                    },
                };
                if best.is_none_or(|b| child.rank() > b.rank()) {
                    best = Some(child);
                }
            }
            let derived = best.unwrap_or(Verdict::Loss { plies: 0 });
            assert_eq!(stored, derived, "{m} {board}: stored against its children");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} positions checked");
}

#[test]
fn tables_agree_with_the_solver_and_with_their_children() {
    // Kings, guards, cannons and pawns: every capture rule (the king-pawn exception, the
    // cannon's jump and its no step capture) on a board small enough for the solver.
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    assert_eq!(rules.symmetries.len(), 4);
    let solved = build_all(&rules, 4);
    let tables = Tables::in_memory(rules.clone(), 4, solved.values().cloned().collect());
    check_from_children(&v, &tables, &solved);
    // The solver (expectimax with its own retrograde pass, no tables) on random positions,
    // both colours to move.
    let mut solver = Solver::new(&v).unwrap();
    let scale = solver.scale();
    let mut rng = SplitMix64::new(7);
    let materials: Vec<Material> = solved.keys().copied().collect();
    let mut seen = [0; 3];
    for k in 0..400 {
        let m = materials[rng.below(materials.len() as u32) as usize];
        let board = random_board(m, 8, &mut rng);
        let mover = if k % 2 == 0 {
            Colour::Red
        } else {
            Colour::Black
        };
        let game = game_at(&v, &board, mover);
        if game.outcome().is_some() {
            continue;
        }
        let verdict = tables.probe(&board, mover).unwrap().unwrap();
        let value = solver.value(&game); // player 1's (red's) score
        let red = if mover == Colour::Red {
            verdict
        } else {
            verdict.flipped()
        };
        let expected = match red {
            Verdict::Win { .. } => scale.win(),
            Verdict::Draw => scale.draw(),
            Verdict::Loss { .. } => 0,
        };
        assert_eq!(
            value, expected,
            "{m} {board} {mover:?} to move: tables {red:?}"
        );
        seen[match red {
            Verdict::Win { .. } => 0,
            Verdict::Draw => 1,
            Verdict::Loss { .. } => 2,
        }] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 10),
        "wins, draws, losses seen: {seen:?}"
    );
}

#[test]
fn a_tables_file_reads_back_the_values_and_refuses_other_rules() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 3);
    let mut built: Vec<Table> = solved.values().cloned().collect();
    built.sort_by_key(|t| t.layout().material());
    let path = std::env::temp_dir().join(format!("anqi-tables-test-{}.tables", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    let header = file::write(&mut file, &rules, 3, 0.0, &built).unwrap();
    drop(file);
    assert_eq!(header.materials.len(), built.len());
    let read = Tables::open(&path, rules.clone()).unwrap();
    let memory = Tables::in_memory(rules, 3, built);
    let mut rng = SplitMix64::new(3);
    for m in solved.keys() {
        for _ in 0..20 {
            let board = random_board(*m, 8, &mut rng);
            for mover in Colour::ALL {
                assert_eq!(
                    read.probe(&board, mover).unwrap(),
                    memory.probe(&board, mover).unwrap()
                );
            }
        }
    }
    // Other capture rules (a pawn no longer takes the king): refused by the digest.
    let other = Variant::parse(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../protocol/variants/traditional-2x4.sexp"
        ))
        .unwrap()
        .replace(" (allow (P K))", ""),
    )
    .unwrap();
    let err = Tables::open(&path, TableRules::new(Arc::new(other)).unwrap()).unwrap_err();
    assert!(matches!(err, FileError::OtherRules { .. }), "{err}");
    assert!(err.to_string().contains("other rules"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn symmetric_positions_and_swapped_colours_probe_alike() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 4);
    let tables = Tables::in_memory(rules.clone(), 4, solved.values().cloned().collect());
    let maps = board_maps(&v.topology);
    assert_eq!(maps.len(), 4);
    let mut rng = SplitMix64::new(11);
    let materials: Vec<Material> = solved.keys().copied().collect();
    for _ in 0..300 {
        let m = materials[rng.below(materials.len() as u32) as usize];
        let board = random_board(m, 8, &mut rng);
        let verdict = tables.probe(&board, Colour::Red).unwrap();
        for map in &maps {
            let mut image = Board::parse(&".".repeat(8)).unwrap();
            let mut swapped = Board::parse(&".".repeat(8)).unwrap();
            for (c, &to) in map.iter().enumerate() {
                image.set(usize::from(to), board.get(c));
                if let Square::Up(p) = board.get(c) {
                    let other = Piece::new(p.colour.other(), p.kind);
                    swapped.set(usize::from(to), Square::Up(other));
                }
            }
            assert_eq!(tables.probe(&image, Colour::Red).unwrap(), verdict);
            assert_eq!(tables.probe(&swapped, Colour::Black).unwrap(), verdict);
        }
    }
}

#[test]
fn adjudication_waits_for_a_win_the_no_progress_rule_could_spoil() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 3);
    let tables = Tables::in_memory(rules, 3, solved.values().cloned().collect());
    // A win for red, to move, of 3 plies or more.
    let mut rng = SplitMix64::new(5);
    let materials: Vec<Material> = solved.keys().copied().collect();
    let (board, plies) = (0..100_000)
        .find_map(|_| {
            let m = materials[rng.below(materials.len() as u32) as usize];
            let board = random_board(m, 8, &mut rng);
            match tables.probe(&board, Colour::Red).unwrap() {
                Some(Verdict::Win { plies }) if plies >= 3 => Some((board, plies)),
                _ => None,
            }
        })
        .expect("a win of 3 plies or more");
    let game = game_at(&v, &board, Colour::Red);
    assert_eq!(
        tables.adjudication(&game).unwrap(),
        Some((Some(0), Verdict::Win { plies }))
    );
    // The same position with fewer quiet plies left than the win takes: play on.
    let mut tight = (*v).clone();
    tight.draw.no_progress = Some(plies - 1);
    let game = game_at(&Arc::new(tight), &board, Colour::Red);
    assert_eq!(tables.adjudication(&game).unwrap(), None);
    // With a face-down piece, the tables hold nothing.
    let mut hidden = board.clone();
    let empty = (0..8).find(|&c| hidden.get(c) == Square::Empty).unwrap();
    hidden.set(empty, Square::Hidden);
    assert_eq!(tables.probe(&hidden, Colour::Red).unwrap(), None);
}

/// The tables of KGCPkgcp on 2x4 up to 3 pieces, written to a file of the test's own: the
/// file, the tables in memory, and the rules.
fn written(tag: &str) -> (std::path::PathBuf, Tables, TableRules) {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v).unwrap();
    let mut built: Vec<Table> = build_all(&rules, 3).into_values().collect();
    built.sort_by_key(|t| (t.layout().material().pieces(), t.layout().material()));
    let path =
        std::env::temp_dir().join(format!("anqi-tables-{tag}-{}.tables", std::process::id()));
    let mut out = std::fs::File::create(&path).unwrap();
    file::write(&mut out, &rules, 3, 0.0, &built).unwrap();
    let memory = Tables::in_memory(rules.clone(), 3, built);
    (path, memory, rules)
}

/// A file's header and each material's stored bytes, in the header's order.
fn parts(path: &std::path::Path) -> (file::Header, Vec<Vec<u8>>) {
    let header = file::read_header(path).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let body: usize = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .unwrap()
        .0
        + 1;
    let stored = header
        .materials
        .iter()
        .map(|m| bytes[body + m.offset as usize..][..m.bytes as usize].to_vec())
        .collect();
    (header, stored)
}

/// Writes `header` and `stored` to `path` as a tables file (offsets left as they are).
fn put(path: &std::path::Path, header: &file::Header, stored: &[Vec<u8>]) {
    let mut out = Vec::new();
    file::write_header(&mut out, header).unwrap();
    for s in stored {
        out.extend_from_slice(s);
    }
    std::fs::write(path, out).unwrap();
}

/// Sets every material's offset as its bytes follow one another.
fn reoffset(header: &mut file::Header, stored: &[Vec<u8>]) {
    let mut offset = 0;
    for (m, s) in header.materials.iter_mut().zip(stored) {
        m.offset = offset;
        m.bytes = s.len() as u64;
        offset += m.bytes;
    }
}

/// A board of material `m` on which it is red's turn and the tables hold a verdict.
fn a_board_of(m: Material, memory: &Tables) -> Board {
    let mut rng = SplitMix64::new(9);
    loop {
        let board = random_board(m, 8, &mut rng);
        if memory.probe(&board, Colour::Red).unwrap().is_some() {
            return board;
        }
    }
}

#[test]
fn a_bit_flipped_anywhere_in_a_materials_bytes_is_caught_before_a_value_is_used() {
    let (path, memory, rules) = written("flip");
    let (header, stored) = parts(&path);
    // The largest 3-piece material, and a board of it.
    let i = (0..header.materials.len())
        .max_by_key(|&i| stored[i].len())
        .unwrap();
    let m = Material::parse(&header.materials[i].name).unwrap();
    let board = a_board_of(m, &memory);
    let other = header
        .materials
        .iter()
        .position(|e| e.name != header.materials[i].name);
    let other = Material::parse(&header.materials[other.unwrap()].name).unwrap();
    let other_board = a_board_of(other, &memory);
    let bits = stored[i].len() * 8;
    // Every bit of a small material's bytes (a few hundred), one at a time.
    let mut flipped = stored.clone();
    for bit in 0..bits {
        flipped[i] = stored[i].clone();
        flipped[i][bit / 8] ^= 1 << (bit % 8);
        put(&path, &header, &flipped);
        let tables = Tables::open(&path, rules.clone()).unwrap();
        let first = tables.probe(&board, Colour::Red).unwrap_err();
        match &first {
            TablesError::Material {
                material,
                fault,
                first: true,
                ..
            } => {
                assert_eq!(
                    (*material, fault),
                    (m, &MaterialFault::Checksum),
                    "bit {bit}"
                );
            }
            e => panic!("bit {bit}: {e:?}"),
        }
        assert!(first
            .to_string()
            .contains("rebuild it with `anqi tables build`"));
        // Reported once: the next probe of it fails too, and says it is not the first.
        assert!(!tables.probe(&board, Colour::Red).unwrap_err().first());
        // Every other material is used.
        assert_eq!(
            tables.probe(&other_board, Colour::Red).unwrap(),
            memory.probe(&other_board, Colour::Red).unwrap()
        );
    }
    assert!(bits > 100, "{bits} bits");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_header_that_does_not_hold_together_refuses_the_file_and_says_why_briefly() {
    let (path, _, rules) = written("header");
    let (header, stored) = parts(&path);
    let refused = |change: &dyn Fn(&mut file::Header, &mut Vec<Vec<u8>>), expected: &str| {
        let (mut h, mut s) = (header.clone(), stored.clone());
        change(&mut h, &mut s);
        put(&path, &h, &s);
        let Err(e) = Tables::open(&path, rules.clone()) else {
            panic!("{expected:?}: opened");
        };
        let e = e.to_string();
        assert!(e.contains(expected), "{expected:?}: {e}");
        assert!(e.len() < 400, "{} bytes: {e}", e.len());
    };
    let last = header.materials.len() - 1;
    // Lengths no file has: the first of them aborted a server, the second panicked it.
    refused(
        &|h, _| h.materials[last].bytes = 1_000_000_000_000_000,
        "pass the end of the file",
    );
    refused(
        &|h, _| h.materials[last].bytes = 1 << 63,
        "pass the end of the file",
    );
    refused(
        &|h, _| h.materials[0].bytes = u64::MAX,
        "pass the end of the file",
    );
    refused(
        &|h, _| h.materials[1].offset += 1,
        "where the materials before it end",
    );
    refused(
        &|_, s| s[last].push(0),
        "bytes of values, where the header's materials take",
    );
    refused(
        &|h, _| h.materials[0].entries += 1,
        "entries, where its layout has",
    );
    refused(&|h, _| h.materials[0].width = 3, "a width of 3 bytes");
    refused(&|h, _| h.materials[0].stats.wins += 1, "do not add up");
    refused(
        &|h, _| h.materials[0].sha256.truncate(10),
        "64 lowercase hexadecimal",
    );
    refused(
        &|h, _| h.materials[1].name = h.materials[0].name.clone(),
        "listed twice",
    );
    refused(
        &|h, _| h.materials[0].name = "X".repeat(1 << 20),
        "is not a piece letter",
    );
    refused(
        &|h, _| h.materials[0].name = "KKkk".into(),
        "not a material of at most 3",
    );
    refused(&|h, _| h.pieces = 17, "tables hold 2 to 16");
    refused(&|h, _| h.symmetries = 2, "board symmetries");
    refused(
        &|h, _| {
            h.variant = "v".repeat(1 << 20);
            h.rules = "0".repeat(64);
        },
        "with other rules than variant small",
    );
    // A format-1 file: said to be rebuilt.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[file::MAGIC.len() - 1] = b'1';
    std::fs::write(&path, &bytes).unwrap();
    let e = Tables::open(&path, rules.clone()).unwrap_err().to_string();
    assert!(
        e.contains("a tables file of format 1")
            && e.contains("rebuild it with `anqi tables build`"),
        "{e}"
    );
    // A header line that never ends, and one that is no JSON: a short error, nothing quoted.
    let mut endless = format!("{}\n", file::MAGIC).into_bytes();
    endless.resize(endless.len() + (file::MAX_HEADER_BYTES as usize) + 10, b'x');
    std::fs::write(&path, &endless).unwrap();
    let e = Tables::open(&path, rules.clone()).unwrap_err().to_string();
    assert!(
        e.contains("no tables header within its first 64 MiB"),
        "{e}"
    );
    let mut junk = format!("{}\n{{\"variant\": \"", file::MAGIC).into_bytes();
    junk.extend(std::iter::repeat_n(b'y', 1 << 20));
    junk.extend_from_slice(b"\n");
    std::fs::write(&path, &junk).unwrap();
    let e = Tables::open(&path, rules.clone()).unwrap_err().to_string();
    assert!(e.contains("a broken header") && e.len() < 300, "{e}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_material_whose_bytes_cannot_inflate_to_its_layout_refuses_the_file() {
    // On traditional's board, KGkp has 262,144 entries: 100 stored bytes cannot hold them.
    let rules = TableRules::new(Arc::new(Variant::load("traditional").unwrap())).unwrap();
    let m = Material::parse("KGkp").unwrap();
    let entries = rules.layout(m).unwrap().len();
    assert!(entries > 100 * file::MAX_INFLATE_RATIO);
    let stored = vec![0u8; 100];
    let entry = file::MaterialEntry {
        name: m.to_string(),
        entries,
        stats: TableStats::default(),
        width: 1,
        offset: 0,
        bytes: 100,
        sha256: Sha256::digest(&stored)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    };
    let header = file::header(&rules, 4, 0.0, vec![entry]);
    let path =
        std::env::temp_dir().join(format!("anqi-tables-ratio-{}.tables", std::process::id()));
    put(&path, &header, &[stored]);
    let Err(e) = Tables::open(&path, rules) else {
        panic!("opened");
    };
    let e = e.to_string();
    assert!(
        e.contains("100 stored bytes cannot inflate to the 262144 its layout holds"),
        "{e}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn values_that_inflate_past_their_layout_stop_there_and_no_error_carries_them() {
    let (path, memory, rules) = written("bomb");
    let (header, stored) = parts(&path);
    let i = header.materials.len() - 1;
    let m = Material::parse(&header.materials[i].name).unwrap();
    let board = a_board_of(m, &memory);
    // As a forger would write them: the header's lengths, offsets and SHA-256 made to fit.
    let probe_with = |bytes: Vec<u8>, change: &dyn Fn(&mut file::Header)| {
        let (mut h, mut s) = (header.clone(), stored.clone());
        h.materials[i].sha256 = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        s[i] = bytes;
        reoffset(&mut h, &s);
        change(&mut h);
        put(&path, &h, &s);
        let tables = Tables::open(&path, rules.clone()).unwrap();
        let e = tables.probe(&board, Colour::Red).unwrap_err();
        assert!(e.first());
        assert!(e.to_string().len() < 300, "{e}");
        match e {
            TablesError::Material { fault, .. } => fault,
            e => panic!("{e:?}"),
        }
    };
    // 1 MiB of zeros in about 1 KiB (the most stored bytes a material of 128 bytes may
    // claim: a longer bomb is refused at open): inflating stops past the layout's entries.
    let expected = header.materials[i].entries * u64::from(header.materials[i].width);
    let bomb = miniz_oxide::deflate::compress_to_vec(&vec![0u8; 1 << 20], 10);
    assert!(
        bomb.len() as u64 <= file::max_stored_bytes(expected),
        "{}",
        bomb.len()
    );
    assert_eq!(
        probe_with(bomb, &|_| {}),
        MaterialFault::TooLong { expected }
    );
    // Too few, cut short, no DEFLATE at all: each said in a few words.
    let short = miniz_oxide::deflate::compress_to_vec(&vec![1u8; expected as usize - 1], 6);
    assert_eq!(
        probe_with(short, &|_| {}),
        MaterialFault::TooShort {
            got: expected - 1,
            expected
        }
    );
    let mut cut = stored[i].clone();
    cut.truncate(cut.len() / 2);
    assert_eq!(
        probe_with(cut, &|_| {}),
        MaterialFault::Inflate("the stream is cut short")
    );
    assert_eq!(
        probe_with(vec![0xff; 64], &|_| {}),
        MaterialFault::Inflate("not a DEFLATE stream")
    );
    // The values as built, with counts the header does not record.
    assert_eq!(
        probe_with(stored[i].clone(), &|h| {
            h.materials[i].stats.wins += 1;
            h.materials[i].stats.losses -= 1;
        }),
        MaterialFault::Counts
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_game_of_other_rules_is_not_ruled_by_the_tables() {
    let v = like_2x4("KGCPkgcp");
    let rules = TableRules::new(v.clone()).unwrap();
    let solved = build_all(&rules, 3);
    let tables = Tables::in_memory(rules, 3, solved.into_values().collect());
    // The same board, with a pawn that no longer takes the king.
    let other = Arc::new(
        Variant::parse(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../protocol/variants/traditional-2x4.sexp"
            ))
            .unwrap()
            .replace("(pieces KPPPkppp)", "(pieces KGCPkgcp)")
            .replace(" (allow (P K))", ""),
        )
        .unwrap(),
    );
    let board = Board::parse("Kk.p....").unwrap();
    let game = game_at(&other, &board, Colour::Red);
    let e = tables.adjudication(&game).unwrap_err();
    assert!(
        matches!(e, TablesError::OtherRules { first: true, .. }),
        "{e:?}"
    );
    assert!(!tables.action_verdicts(&game).unwrap_err().first());
    // The variant the tables were built for is ruled on.
    assert!(tables
        .adjudication(&game_at(&v, &board, Colour::Red))
        .unwrap()
        .is_some());
}

/// The SHA-256 of `bytes`, as a header records it.
fn sha_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn what_the_builder_writes_fits_the_stored_bytes_a_header_may_claim() {
    // Values that do not compress (random bytes, both widths) and values that do, of sizes
    // from one entry to half a million: DEFLATE's worst case stays under the bound.
    let mut rng = SplitMix64::new(32);
    for entries in [1usize, 2, 7, 100, 4096, 65_536, 70_001, 500_000] {
        let random_bytes: Vec<u16> = (0..entries).map(|_| rng.below(256) as u16).collect();
        let random_wide: Vec<u16> = (0..entries)
            .map(|_| 256 + rng.below(65_280) as u16)
            .collect();
        let draws = vec![DRAW; entries];
        for values in [random_bytes, random_wide, draws] {
            let (width, stored) = file::pack(&values);
            let expected = entries as u64 * u64::from(width);
            assert!(
                stored.len() as u64 <= file::max_stored_bytes(expected),
                "{entries} entries of width {width}: {} stored bytes",
                stored.len()
            );
        }
    }
    // And every material of a file as built.
    let (path, _, _) = written("bound");
    for m in file::read_header(&path).unwrap().materials {
        assert!(m.bytes <= file::max_stored_bytes(m.entries * u64::from(m.width)));
    }
    std::fs::remove_file(&path).unwrap();
}

/// A header of one material `name` of traditional claiming `bytes` stored bytes, the file's
/// length made to fit with a sparse file (nothing written past the header: zeros that take
/// no disk), and the material's entry.
fn sparse_file(tag: &str, name: &str, bytes: u64) -> (std::path::PathBuf, TableRules) {
    let rules = TableRules::new(Arc::new(Variant::load("traditional").unwrap())).unwrap();
    let m = Material::parse(name).unwrap();
    let entry = file::MaterialEntry {
        name: m.to_string(),
        entries: rules.layout(m).unwrap().len(),
        stats: TableStats::default(),
        width: 2,
        offset: 0,
        bytes,
        sha256: "0".repeat(64),
    };
    let header = file::header(&rules, m.pieces(), 0.0, vec![entry]);
    let path = std::env::temp_dir().join(format!(
        "anqi-tables-sparse-{tag}-{}.tables",
        std::process::id()
    ));
    let mut out = std::fs::File::create(&path).unwrap();
    file::write_header(&mut out, &header).unwrap();
    let body = out.metadata().unwrap().len();
    out.set_len(body + bytes).unwrap();
    (path, rules)
}

#[test]
fn a_material_claiming_more_stored_bytes_than_deflate_writes_is_refused_at_open() {
    // KGkp: 262,144 entries, 512 KiB in memory; 64 GiB claimed in a sparse file. Before, the
    // file opened and the first probe of KGkp allocated the 64 GiB to read them (the server
    // killed for its memory, every running game lost).
    let (path, rules) = sparse_file("huge", "KGkp", 64 << 30);
    let Err(e) = Tables::open(&path, rules.clone()) else {
        panic!("opened");
    };
    assert!(matches!(
        e,
        FileError::Entry {
            fault: EntryFault::TooManyBytes { .. },
            ..
        }
    ));
    let e = e.to_string();
    let expected = 262_144 * 2;
    let most = file::max_stored_bytes(expected);
    assert!(
        e.contains(&format!(
            "material KGkp: 68719476736 stored bytes, where the {expected} bytes its layout \
             holds take at most {most}"
        )),
        "{e}"
    );
    assert!(e.len() < 300, "{e}");
    std::fs::remove_file(&path).unwrap();
    // At the bound it opens, and the zeros are read, hashed and refused a chunk at a time.
    let (path, rules) = sparse_file("bound", "KGkp", most);
    let tables = Tables::open(&path, rules).unwrap();
    let faults = tables.check_all();
    assert!(
        matches!(
            faults.as_slice(),
            [TablesError::Material {
                fault: MaterialFault::Checksum,
                ..
            }]
        ),
        "{faults:?}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_stream_padded_with_empty_blocks_is_read_up_to_the_bound_and_refused_past_it() {
    // Empty stored blocks (not the last: BFINAL 0, BTYPE 00, then LEN 0 and NLEN 0xffff)
    // before a material's stream leave it a valid stream of the same values, as long as one
    // likes: one that fits the bound is read (values as built), one past it refused at open.
    let (path, memory, rules) = written("padded");
    let (header, stored) = parts(&path);
    let i = header.materials.len() - 1;
    let m = Material::parse(&header.materials[i].name).unwrap();
    let board = a_board_of(m, &memory);
    let expected = header.materials[i].entries * u64::from(header.materials[i].width);
    let most = file::max_stored_bytes(expected) as usize;
    for (blocks, opens) in [
        ((most - stored[i].len()) / 5, true),
        ((most - stored[i].len()) / 5 + 1, false),
    ] {
        let mut padded: Vec<u8> = std::iter::repeat_n([0u8, 0, 0, 0xff, 0xff], blocks)
            .flatten()
            .collect();
        padded.extend_from_slice(&stored[i]);
        let (mut h, mut s) = (header.clone(), stored.clone());
        h.materials[i].sha256 = sha_hex(&padded);
        s[i] = padded;
        reoffset(&mut h, &s);
        put(&path, &h, &s);
        match Tables::open(&path, rules.clone()) {
            Ok(tables) => {
                assert!(opens, "{blocks} empty blocks: opened");
                assert_eq!(
                    tables.probe(&board, Colour::Red).unwrap(),
                    memory.probe(&board, Colour::Red).unwrap()
                );
            }
            Err(e) => {
                assert!(!opens, "{blocks} empty blocks: {e}");
                assert!(e.to_string().contains("(DEFLATE at its worst)"), "{e}");
            }
        }
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn stored_bytes_read_in_pieces_of_any_size_give_the_same_values() {
    /// A reader that gives at most a few bytes a read, a different few each time.
    struct Trickle<'a>(&'a [u8], usize);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 = self.1 % 7 + 1;
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut rng = SplitMix64::new(5);
    // Two bytes an entry, split across reads and across the inflater's window (64 KiB).
    let values: Vec<u16> = (0..100_000).map(|_| 2 + rng.below(600) as u16).collect();
    let (width, stored) = file::pack(&values);
    assert_eq!(width, 2);
    let sha = sha_hex(&stored);
    let entry = super::read::StoredBytes {
        bytes: stored.len() as u64,
        sha256: &sha,
        width,
        entries: values.len() as u64,
    };
    let read = super::read::read_stored(Trickle(&stored, 0), entry).unwrap();
    assert!(read == values);
    assert_eq!(
        super::read::read_stored(&stored[..], entry).unwrap(),
        values
    );
    // A source that ends early is a read fault, not a content fault.
    assert_eq!(
        super::read::read_stored(&stored[..stored.len() - 1], entry),
        Err(MaterialFault::Read {
            bytes: entry.bytes,
            kind: std::io::ErrorKind::UnexpectedEof
        })
    );
    // Bytes after the stream's end, hashed with it: refused.
    let mut trailing = stored.clone();
    trailing.push(0);
    let sha = sha_hex(&trailing);
    let entry = super::read::StoredBytes {
        bytes: trailing.len() as u64,
        sha256: &sha,
        ..entry
    };
    assert_eq!(
        super::read::read_stored(&trailing[..], entry),
        Err(MaterialFault::Inflate("bytes follow the end of the stream"))
    );
}

#[test]
fn a_material_that_cannot_be_read_is_read_again_at_its_next_probe() {
    let (path, memory, rules) = written("retry");
    let (header, stored) = parts(&path);
    let first = Material::parse(&header.materials[0].name).unwrap();
    let last = Material::parse(&header.materials.last().unwrap().name).unwrap();
    let (board, last_board) = (a_board_of(first, &memory), a_board_of(last, &memory));
    let game = game_at(&rules.variant, &board, Colour::Red);
    let tables = Tables::open(&path, rules.clone()).unwrap();
    assert!(tables.needs_read(&game));
    assert!(!memory.needs_read(&game));
    let read_fault = |e: TablesError| match e {
        TablesError::Material {
            fault: MaterialFault::Read { kind, .. },
            first,
            ..
        } => (kind, first),
        e => panic!("{e:?}"),
    };
    // The file gone (as if no descriptor were left): said the first time, not kept.
    let away = path.with_extension("away");
    std::fs::rename(&path, &away).unwrap();
    let e = tables.probe(&board, Colour::Red).unwrap_err();
    assert_eq!(read_fault(e), (std::io::ErrorKind::NotFound, true));
    let e = tables.adjudication(&game).unwrap_err();
    assert_eq!(read_fault(e), (std::io::ErrorKind::NotFound, false));
    assert!(tables.needs_read(&game));
    // Put back: read at the next probe (before, the failure was kept for good).
    std::fs::rename(&away, &path).unwrap();
    assert_eq!(
        tables.probe(&board, Colour::Red).unwrap(),
        memory.probe(&board, Colour::Red).unwrap()
    );
    assert!(!tables.needs_read(&game));
    // Shorter than when it was opened: said at once, then read once whole again.
    let whole = std::fs::read(&path).unwrap();
    std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
    let e = tables.probe(&last_board, Colour::Red).unwrap_err();
    assert_eq!(read_fault(e), (std::io::ErrorKind::UnexpectedEof, true));
    std::fs::write(&path, &whole).unwrap();
    assert_eq!(
        tables.probe(&last_board, Colour::Red).unwrap(),
        memory.probe(&last_board, Colour::Red).unwrap()
    );
    // A fault of the bytes themselves is kept, and said once: the file put right after it
    // is not read again (a server that logged the material as left out keeps it out).
    let tables = Tables::open(&path, rules).unwrap();
    let mut flipped = stored.clone();
    flipped[0][0] ^= 1;
    put(&path, &header, &flipped);
    let e = tables.probe(&board, Colour::Red).unwrap_err();
    assert!(
        matches!(
            e,
            TablesError::Material {
                fault: MaterialFault::Checksum,
                first: true,
                ..
            }
        ),
        "{e:?}"
    );
    put(&path, &header, &stored);
    assert!(!tables.probe(&board, Colour::Red).unwrap_err().first());
    assert!(!tables.needs_read(&game));
    std::fs::remove_file(&path).unwrap();
}
