//! Probing tables: a position's verdict, each move's, and whether they end a game.
//!
//! Tables come from a file (read a material at a time, the first time a position of it is
//! probed: probing a few endgames reads a few materials, not the whole file) or from memory.
//! A material whose values fail their checks ([`super::file::read_values`]) is never used:
//! each probe of it answers [`TablesError::Material`], the first of them marked
//! [`TablesError::first`], so that a server logs one line for it and plays on without it.
//! A material that could not be read ([`MaterialFault::Read`]: the file gone, too short, or
//! no descriptor left) is tried again at its next probe, and said once too.
//!
//! Reading a material is blocking work (file I/O, its SHA-256, inflating up to 1 GiB): a
//! caller on an async runtime asks [`Tables::needs_read`] first and moves the probe off its
//! worker when it is true (the server's referee does, with `block_in_place`). One thread
//! reads a material at a time; others probing it meanwhile wait for that read.

use super::error::{MaterialFault, RulesError, TablesError};
use super::file::{self, Checked, FileError};
use super::{Layout, Material, Table, TableRules, Verdict, NONE};
use crate::rules::{Action, Board, Colour, Game, Square, Variant};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// One material of opened tables.
#[derive(Debug)]
struct Stored {
    layout: Layout,
    /// Where its values are in the file (`None`: built in memory).
    checked: Option<Checked>,
    /// Its values, or the fault of its bytes, once read (never a failure to read: that is
    /// tried again).
    values: OnceLock<Result<Vec<u16>, MaterialFault>>,
    /// Held while its values are read, so that one thread reads them and the others wait for
    /// what it found.
    reading: Mutex<()>,
    /// Whether a fault of its bytes was reported already.
    reported: AtomicBool,
    /// Whether a failure to read it was reported already.
    reported_read: AtomicBool,
}

impl Stored {
    fn new(layout: Layout, checked: Option<Checked>) -> Stored {
        Stored {
            layout,
            checked,
            values: OnceLock::new(),
            reading: Mutex::new(()),
            reported: AtomicBool::new(false),
            reported_read: AtomicBool::new(false),
        }
    }
}

/// Why tables named by their file alone do not open ([`Tables::open_named`]).
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    File(#[from] FileError),
    /// The variant the header names is one tables cannot hold.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The header names `variant` (cut short), which is not a shipped variant: tables of a
    /// variant of one's own are opened with its rules.
    #[error(
        "{file}: tables of variant {variant}, which is not a shipped variant: give its \
         description (--variant FILE)"
    )]
    NotShipped { file: String, variant: String },
}

/// Endgame tables to probe: read from a file a material at a time, or built in memory.
#[derive(Debug)]
pub struct Tables {
    rules: TableRules,
    path: Option<PathBuf>,
    pieces: usize,
    materials: HashMap<Material, Stored>,
    /// Whether a game of other rules was reported already.
    reported_rules: AtomicBool,
}

impl Tables {
    /// Opens a tables file for `rules`' variant, reading only its header, which is checked
    /// against the rules and the file ([`file::open`]).
    ///
    /// # Errors
    /// The file cannot be read, is no tables file of this format, was built for other rules,
    /// or its header does not hold together: [`FileError`] says which.
    pub fn open(path: &Path, rules: TableRules) -> Result<Tables, FileError> {
        let opened = file::open(path, &rules)?;
        let materials = opened
            .materials
            .into_iter()
            .map(|c| (c.material, Stored::new(c.layout.clone(), Some(c))))
            .collect();
        Ok(Tables {
            rules,
            path: Some(path.to_path_buf()),
            pieces: opened.header.pieces,
            materials,
            reported_rules: AtomicBool::new(false),
        })
    }

    /// Opens a tables file for the variant its header names, which must be a shipped
    /// variant's name (a name in a file is not a path to read): tables of a variant of one's
    /// own are opened with its rules ([`Tables::open`]).
    ///
    /// # Errors
    /// As [`Tables::open`] ([`OpenError::File`]), or a variant that is not shipped
    /// ([`OpenError::NotShipped`]) or that tables cannot hold ([`OpenError::Rules`]).
    pub fn open_named(path: &Path) -> Result<Tables, OpenError> {
        let header = file::read_header(path)?;
        let variant =
            crate::rules::Variant::shipped(&header.variant).map_err(|_| OpenError::NotShipped {
                file: path.display().to_string(),
                variant: super::error::clip(&header.variant, 60),
            })?;
        Ok(Tables::open(path, TableRules::new(Arc::new(variant))?)?)
    }

