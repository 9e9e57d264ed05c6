//! The words of the referee's error replies, in one place: what a player is told when its
//! message is refused, its time runs out, its game is aborted, or its return comes too late.
//! Clients and tests read these texts (they are in the records' fault logs and in the
//! transcripts), so a change here is a change of the protocol's wording.
//!
//! The replies to a message that is no request (two boards, no action, a handshake clause) are
//! the action grammar's (`anqi_core::wire::Request`); the codes go with the texts where the
//! code depends on why.

use super::NoStart;
use anqi_core::wire::ErrorCode;
use std::fmt::Display;

/// An action from a player that is not to move.
pub(super) fn not_your_turn(mover: usize) -> String {
    format!("it is player {mover}'s turn; wait for your (turn ...)")
}

/// An action whose `(board ...)` is not the board the mover was sent (`claimed`: the client's,
/// shown cut to an excerpt).
pub(super) fn stale_board(board: &str, claimed: &str) -> String {
    format!(
        "the board is {board}, not {}",
        anqi_core::sexp::excerpt(claimed)
    )
}

/// A `(comment ...)` from a player that did not ask for the `comment` extension (or whose
/// server keeps no comments: `comment_bytes` is 0).
pub(super) fn comment_not_granted(comment_bytes: usize) -> String {
    if comment_bytes == 0 {
        "this server keeps no comments ([records] comment_bytes = 0): send the action without its (comment ...)".into()
    } else {
        "(comment ...) is the comment extension's: ask for it with (ext comment) in your handshake, or send the action without it".into()
    }
}

/// The mover's clock ran out.
pub(super) const CLOCK_RAN_OUT: &str = "your clock ran out";

/// What a player that never made its first action in a game under way is told: it loses on
/// time. `limit_ms`: the first-move deadline.
pub(super) fn no_first_action_under_way(why: NoStart, limit_ms: u128) -> (ErrorCode, String) {
    match why {
        NoStart::Deadline => (
            ErrorCode::Timeout,
            format!("you made no first action within {limit_ms} ms of your first (turn ...), in a game under way: you lose on time"),
        ),
        NoStart::MadeRoom => (
            ErrorCode::Busy,
            "the server is full, and you were idle on your first action in a game under way: you lose on time, to make room for a new connection".into(),
        ),
        // Never under way: an abort is heard only while no ply has been played.
        NoStart::Asked => (
            ErrorCode::Shutdown,
            "you asked to abort a game under way: resign instead".into(),
        ),
    }
}

/// What `player` is told of a game aborted, before any ply, because `idle` never made its
/// first action. `limit_ms`: the first-move deadline.
pub(super) fn no_first_action_aborted(
    idle: usize,
    why: NoStart,
    player: usize,
    limit_ms: u128,
) -> (ErrorCode, String) {
    match (why, player == idle) {
        (NoStart::Deadline, true) => (
            ErrorCode::Timeout,
            format!("you made no first action within {limit_ms} ms of your first (turn ...): this game is aborted, with no result"),
        ),
        (NoStart::MadeRoom, true) => (
            ErrorCode::Busy,
            "the server is full, and of the players seated in games not started you waited longest on your first action: this game is aborted to make room for a new connection, with no result".into(),
        ),
        (NoStart::Deadline, false) => (
            ErrorCode::Timeout,
            format!("player {idle} made no first action within {limit_ms} ms: this game is aborted, with no result; connect again for a new game"),
        ),
        (NoStart::Asked, true) => (
            ErrorCode::Shutdown,
            "you aborted this game before its first ply: it ends with no result".into(),
        ),
        (NoStart::Asked, false) => (
            ErrorCode::Shutdown,
            format!("player {idle} aborted this game before its first ply: it ends with no result; connect again for a new game"),
        ),
        (NoStart::MadeRoom, false) => (
            ErrorCode::Timeout,
            format!("player {idle} made no first action, and made room for a new connection on the full server: this game is aborted, with no result; connect again for a new game"),
        ),
    }
}

/// Every player of a game aborted by the server's shutdown.
pub(super) const SHUTTING_DOWN: &str = "the server is shutting down; this game is aborted";

/// Every player, before its result, when the game's record could not be written.
pub(super) fn unrecorded(why: &impl Display) -> String {
    format!(
        "this game's record could not be written ({why}); the result that follows is not on disk yet"
    )
}

/// A connection that comes back for a seat whose grace or clock ran out while it was away.
pub(super) const TOO_LATE: &str =
    "too late: this seat's grace or clock ran out while its player was away";

/// A connection presenting a tournament token whose seat is still connected.
pub(super) const TOKEN_SEAT_TAKEN: &str = "this token's seat is already taken: a tournament token takes a seat back only after its connection is lost";

/// A connection coming back for a seat taken back `max` times already in this game.
pub(super) fn returned_too_often(max: u32) -> String {
    format!("this seat has been taken back {max} times in this game: no more")
}

/// The old connection of a seat that another connection took back with the seat's secret.
pub(super) const TAKEN_BY_ANOTHER: &str =
    "another connection took this seat back with its secret; this one is closed";

/// A connection that comes back for a seat while its game is ending: `result` is the
/// `(win ...)` text (empty: aborted), `reason` the termination's name.
pub(super) fn game_over(result: &str, reason: &str) -> String {
    format!(
        "the game of this seat is over: {} by {reason}",
        if result.is_empty() { "aborted" } else { result }
    )
}
