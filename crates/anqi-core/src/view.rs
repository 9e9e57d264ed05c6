//! The public view of a game: what anyone watching may see, as JSON events.
//!
//! A game is watched as a list of events: one [`Setup`], then a [`PlyView`] per ply and a
//! [`FaultView`] per error reply, in the order they happened, then one [`EndView`]. The server
//! builds them as the game is played (its `watch` hub) and `anqi view` rebuilds them from a
//! record ([`events_of_record`]); both go through the same builders here, so a finished game
//! looks the same whichever way it is watched.
//!
//! # What is public
//! Before the end: the board as the players see it (face-down pieces as `X`), what each ply
//! revealed, captured or drew (every player sees that too), the unseen pool's counts (known
//! from the variant's pieces), everyone's mobility and clocks. Never a face-down piece's
//! identity, a seed or a token. The [`EndView`] adds the deal, the seeds and the record, since
//! nothing is hidden any more once a game is over; a caller may still leave out the server's
//! seed (a fixed one would tell future deals).

use crate::record::{wire_team, GameRecord, PlyRecord, ResultRecord};
use crate::rules::{
    ActionCounts, Colour, Deal, DescriptionError, Game, Kind, Piece, PlayError, Start, Variant,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One event of a watched game, as JSON `{"type": "setup" | "ply" | "fault" | "end", ...}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Setup(Box<Setup>),
    Ply(Box<PlyView>),
    Fault(FaultView),
    End(Box<EndView>),
}

/// The game as it starts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Setup {
    /// The server's game number.
    pub game: u64,
    pub variant: String,
    /// The variant's public description (what the `variant` extension sends players): its
    /// rules as data, without a fixed start's secret deal.
    pub description: String,
    pub started_unix_ms: u64,
    /// The referee's ply cap (0: none).
    pub max_plies: u32,
    pub players: Vec<SeatView>,
    pub topology: TopologyView,
    /// `"deal"`: pieces start on the board; `"bag"`: they are drawn from a bag and put.
    pub start: String,
    /// The letters the 14-entry counts use, in their order: `KGBRNCPkgbrncp`.
    pub piece_letters: String,
    /// The position before the first ply.
    pub position: Position,
}

/// A seat: who plays it and for which side.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SeatView {
    pub id: usize,
    pub name: String,
    /// The side (0-based) the player plays for; teammates share one.
    pub side: usize,
    /// The wire's team number (`(team T)`), 0 in games without teams.
    pub team: usize,
}

/// The board's shape, for drawing it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TopologyView {
    pub cells: usize,
    /// `[lines, columns]` for a rectangle numbered row by row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rectangle: Option<[usize; 2]>,
    /// Each cell's display position `[row, column]`, when the board was drawn as a grid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<[usize; 2]>>,
    /// The steps between cells, each pair once (lower cell first).
    pub links: Vec<[usize; 2]>,
}

/// Everything public about a position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Position {
    /// The wire board: one letter per cell, `X` face-down, `.` empty (and `X` for a cell of a
    /// bag game still waiting for its piece).
    pub board: String,
    /// The drawn piece waiting to be put (bag games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<char>,
    /// Pieces left in the bag (bag games).
    pub bag: usize,
    /// The player to move, `None` once the game is over.
    pub to_move: Option<usize>,
    /// The turn number (`(turn N ...)`).
    pub turn: u32,
    /// Plies since the last capture or reveal (the no-progress count).
    pub quiet: u32,
    /// Pieces nobody has seen yet (face-down and in the bag), counted per piece in the order
    /// of `piece_letters`.
    pub unseen: [u32; 14],
    /// Each player's legal actions in this position, player 1 first: the mobility curves.
    pub mobility: Vec<ActionCounts>,
    /// The colour each player plays, once known (`"red"`, `"black"`).
    pub colours: Vec<Option<String>>,
    /// Time each player has used so far, in ms.
    pub used_ms: Vec<u64>,
    /// Time each player has left, in ms, when the game is timed and watched live (a rebuilt
    /// game does not know it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks_ms: Option<Vec<Option<u64>>>,
    /// When this position was reached (ms since the Unix epoch), when watched live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_unix_ms: Option<u64>,
}

/// One ply and the position after it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlyView {
    pub ply: u32,
    pub turn: u32,
    pub player: usize,
    /// The action as the wire writes it: `(rev 3)`, `(mov 4 5)`, `(bag)`, `(put K 7)`.
    pub action: String,
    pub think_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revealed: Option<char>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured: Option<char>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn: Option<char>,
    /// What the mover said of the ply (the `comment` extension), as the record keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    pub position: Position,
}

/// An error reply the referee gave a player (as the record's `faults` keep them).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FaultView {
    /// The ply being waited for when it happened.
    pub ply: u32,
    pub player: usize,
    pub code: String,
    pub text: String,
}

/// The end: the result, and everything that was hidden.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct EndView {
    pub result: ResultRecord,
    pub final_board: String,
    /// The deal: each cell's piece at the start, face-down ones included (`.` for none).
    pub deal: String,
    /// The bag at the start, the first draw first (bag games).
    pub deal_bag: String,
    /// The record, as written (its `seeds.server` left out when the server's seed is fixed).
    pub record: GameRecord,
}

/// The letters of the 14 piece counts, in their order.
pub fn piece_letters() -> String {
    Colour::ALL
        .iter()
        .flat_map(|&c| Kind::ALL.iter().map(move |&k| Piece::new(c, k).letter()))
        .collect()
}

impl TopologyView {
    pub fn of(variant: &Variant) -> TopologyView {
        let t = &variant.topology;
        TopologyView {
            cells: t.size(),
            rectangle: t.rectangle_dims().map(|(l, c)| [l, c]),
            coords: t.coords().map(|c| c.iter().map(|&(r, c)| [r, c]).collect()),
            links: t
                .moves()
                .iter()
                .filter(|(a, b)| a < b)
                .map(|&(a, b)| [a, b])
                .collect(),
        }
    }
}

impl Position {
    /// The public position of `game`, with the time each player has used.
    pub fn of(game: &Game, used_ms: Vec<u64>) -> Position {
        let players = game.variant().players;
        let face_down = game.face_down_counts();
        let bag = game.bag_counts();
        let mut unseen = [0; 14];
        for (u, (f, b)) in unseen.iter_mut().zip(face_down.iter().zip(&bag)) {
            *u = f + b;
        }
        Position {
            board: game.wire_board(),
            hand: game.hand().map(|p| p.letter()),
            bag: game.bag_len(),
            to_move: game.outcome().is_none().then(|| game.to_move()),
            turn: game.round(),
            quiet: game.quiet_plies(),
            unseen,
            mobility: (1..=players).map(|p| game.counts_of(p)).collect(),
            colours: (1..=players)
                .map(|p| {
                    game.colour_of_side(game.side_of(p))
                        .map(|c| c.name().to_string())
                })
                .collect(),
            used_ms,
            clocks_ms: None,
            at_unix_ms: None,
        }
    }
}

impl Setup {
    /// The setup of a game just dealt, with its players' names (player 1 first).
    pub fn of(
        game_no: u64,
        started_unix_ms: u64,
        max_plies: u32,
        game: &Game,
        names: &[String],
    ) -> Setup {
        let variant = game.variant();
        Setup {
            game: game_no,
            variant: variant.name.clone(),
            description: variant.public_description(),
            started_unix_ms,
            max_plies,
            players: names
                .iter()
                .enumerate()
                .map(|(i, name)| SeatView {
                    id: i + 1,
                    name: name.clone(),
                    side: variant.side_of(i + 1),
                    team: wire_team(variant, i + 1),
                })
                .collect(),
            topology: TopologyView::of(variant),
            start: if variant.start == Start::Bag {
                "bag"
            } else {
                "deal"
            }
            .into(),
            piece_letters: piece_letters(),
            position: Position::of(game, vec![0; variant.players]),
        }
    }
}

impl PlyView {
    /// The ply `ply` (as recorded) and the position `game` is in after it.
    pub fn of(ply: &PlyRecord, game: &Game, used_ms: Vec<u64>) -> PlyView {
        PlyView {
            ply: ply.ply,
            turn: ply.turn,
            player: ply.player,
            action: ply.action.clone(),
            think_ms: ply.think_ms,
            revealed: ply.revealed,
            captured: ply.captured,
            drawn: ply.drawn,
            comment: ply.comment.clone(),
            position: Position::of(game, used_ms),
        }
    }
}

impl EndView {
    /// The end of the game `record` records, dealt as `deal`. With `hide_server_seed`, the
    /// record's `seeds.server` is left empty.
    pub fn of(record: &GameRecord, deal: &Deal, hide_server_seed: bool) -> EndView {
        let letter = |p: &Option<Piece>| p.map_or('.', |p| p.letter());
        let mut record = record.clone();
        if hide_server_seed {
            record.seeds.server.clear();
        }
        EndView {
            result: record.result.clone(),
            final_board: record.final_board.clone(),
            deal: deal.cells.iter().map(letter).collect(),
            deal_bag: deal.bag.iter().map(|p| p.letter()).collect(),
            record,
        }
    }
}

/// Why a record's events cannot be rebuilt ([`events_of_record`]): it does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RebuildError {
    #[error("the variant description does not parse: {0}")]
    Description(DescriptionError),
    #[error("{recorded} players for a {variant}-player variant")]
    Players { recorded: usize, variant: usize },
    #[error("ply {ply}: cannot read the action")]
    Unreadable { ply: u32 },
    /// The rules refuse ply number `ply`'s action.
    #[error("ply {ply}: {why}")]
    Refused { ply: u32, why: PlayError },
}

/// The events of a recorded game, rebuilt by replaying it: what watching it live showed,
/// less what only the live game knew (the clocks' time left and the wall-clock times).
///
/// # Errors
/// When the record does not replay ([`RebuildError`]; `anqi replay` says where).
pub fn events_of_record(
    record: &GameRecord,
    hide_server_seed: bool,
) -> Result<Vec<Event>, RebuildError> {
    let variant =
        Arc::new(Variant::parse(&record.variant_source).map_err(RebuildError::Description)?);
    let players = variant.players;
    if record.players.len() != players {
        return Err(RebuildError::Players {
            recorded: record.players.len(),
            variant: players,
        });
    }
    let deal = record.seeds.deal_for(&variant);
    let mut game = Game::new(variant, deal.clone());
    let names: Vec<String> = record.players.iter().map(|p| p.name.clone()).collect();
    let mut events = vec![Event::Setup(Box::new(Setup::of(
        record.game,
        record.started_unix_ms,
        record.max_plies.unwrap_or(0),
        &game,
        &names,
    )))];
    let mut used = vec![0u64; players];
    let mut faults = record.faults.iter().peekable();
    for ply in &record.plies {
        while let Some(f) = faults.next_if(|f| f.ply <= ply.ply) {
            events.push(Event::Fault(FaultView::of(f)));
        }
        let action = crate::replay::parse_action(&ply.action)
            .ok_or(RebuildError::Unreadable { ply: ply.ply })?;
        game.play(ply.player, action)
            .map_err(|why| RebuildError::Refused { ply: ply.ply, why })?;
        // The referee's ply cap ends the game on its last ply (outside the rules).
        if record.result.reason == crate::rules::Termination::PlyCap
            && record.max_plies == Some(ply.ply)
            && game.outcome().is_none()
        {
            game.adjudicate_draw(crate::rules::Termination::PlyCap);
        }
        // So do the referee's endgame tables, on the ply that brought the game into a
        // position they decide (the last).
        if record.result.reason == crate::rules::Termination::Adjudicated
            && ply.ply as usize == record.plies.len()
            && game.outcome().is_none()
        {
            let sides = game.variant().sides.len();
            game.adjudicate(record.result.winner_side.filter(|&s| s < sides));
        }
        if let Some(u) = used.get_mut(ply.player.wrapping_sub(1)) {
            *u += ply.think_ms;
        }
        events.push(Event::Ply(Box::new(PlyView::of(ply, &game, used.clone()))));
    }
    events.extend(faults.map(|f| Event::Fault(FaultView::of(f))));
    events.push(Event::End(Box::new(EndView::of(
        record,
        &deal,
        hide_server_seed,
    ))));
    Ok(events)
}

/// A text of a record as one line of the move list: a record may come from any file (`anqi
/// view`), and a name or a comment holding a newline would otherwise forge a line (a second
/// `result:`). The characters a player's NAME may not hold ([`crate::wire::unfit`]: control
/// characters, Unicode's line and paragraph separators, bidirectional text controls that
/// would show the rest of the line reordered, invisible formatting characters) are written
/// escaped (`\n`, `\u{2028}`, `\u{202e}`); anything else as it is.
fn inline(text: &str) -> std::borrow::Cow<'_, str> {
    let breaks = |c: char| crate::wire::unfit(c).is_some();
    if !text.chars().any(breaks) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if breaks(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// A finished game as a readable move list: the players, the seeds that re-derive the deal,
/// every ply (with what it revealed, captured or drew) and the error replies, and the result.
/// Every text taken from the record is one line (`inline`): the list has exactly the lines it
/// says, whatever the record holds.
pub fn move_list(record: &GameRecord) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "anqi game {}, variant {}, started {}",
        record.game,
        inline(&record.variant),
        utc(record.started_unix_ms)
    );
    for p in &record.players {
        let colour = p
            .colour
            .as_deref()
            .map_or(String::new(), |c| format!(", {}", inline(c)));
        let team = match p.team {
            Some(t) if t > 0 => format!(", team {t}"),
            _ => String::new(),
        };
        let _ = writeln!(out, "player {}: {}{colour}{team}", p.id, inline(&p.name));
    }
    let quoted = |s: &str| format!("{s:?}");
    let clients: Vec<String> = record.seeds.clients.iter().map(|s| quoted(s)).collect();
    let _ = writeln!(
        out,
        "seeds: clients [{}], server {} (anqi replay re-derives the deal from them)",
        clients.join(", "),
        quoted(&record.seeds.server)
    );
    let mut faults = record.faults.iter().peekable();
    for ply in &record.plies {
        while let Some(f) = faults.next_if(|f| f.ply <= ply.ply) {
            let _ = writeln!(
                out,
                "      ! player {}: {} {:?}",
                f.player,
                inline(&f.code),
                f.text
            );
        }
        let mut line = format!("{:>5}. P{} {}", ply.ply, ply.player, inline(&ply.action));
        if let Some(r) = ply.revealed {
            let _ = write!(line, " reveals {r}");
        }
        if let Some(c) = ply.captured {
            let _ = write!(line, " captures {c}");
        }
        if let Some(d) = ply.drawn {
            let _ = write!(line, " draws {d}");
        }
        let _ = write!(line, "  ({} ms)", ply.think_ms);
        if let Some(c) = &ply.comment {
            // One line per ply whatever the comment holds (a player's words, as any name).
            let _ = write!(line, "  {{ {} }}", inline(c));
        }
        let _ = writeln!(out, "{line}");
    }
    for f in faults {
        let _ = writeln!(
            out,
            "      ! player {}: {} {:?}",
            f.player,
            inline(&f.code),
            f.text
        );
    }
    for d in &record.drops {
        let _ = writeln!(
            out,
            "      ~ player {} lost its connection at ply {}: {} for {} ms",
            d.player,
            d.ply,
            if d.back { "back" } else { "not back" },
            d.away_ms
        );
    }
    let r = &record.result;
    let win = if r.win.is_empty() { "aborted" } else { &r.win };
    let loser = r
        .loser
        .map_or(String::new(), |l| format!(", player {l} lost"));
    let ruling = r
        .adjudication
        .as_ref()
        .map_or(String::new(), crate::record::Adjudication::shown);
    let _ = writeln!(
        out,
        "result: {} by {}{}{loser}, after {} plies",
        inline(win),
        r.reason.name(),
        inline(&ruling),
        r.plies
    );
    let _ = writeln!(out, "final board: {}", inline(&record.final_board));
    out
}

