//! The referee: one task per game, owning the game's state. It sends the setup message, prompts
//! the player to move, rules on every message the players send, runs the clocks, and at the end
//! tells everyone the result and hands the record to the record writer.

use super::clock::Clocks;
use super::connection::{Inbound, Player};
use crate::config::{Config, Ruling};
use crate::record::{
    FaultRecord, GameRecord, PlayerRecord, PlyRecord, RecordSink, ResultRecord, RECORD_FORMAT,
};
use crate::rules::{
    Action, Game, Piece, PlayError, SeedInputs, Square, Start, Termination, Variant,
};
use crate::wire::{ClientClause, ClientMessage, ErrorCode, ServerClause, ServerMessage};
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Everything a game task needs besides its players.
#[derive(Clone)]
pub struct GameContext {
    pub variant: Arc<Variant>,
    /// The setup clauses shared by every player and game of the variant, from `(game TYPE)` to
    /// `(jumps ...)` (built once: on 8x16 they are several kilobytes).
    pub setup_common: Arc<str>,
    pub config: Arc<Config>,
    pub records: RecordSink,
    pub shutdown: CancellationToken,
}

impl GameContext {
    /// Builds the shared setup text for a variant.
    pub fn setup_common(variant: &Variant) -> Arc<str> {
        let t = &variant.topology;
        let clauses = [
            ServerClause::Game(variant.game_type.clone()),
            ServerClause::Size(t.size()),
            ServerClause::Pieces(variant.pieces_wire()),
            ServerClause::Moves(t.moves().to_vec()),
            ServerClause::Jumps(t.wire_jumps()),
        ];
        clauses
            .iter()
            .map(|c| c.to_string())
            .collect::<String>()
            .into()
    }
}

/// The setup clause that lists the cells where the game starts: `(puts ...)` in a bag game (as in
/// Table V), `(revs ...)` (the face-down cells) otherwise.
fn setup_tail(game: &Game) -> String {
    let cells = |want: Square| -> Vec<usize> {
        (0..game.board().len())
            .filter(|&c| game.board().get(c) == want)
            .collect()
    };
    if game.variant().start == Start::Bag {
        ServerClause::Puts(cells(Square::Empty)).to_string()
    } else {
        ServerClause::Revs(cells(Square::Hidden)).to_string()
    }
}

/// `(team T)` and one `(teammate ID)` per teammate, in team games only.
fn team_clauses(variant: &Variant, player: usize) -> String {
    if !variant.has_teams() {
        return String::new();
    }
    let side = variant.side_of(player);
    let mut out = ServerClause::Team(side + 1).to_string();
    for &mate in variant.sides[side].iter().filter(|&&m| m != player) {
        out.push_str(&ServerClause::Teammate(mate).to_string());
    }
    out
}

/// What a client asked for in one message.
enum Request {
    Resign,
    Act {
        board: Option<String>,
        action: Action,
    },
    /// Understood, but not acceptable; the error to reply.
    Refused(ErrorCode, String),
}

fn classify(msg: ClientMessage) -> Request {
    let mut board = None;
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
            ClientClause::Resign => return Request::Resign,
            ClientClause::Rev(c) => actions.push(Action::Reveal(c)),
            ClientClause::Mov(a, b) => actions.push(Action::Move { from: a, to: b }),
            ClientClause::Bag => actions.push(Action::Bag),
            ClientClause::Put(letter, cell) => actions.push(Action::Put {
                piece: Piece::from_letter(letter).expect("the parser checked the letter"),
                cell,
            }),
            c @ (ClientClause::Version(_) | ClientClause::Init { .. }) => {
                return Request::Refused(
                    ErrorCode::Unexpected,
                    format!(
                        "{} belongs to the handshake, which is over",
                        crate::sexp::excerpt(&c.to_string())
                    ),
                )
            }
        }
    }
    match actions.as_slice() {
        [action] => Request::Act {
            board,
            action: *action,
        },
        [] => Request::Refused(
            ErrorCode::Syntax,
            "no action: send (board ...) with one of (rev POS), (mov POS_I POS_F), (bag), (put P POS), (resign)".into(),
        ),
        _ => Request::Refused(ErrorCode::Syntax, "one action per message".into()),
    }
}

