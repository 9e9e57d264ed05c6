pub mod config;
pub mod record;
pub mod replay;
pub mod rules;
pub mod server;
pub mod wire;
