//! The tables file, and probing it.
//!
//! # Format (`anqi-tables 1`)
//! A first line `anqi-tables 1`; a second line, a JSON header ([`Header`]): the variant, the
//! digest of the rules the values depend on ([`TableRules::digest`]), the most pieces, and
//! for every material its entries, counts, and where its values are; then each material's
//! values, one after the other, each compressed with DEFLATE (`miniz_oxide`): a byte per
//! entry when every entry is below 256, else two (little-endian). An entry is 0 for an index
//! that is no position, 1 for a draw, `2 + d` for a position decided in `d` plies
//! (won by the side to move when `d` is odd, lost when even).
//!
//! A reader loads a material's values the first time a position of it is probed, so probing
//! a few endgames reads a few materials, not the whole file.

use super::{Layout, Material, Table, TableRules, TableStats, Verdict, NONE};
use crate::rules::{Action, Board, Colour, Game, Square};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first line of a tables file.
pub const MAGIC: &str = "anqi-tables 1";

/// The header of a tables file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub variant: String,
    /// [`TableRules::digest`] of the variant built for.
    pub rules: String,
    /// The most pieces of a position in the tables.
    pub pieces: usize,
    /// The board symmetries positions were turned by (the identity counted).
    pub symmetries: usize,
    /// Seconds the build took.
    #[serde(default)]
    pub build_seconds: f64,
    pub materials: Vec<MaterialEntry>,
}

/// One material of a tables file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MaterialEntry {
    pub name: String,
    /// Entries of its layout (positions, and indices that are none).
    pub entries: u64,
    #[serde(flatten)]
    pub stats: TableStats,
    /// Bytes per entry once inflated: 1 or 2.
    pub width: u8,
    /// Where its compressed values start, counted from the end of the header line.
    pub offset: u64,
    /// Its compressed values' length.
    pub bytes: u64,
}

/// The best of actions with their verdicts for the side to move: the soonest win, else a
/// draw, else the latest loss; the first among equals.
pub fn best(verdicts: Vec<(Action, Verdict)>) -> Option<(Action, Verdict)> {
    let mut best: Option<(Action, Verdict)> = None;
    for (action, verdict) in verdicts {
        if best.is_none_or(|(_, b)| verdict.rank() > b.rank()) {
            best = Some((action, verdict));
        }
    }
    best
}

