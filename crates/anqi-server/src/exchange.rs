//! The exchange between the referee and each player of a watched game: every line the
//! referee sent a player and every message it read from one, in order, as Botzone's debug
//! mode shows it. Kept only for games that are watched (`[http]`), from the setup on (the
//! handshake, whose SEED may be a tournament's secret token, is not in it), and bounded: past
//! [`MAX_BYTES`] of text, lines are counted, not kept.

use serde::Serialize;

/// The most text one game's exchange keeps.
pub const MAX_BYTES: usize = 1 << 20;

/// One line of the exchange.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// The player it went to or came from.
    pub player: usize,
    /// The ply being played (plies played so far + 1).
    pub ply: u32,
    /// `"referee"`: the referee sent it to the player; `"player"`: the referee read it.
    pub by: &'static str,
    pub text: String,
}

/// A game's exchange, as served by `GET /api/games/{id}/exchange`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Exchange {
    pub lines: Vec<Line>,
    /// Lines left out past [`MAX_BYTES`].
    pub dropped: u64,
    #[serde(skip)]
    bytes: usize,
}

impl Exchange {
    /// The referee sent `text` to `player`.
    pub fn sent(&mut self, player: usize, ply: u32, text: &str) {
        self.push(player, ply, "referee", text);
    }

    /// The referee read `text` from `player`.
    pub fn read(&mut self, player: usize, ply: u32, text: &str) {
        self.push(player, ply, "player", text);
    }

    fn push(&mut self, player: usize, ply: u32, by: &'static str, text: &str) {
        let text = text.trim_end_matches('\n');
        if self.bytes + text.len() > MAX_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += text.len();
        self.lines.push(Line {
            player,
            ply,
            by,
            text: text.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_bound_lines_are_counted_not_kept() {
        let mut x = Exchange::default();
        let line = "x".repeat(1000);
        for _ in 0..2000 {
            x.sent(1, 1, &line);
        }
        assert_eq!(x.lines.len(), MAX_BYTES / 1000);
        assert_eq!(x.dropped, 2000 - (MAX_BYTES / 1000) as u64);
    }
}