/// `YYYY-MM-DD HH:MM:SS UTC` of a time in ms since the Unix epoch (the civil calendar from a
/// day count, as in H. Hinnant's `civil_from_days`).
fn utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

impl FaultView {
    pub fn of(f: &crate::record::FaultRecord) -> FaultView {
        FaultView {
            ply: f.ply,
            player: f.player,
            code: f.code.clone(),
            text: f.text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::SeedInputs;

    fn played_record(variant: &str) -> GameRecord {
        let variant = Arc::new(Variant::shipped(variant).unwrap());
        let seeds = SeedInputs {
            clients: vec!["a".into(), "b".into()],
            server: "s".into(),
        };
        let mut game = Game::new(variant.clone(), seeds.deal_for(&variant));
        let mut plies = Vec::new();
        while game.outcome().is_none() && game.ply() < 60 {
            let legal = game.legal_actions();
            let action = legal[game.ply() as usize * 7 % legal.len()];
            let (player, turn) = (game.to_move(), game.round());
            let counts = game.counts();
            let played = game.play(player, action).unwrap();
            plies.push(PlyRecord {
                think_ms: 3,
                ..PlyRecord::of_play(&game, turn, player, action, counts, &played)
            });
        }
        if game.outcome().is_none() {
            game.adjudicate_draw(crate::rules::Termination::PlyCap);
        }
        let header = crate::record::GameHeader {
            game: 7,
            started_unix_ms: 1,
            seeds,
            max_plies: 60,
            score_draw: String::new(),
            score_resign: String::new(),
        };
        let players = (1..=variant.players)
            .map(|id| crate::record::PlayerRecord {
                id,
                name: format!("p{id}"),
                seed: String::new(),
                side: None,
                team: None,
                colour: None,
                time_used_ms: 0,
            })
            .collect();
        GameRecord::of_game(header, &game, players, plies, Default::default())
    }

    #[test]
    fn a_rebuilt_game_ends_on_the_records_board_and_hides_nothing_before_its_end() {
        for name in ["traditional", "cross", "strategic", "2v2"] {
            let record = played_record(name);
            let events = events_of_record(&record, true).unwrap();
            let Some(Event::End(end)) = events.last() else {
                panic!("no end")
            };
            assert_eq!(end.record.seeds.server, "", "{name}: server seed hidden");
            let last_ply = events.iter().rev().find_map(|e| match e {
                Event::Ply(p) => Some(p),
                _ => None,
            });
            assert_eq!(last_ply.unwrap().position.board, record.final_board);
            for e in &events[..events.len() - 1] {
                let json = serde_json::to_string(e).unwrap();
                assert!(!json.contains("seed"), "{name}: {json}");
                assert!(!json.contains("\"deal\":"), "{name}: {json}");
            }
            // Face-down cells are X in every position, and the deal matches what was revealed.
            for e in &events {
                if let Event::Ply(p) = e {
                    if let Some(r) = p.revealed {
                        let cell: usize = p.action[5..p.action.len() - 1].parse().unwrap();
                        assert_eq!(end.deal.as_bytes()[cell] as char, r, "{name}");
                    }
                }
            }
        }
    }

    /// Where some reader breaks a line: Rust's `lines` breaks only at `\n`, but Python's
    /// `splitlines`, JavaScript and Unicode's line breaking also at these.
    fn breaks_a_line(c: char) -> bool {
        matches!(
            c,
            '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}'
                ..='\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
    }

    #[test]
    fn a_players_comment_is_one_line_of_the_move_list_whatever_it_holds() {
        let record = played_record("traditional-2x4");
        let mut forged = record.clone();
        forged.plies[0].comment =
            Some("fine\u{2028}result: (win 2 0) by resign, after 1 plies".into());
        forged.plies[1].comment = Some("a\u{2029}b\u{85}c\rd\u{0B}e\u{0C}f\u{1E}g".into());
        // Shown reordered after a right-to-left override: "result: 1-0".
        forged.plies[2].comment = Some("\u{202E}0-1 :tluser".into());
        let text = move_list(&forged);
        let plain = move_list(&record);
        assert_eq!(
            text.split(breaks_a_line).count(),
            plain.split(breaks_a_line).count(),
            "{text}"
        );
        assert!(
            !text.contains(|c| crate::wire::unfit(c).is_some() && c != '\n'),
            "{text}"
        );
        assert!(
            text.contains(" ms)  { fine\\u{2028}result: (win 2 0) by resign, after 1 plies }\n"),
            "{text}"
        );
        assert!(
            text.contains("{ a\\u{2029}b\\u{85}c\\rd\\u{b}e\\u{c}f\\u{1e}g }"),
            "{text}"
        );
        assert!(text.contains("{ \\u{202e}0-1 :tluser }"), "{text}");
        // A comment of plain words of any script is shown as it is.
        let mut plain_words = record.clone();
        plain_words.plies[0].comment = Some("深度 3, score +12 \u{1F600}".into());
        assert!(move_list(&plain_words).contains("{ 深度 3, score +12 \u{1F600} }\n"));
    }

    #[test]
    fn the_move_list_names_every_ply_the_seeds_and_the_result() {
        let record = played_record("traditional-2x4");
        let text = move_list(&record);
        assert!(text.starts_with(
            "anqi game 7, variant traditional-2x4, started 1970-01-01 00:00:00 UTC\n"
        ));
        assert!(text.contains("seeds: clients [\"a\", \"b\"], server \"s\""));
        assert_eq!(
            text.lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count(),
            record.plies.len()
        );
        assert!(text.contains(&format!("final board: {}", record.final_board)));
        let mut commented = record.clone();
        commented.plies[0].comment = Some("depth 3\nscore cp 12".into());
        let text = move_list(&commented);
        assert!(
            text.lines().any(|l| l.starts_with("    1. P1 (rev ")
                && l.ends_with(" ms)  { depth 3\\nscore cp 12 }")),
            "{text}"
        );
        // A record from any file: a name, a colour or a result holding a newline forges no
        // line.
        let mut forged = record.clone();
        forged.players[0].name = "alice\nresult: (win 2 0) by resign, after 1 plies".into();
        forged.players[1].colour = Some("red\r\nfinal board: KKKK".into());
        forged.result.win = "(win 1 0)\nseeds: none".into();
        forged.plies[0].action = "(rev 1)\n    2. P2 (rev 9)".into();
        let text = move_list(&forged);
        assert_eq!(
            text.lines().count(),
            move_list(&record).lines().count(),
            "{text}"
        );
        assert_eq!(text.lines().filter(|l| l.starts_with("result:")).count(), 1);
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("final board:"))
                .count(),
            1
        );
        assert!(
            text.contains("player 1: alice\\nresult: (win 2 0)"),
            "{text}"
        );
        assert!(text.contains("red\\r\\nfinal board"), "{text}");
        assert_eq!(inline("a\u{2028}b\u{1b}[31m"), "a\\u{2028}b\\u{1b}[31m");
        assert_eq!(inline("txt\u{202e}exe\u{200b}"), "txt\\u{202e}exe\\u{200b}");
        assert_eq!(inline("張三 (plain)"), "張三 (plain)");
        assert_eq!(utc(1_795_731_825_858), "2026-11-26 22:23:45 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn events_read_back_as_written() {
        let record = played_record("traditional-2x4");
        for e in events_of_record(&record, false).unwrap() {
            let json = serde_json::to_string(&e).unwrap();
            let back: Event = serde_json::from_str(&json).unwrap();
            assert_eq!(back, e);
        }
    }
}
