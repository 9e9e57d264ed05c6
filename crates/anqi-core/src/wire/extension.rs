//! Opt-in protocol extensions: extra clauses a client asks for in its handshake with
//! `(ext NAME ...)`. A client that asks for nothing sees exactly the paper's messages.
//!
//! Each name means one thing forever: a change of meaning gets a new name, so a client that
//! asked for `last` today gets the same clause from every later server. The server grants the
//! names it knows and says which in the setup message, `(ext NAME ...)`. The clauses are
//! documented in `protocol/PROTOCOL.md`, "Extensions".

use std::fmt;

/// One extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Extension {
    /// `(last ID rev POS PIECE)`, `(last ID mov POS_I POS_F)`, `(last ID bag)`,
    /// `(last ID put PIECE POS)`: the ply just played, with the piece a reveal turned up, in
    /// every prompt after the first ply and in the result message.
    Last,
    /// `(timecontrol GAME_MS INCREMENT_MS MOVE_MS PERIOD_MOVES)` in the setup message (the
    /// receiver's own control, 0 = none) and `(clock MS ...)` in every prompt: each player's
    /// game time left when the prompt was sent (0 for a player without a game clock).
    Clock,
    /// `(progress N)` in every prompt: the plies since the last reveal or capture, the count
    /// the no-progress draw rule looks at.
    Progress,
    /// `(variant "DESCRIPTION")` in the setup message: the variant's description (the
    /// `protocol/VARIANTS.md` format, secrets such as a fixed deal left out), so that a generic
    /// bot knows the capture, draw and colour rules without being told.
    Variant,
    /// `(comment "TEXT")` accepted beside an action: the player's own words on the ply (an
    /// engine's depth, score and principal variation), kept in the ply's record, cut to the
    /// server's `[records] comment_bytes`. Granted only by a server that keeps comments.
    Comment,
    /// `(rejoin "SECRET")` in the setup message: the seat's secret. A client that loses its
    /// connection may connect again within the server's grace (`[referee] rejoin_grace_ms`)
    /// and send `(rejoin "SECRET")` instead of `(init NAME SEED)` to take its seat back.
    /// Granted only by a server that keeps seats.
    Rejoin,
}

impl Extension {
    pub const ALL: [Extension; 6] = [
        Extension::Last,
        Extension::Clock,
        Extension::Progress,
        Extension::Variant,
        Extension::Comment,
        Extension::Rejoin,
    ];

    /// The name a client asks for.
    pub fn name(self) -> &'static str {
        match self {
            Extension::Last => "last",
            Extension::Clock => "clock",
            Extension::Progress => "progress",
            Extension::Variant => "variant",
            Extension::Comment => "comment",
            Extension::Rejoin => "rejoin",
        }
    }

    pub fn from_name(name: &str) -> Option<Extension> {
        Extension::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Every known name, space-separated, for error messages.
    pub fn known_names() -> String {
        Extension::ALL.map(Extension::name).join(" ")
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of extensions (what one client asked for and was granted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extensions(u8);

impl Extensions {
    pub const NONE: Extensions = Extensions(0);

    /// Every extension.
    pub fn all() -> Extensions {
        Extension::ALL.into_iter().collect()
    }

    /// The extensions that describe the game as it goes (`last`, `clock`, `progress`,
    /// `variant`): everything a client needs to follow the game without working out what the
    /// server knows. What the bridges and the server's local seats ask for.
    pub const TRACKING: Extensions = Extensions(0b1111);

    /// The set without `e`.
    pub fn without(self, e: Extension) -> Extensions {
        Extensions(self.0 & !e.bit())
    }

    /// The set with `e`.
    pub fn with(mut self, e: Extension) -> Extensions {
        self.insert(e);
        self
    }

    pub fn contains(self, e: Extension) -> bool {
        self.0 & e.bit() != 0
    }

    pub fn insert(&mut self, e: Extension) {
        self.0 |= e.bit();
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The extensions in the set, in [`Extension::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Extension> {
        Extension::ALL
            .into_iter()
            .filter(move |e| self.contains(*e))
    }

    /// Their names, in order, as the `(ext ...)` clause lists them.
    pub fn names(self) -> Vec<String> {
        self.iter().map(|e| e.name().to_string()).collect()
    }
}

impl FromIterator<Extension> for Extensions {
    fn from_iter<I: IntoIterator<Item = Extension>>(iter: I) -> Extensions {
        let mut set = Extensions::NONE;
        for e in iter {
            set.insert(e);
        }
        set
    }
}

impl fmt::Display for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(" "))
    }
}

/// The ply of a `(last ...)` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastPly {
    /// A reveal, and the piece it turned up.
    Rev(usize, char),
    Mov(usize, usize),
    /// A draw from the bag (the piece shows in `(hand P)`).
    Bag,
    Put(char, usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sets_keep_order() {
        for e in Extension::ALL {
            assert_eq!(Extension::from_name(e.name()), Some(e));
        }
        assert_eq!(Extension::from_name("lastt"), None);
        let set: Extensions = [Extension::Variant, Extension::Last].into_iter().collect();
        assert_eq!(set.names(), ["last", "variant"]);
        assert!(set.contains(Extension::Last) && !set.contains(Extension::Clock));
        assert_eq!(Extensions::all().iter().count(), 6);
        assert_eq!(
            Extensions::TRACKING.names(),
            ["last", "clock", "progress", "variant"]
        );
        assert_eq!(
            Extensions::all()
                .without(Extension::Rejoin)
                .names()
                .last()
                .unwrap(),
            "comment"
        );
    }
}