/// One material's values, as stored.
fn pack(values: &[u16]) -> (u8, Vec<u8>) {
    let width = if values.iter().all(|&v| v < 256) {
        1
    } else {
        2
    };
    let raw: Vec<u8> = if width == 1 {
        values.iter().map(|&v| v as u8).collect()
    } else {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    (width, miniz_oxide::deflate::compress_to_vec(&raw, 6))
}

fn unpack(width: u8, bytes: &[u8], entries: u64) -> Result<Vec<u16>, String> {
    let raw = miniz_oxide::inflate::decompress_to_vec(bytes)
        .map_err(|e| format!("cannot inflate: {e:?}"))?;
    let values: Vec<u16> = match width {
        1 => raw.iter().map(|&b| u16::from(b)).collect(),
        2 => raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect(),
        w => return Err(format!("a width of {w} bytes")),
    };
    if values.len() as u64 != entries {
        return Err(format!(
            "{} entries, the header says {entries}",
            values.len()
        ));
    }
    Ok(values)
}

/// One material's table, compressed for the file: its entry (offset 0) and its bytes.
#[derive(Clone, Debug)]
pub struct Packed {
    pub entry: MaterialEntry,
    pub bytes: Vec<u8>,
}

/// Compresses a table for the file.
pub fn pack_table(t: &Table) -> Packed {
    let (width, bytes) = pack(t.values());
    Packed {
        entry: MaterialEntry {
            name: t.layout().material().to_string(),
            entries: t.layout().len(),
            stats: t.stats(),
            width,
            offset: 0,
            bytes: bytes.len() as u64,
        },
        bytes,
    }
}

/// The header of the tables of `materials` (offsets set as their values follow one another
/// in this order).
pub fn header(
    rules: &TableRules,
    pieces: usize,
    build_seconds: f64,
    mut materials: Vec<MaterialEntry>,
) -> Header {
    let mut offset = 0;
    for m in &mut materials {
        m.offset = offset;
        offset += m.bytes;
    }
    Header {
        variant: rules.variant.name.clone(),
        rules: rules.digest(),
        pieces,
        symmetries: rules.symmetries.len(),
        build_seconds,
        materials,
    }
}

/// Writes the first line and the header; each material's bytes are to follow, in the
/// header's order.
///
/// # Errors
/// Writing fails.
pub fn write_header(out: &mut impl Write, header: &Header) -> std::io::Result<()> {
    writeln!(out, "{MAGIC}")?;
    serde_json::to_writer(&mut *out, header)?;
    writeln!(out)
}

/// Writes the tables of `tables` (every material of at most `pieces` pieces), all in memory,
/// to `out`.
///
/// # Errors
/// Writing fails.
pub fn write(
    out: &mut impl Write,
    rules: &TableRules,
    pieces: usize,
    build_seconds: f64,
    tables: &[Table],
) -> std::io::Result<Header> {
    let packed: Vec<Packed> = tables.iter().map(pack_table).collect();
    let entries = packed.iter().map(|p| p.entry.clone()).collect();
    let header = header(rules, pieces, build_seconds, entries);
    write_header(out, &header)?;
    for p in &packed {
        out.write_all(&p.bytes)?;
    }
    out.flush()?;
    Ok(header)
}

/// Reads the header of a tables file.
///
/// # Errors
/// The file cannot be read or is no tables file.
pub fn read_header(path: &Path) -> Result<Header, String> {
    read_header_and_body(path).map(|(header, _)| header)
}

/// The header of a tables file, and where its materials' values start.
fn read_header_and_body(path: &Path) -> Result<(Header, u64), String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {shown}: {e}"))?;
    let mut reader = BufReader::new(file);
    let (mut magic, mut line) = (String::new(), String::new());
    reader
        .read_line(&mut magic)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if magic.trim_end() != MAGIC {
        return Err(format!("{shown} is not a tables file (no `{MAGIC}` line)"));
    }
    reader
        .read_line(&mut line)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    let header =
        serde_json::from_str(&line).map_err(|e| format!("{shown}: a broken header: {e}"))?;
    Ok((header, (magic.len() + line.len()) as u64))
}

/// One material of opened tables.
#[derive(Debug)]
struct Stored {
    layout: Layout,
    entry: Option<MaterialEntry>,
    values: OnceLock<Result<Vec<u16>, String>>,
}

/// Endgame tables to probe: read from a file a material at a time, or built in memory.
#[derive(Debug)]
pub struct Tables {
    rules: TableRules,
    path: Option<PathBuf>,
    /// Where the materials' values start in the file.
    body: u64,
    pieces: usize,
    materials: HashMap<Material, Stored>,
}

impl Tables {
    /// Opens a tables file for `rules`' variant, reading only its header.
    ///
    /// # Errors
    /// The file cannot be read, is no tables file, or was built for other rules.
    pub fn open(path: &Path, rules: TableRules) -> Result<Tables, String> {
        let shown = path.display();
        let (header, body) = read_header_and_body(path)?;
        let digest = rules.digest();
        if header.rules != digest {
            return Err(format!(
                "{shown} holds tables of variant {} with other rules than variant {} \
                 (board, steps or captures differ): build them for it with `anqi tables build`",
                header.variant, rules.variant.name
            ));
        }
        let mut materials = HashMap::new();
        for entry in header.materials {
            let m = Material::parse(&entry.name)?;
            let layout = rules
                .layout(m)
                .ok_or_else(|| format!("{shown}: material {m} cannot be indexed"))?;
            if layout.len() != entry.entries {
                return Err(format!(
                    "{shown}: material {m} has {} entries, its layout {}",
                    entry.entries,
                    layout.len()
                ));
            }
            materials.insert(
                m,
                Stored {
                    layout,
                    entry: Some(entry),
                    values: OnceLock::new(),
                },
            );
        }
        Ok(Tables {
            rules,
            path: Some(path.to_path_buf()),
            body,
            pieces: header.pieces,
            materials,
        })
    }