    /// Tables built in memory (every material of at most `pieces` pieces).
    pub fn in_memory(rules: TableRules, pieces: usize, tables: Vec<Table>) -> Tables {
        let materials = tables
            .into_iter()
            .map(|t| {
                let stored = Stored::new(t.layout.clone(), None);
                let _ = stored.values.set(Ok(t.values));
                (t.layout.material(), stored)
            })
            .collect();
        Tables {
            rules,
            path: None,
            pieces,
            materials,
            reported_rules: AtomicBool::new(false),
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

    /// The file, as given, for messages.
    fn shown(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| "tables in memory".into(), |p| p.display().to_string())
    }

    /// Whether these tables hold `variant`'s positions: its board, steps and captures are
    /// the ones they were built for.
    pub fn serve(&self, variant: &Variant) -> bool {
        std::ptr::eq(variant, &*self.rules.variant)
            || TableRules::new(Arc::new(variant.clone()))
                .is_ok_and(|r| r.digest() == self.rules.digest())
    }

    /// `Ok` when `game` is of a variant these tables hold ([`Tables::serve`]).
    fn check_rules(&self, game: &Game) -> Result<(), TablesError> {
        if self.serve(game.variant()) {
            return Ok(());
        }
        Err(TablesError::OtherRules {
            file: self.shown(),
            tables: self.rules.variant.name.clone(),
            game: game.variant().name.clone(),
            first: !self.reported_rules.swap(true, Ordering::Relaxed),
        })
    }

    /// The error of a material's fault, marked first the first time one of its kind (a fault
    /// of its bytes, or a failure to read them) is reported.
    fn fault(&self, m: Material, stored: &Stored, fault: MaterialFault) -> TablesError {
        let reported = if fault.is_read() {
            &stored.reported_read
        } else {
            &stored.reported
        };
        TablesError::Material {
            file: self.shown(),
            material: m,
            fault,
            first: !reported.swap(true, Ordering::Relaxed),
        }
    }

    /// The values of a material, read from the file and checked the first time: what its
    /// bytes hold, or their fault, is kept; a failure to read them is not, and the next call
    /// reads again.
    fn values(&self, m: Material) -> Result<Option<(&Stored, &[u16])>, TablesError> {
        let Some(stored) = self.materials.get(&m) else {
            return Ok(None);
        };
        let values = match stored.values.get() {
            Some(values) => values,
            None => self
                .read(stored)
                .map_err(|fault| self.fault(m, stored, fault))?,
        };
        match values {
            Ok(v) => Ok(Some((stored, v))),
            Err(fault) => Err(self.fault(m, stored, fault.clone())),
        }
    }

    /// Reads a material's values from the file, one thread at a time: what was read is kept,
    /// a failure to read ([`MaterialFault::Read`]) is returned and not kept.
    fn read<'a>(
        &self,
        stored: &'a Stored,
    ) -> Result<&'a Result<Vec<u16>, MaterialFault>, MaterialFault> {
        // A reader that panicked left nothing behind: the next one reads afresh.
        let _reading = stored
            .reading
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(values) = stored.values.get() {
            // Read by the thread this one waited for.
            return Ok(values);
        }
        let read = match (&self.path, &stored.checked) {
            (Some(path), Some(checked)) => file::read_values(path, checked),
            // Built in memory: set when made.
            _ => Err(MaterialFault::Read {
                bytes: 0,
                kind: std::io::ErrorKind::NotFound,
            }),
        };
        match read {
            Err(fault) if fault.is_read() => Err(fault),
            read => Ok(stored.values.get_or_init(|| read)),
        }
    }

    /// Whether probing `game` ([`Tables::probe_game`], [`Tables::adjudication`]) would read a
    /// material from the file first: its position is one the tables hold and its material
    /// was not read yet (or could not be). Such a probe blocks on file I/O, the SHA-256 and
    /// inflation (up to a second for the largest materials), or on another thread reading the
    /// same material: a caller on an async runtime moves it off its worker. Cheap: it reads
    /// nothing. (A game of other rules than the tables' may answer true: probing it reads
    /// nothing either.)
    pub fn needs_read(&self, game: &Game) -> bool {
        if self.path.is_none() {
            return false;
        }
        let state = game.public_state();
        if game.outcome().is_some() || state.hand.is_some() || state.chain.is_some() {
            return false;
        }
        let Some(mover) = game.colour_of_side(game.side_of(game.to_move())) else {
            return false;
        };
        self.looked_up(game.board(), mover)
            .and_then(|m| self.materials.get(&m))
            .is_some_and(|stored| stored.values.get().is_none())
    }

    /// The material whose table holds `board` with `mover` to move (the colours exchanged
    /// when black moves): `None` when the tables do not hold it (a face-down piece, more
    /// pieces than the tables, a colour gone, another board).
    fn looked_up(&self, board: &Board, mover: Colour) -> Option<Material> {
        let m = Material::of_board(board)?;
        if m.pieces() > self.pieces
            || m.of_colour(Colour::Red) == 0
            || m.of_colour(Colour::Black) == 0
            || board.len() != self.rules.variant.topology.size()
        {
            return None;
        }
        Some(if mover == Colour::Black {
            m.swapped()
        } else {
            m
        })
    }

    /// The value of `board` (every piece face-up) with `mover` to move, for the side to move:
    /// `None` when the tables do not hold it (a face-down piece, more pieces than the tables,
    /// or a colour gone).
    ///
    /// # Errors
    /// The material's values cannot be used.
    pub fn probe(&self, board: &Board, mover: Colour) -> Result<Option<Verdict>, TablesError> {
        let Some(m) = self.looked_up(board, mover) else {
            return Ok(None);
        };
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
            for (p, _) in &mut pieces {
                *p = if *p < 7 { *p + 7 } else { *p - 7 };
            }
        }
        let Some((stored, values)) = self.values(m)? else {
            return Ok(None);
        };
        let v = values[stored.layout.encode(&pieces, &self.rules.symmetries) as usize];
        if v == NONE {
            return Err(self.fault(m, stored, MaterialFault::NoneAtPosition));
        }
        Ok(Verdict::of_code(v))
    }

    /// [`Tables::probe`] of a game in progress, for its player to move (`None` also when the
    /// game is over, or a piece must be put or a chain capture go on).
    ///
    /// # Errors
    /// The game is of other rules than the tables', or the material's values cannot be used.
    pub fn probe_game(&self, game: &Game) -> Result<Option<Verdict>, TablesError> {
        self.check_rules(game)?;
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
    /// A material's values cannot be used.
    pub fn move_verdicts(
        &self,
        board: &Board,
        mover: Colour,
        moves: impl IntoIterator<Item = Action>,
    ) -> Result<Option<Vec<(Action, Verdict)>>, TablesError> {
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
    /// The game is of other rules than the tables', or a material's values cannot be used.
    pub fn action_verdicts(
        &self,
        game: &Game,
    ) -> Result<Option<Vec<(Action, Verdict)>>, TablesError> {
        self.check_rules(game)?;
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

    /// The best legal action of the player to move by the tables ([`file::best`] of
    /// [`Tables::action_verdicts`]): `None` when the tables do not hold the game's position.
    ///
    /// # Errors
    /// As [`Tables::action_verdicts`].
    pub fn best_action(&self, game: &Game) -> Result<Option<(Action, Verdict)>, TablesError> {
        Ok(self.action_verdicts(game)?.and_then(file::best))
    }

    /// Whether the tables end `game` now, and how: the winning side (`None`: a draw) and the
    /// verdict for the player to move. A draw is ruled whenever the tables say so; a win only
    /// when its plies are at most the quiet plies the no-progress rule leaves (so the rule
    /// cannot turn it into a draw), and is left to play on otherwise.
    ///
    /// # Errors
    /// As [`Tables::probe_game`]: the game then goes on as if the tables did not hold it.
    pub fn adjudication(
        &self,
        game: &Game,
    ) -> Result<Option<(Option<usize>, Verdict)>, TablesError> {
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

    /// Reads and checks every material's values, one at a time (none is kept: a file of
    /// tables larger than memory is checked in the memory of its largest material): the
    /// faults found, for `anqi tables info --check`. A server reads a material only when a
    /// game reaches it, and keeps it.
    pub fn check_all(&self) -> Vec<TablesError> {
        let mut names: Vec<&Material> = self.materials.keys().collect();
        names.sort_by_key(|m| (m.pieces(), m.to_string()));
        let mut faults = Vec::new();
        for m in names {
            let stored = &self.materials[m];
            let checked = match (stored.values.get(), &self.path, &stored.checked) {
                (Some(values), _, _) => values.as_ref().map(|_| ()).map_err(Clone::clone),
                (None, Some(path), Some(checked)) => file::read_values(path, checked).map(|_| ()),
                (None, _, _) => Ok(()),
            };
            if let Err(fault) = checked {
                faults.push(self.fault(*m, stored, fault));
            }
        }
        faults
    }
}
