//! Pickling an `anqi.Game` (`pickle`, `multiprocessing`, OpenSpiel's `state.serialize()`): the
//! game as its deal and the ids played since, which unpickling plays again, so everything the
//! rules keep (the repetition rule's positions, the counters) comes back through the rules' own
//! code.

use super::{deal_error, Game};
use anqi_core::rules::{self, Deal, SeedInputs, Start};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The version of a pickled game's state ([`Game::__reduce__`]), refused when it is not this.
const PICKLE_FORMAT: u32 = 1;

/// A pickled game's state: the format, the variant's whole description, the start (cells,
/// face-up cells, bag), the seeds (clients, server), chance mode, whether it keeps a record,
/// the ids played since the start, and the pending reveal's or draw's id.
pub(super) type Pickled = (
    u32,
    String,
    String,
    Vec<usize>,
    String,
    Option<(Vec<String>, String)>,
    bool,
    bool,
    Vec<u32>,
    Option<u32>,
);

impl Game {
    /// The state `__reduce__` pickles (see [`Pickled`]).
    pub(super) fn pickled(&self) -> PyResult<Pickled> {
        let Some(played) = &self.played else {
            return Err(PyTypeError::new_err(
                "this anqi.Game is a VecGame's (vec.game(i)), which does not keep the plies before it: it cannot be pickled; pickle games made by anqi.Game",
            ));
        };
        let pending = self.pending.map(|action| {
            self.loaded
                .codec
                .encode(action)
                .expect("a legal action has an id")
        });
        Ok((
            PICKLE_FORMAT,
            self.loaded.variant.source.clone(),
            self.start.cells_text(),
            self.start.face_up_cells(),
            self.start.bag_text(),
            self.seeds
                .as_ref()
                .map(|s| (s.clients.clone(), s.server.clone())),
            self.chance,
            self.log.is_some(),
            played.clone(),
            pending,
        ))
    }

    /// The game a pickle's state describes: its start, the ids played again in order (the
    /// reveals turn up the start's pieces, which in chance mode are the ones chosen), then
    /// the pending reveal or draw, which stops at its chance node again.
    pub(super) fn unpickle(state: Pickled) -> PyResult<Game> {
        let (format, source, cells, face_up, bag, seeds, chance, record, ids, pending) = state;
        if format != PICKLE_FORMAT {
            return Err(PyValueError::new_err(format!(
                "a pickled anqi.Game of format {format}; this anqi reads format {PICKLE_FORMAT}: unpickle it with the anqi that pickled it"
            )));
        }
        let loaded = crate::variant::load_source(&source)?;
        // A game dealt with `revealed=k` starts a face-down variant with k pieces face-up, as
        // a `(reveal k)` start deals them: its deal is read as one.
        let dealt_as =
            (loaded.variant.start == Start::FaceDown && !face_up.is_empty()).then(|| {
                let mut v = rules::Variant::clone(&loaded.variant);
                v.start = Start::Reveal(face_up.len() as u32);
                v
            });
        let start = Deal::from_text(
            dealt_as.as_ref().unwrap_or(&loaded.variant),
            Some(&cells),
            Some(&face_up),
            Some(&bag),
        )
        .map_err(deal_error)?;
        let mut game = Game {
            game: rules::Game::new(loaded.variant.clone(), start.clone()),
            loaded,
            seeds: seeds.map(|(clients, server)| SeedInputs { clients, server }),
            start,
            chance: false,
            pending: None,
            draws: 0,
            log: record.then(Vec::new),
            pending_counts: None,
            played: Some(Vec::with_capacity(ids.len())),
        };
        for id in ids {
            let action = game.loaded.codec.decode_or_refuse(i64::from(id))?;
            game.act(action)?;
        }
        game.chance = chance;
        if let Some(id) = pending {
            let action = game.loaded.codec.decode_or_refuse(i64::from(id))?;
            if !chance {
                return Err(PyValueError::new_err(
                    "a pickled anqi.Game at a chance node that is not in chance mode",
                ));
            }
            game.act(action)?;
        }
        Ok(game)
    }
}
