//! What a protocol can play: whether an event's variant can be played faithfully through a
//! protocol, and what an engine that believes other rules may misjudge.

use super::Protocol;
use anqi_core::rules::{CaptureRules, ColourRule, Objective, Piece, Start, Topology, Variant};

/// The fewest quiet plies of history a `uci-banqi` engine is given for its repetition rule,
/// even when the no-progress count it should believe is lower: a position repeated within them
/// is seen (a back-and-forth repeats every 4 plies).
pub(crate) const UCI_REPETITION_WINDOW: usize = 20;

/// What an organizer must hear before the first game about one engine and the event's variant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assessment {
    /// Rules the engine believes that differ from the event's: it plays on, but may misjudge.
    pub warnings: Vec<String>,
}

/// Why a protocol cannot play a variant faithfully ([`assess`]): `the PROTOCOL protocol cannot
/// play VARIANT: WHAT`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {protocol} protocol cannot play {variant}: {lacks}")]
pub struct CannotPlay {
    pub protocol: Protocol,
    /// The variant's name.
    pub variant: String,
    /// What of the variant the protocol cannot represent.
    pub lacks: Unrepresentable,
}

/// What of a variant a bridged protocol cannot represent: every bridged protocol knows one
/// board of 4 lines of 8 cells, the 32 standard pieces, one player against one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unrepresentable {
    #[error("its board is not the 4x8 rectangle")]
    Board,
    #[error("its pieces are not the standard 32")]
    Pieces,
    /// Other than two players in two sides.
    #[error("it has {players} players in {sides} sides, and the protocol knows one against one")]
    Sides { players: usize, sides: usize },
    /// A one-side game (single-player, cooperative).
    #[error("it is not played against an opponent")]
    NoOpponent,
    #[error("chain capture (a second action in the same turn)")]
    ChainCapture,
    #[error("a bag (draw and put actions)")]
    Bag,
    /// Face-up pieces at the start (`tcg`: its engines are given a face-down board only).
    #[error("a start with face-up pieces")]
    FaceUpStart,
    /// Colours fixed before the first reveal (`tcg`).
    #[error("colours fixed before the first reveal")]
    FixedColours,
}

/// Checks that `event` can be played by an engine of `protocol` that believes the rules of
/// `assumed` (when its configuration says), before any game starts.
///
/// # Errors
/// A sentence naming what the protocol cannot represent (another board, a bag, teams, chain
/// capture, ...): no game could be played faithfully, so the event must not start.
pub fn assess(
    protocol: Protocol,
    event: &Variant,
    assumed: Option<&Variant>,
) -> Result<Assessment, CannotPlay> {
    if protocol.is_bridged() {
        representable(protocol, event)?;
    }
    let mut warnings = Vec::new();
    if let Some(assumed) = assumed {
        warnings.extend(differences(protocol, event, assumed));
    }
    Ok(Assessment { warnings })
}

/// The one board every bridged protocol knows: 4 lines of 8 cells, the 32 standard pieces.
fn representable(protocol: Protocol, v: &Variant) -> Result<(), CannotPlay> {
    let cannot = |lacks: Unrepresentable| {
        Err(CannotPlay {
            protocol,
            variant: v.name.clone(),
            lacks,
        })
    };
    let standard = Topology::rectangle(4, 8).expect("a 4x8 rectangle is a board");
    if v.topology != standard {
        return cannot(Unrepresentable::Board);
    }
    let mut pieces = v.pieces.clone();
    let mut usual = Piece::parse_list("KGGBBRRNNCCPPPPPkggbbrrnnccppppp").expect("standard set");
    pieces.sort_by_key(|p| p.letter());
    usual.sort_by_key(|p| p.letter());
    if pieces != usual {
        return cannot(Unrepresentable::Pieces);
    }
    if v.players != 2 || v.sides.len() != 2 {
        return cannot(Unrepresentable::Sides {
            players: v.players,
            sides: v.sides.len(),
        });
    }
    if v.objective != Objective::Capture {
        return cannot(Unrepresentable::NoOpponent);
    }
    if v.chain_capture {
        return cannot(Unrepresentable::ChainCapture);
    }
    match (&v.start, protocol) {
        (Start::Bag, _) => return cannot(Unrepresentable::Bag),
        (Start::FaceDown, _) => {}
        // NTU engines are given a face-down board and nothing else before the first ply.
        (_, Protocol::Tcg) => return cannot(Unrepresentable::FaceUpStart),
        _ => {}
    }
    if v.colours == ColourRule::Fixed && protocol == Protocol::Tcg {
        return cannot(Unrepresentable::FixedColours);
    }
    Ok(())
}

