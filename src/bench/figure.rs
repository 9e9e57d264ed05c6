//! One measured figure of `anqi bench`, its floor and its target, and the two ways it is
//! printed: a text line `NAME: VALUE UNIT; floor: VALUE UNIT; ratio: R; target: ... (met)` and
//! a JSON object.

use serde::Serialize;

/// What a figure is compared with to say whether its target is met.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Target {
    /// The value is at least this much.
    AtLeast { value: f64 },
    /// The value is at most this much.
    AtMost { value: f64 },
    /// The value is at least `value` and at least `ratio` times its floor.
    AtLeastAndRatio { value: f64, ratio: f64 },
    /// The value is at most `ratio` times its floor.
    RatioAtMost { ratio: f64 },
    /// The value is at least `ratio` times its floor.
    RatioAtLeast { ratio: f64 },
}

impl Target {
    /// Whether `figure` meets the target; `None` when that needs a floor the run has not got.
    fn met(self, figure: &Figure) -> Option<bool> {
        match self {
            Target::AtLeast { value } => Some(figure.value >= value),
            Target::AtMost { value } => Some(figure.value <= value),
            Target::AtLeastAndRatio { value, ratio } => {
                let r = figure.ratio()?;
                Some(figure.value >= value && r >= ratio)
            }
            Target::RatioAtMost { ratio } => Some(figure.ratio()? <= ratio),
            Target::RatioAtLeast { ratio } => Some(figure.ratio()? >= ratio),
        }
    }

    /// The target as text, in the figure's unit (no `;`, which separates the line's fields).
    fn describe(self, unit: &str) -> String {
        match self {
            Target::AtLeast { value } => format!(">= {} {unit}", number(value)),
            Target::AtMost { value } => format!("<= {} {unit}", number(value)),
            Target::AtLeastAndRatio { value, ratio } => {
                format!(">= {} {unit} and ratio >= {}", number(value), number(ratio))
            }
            Target::RatioAtMost { ratio } => format!("ratio <= {}", number(ratio)),
            Target::RatioAtLeast { ratio } => format!("ratio >= {}", number(ratio)),
        }
    }
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The name for it: `R1`, `S1 p50`, `S3 idle`...
    pub name: String,
    /// What was measured, in `unit`.
    pub value: f64,
    /// `plies/s`, `us`, `KiB/connection`...
    pub unit: String,
    /// The same run's floor (what the machine does without anqi), and its unit.
    pub floor: Option<(f64, String)>,
    /// What the issue asks of it.
    pub target: Option<Target>,
}

impl Figure {
    /// A figure without a floor or a target yet.
    pub fn new(name: &str, value: f64, unit: &str) -> Figure {
        Figure {
            name: name.to_string(),
            value,
            unit: unit.to_string(),
            floor: None,
            target: None,
        }
    }

    /// The same figure with a floor.
    pub fn floor(mut self, value: Option<f64>, unit: &str) -> Figure {
        self.floor = value.map(|v| (v, unit.to_string()));
        self
    }

    /// The same figure with a target.
    pub fn target(mut self, target: Target) -> Figure {
        self.target = Some(target);
        self
    }

    /// Value over floor; `None` without a floor (or with a zero one).
    pub fn ratio(&self) -> Option<f64> {
        self.floor
            .as_ref()
            .filter(|(f, _)| *f > 0.0)
            .map(|(f, _)| self.value / f)
    }

    /// Whether the target is met (`None`: no target, or it needs a floor the run has not got).
    pub fn met(&self) -> Option<bool> {
        self.target.and_then(|t| t.met(self))
    }

    /// `NAME: VALUE UNIT; floor: VALUE UNIT; ratio: R`, then `; target: ... (met)` when there
    /// is a target.
    pub fn line(&self) -> String {
        let floor = match &self.floor {
            Some((v, u)) => format!("{} {u}", number(*v)),
            None => "none".to_string(),
        };
        let ratio = self
            .ratio()
            .map_or_else(|| "none".to_string(), |r| format!("{r:.3}"));
        let mut line = format!(
            "{}: {} {}; floor: {floor}; ratio: {ratio}",
            self.name,
            number(self.value),
            self.unit
        );
        if let Some(t) = self.target {
            let verdict = match self.met() {
                Some(true) => "met",
                Some(false) => "not met",
                None => "unknown without a floor",
            };
            line += &format!("; target: {} ({verdict})", t.describe(&self.unit));
        }
        line
    }

    /// The figure as a JSON object: name, value, unit, floor, floor_unit, ratio, target (as
    /// text and as data) and met.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "floor": self.floor.as_ref().map(|(v, _)| *v),
            "floor_unit": self.floor.as_ref().map(|(_, u)| u.clone()),
            "ratio": self.ratio(),
            "target": self.target.map(|t| t.describe(&self.unit)),
            "target_data": self.target,
            "met": self.met(),
        })
    }
}

/// A number as the report prints it: whole numbers without decimals, small ones with enough
/// digits to read (microseconds and kibibytes with up to three decimals).
fn number(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_a_floor_says_none() {
        let f = Figure::new("S4 time losses", 0.0, "games");
        assert_eq!(
            f.line(),
            "S4 time losses: 0 games; floor: none; ratio: none"
        );
        assert_eq!(f.json()["floor"], serde_json::Value::Null);
    }

    #[test]
    fn a_ratio_target_is_judged_against_the_floor() {
        let f = Figure::new("S1 p50", 60.5, "us")
            .floor(Some(50.0), "us")
            .target(Target::RatioAtMost { ratio: 1.3 });
        assert_eq!(f.ratio(), Some(1.21));
        assert_eq!(f.met(), Some(true));
        assert_eq!(
            f.line(),
            "S1 p50: 60.500 us; floor: 50 us; ratio: 1.210; target: ratio <= 1.300 (met)"
        );
        let slow = Figure::new("S1 p50", 70.0, "us")
            .floor(Some(50.0), "us")
            .target(Target::RatioAtMost { ratio: 1.3 });
        assert_eq!(slow.met(), Some(false));
        assert!(slow.line().ends_with("(not met)"));
        let pace = Figure::new("S6 polling pace", 9000.0, "plies/s")
            .floor(Some(10000.0), "plies/s")
            .target(Target::RatioAtLeast { ratio: 0.9 });
        assert_eq!(pace.met(), Some(true));
        assert!(
            pace.line().ends_with("target: ratio >= 0.900 (met)"),
            "{}",
            pace.line()
        );
    }

    #[test]
    fn a_target_needing_a_floor_is_unknown_without_one() {
        let f = Figure::new("R1", 2e6, "plies/s").target(Target::AtLeastAndRatio {
            value: 1e7,
            ratio: 25.0,
        });
        assert_eq!(f.met(), None);
        assert_eq!(f.json()["met"], serde_json::Value::Null);
    }
}
