//! The integration tests: they start the real server (in process, or the `anqi` binary) and
//! talk to it over TCP, run the real tools and check what users see.
//!
//! They are one test binary, one module per concern, so a fresh `cargo test` links one program
//! instead of one per file (the linking was most of a first build's time). Run one module with
//! `cargo test --test integration MODULE::`, for example `cargo test --test integration
//! hostile::`. Helpers shared by the modules are in `tests/common`; the rules invariants shared
//! with the fuzz targets are in `tests/rules_walk`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../rules_walk/mod.rs"]
mod rules_walk;

mod adjudication;
mod bench;
mod bot_strength;
mod bridge_platform;
mod bridge_tcg;
mod bridge_tournament;
mod bridge_uci;
mod browser;
mod browser_audit;
mod check;
mod cli;
mod comments;
mod crowd;
mod cutechess;
mod deal_books;
mod deploy;
mod engine_ends;
mod engine_logs_event;
mod engine_processes;
mod extensions;
mod faults;
mod hostile;
mod hostile_files;
mod ladder;
mod ladder_accounts;
mod ladder_pages;
mod lasting;
mod layout;
mod legal_counts;
mod ops;
mod page_timing;
mod pages;
mod perfect_without_rules;
mod prometheus;
mod python_variants;
mod random_games;
mod records_sides;
mod rejoin;
mod report_stats;
mod rules_properties;
mod score_adjudication;
mod seats;
mod solutions_untrusted;
mod storage;
mod tables_threads;
mod tables_untrusted;
mod teams;
mod tournament;
mod tournament_deals;
mod tournament_one_side;
mod tournament_tokens;
mod tournament_unit;
mod transcripts;
mod variants;
mod web;
