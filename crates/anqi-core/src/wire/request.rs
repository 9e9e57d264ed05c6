//! The action grammar: what a client's message during a game asks for, read without a
//! position. Whether the request is acceptable (the player's turn, the board it claims, the
//! action legal) is the referee's to rule; a message that asks for nothing a game can do is
//! refused here, with the error code and text the client is sent.
//!
//! # Format
//! A game message holds one action clause, optionally with the board the client saw and a
//! comment (the `comment` extension's), in any order:
//! `((board XXXXXXXX)(rev 0)(comment "depth 3"))`. `((resign))` resigns, whatever else the
//! message holds after the clauses before it. The action clauses are `(rev POS)`,
//! `(mov POS_I POS_F)`, `(bag)` and `(put P POS)` (`ClientClause::action`).

use super::{ClientClause, ClientMessage, ErrorCode};
use crate::rules::Action;

/// What a client asked for in one message of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `(resign)`.
    Resign,
    /// One action, with the board the client claims it saw, if it says.
    Act {
        /// `(board ...)`, as the client wrote it.
        board: Option<String>,
        action: Action,
        /// `(comment "TEXT")`, the `comment` extension's.
        comment: Option<String>,
    },
    /// Understood, but not acceptable; the error to reply.
    Refused(ErrorCode, String),
}

impl Request {
    /// Reads what `msg` asks for. Clauses are taken in order: a second `(board ...)` or
    /// `(comment ...)` is refused (`syntax`) and `(resign)` resigns as soon as they are met; a
    /// handshake clause (`version`, `init`, `rejoin`, `ext`) is refused (`unexpected`); then
    /// the message must hold exactly one action clause (`syntax` otherwise).
    pub fn of(msg: ClientMessage) -> Request {
        let mut board = None;
        let mut comment = None;
        let mut actions = Vec::new();
        for clause in msg.0 {
            match clause {
                ClientClause::Board(b) => {
                    if board.replace(b).is_some() {
                        return Request::Refused(
                            ErrorCode::Syntax,
                            "more than one (board ...) clause".into(),
                        );
                    }
                }
                ClientClause::Comment(c) => {
                    if comment.replace(c).is_some() {
                        return Request::Refused(
                            ErrorCode::Syntax,
                            "more than one (comment ...) clause".into(),
                        );
                    }
                }
                ClientClause::Resign => return Request::Resign,
                c @ (ClientClause::Version(_)
                | ClientClause::Init { .. }
                | ClientClause::Rejoin(_)
                | ClientClause::Ext(_)) => {
                    return Request::Refused(
                        ErrorCode::Unexpected,
                        format!(
                            "{} belongs to the handshake, which is over",
                            crate::sexp::excerpt(&c.to_string())
                        ),
                    )
                }
                action => actions.extend(action.action()),
            }
        }
        match actions.as_slice() {
            [action] => Request::Act {
                board,
                action: *action,
                comment,
            },
            [] => Request::Refused(
                ErrorCode::Syntax,
                "no action: send (board ...) with one of (rev POS), (mov POS_I POS_F), (bag), (put P POS), (resign)".into(),
            ),
            _ => Request::Refused(ErrorCode::Syntax, "one action per message".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Piece;

    fn of(text: &str) -> Request {
        Request::of(ClientMessage::parse(text.as_bytes()).unwrap())
    }

    fn refused(text: &str) -> (ErrorCode, String) {
        match of(text) {
            Request::Refused(code, why) => (code, why),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn an_action_comes_with_its_board_and_comment_in_any_order() {
        assert_eq!(
            of("((comment \"depth 3\")(rev 5)(board XXXXXXXX))"),
            Request::Act {
                board: Some("XXXXXXXX".into()),
                action: Action::Reveal(5),
                comment: Some("depth 3".into()),
            }
        );
        assert_eq!(
            of("((mov 0 1))"),
            Request::Act {
                board: None,
                action: Action::Move { from: 0, to: 1 },
                comment: None,
            }
        );
        assert_eq!(
            of("((bag))"),
            Request::Act {
                board: None,
                action: Action::Bag,
                comment: None,
            }
        );
        let put = of("((put K 3))");
        let king = Piece::from_letter('K').unwrap();
        assert!(
            matches!(put, Request::Act { action: Action::Put { piece, cell: 3 }, .. } if piece == king),
            "{put:?}"
        );
    }

    #[test]
    fn resign_is_taken_when_met() {
        assert_eq!(of("((resign))"), Request::Resign);
        assert_eq!(of("((board XX)(rev 0)(resign))"), Request::Resign);
        // A fault before it is met is refused first.
        assert_eq!(
            refused("((board XX)(board XX)(resign))").1,
            "more than one (board ...) clause"
        );
    }

    #[test]
    fn every_refusal_keeps_its_code_and_text() {
        let cases = [
            (
                "((board XX)(board XX)(rev 0))",
                ErrorCode::Syntax,
                "more than one (board ...) clause",
            ),
            (
                "((comment \"a\")(comment \"b\")(rev 0))",
                ErrorCode::Syntax,
                "more than one (comment ...) clause",
            ),
            (
                "((board XX))",
                ErrorCode::Syntax,
                "no action: send (board ...) with one of (rev POS), (mov POS_I POS_F), (bag), (put P POS), (resign)",
            ),
            (
                "((rev 0)(rev 1))",
                ErrorCode::Syntax,
                "one action per message",
            ),
            (
                "((init bot 7))",
                ErrorCode::Unexpected,
                "(init bot 7) belongs to the handshake, which is over",
            ),
        ];
        for (text, code, why) in cases {
            assert_eq!(refused(text), (code, why.to_string()), "{text}");
        }
    }
}