    /// Opens a tables file for the variant its header names (a shipped variant's name).
    ///
    /// # Errors
    /// As [`Tables::open`], or a variant that is not shipped (open it with its rules then).
    pub fn open_named(path: &Path) -> Result<Tables, String> {
        let header = read_header(path)?;
        let variant = crate::rules::Variant::load(&header.variant)
            .map_err(|e| format!("{}: its variant {}: {e}", path.display(), header.variant))?;
        Tables::open(path, TableRules::new(std::sync::Arc::new(variant))?)
    }

    /// Whether these tables hold `variant`'s positions: its board, steps and captures are
    /// the ones they were built for.
    pub fn serve(&self, variant: &crate::rules::Variant) -> bool {
        TableRules::new(std::sync::Arc::new(variant.clone()))
            .is_ok_and(|r| r.digest() == self.rules.digest())
    }

    /// Tables built in memory (every material of at most `pieces` pieces).
    pub fn in_memory(rules: TableRules, pieces: usize, tables: Vec<Table>) -> Tables {
        let materials = tables
            .into_iter()
            .map(|t| {
                let values = OnceLock::new();
                let _ = values.set(Ok(t.values));
                (
                    t.layout.material(),
                    Stored {
                        layout: t.layout,
                        entry: None,
                        values,
                    },
                )
            })
            .collect();
        Tables {
            rules,
            path: None,
            body: 0,
            pieces,
            materials,
        }
    }

    /// The rules the tables are for.
    pub fn rules(&self) -> &TableRules {
        &self.rules
    }

    /// The most pieces of a position in the tables.
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// The values of a material, read from the file the first time.
    fn values(&self, m: Material) -> Result<Option<(&Layout, &[u16])>, String> {
        let Some(stored) = self.materials.get(&m) else {
            return Ok(None);
        };
        let values = stored.values.get_or_init(|| {
            let (Some(path), Some(entry)) = (&self.path, &stored.entry) else {
                return Err("no values".to_string());
            };
            let read = || -> std::io::Result<Vec<u8>> {
                let mut file = std::fs::File::open(path)?;
                file.seek(SeekFrom::Start(self.body + entry.offset))?;
                let mut bytes = vec![0; entry.bytes as usize];
                file.read_exact(&mut bytes)?;
                Ok(bytes)
            };
            let bytes = read().map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            unpack(entry.width, &bytes, entry.entries)
                .map_err(|e| format!("{}: material {m}: {e}", path.display()))
        });
        match values {
            Ok(v) => Ok(Some((&stored.layout, v))),
            Err(e) => Err(e.clone()),
        }
    }

    /// The value of `board` (every piece face-up) with `mover` to move, for the side to move:
    /// `None` when the tables do not hold it (a face-down piece, more pieces than the tables,
    /// or a colour gone).
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn probe(&self, board: &Board, mover: Colour) -> Result<Option<Verdict>, String> {
        let Some(mut m) = Material::of_board(board) else {
            return Ok(None);
        };
        if m.pieces() > self.pieces
            || m.of_colour(Colour::Red) == 0
            || m.of_colour(Colour::Black) == 0
            || board.len() != self.rules.variant.topology.size()
        {
            return Ok(None);
        }
        let swap = mover == Colour::Black;
        let mut pieces: Vec<(u8, u8)> = board
            .squares()
            .iter()
            .enumerate()
            .filter_map(|(c, sq)| match sq {
                Square::Up(p) => Some((p.index() as u8, c as u8)),
                _ => None,
            })
            .collect();
        if swap {
            m = m.swapped();
            for (p, _) in &mut pieces {
                *p = if *p < 7 { *p + 7 } else { *p - 7 };
            }
        }
        let Some((layout, values)) = self.values(m)? else {
            return Ok(None);
        };
        let v = values[layout.encode(&pieces, &self.rules.symmetries) as usize];
        if v == NONE {
            return Err(format!("material {m}: a position the table says is none"));
        }
        Ok(Verdict::of_code(v))
    }

