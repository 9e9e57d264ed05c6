//! `[tournament.book]`: the deal book an event plays (`book::DealBook`), instead of dealing
//! from its master seed.

use crate::book::BookOrder;
use serde::{Deserialize, Serialize};

/// Which book, and in which order its entries are played (TOURNAMENTS.md, "Deal books").
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BookConfig {
    /// The book file (`anqi book new`, `anqi book from`). Secret as a seed file is: it tells
    /// every deal.
    pub file: String,
    /// `sequential` (deal `n` is entry `skip + n`, the default) or `random` (the book shuffled
    /// by the event's master seed).
    #[serde(default, skip_serializing_if = "is_sequential")]
    pub order: BookOrder,
    /// Sequential order: how many entries are passed over before the first deal (0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skip: u64,
}

impl BookConfig {
    /// Checks the settings together, as the file's other keys are checked.
    ///
    /// # Errors
    /// `skip` with random order.
    pub fn check(&self) -> Result<(), String> {
        if self.order == BookOrder::Random && self.skip > 0 {
            return Err(
                "[tournament.book]: a book in random order skips no entries: leave out skip, or play it in sequential order"
                    .into(),
            );
        }
        Ok(())
    }
}

fn is_sequential(order: &BookOrder) -> bool {
    *order == BookOrder::Sequential
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
