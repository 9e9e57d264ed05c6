//! The coordinate maps of the protocols, side by side with anqi's cells (`anqi bridge
//! --print-map PROTOCOL`).

use super::{platform, tcg, uci, Protocol};

/// The coordinate map of a protocol: a 4x8 grid of the square names, anqi's cell numbers
/// beside them (`anqi bridge --print-map PROTOCOL`).
pub fn print_map(protocol: Protocol) -> String {
    let name: fn(usize) -> String = match protocol {
        Protocol::Anqi => |c| c.to_string(),
        Protocol::Tcg => tcg::square_name,
        Protocol::UciBanqi => uci::square_name,
        Protocol::CdcPlatform => platform::square_name,
    };
    let mut out = format!(
        "{protocol}: anqi cell = row * 8 + column, row 0 printed first; each cell shows CELL=NAME\n"
    );
    for row in 0..4 {
        let line: Vec<String> = (0..8)
            .map(|col| {
                let cell = row * 8 + col;
                format!("{cell:>2}={:<5}", name(cell))
            })
            .collect();
        out.push_str(line.join(" ").trim_end());
        out.push('\n');
    }
    out
}