/// A seat at the table.
struct Seat {
    player: Player,
    errors: u32,
}

/// What a game is played with besides its players: by default, the server's configuration.
#[derive(Debug, Default)]
pub struct GameSpec {
    /// The deal's seed contributions; `None`: from `[seed]` and the players' SEEDs.
    pub seeds: Option<SeedInputs>,
    /// Clock settings overriding `[clock]`.
    pub clock: Option<crate::config::ClockConfig>,
    /// Ply cap overriding `[referee] max_plies`.
    pub max_plies: Option<u32>,
    /// Seats (player ids) whose player never came: they lose at once, as `crash`.
    pub absent: Vec<usize>,
    /// Where the record also goes (a tournament waiting for this game).
    pub done: Option<tokio::sync::oneshot::Sender<GameRecord>>,
}

/// Plays one game to its end and records it.
pub async fn run_game(ctx: GameContext, game_no: u64, players: Vec<Player>, spec: GameSpec) {
    // Names are client text: logged escaped (`?`), so a newline cannot forge a log line.
    let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
    let span =
        tracing::info_span!("game", game = game_no, variant = %ctx.variant.name, players = ?names);
    drop(names);
    tracing::Instrument::instrument(referee(ctx, game_no, players, spec), span).await
}

async fn referee(ctx: GameContext, game_no: u64, players: Vec<Player>, spec: GameSpec) {
    let started_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let cfg = &ctx.config;
    let variant = ctx.variant.clone();
    let seeds = spec.seeds.unwrap_or_else(|| SeedInputs {
        clients: if cfg.seed.clients {
            players.iter().map(|p| p.seed.clone()).collect()
        } else {
            Vec::new()
        },
        server: if cfg.seed.server == "random" {
            crate::rules::random_server_seed()
        } else {
            cfg.seed.server.clone()
        },
    });
    let max_plies = spec.max_plies.unwrap_or(cfg.referee.max_plies);
    let deal = seeds.deal_for(&variant);
    let mut game = Game::new(variant.clone(), deal);
    let mut seats: Vec<Seat> = players
        .into_iter()
        .map(|player| Seat { player, errors: 0 })
        .collect();
    let mut clocks = Clocks::new(
        spec.clock.as_ref().unwrap_or(&cfg.clock),
        &variant.clock,
        seats.len(),
    );
    let mut plies: Vec<PlyRecord> = Vec::new();
    let mut faults: Vec<FaultRecord> = Vec::new();
    // Who lost by a fault (resign, time, illegal, disconnect), for the record.
    let mut loser: Option<usize> = None;

    // Players who never came lose; if every side misses someone, nobody wins.
    let absent_sides: std::collections::BTreeSet<usize> =
        spec.absent.iter().map(|&p| variant.side_of(p)).collect();
    if absent_sides.len() > 1 {
        game.adjudicate_draw(Termination::Crash);
    } else if let Some(&absent) = spec.absent.first() {
        game.forfeit(absent, Termination::Crash);
        loser = Some(absent);
    }

    // The setup message, then the game.
    let tail = setup_tail(&game);
    for (i, seat) in seats.iter().enumerate() {
        let player = i + 1;
        if spec.absent.contains(&player) {
            continue;
        }
        let line = format!(
            "({}{}{}{}{})\n",
            ServerClause::Id(player),
            ServerClause::Players(variant.players),
            team_clauses(&variant, player),
            ctx.setup_common,
            tail
        );
        if seat.player.outbox.send_line(line.into()).is_err() {
            game.forfeit(player, Termination::Disconnect);
            loser.get_or_insert(player);
        }
    }
    tracing::debug!(server_seed = %seeds.server, "game started");

    let mut next_poll = 0usize;
    'game: while game.outcome().is_none() {
        let mover = game.to_move();
        let board = game.wire_board();
        let round = game.round();
        // The board, the drawn piece while it waits to be put, then turn or info.
        let message = |last: ServerClause| -> Arc<str> {
            let mut clauses = vec![ServerClause::Board(board.clone())];
            clauses.extend(game.hand().map(|p| ServerClause::Hand(p.letter())));
            clauses.push(last);
            ServerMessage(clauses).to_line().into()
        };
        let prompt = message(ServerClause::Turn(round, mover));
        let info = message(ServerClause::Info(round, mover));
        for (i, seat) in seats.iter().enumerate() {
            let line = if i + 1 == mover { &prompt } else { &info };
            if seat.player.outbox.send_line(line.clone()).is_err() {
                game.forfeit(i + 1, Termination::Disconnect);
                loser.get_or_insert(i + 1);
                break 'game;
            }
        }
        let turn_start = Instant::now();
        let deadline = clocks.deadline(mover, turn_start);
        let counts = game.counts();

        // Wait for the mover's action, answering everything else on the way.
        loop {
            let event = tokio::select! {
                biased;
                _ = ctx.shutdown.cancelled() => {
                    clocks.charge(mover, turn_start.elapsed());
                    game.abort();
                    break 'game;
                }
                _ = sleep_until_opt(deadline) => {
                    clocks.charge(mover, turn_start.elapsed());
                    game.forfeit(mover, Termination::Time);
                    loser = Some(mover);
                    reply_fault(&mut seats[mover - 1], &mut faults, &game, mover, ErrorCode::Timeout, "your clock ran out".into());
                    break 'game;
                }
                e = next_event(&mut seats, &mut next_poll) => e,
            };
            let (from, inbound) = event;
            let request = match inbound {
                Inbound::Closed => {
                    game.forfeit(from, Termination::Disconnect);
                    loser = Some(from);
                    break 'game;
                }
                Inbound::Bad(e) => Request::Refused(e.code, e.text),
                Inbound::Message(m) => classify(m),
            };
            // Rule on the request; anything but a played action is a fault to answer.
            let (code, text, ruling) = match request {
                Request::Resign => {
                    game.resign(from);
                    loser = Some(from);
                    break 'game;
                }
                Request::Refused(code, text) => {
                    let ruling = if code == ErrorCode::Illegal {
                        cfg.referee.illegal_action
                    } else {
                        Ruling::Error
                    };
                    (code, text, ruling)
                }
                Request::Act { .. } if from != mover => (
                    ErrorCode::NotYourTurn,
                    format!("it is player {mover}'s turn; wait for your (turn ...)"),
                    cfg.referee.out_of_turn,
                ),
                Request::Act {
                    board: Some(claimed),
                    ..
                } if claimed != board && cfg.referee.stale_board != Ruling::Ignore => (
                    ErrorCode::StaleBoard,
                    format!(
                        "the board is {board}, not {}",
                        crate::sexp::excerpt(&claimed)
                    ),
                    cfg.referee.stale_board,
                ),
                Request::Act { action, .. } => match game.check(from, action) {
                    Ok(_) => {
                        let spent = turn_start.elapsed();
                        if !clocks.charge(mover, spent) {
                            game.forfeit(mover, Termination::Time);
                            loser = Some(mover);
                            reply_fault(
                                &mut seats[mover - 1],
                                &mut faults,
                                &game,
                                mover,
                                ErrorCode::Timeout,
                                "your clock ran out".into(),
                            );
                            break 'game;
                        }
                        let played = game.play(from, action).expect("checked just before");
                        plies.push(PlyRecord {
                            ply: game.ply(),
                            turn: round,
                            player: mover,
                            action: action.to_string(),
                            think_ms: spent.as_millis() as u64,
                            legal: counts,
                            revealed: played.revealed.map(|p| p.letter()),
                            drawn: played.drawn.map(|p| p.letter()),
                            captured: played.captured.map(|p| p.letter()),
                        });
                        if max_plies > 0 && game.ply() >= max_plies && game.outcome().is_none() {
                            game.adjudicate_draw(Termination::PlyCap);
                        }
                        continue 'game;
                    }
                    Err(PlayError::Illegal(e)) => {
                        (ErrorCode::Illegal, e.0, cfg.referee.illegal_action)
                    }
                    Err(e @ (PlayError::NotYourTurn { .. } | PlayError::GameOver)) => {
                        unreachable!("the mover of a running game: {e}")
                    }
                },
            };
            let seat = &mut seats[from - 1];
            reply_fault(seat, &mut faults, &game, from, code, text);
            let too_many = cfg.referee.max_errors > 0 && seat.errors > cfg.referee.max_errors;
            let reprompt_failed = ruling == Ruling::Error
                && !too_many
                && from == mover
                && seat.player.outbox.send_line(prompt.clone()).is_err();
            if reprompt_failed || ruling == Ruling::Lose || too_many {
                let reason = if reprompt_failed {
                    Termination::Disconnect
                } else {
                    Termination::Illegal
                };
                game.forfeit(from, reason);
                loser = Some(from);
                break 'game;
            }
        }
    }

    let outcome = game.outcome().expect("the game loop ends with an outcome");
    let (winner_player, winner_team) = game.win_clause();
    let win = if outcome.reason == Termination::Aborted {
        None
    } else {
        Some(ServerMessage(vec![ServerClause::Win(
            winner_player,
            winner_team,
        )]))
    };
    for (i, seat) in seats.iter_mut().enumerate() {
        match &win {
            Some(w) => {
                let _ = seat.player.outbox.send(w);
            }
            None => reply_fault(
                seat,
                &mut faults,
                &game,
                i + 1,
                ErrorCode::Shutdown,
                "the server is shutting down; this game is aborted".into(),
            ),
        }
    }
    let win_text = win.as_ref().map(|w| w.0[0].to_string()).unwrap_or_default();
    tracing::info!(
        result = %if win_text.is_empty() { "aborted" } else { &win_text },
        reason = outcome.reason.name(),
        plies = game.ply(),
        "game over"
    );
    let record = GameRecord {
        format: RECORD_FORMAT,
        game: game_no,
        started_unix_ms,
        variant: variant.name.clone(),
        variant_source: variant.source.clone(),
        seeds,
        players: seats
            .iter()
            .enumerate()
            .map(|(i, s)| PlayerRecord {
                id: i + 1,
                name: s.player.name.clone(),
                seed: s.player.seed.clone(),
                colour: game
                    .colour_of_side(game.side_of(i + 1))
                    .map(|c| c.name().to_string()),
                time_used_ms: clocks.used(i + 1).as_millis() as u64,
            })
            .collect(),
        plies,
        faults,
        max_plies: (max_plies > 0).then_some(max_plies),
        result: ResultRecord {
            win: win_text,
            winner: winner_player,
            winner_team,
            winner_side: outcome.winner,
            reason: outcome.reason,
            loser,
            plies: game.ply(),
            turns: game.round(),
        },
        final_board: game.wire_board(),
        tournament: None,
    };
    if let Some(done) = spec.done {
        let _ = done.send(record.clone());
    }
    ctx.records.write(record);
}

/// Sends `((error CODE "text"))` to a player, counts it against them and records it.
fn reply_fault(
    seat: &mut Seat,
    faults: &mut Vec<FaultRecord>,
    game: &Game,
    player: usize,
    code: ErrorCode,
    text: String,
) {
    seat.player.outbox.error(code, text.clone());
    seat.errors += 1;
    faults.push(FaultRecord {
        ply: game.ply() + 1,
        player,
        code: code.name().to_string(),
        text,
    });
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The next message from any seat, taking seats in turn so none is starved.
async fn next_event(seats: &mut [Seat], next: &mut usize) -> (usize, Inbound) {
    poll_fn(|cx| {
        let n = seats.len();
        for k in 0..n {
            let i = (*next + k) % n;
            match seats[i].player.inbox.poll_recv(cx) {
                Poll::Ready(Some(msg)) => {
                    *next = (i + 1) % n;
                    return Poll::Ready((i + 1, msg));
                }
                Poll::Ready(None) => return Poll::Ready((i + 1, Inbound::Closed)),
                Poll::Pending => {}
            }
        }
        Poll::Pending
    })
    .await
}
