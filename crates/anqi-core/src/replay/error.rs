//! Why a record does not verify: the first of its claims that the rules (or the endgame
//! tables) contradict. [`ReplayError`] says which claim; a ply's claims are a [`PlyFault`],
//! an adjudication's an [`AdjudicationFault`]. Texts from the record are cut to a few words
//! ([`clip`]): a corrupted record may hold megabytes in any string.

use crate::record::Adjudication;
use crate::rules::{ActionCounts, DescriptionError, PlayError, Termination};
use crate::tables::{RulesError, TablesError, Verdict};

/// The first claim of a record that the rules (or the tables) contradict
/// ([`super::verify_with`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("variant description does not parse: {0}")]
    Description(DescriptionError),
    /// The record's variant name (`named`) is not its description's (`says`); both cut short.
    #[error("variant named {named:?} but its description says {says:?}")]
    VariantName { named: String, says: String },
    #[error("{recorded} players for a {variant}-player variant")]
    Players { recorded: usize, variant: usize },
    #[error(
        "player {player} is recorded on side {recorded}, but the variant puts them on side {side}"
    )]
    Side {
        player: usize,
        recorded: usize,
        side: usize,
    },
    #[error("player {player} is recorded in team {recorded}, but the wire gives them team {team}")]
    Team {
        player: usize,
        recorded: usize,
        team: usize,
    },
    #[error("seed contributions differ from the players' seeds")]
    Seeds,
    #[error("the deal has {cells} cells for a {board}-cell board")]
    DealSize { cells: usize, board: usize },
    /// A claim of ply number `ply` (from 1).
    #[error("ply {ply}: {fault}")]
    Ply { ply: usize, fault: PlyFault },
    #[error("{plies} plies, past the record's ply cap of {cap}")]
    PastPlyCap { plies: u32, cap: u32 },
    /// The recorded result, where the rules ended the game otherwise.
    #[error(
        "result {reason:?} (winner side {winner:?}) but the rules end it by {ruled:?} (winner \
         side {ruled_winner:?})"
    )]
    Result {
        reason: Termination,
        winner: Option<usize>,
        ruled: Termination,
        ruled_winner: Option<usize>,
    },
    #[error("a loss by fault names no loser")]
    NoLoser,
    #[error("the loser, player {loser}, is not in the game")]
    LoserNotInGame { loser: usize },
    #[error("player {loser} lost, but winner side is {winner:?}")]
    LoserWinner { loser: usize, winner: Option<usize> },
    #[error("a game adjudicated at the ply cap has no winner")]
    PlyCapWinner,
    #[error("adjudicated at the ply cap after {plies} plies, but the record's cap is {cap:?}")]
    PlyCapPlies { plies: u32, cap: Option<u32> },
    #[error("a game nobody played has plies or a winner")]
    NobodyPlayed,
    /// A result the rules would have ruled, but did not after the last ply.
    #[error("result {reason:?}, but after the last ply the rules have not ended the game")]
    NotEnded { reason: Termination },
    #[error("an aborted game has no winner")]
    AbortedWinner,
    /// The recorded `(win ...)` clause (cut short), and the rules'.
    #[error("win clause {recorded:?}, expected {expected:?}")]
    WinClause { recorded: String, expected: String },
    #[error(
        "result counts {plies} plies / {turns} turns, the replay {replay_plies} / {replay_turns}"
    )]
    Counts {
        plies: u32,
        turns: u32,
        replay_plies: u32,
        replay_turns: u32,
    },
    /// The recorded final board (cut short), and the replay's.
    #[error("final board {recorded} but the replay ends on {replay}")]
    FinalBoard { recorded: String, replay: String },
    #[error("an adjudication is recorded, but the game ended by {}", reason.name())]
    AdjudicationRecorded { reason: Termination },
    #[error(transparent)]
    Adjudication(#[from] AdjudicationFault),
}

/// What the rules contradict in one ply's claims ([`ReplayError::Ply`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlyFault {
    #[error("numbered {numbered}")]
    Numbered { numbered: u32 },
    #[error("played after the game was over")]
    AfterTheEnd,
    #[error(
        "by player {player} at turn {turn}, but the rules give player {to_move} at turn {round}"
    )]
    NotTheMover {
        player: usize,
        turn: u32,
        to_move: usize,
        round: u32,
    },
    #[error("legal actions recorded as {recorded:?}, the rules count {counted:?}")]
    Legal {
        recorded: ActionCounts,
        counted: ActionCounts,
    },
    #[error("legal_all has {entries} entries for {players} players")]
    LegalAllLength { entries: usize, players: usize },
    #[error(
        "player {player}'s legal actions recorded as {recorded:?}, the rules count {counted:?}"
    )]
    LegalAll {
        player: usize,
        recorded: ActionCounts,
        counted: ActionCounts,
    },
    /// An action text (cut short) that is no action clause.
    #[error("cannot read action {action:?}")]
    Unreadable { action: String },
    #[error("{action} is refused by the rules: {why}")]
    Refused { action: String, why: PlayError },
    /// The pieces the record says the ply turned up, captured and drew, and the deal's.
    #[error("record says (revealed, captured, drawn) = {claimed:?}; the deal gives {dealt:?}")]
    Pieces {
        claimed: (Option<char>, Option<char>, Option<char>),
        dealt: (Option<char>, Option<char>, Option<char>),
    },
}