/// The rules `assumed` gets wrong about `event`, each as a sentence, saying what `protocol`'s
/// bridge does about them (and nothing of what another protocol's does).
fn differences(protocol: Protocol, event: &Variant, assumed: &Variant) -> Vec<String> {
    let mut out = Vec::new();
    let what = |rule: &str, e: String, a: String| {
        format!(
            "the event plays {rule} {e}, the engine assumes {a} ({})",
            assumed.name
        )
    };
    if event.capture != assumed.capture {
        out.push(what(
            "capture rules",
            describe_capture(&event.capture),
            describe_capture(&assumed.capture),
        ));
    }
    if event.draw.no_progress != assumed.draw.no_progress {
        let n = |x: Option<u32>| x.map_or("none".to_string(), |n| format!("{n} plies"));
        let mut warning = what(
            "a no-progress draw after",
            n(event.draw.no_progress),
            n(assumed.draw.no_progress),
        );
        if let Some(note) = count_note(protocol, event.draw.no_progress, assumed.draw.no_progress) {
            warning.push_str(&note);
        }
        out.push(warning);
    }
    if event.draw.repetition != assumed.draw.repetition {
        out.push(what(
            "a repetition draw",
            describe_repetition(event.draw.repetition),
            describe_repetition(assumed.draw.repetition),
        ));
    }
    if std::mem::discriminant(&event.start) != std::mem::discriminant(&assumed.start) {
        out.push(what(
            "the start",
            describe_start(&event.start),
            describe_start(&assumed.start),
        ));
    }
    out
}

/// What `protocol`'s bridge does about a no-progress limit the engine believes (`assumed`)
/// other than the event's, as the end of the warning; `None` where it does nothing to say.
/// Only uci-banqi carries a count (its position's CLOCK); tcg tells an engine the event's limit
/// by `num_moves_to_draw` when the engine knows that command, and cdc-platform says nothing.
fn count_note(protocol: Protocol, event: Option<u32>, assumed: Option<u32>) -> Option<String> {
    match protocol {
        Protocol::UciBanqi => {
            let (e, a) = (event?, assumed?);
            (a < e).then(|| {
                format!(
                    "; the engine's count is the event's minus {}, 0 until the event's passes {} (it still gets up to {} quiet plies of history for its repetition rule, and its count then reads their number)",
                    e - a,
                    e - a,
                    (a as usize / 2).min(UCI_REPETITION_WINDOW)
                )
            })
        }
        Protocol::Tcg => Some(match event {
            Some(e) => format!(
                "; the tcg protocol carries no count: an engine that knows num_moves_to_draw is told {e}, one that does not counts to its own limit"
            ),
            None => "; the tcg protocol carries no count: the engine counts to its own limit".into(),
        }),
        Protocol::CdcPlatform => Some(
            "; the cdc-platform protocol carries no count: the engine counts to its own limit"
                .into(),
        ),
        Protocol::Anqi => None,
    }
}

fn describe_repetition(r: Option<anqi_core::rules::Repetition>) -> String {
    use anqi_core::rules::Repetition;
    match r {
        None => "never".into(),
        Some(Repetition::Occurrence(n)) => format!("when a position occurs {n} times"),
        Some(Repetition::Cycle { times, extra: 0 }) => {
            format!("when a cycle of moves is played {times} times")
        }
        Some(Repetition::Cycle { times, extra }) => {
            format!("when a cycle of moves is played {times} times and {extra} more plies")
        }
    }
}

