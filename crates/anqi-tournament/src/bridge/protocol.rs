//! The protocols an engine may speak, by the names tournament files and the command line use.

use serde::Deserialize;
use std::fmt;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// anqi's own (the paper's): the engine connects to the server by itself.
    #[default]
    Anqi,
    /// The NTU "Theory of Computer Games" course protocol, over stdin and stdout.
    Tcg,
    /// MistyBanqi's UCI dialect, over stdin and stdout.
    UciBanqi,
    /// The Computer Olympiad CDC platform's client protocol: the engine connects over TCP.
    CdcPlatform,
}

impl Protocol {
    /// Every protocol, in the order the docs list them.
    pub const ALL: [Protocol; 4] = [
        Protocol::Anqi,
        Protocol::Tcg,
        Protocol::UciBanqi,
        Protocol::CdcPlatform,
    ];

    /// The name used in tournament files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Anqi => "anqi",
            Protocol::Tcg => "tcg",
            Protocol::UciBanqi => "uci-banqi",
            Protocol::CdcPlatform => "cdc-platform",
        }
    }

    /// Whether anqi must translate for engines of this protocol.
    pub fn is_bridged(self) -> bool {
        self != Protocol::Anqi
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no protocol's (in a tournament file's `protocol`, on a command line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?}; known: {known}", known = known_names())]
pub struct UnknownProtocol(pub String);

/// The names of [`Protocol::ALL`], comma-separated.
fn known_names() -> String {
    let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
    names.join(", ")
}

impl std::str::FromStr for Protocol {
    type Err = UnknownProtocol;

    /// A protocol's name; or `uci`, as cutechess and fastchess name it, for `uci-banqi` (the
    /// only UCI anqi speaks).
    fn from_str(s: &str) -> Result<Protocol, UnknownProtocol> {
        if s == "uci" {
            return Ok(Protocol::UciBanqi);
        }
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProtocol(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(p.name().parse::<Protocol>(), Ok(p));
        }
        assert_eq!("uci".parse::<Protocol>(), Ok(Protocol::UciBanqi));
        let e = "xboard".parse::<Protocol>().unwrap_err();
        assert_eq!(e, UnknownProtocol("xboard".into()));
        assert_eq!(
            e.to_string(),
            r#"unknown protocol "xboard"; known: anqi, tcg, uci-banqi, cdc-platform"#
        );
    }
}
