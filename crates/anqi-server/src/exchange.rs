//! The exchange between the referee and each player of a watched game: every line the
//! referee sent a player and every message it read from one, in order, as Botzone's debug
//! mode shows it. Kept only for games that are watched (`[http]`), from the setup on (the
//! handshake, whose SEED may be a tournament's secret token, is not in it), and bounded: a
//! player's line longer than `[http] exchange_line_bytes` (a long comment) is kept cut, and
//! past `[http] exchange_bytes` in all (the text and each line's upkeep), lines are counted,
//! not kept.

use serde::Serialize;

/// The most one game's exchange holds by default (`[http] exchange_bytes`).
pub const MAX_BYTES: usize = 512 * 1024;

/// A player's line is cut past this by default (`[http] exchange_line_bytes`).
pub const LINE_BYTES: usize = 1024;

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
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    pub lines: Vec<Line>,
    /// Lines left out past the bound.
    pub dropped: u64,
    #[serde(skip)]
    bytes: usize,
    #[serde(skip)]
    max_bytes: usize,
    #[serde(skip)]
    line_bytes: usize,
}

impl Default for Exchange {
    fn default() -> Exchange {
        Exchange::new(MAX_BYTES, LINE_BYTES)
    }
}

impl Exchange {
    /// An exchange that holds at most `max_bytes` (text and upkeep), each player's line cut
    /// to `line_bytes`.
    pub fn new(max_bytes: usize, line_bytes: usize) -> Exchange {
        Exchange {
            lines: Vec::new(),
            dropped: 0,
            bytes: 0,
            max_bytes,
            line_bytes,
        }
    }

    /// The memory it holds: each line's text and its upkeep.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The referee sent `text` to `player` (the server's own line: a setup, a prompt, a
    /// result; never cut).
    pub fn sent(&mut self, player: usize, ply: u32, text: &str) {
        self.push(player, ply, "referee", text, usize::MAX);
    }

    /// The referee read `text` from `player` (cut past the line bound: a comment may be long).
    pub fn read(&mut self, player: usize, ply: u32, text: &str) {
        self.push(player, ply, "player", text, self.line_bytes);
    }

    fn push(&mut self, player: usize, ply: u32, by: &'static str, text: &str, cut: usize) {
        // Nothing is kept (a hub that only counts): no line is copied to be dropped.
        if self.max_bytes == 0 {
            self.dropped += 1;
            return;
        }
        let text = text.trim_end_matches('\n');
        let text = if text.len() > cut {
            let mut end = cut;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}... ({} bytes cut)", &text[..end], text.len() - end)
        } else {
            text.to_string()
        };
        // The line's record in the list (and its share of the list's spare room) besides its
        // text: what a line costs when lines are short.
        let cost = text.len() + 2 * std::mem::size_of::<Line>();
        if self.bytes + cost > self.max_bytes {
            self.dropped += 1;
            return;
        }
        self.bytes += cost;
        self.lines.push(Line {
            player,
            ply,
            by,
            text,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_bound_lines_are_counted_not_kept() {
        let mut x = Exchange::new(100_000, 1024);
        let line = "x".repeat(1000);
        for _ in 0..2000 {
            x.sent(1, 1, &line);
        }
        let kept = x.lines.len();
        assert!(kept > 0 && kept < 100, "{kept}");
        assert!(x.bytes() <= 100_000);
        assert_eq!(x.dropped, 2000 - kept as u64);
    }

    #[test]
    fn a_players_long_line_is_kept_cut_and_the_referees_whole() {
        let mut x = Exchange::new(1 << 20, 100);
        let comment = format!("((board XX)(rev 1)(comment \"{}\"))", "é".repeat(10_000));
        x.read(1, 1, &comment);
        let kept = &x.lines[0].text;
        assert!(kept.len() < 140, "{}", kept.len());
        assert!(kept.starts_with("((board XX)(rev 1)(comment \""));
        let (head, tail) = kept.split_once("... (").unwrap();
        let cut: usize = tail.strip_suffix(" bytes cut)").unwrap().parse().unwrap();
        assert!(head.len() <= 100);
        assert_eq!(
            head.len() + cut,
            comment.len(),
            "the count says what was cut"
        );
        let setup = format!("((id 1){})", "x".repeat(5000));
        x.sent(1, 1, &setup);
        assert_eq!(x.lines[1].text, setup);
        // A game that says a megabyte holds what the bound allows, not the megabyte.
        let mut y = Exchange::default();
        let long = format!("((board X)(rev 0)(comment \"{}\"))", "x".repeat(16_000));
        for ply in 0..1000 {
            y.read(1, ply, &long);
        }
        assert!(y.bytes() <= MAX_BYTES);
        assert!(y.lines.iter().all(|l| l.text.len() <= LINE_BYTES + 40));
        assert_eq!(y.lines.len() as u64 + y.dropped, 1000);
    }
}
