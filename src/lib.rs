pub mod rules;
pub mod wire;
pub mod config;
pub mod record;
pub mod replay;
pub mod server;
