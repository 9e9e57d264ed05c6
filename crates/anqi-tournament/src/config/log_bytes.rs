//! `engine_log_bytes`: how much of the engines' output the logs keep, per game and per event.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most bytes of the engines' output the logs keep: of one engine in one game (`game`), and
/// of every engine in every game of one run of the event together (`event`). Without the second,
/// a long event of noisy engines filled N games × 8 MiB. Past either, the log says so, the rest
/// is read and dropped (an engine whose output is not read would block), and counted.
///
/// Format: a number (`engine_log_bytes = 8388608`, the per-game cap; the event's is the
/// default), or a table (`engine_log_bytes = { game = 8388608, event = 1073741824 }`, either key
/// may be left out). It is written back as a number when `event` is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineLogBytes {
    /// Per engine and game: 8 MiB unless told otherwise.
    pub game: u64,
    /// Per run of the event, every engine and game together: 1 GiB unless told otherwise.
    pub event: u64,
}

/// The per-game cap's default: 8 MiB.
pub const DEFAULT_GAME_LOG_BYTES: u64 = 8 << 20;
/// The event-wide cap's default: 1 GiB, 128 games' worth of engines at their per-game cap.
pub const DEFAULT_EVENT_LOG_BYTES: u64 = 1 << 30;

impl Default for EngineLogBytes {
    fn default() -> Self {
        EngineLogBytes {
            game: DEFAULT_GAME_LOG_BYTES,
            event: DEFAULT_EVENT_LOG_BYTES,
        }
    }
}

impl<'de> Deserialize<'de> for EngineLogBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            game: Option<u64>,
            event: Option<u64>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Game(u64),
            Table(Table),
        }
        let given = Given::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "engine_log_bytes: give a number of bytes per engine and game (8388608), or a table { game = BYTES, event = BYTES }",
            )
        })?;
        let default = EngineLogBytes::default();
        Ok(match given {
            Given::Game(game) => EngineLogBytes { game, ..default },
            Given::Table(t) => EngineLogBytes {
                game: t.game.unwrap_or(default.game),
                event: t.event.unwrap_or(default.event),
            },
        })
    }
}

impl Serialize for EngineLogBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.event == DEFAULT_EVENT_LOG_BYTES {
            return s.serialize_u64(self.game);
        }
        #[derive(Serialize)]
        struct Table {
            game: u64,
            event: u64,
        }
        Table {
            game: self.game,
            event: self.event,
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize, PartialEq)]
    struct File {
        engine_log_bytes: EngineLogBytes,
    }

    fn parse(text: &str) -> Result<EngineLogBytes, String> {
        toml::from_str::<File>(text)
            .map(|f| f.engine_log_bytes)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_number_is_the_games_cap_and_a_table_gives_either() {
        let n = parse("engine_log_bytes = 1000").unwrap();
        assert_eq!((n.game, n.event), (1000, DEFAULT_EVENT_LOG_BYTES));
        let t = parse("engine_log_bytes = { event = 5000 }").unwrap();
        assert_eq!((t.game, t.event), (DEFAULT_GAME_LOG_BYTES, 5000));
        let both = parse("engine_log_bytes = { game = 10, event = 20 }").unwrap();
        assert_eq!((both.game, both.event), (10, 20));
        for bad in [
            "engine_log_bytes = { games = 1 }",
            "engine_log_bytes = \"8M\"",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("give a number of bytes"), "{bad}: {e}");
        }
        // Written back as read.
        for v in [n, t, both] {
            let text = toml::to_string(&File {
                engine_log_bytes: v,
            })
            .unwrap();
            assert_eq!(parse(&text).unwrap(), v, "{text}");
        }
    }
}
