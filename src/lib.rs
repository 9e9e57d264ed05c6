pub mod rules;
pub mod wire;