    /// [`Tables::probe`] of a game in progress, for its player to move (`None` also when the
    /// game is over, or a piece must be put or a chain capture go on).
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn probe_game(&self, game: &Game) -> Result<Option<Verdict>, String> {
        let state = game.public_state();
        if game.outcome().is_some() || state.hand.is_some() || state.chain.is_some() {
            return Ok(None);
        }
        let Some(mover) = game.colour_of_side(game.side_of(game.to_move())) else {
            return Ok(None);
        };
        self.probe(game.board(), mover)
    }

    /// Each of `moves` (moves of `mover` on `board`, every piece face-up) with its verdict
    /// for `mover`, from the position it leads to: `None` when the tables do not hold
    /// `board` or a position a move leads to. Capturing the last enemy piece wins in 1; a
    /// move that leaves the other side no move is a win in 1 as the tables say (lost in 0 for
    /// the side to move there). The tables hold no chain capture: the other side moves next.
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn move_verdicts(
        &self,
        board: &Board,
        mover: Colour,
        moves: impl IntoIterator<Item = Action>,
    ) -> Result<Option<Vec<(Action, Verdict)>>, String> {
        if self.probe(board, mover)?.is_none() {
            return Ok(None);
        }
        let enemies = board
            .squares()
            .iter()
            .filter(|sq| matches!(sq, Square::Up(p) if p.colour != mover))
            .count();
        let mut out = Vec::new();
        for action in moves {
            let Action::Move { from, to } = action else {
                return Ok(None);
            };
            let mut next = board.clone();
            let captures = matches!(next.get(to), Square::Up(_));
            next.set(to, next.get(from));
            next.set(from, Square::Empty);
            let verdict = if captures && enemies == 1 {
                Verdict::Win { plies: 1 }
            } else {
                match self.probe(&next, mover.other())? {
                    Some(v) => v.before(),
                    None => return Ok(None),
                }
            };
            out.push((action, verdict));
        }
        Ok(Some(out))
    }

    /// Every legal action of the player to move with its verdict for that player
    /// ([`Tables::move_verdicts`]), in the order of the legal actions: `None` when the tables
    /// do not hold the game's position.
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn action_verdicts(&self, game: &Game) -> Result<Option<Vec<(Action, Verdict)>>, String> {
        let state = game.public_state();
        let mover = game.colour_of_side(game.side_of(game.to_move()));
        match mover {
            Some(mover)
                if game.outcome().is_none() && state.hand.is_none() && state.chain.is_none() =>
            {
                self.move_verdicts(game.board(), mover, game.legal_actions())
            }
            _ => Ok(None),
        }
    }

    /// The best legal action of the player to move by the tables ([`best`] of
    /// [`Tables::action_verdicts`]): `None` when the tables do not hold the game's position.
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn best_action(&self, game: &Game) -> Result<Option<(Action, Verdict)>, String> {
        Ok(self.action_verdicts(game)?.and_then(best))
    }

    /// Whether the tables end `game` now, and how: the winning side (`None`: a draw) and the
    /// verdict for the player to move. A draw is ruled whenever the tables say so; a win only
    /// when its plies are at most the quiet plies the no-progress rule leaves (so the rule
    /// cannot turn it into a draw), and is left to play on otherwise.
    ///
    /// # Errors
    /// The file cannot be read back.
    pub fn adjudication(&self, game: &Game) -> Result<Option<(Option<usize>, Verdict)>, String> {
        let Some(verdict) = self.probe_game(game)? else {
            return Ok(None);
        };
        let mover_side = game.side_of(game.to_move());
        let left = game
            .variant()
            .draw
            .no_progress
            .map_or(u32::MAX, |limit| limit.saturating_sub(game.quiet_plies()));
        Ok(match verdict {
            Verdict::Draw => Some((None, verdict)),
            Verdict::Win { plies } if plies <= left => Some((Some(mover_side), verdict)),
            Verdict::Loss { plies } if plies <= left => Some((Some(1 - mover_side), verdict)),
            _ => None,
        })
    }
}
