//! The words of the referee's error replies.

use super::{NoStart, Referee};
use anqi_core::wire::ErrorCode;

impl Referee {
    /// What each player of a game aborted for `idle`'s missing first action (no ply played) is
    /// told.
    pub(super) fn no_start_error(
        &self,
        idle: usize,
        why: NoStart,
        player: usize,
    ) -> (ErrorCode, String) {
        let ms = self.first_moves.limit().unwrap_or_default().as_millis();
        match (why, player == idle) {
            (NoStart::Deadline, true) => (
                ErrorCode::Timeout,
                format!("you made no first action within {ms} ms of your first (turn ...): this game is aborted, with no result"),
            ),
            (NoStart::MadeRoom, true) => (
                ErrorCode::Busy,
                "the server is full, and of the players seated in games not started you waited longest on your first action: this game is aborted to make room for a new connection, with no result".into(),
            ),
            (NoStart::Deadline, false) => (
                ErrorCode::Timeout,
                format!("player {idle} made no first action within {ms} ms: this game is aborted, with no result; connect again for a new game"),
            ),
            (NoStart::MadeRoom, false) => (
                ErrorCode::Timeout,
                format!("player {idle} made no first action, and made room for a new connection on the full server: this game is aborted, with no result; connect again for a new game"),
            ),
        }
    }
}