fn describe_start(s: &Start) -> String {
    match s {
        Start::FaceDown => "face-down".into(),
        Start::Reveal(n) => format!("with {n} pieces face-up"),
        Start::Open => "open".into(),
        Start::Fixed { .. } => "from a fixed board".into(),
        Start::Bag => "from a bag".into(),
    }
}

fn describe_capture(c: &CaptureRules) -> String {
    if *c == CaptureRules::standard() {
        "standard".into()
    } else {
        format!(
            "ranks {:?}{}",
            c.ranks,
            if c.cannon_jump {
                ""
            } else {
                " without cannon jumps"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> Variant {
        Variant::shipped(name).unwrap()
    }

    #[test]
    fn the_traditional_board_goes_through_every_protocol() {
        for p in Protocol::ALL {
            for v in ["traditional", "ntu", "openspiel", "platform"] {
                assert_eq!(assess(p, &shipped(v), None), Ok(Assessment::default()));
            }
        }
    }

    #[test]
    fn what_a_protocol_cannot_represent_is_refused_with_its_reason() {
        use Unrepresentable::*;
        let cases = [
            (Protocol::Tcg, "traditional-2x4", Board, "4x8"),
            (Protocol::UciBanqi, "strategic", Bag, "bag"),
            (
                Protocol::CdcPlatform,
                "2v2",
                Sides {
                    players: 4,
                    sides: 2,
                },
                "one against one",
            ),
            (Protocol::CdcPlatform, "2v2-8x16", Board, "4x8"),
            (
                Protocol::Tcg,
                "chain-capture",
                ChainCapture,
                "chain capture",
            ),
            (Protocol::Tcg, "open", FaceUpStart, "face-up"),
        ];
        for (p, v, lacks, why) in cases {
            let e = assess(p, &shipped(v), None).unwrap_err();
            assert_eq!((e.protocol, e.variant.as_str(), e.lacks), (p, v, lacks));
            let e = e.to_string();
            assert!(e.contains(why) && e.contains(p.name()), "{p} {v}: {e}");
        }
        assert_eq!(
            assess(Protocol::Tcg, &shipped("traditional-2x4"), None)
                .unwrap_err()
                .to_string(),
            "the tcg protocol cannot play traditional-2x4: its board is not the 4x8 rectangle"
        );
        // anqi's own protocol plays everything.
        assert!(assess(Protocol::Anqi, &shipped("2v2"), None).is_ok());
    }

    #[test]
    fn differing_beliefs_are_warnings() {
        let a = assess(
            Protocol::UciBanqi,
            &shipped("traditional"),
            Some(&shipped("ntu")),
        )
        .unwrap();
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("180 plies") && w.contains("40 plies")),
            "{a:?}"
        );
        let a = assess(
            Protocol::Tcg,
            &shipped("hong-kong"),
            Some(&shipped("traditional")),
        )
        .unwrap();
        assert!(a.warnings.iter().any(|w| w.contains("capture")), "{a:?}");
    }

    /// Each protocol's warnings speak of what its own bridge does: a tcg engine is never told
    /// of uci-banqi's count and 20-ply history (issue 38).
    #[test]
    fn each_protocols_warnings_are_its_own() {
        let (event, ntu) = (shipped("traditional"), shipped("ntu"));
        let warned = |p: Protocol| assess(p, &event, Some(&ntu)).unwrap().warnings.join("\n");
        let uci = warned(Protocol::UciBanqi);
        assert!(
            uci.contains("quiet plies of history") && !uci.contains("tcg"),
            "{uci}"
        );
        for p in [Protocol::Tcg, Protocol::CdcPlatform] {
            let w = warned(p);
            assert!(
                w.contains("180 plies") && w.contains("40 plies"),
                "{p}: {w}"
            );
            assert!(
                !w.contains("uci") && !w.contains("history") && !w.contains("minus"),
                "{p}: {w}"
            );
            assert!(
                w.contains(&format!("the {p} protocol carries no count")),
                "{p}: {w}"
            );
        }
        assert!(warned(Protocol::Tcg).contains("num_moves_to_draw is told 180"));
    }
}
