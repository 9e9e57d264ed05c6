//! What the server would send, written from a rules-core game: the tests feed trackers whole
//! games this way, without a server (the tracker's own tests, and the bots' games on the rules
//! core). The clauses and their order are PROTOCOL.md's (the setup message, prompts, the
//! extensions' clauses, the result).

use crate::tracker::parse_server_line;
use anqi_core::rules::{Action, Game, Played, Variant};
use anqi_core::wire::{Extension, Extensions, LastPly, ServerClause, ServerMessage};

/// A line of the server, read as the client reads it.
pub fn parse(line: &str) -> ServerMessage {
    parse_server_line(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .unwrap_or_else(|| panic!("{line}: no message"))
}

/// The time control the setup message of [`setup_line`] announces with the `clock` extension.
pub const TIME_CONTROL: [u64; 4] = [60_000, 0, 0, 0];

/// The setup message the server sends `player` (PROTOCOL.md, The setup message), granting
/// `ext` (the `variant` extension adds the description, `clock` the time control).
pub fn setup_line(v: &Variant, player: usize, ext: Extensions) -> String {
    let t = &v.topology;
    let mut c = vec![ServerClause::Id(player), ServerClause::Players(v.players)];
    if v.has_teams() {
        let side = v.side_of(player);
        c.push(ServerClause::Team(side + 1));
        for &m in v.sides[side].iter().filter(|&&m| m != player) {
            c.push(ServerClause::Teammate(m));
        }
    }
    c.extend([
        ServerClause::Game(v.game_type.clone()),
        ServerClause::Size(t.size()),
        ServerClause::Pieces(v.pieces_wire()),
        ServerClause::Moves(t.moves().to_vec()),
        ServerClause::Jumps(t.wire_jumps()),
    ]);
    if !ext.is_empty() {
        c.push(ServerClause::Ext(ext.names()));
    }
    if ext.contains(Extension::Clock) {
        c.push(ServerClause::TimeControl(TIME_CONTROL));
    }
    if ext.contains(Extension::Variant) {
        c.push(ServerClause::Variant(v.public_description()));
    }
    ServerMessage(c).to_string()
}

/// Every player's game time left at this point of `game`, as the `clock` extension would send
/// it (made up: it only has to change from ply to ply).
pub fn clocks(game: &Game) -> Vec<u64> {
    (1..=game.variant().players as u64)
        .map(|p| TIME_CONTROL[0] - 7 * u64::from(game.ply()) - p)
        .collect()
}

/// The extensions' clauses of a prompt or result, in the protocol's order: `last`, `clock`,
/// `progress`.
fn extension_clauses(
    game: &Game,
    ext: Extensions,
    last: Option<(usize, LastPly)>,
) -> Vec<ServerClause> {
    let mut c = Vec::new();
    if ext.contains(Extension::Last) {
        c.extend(last.map(|(id, ply)| ServerClause::Last(id, ply)));
    }
    if ext.contains(Extension::Clock) {
        c.push(ServerClause::Clock(clocks(game)));
    }
    if ext.contains(Extension::Progress) {
        c.push(ServerClause::Progress(game.quiet_plies()));
    }
    c
}

/// The prompt the server sends `player` in this position, with the clauses of the extensions
/// in `ext` (`last`: the ply just played, if any).
pub fn prompt(
    game: &Game,
    player: usize,
    ext: Extensions,
    last: Option<(usize, LastPly)>,
) -> ServerMessage {
    let mut c = vec![ServerClause::Board(game.wire_board())];
    if let Some(p) = game.hand() {
        c.push(ServerClause::Hand(p.letter()));
    }
    c.extend(extension_clauses(game, ext, last));
    let (round, mover) = (game.round(), game.to_move());
    c.push(if player == mover {
        ServerClause::Turn(round, mover)
    } else {
        ServerClause::Info(round, mover)
    });
    ServerMessage(c)
}

/// [`prompt`] as the line the server writes.
pub fn prompt_line(
    game: &Game,
    player: usize,
    ext: Extensions,
    last: Option<(usize, LastPly)>,
) -> String {
    prompt(game, player, ext, last).to_string()
}

/// The result message of a finished game: with the `last` extension, the final board and ply
/// before `(win ...)`.
pub fn result_line(game: &Game, ext: Extensions, last: Option<(usize, LastPly)>) -> String {
    let (winner, team) = game.win_clause();
    let mut c = Vec::new();
    if ext.contains(Extension::Last) {
        c.push(ServerClause::Board(game.wire_board()));
        c.extend(last.map(|(id, ply)| ServerClause::Last(id, ply)));
    }
    c.push(ServerClause::Win(winner, team));
    ServerMessage(c).to_string()
}

/// The `(last ...)` ply of `action`, which `played` says what it turned up.
pub fn last_ply(action: Action, played: &Played) -> LastPly {
    match action {
        Action::Reveal(cell) => LastPly::Rev(
            cell,
            played.revealed.expect("a reveal turns up a piece").letter(),
        ),
        Action::Move { from, to } => LastPly::Mov(from, to),
        Action::Bag => LastPly::Bag,
        Action::Put { piece, cell } => LastPly::Put(piece.letter(), cell),
    }
}
