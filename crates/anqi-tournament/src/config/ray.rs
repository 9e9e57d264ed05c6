//! `[tournament.ray]`: playing an event on a Ray cluster (`anqi tournament --ray ADDRESS`,
//! TOURNAMENTS.md "Past one machine"): where the cluster is, the Python that talks to it, and
//! how the games are shared out.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How an event runs on a Ray cluster. The event runs there when `address` is set (here or by
/// `--ray`); the other keys only say how.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RayConfig {
    /// The cluster: `auto` (the one `ray start` made on this machine, or `RAY_ADDRESS`), or
    /// `HOST:PORT` of its head node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The Python with `ray` installed that the runner starts to talk to the cluster (the
    /// same Ray version as the cluster's).
    #[serde(default = "default_python")]
    pub python: String,
    /// Deals per unit of work: a unit plays every seating of its deals on one node, one game
    /// after another.
    #[serde(default = "one")]
    pub deals_per_unit: u32,
    /// Processors a unit asks Ray for (fractions allowed): a node runs as many units, so as
    /// many games, at once as it has processors for (`concurrency` on one machine).
    #[serde(default = "one_f64")]
    pub cpus_per_unit: f64,
    /// Other Ray resources a unit asks for, to keep the event on one kind of node
    /// (`{ "anqi-fast" = 1 }` with `ray start --resources '{"anqi-fast": 4}'` on those nodes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, f64>,
    /// What an engine that cannot start on a node does to the event.
    #[serde(default)]
    pub on_engine_failure: OnEngineFailure,
    /// How often Ray runs a unit again when its node or worker dies under it.
    #[serde(default = "default_retries")]
    pub max_retries: u32,
}

/// What an engine that cannot start on a node (its program missing there, or exiting before it
/// ever connects) does to the event.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OnEngineFailure {
    /// The event stops, naming the engine and the node; the same command resumes it.
    #[default]
    Stop,
    /// The node gets no more units of the event and the unit runs elsewhere; the event stops
    /// only when no node is left.
    AvoidNode,
}

impl Default for RayConfig {
    fn default() -> RayConfig {
        RayConfig {
            address: None,
            python: default_python(),
            deals_per_unit: 1,
            cpus_per_unit: 1.0,
            resources: BTreeMap::new(),
            on_engine_failure: OnEngineFailure::Stop,
            max_retries: default_retries(),
        }
    }
}

impl RayConfig {
    /// The keys that make no sense, named.
    pub(super) fn check(&self) -> Result<(), String> {
        if self.deals_per_unit == 0 {
            return Err("[tournament.ray] deals_per_unit must be at least 1".into());
        }
        if !(self.cpus_per_unit.is_finite() && self.cpus_per_unit > 0.0) {
            return Err(format!(
                "[tournament.ray] cpus_per_unit must be a number above 0, not {}",
                self.cpus_per_unit
            ));
        }
        if let Some((name, _)) = self
            .resources
            .iter()
            .find(|(_, n)| !(n.is_finite() && **n > 0.0))
        {
            return Err(format!(
                "[tournament.ray] resources: {name:?} must be a number above 0"
            ));
        }
        if self.address.as_deref().is_some_and(|a| a.trim().is_empty()) {
            return Err("[tournament.ray] address is empty: give `auto` or HOST:PORT".into());
        }
        Ok(())
    }
}

fn default_python() -> String {
    "python3".into()
}

fn default_retries() -> u32 {
    3
}

fn one() -> u32 {
    1
}

fn one_f64() -> f64 {
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TournamentConfig;

    /// The `[tournament.ray]` block of the shipped tournament.toml, uncommented.
    fn shipped_block() -> String {
        let example = include_str!("../../../../tournament.toml");
        let start = example
            .find("# [tournament.ray]")
            .expect("tournament.toml shows [tournament.ray]");
        example[start..]
            .lines()
            .take_while(|l| l.starts_with('#'))
            .filter(|l| !l.starts_with("#  ") || l.starts_with("# ["))
            .map(|l| l.trim_start_matches("# "))
            .map(|l| l.split("  #").next().unwrap_or(l).trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_shipped_example_reads_as_documented() {
        let text = format!(
            "[tournament]\n[[tournament.engine]]\nname = \"a\"\ncommand = \"a\"\n{}\n",
            shipped_block()
        );
        let config = TournamentConfig::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        // It writes back as it reads (the runner sends the nodes its configuration so).
        assert_eq!(TournamentConfig::parse(&config.to_toml()).unwrap(), config);
        let ray = config.ray.expect("the block");
        assert_eq!(ray.address.as_deref(), Some("auto"));
        // Every other key shows its default.
        let defaults = RayConfig {
            address: Some("auto".into()),
            resources: ray.resources.clone(),
            ..RayConfig::default()
        };
        assert_eq!(ray, defaults);
        assert_eq!(ray.resources.get("anqi-fast"), Some(&1.0));
    }

    #[test]
    fn keys_that_make_no_sense_are_named() {
        for (key, says) in [
            ("deals_per_unit = 0", "deals_per_unit must be at least 1"),
            (
                "cpus_per_unit = -1",
                "cpus_per_unit must be a number above 0",
            ),
            (
                "resources = { gpu = 0 }",
                "resources: \"gpu\" must be a number above 0",
            ),
            ("address = \" \"", "address is empty"),
            ("on_engine_failure = \"retry\"", "unknown variant `retry`"),
            ("adress = \"auto\"", "unknown field `adress`"),
        ] {
            let text = format!(
                "[tournament]\n[[tournament.engine]]\nname = \"a\"\ncommand = \"a\"\n[tournament.ray]\n{key}\n"
            );
            let e = TournamentConfig::parse(&text).unwrap_err().to_string();
            assert!(e.contains(says), "{key}: {e}");
        }
    }
}