/// What is wrong with an `adjudicated` record's ruling ([`ReplayError::Adjudication`]).
/// [`AdjudicationFault::OtherTables`] and [`AdjudicationFault::Probe`] are about the tables
/// given to re-check it, not the record: with other tables, it may verify.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdjudicationFault {
    #[error("adjudicated, but the record does not say what ruled (no result.adjudication)")]
    NoRuling,
    /// Ruled by something else (`by`, cut short) than the tables or the scores.
    #[error(
        "adjudicated by {by:?}: only the endgame tables (\"{tables}\") and the engines' scores (\"{scores}\") adjudicate",
        tables = Adjudication::BY_TABLES,
        scores = Adjudication::BY_SCORES
    )]
    NotByTables { by: String },
    /// The score rules (the record's, cut short) do not read, or do not give the rule the
    /// result names.
    #[error("the score rules {rule:?} do not hold: {why}")]
    ScoreRule { rule: String, why: String },
    /// By the scores, in a record that names no score rules.
    #[error(
        "adjudicated by the scores, but the record names no score rules (score_draw, score_resign)"
    )]
    NoScoreRules,
    /// By the scores, but the plies' scores do not give the recorded verdict there.
    #[error(
        "adjudicated by the scores ({verdict}), but the plies' scores give {found} at the end"
    )]
    ScoresDisagree { verdict: String, found: String },
    /// A verdict by the scores that does not read (cut short).
    #[error("adjudicated by the scores with the verdict {verdict:?}, which is not `draw` or `player N lost` (N 1 or 2)")]
    BadScoreVerdict { verdict: String },
    /// The score rules were met before the last ply, where the referee would have ended the
    /// game.
    #[error("the score rules were met at ply {ply}, where the referee would have ended the game, but it goes on to ply {last}")]
    ScoresEarlier { ply: usize, last: usize },
    /// The score rules were met at the last ply, and the game ended otherwise (and not by the
    /// rules of the game or the tables, which come first).
    #[error("the score rules give {found} at the last ply, but the game ended by {reason}")]
    ScoresIgnored { found: String, reason: &'static str },
    /// A verdict (cut short) that does not read.
    #[error(
        "adjudicated with the verdict {verdict:?}, which is not `win in N` (N odd), `loss in N` \
         (N even) or `draw`"
    )]
    BadVerdict { verdict: String },
    /// The variant is one tables cannot hold.
    #[error("adjudicated by the tables, but {0}")]
    NoTables(RulesError),
    /// A final position (`board`) of a kind the tables hold none of.
    #[error(
        "adjudicated by the tables, but they hold no position like the final one ({board}): \
         every piece face-up, a piece of each colour, no piece in hand or chain capture under way"
    )]
    NoSuchPosition { board: String },
    /// The tables given are of variant `tables`, of other rules than the record's `variant`.
    #[error(
        "cannot re-check the adjudication: the tables given are for variant {tables}, whose \
         board, steps or captures differ from variant {variant}'s"
    )]
    OtherTables { tables: String, variant: String },
    /// The tables given cannot answer for the final position.
    #[error("cannot re-check the adjudication: {0}")]
    Probe(TablesError),
    /// The tables given hold at most `most` pieces, the final position `pieces`.
    #[error(
        "adjudicated ({verdict}), but the tables given do not hold the final position ({pieces} \
         pieces; they hold at most {most})"
    )]
    NotHeld {
        verdict: String,
        pieces: usize,
        most: usize,
    },
    /// The tables' `value` takes more plies than the `left` the no-progress rule leaves.
    #[error(
        "adjudicated ({verdict}), but the tables do not end the game there: {} for the player \
         to move, more plies than the {left} the no-progress rule leaves",
        value.text()
    )]
    NotEnding {
        verdict: String,
        value: Verdict,
        left: u32,
    },
    /// The recorded verdict, and the tables'.
    #[error(
        "adjudicated with the verdict {verdict:?}, but the tables say {:?} for the player to move",
        tables.text()
    )]
    OtherVerdict { verdict: String, tables: Verdict },
    /// A win or loss that takes more plies than the `left` the no-progress rule leaves.
    #[error(
        "adjudicated with the verdict {verdict:?}, but a win or loss in more plies than the \
         {left} the no-progress rule leaves ends no game"
    )]
    TooLong { verdict: String, left: u32 },
    /// The recorded winner, where the verdict for the player to move (of side `mover`) gives
    /// `ruled`.
    #[error(
        "adjudicated ({verdict}) with winner side {recorded:?}, but that verdict for the player \
         to move (side {mover}) gives winner side {ruled:?}"
    )]
    Winner {
        verdict: String,
        recorded: Option<usize>,
        mover: usize,
        ruled: Option<usize>,
    },
}

/// A text from the record as quoted in a message: cut after 80 characters (a corrupted record
/// may hold megabytes in any string).
pub(super) fn clip(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}
