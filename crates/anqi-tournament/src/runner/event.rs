//! The games of one run: every game shares the [`Event`] (the configuration, the master seed,
//! the server's order desk, the clocks), which plays the schedule `concurrency` games at a
//! time, appends each record the moment its game ends, says how the event goes, holds back
//! each deal from the pages until all its games have ended, and stops early when the SPRT
//! has decided.

use super::game::{play, EngineClock, GameSecrets, Here, Played};
use super::progress::{event_json, report_progress, report_standings, EventPage, Tally};
use super::resume::{recorded, sprt_decided};
use super::seed::{reveal_seed, EventSeed};
use super::RunOptions;
use crate::config::TournamentConfig;
use crate::deals::Dealer;
use crate::schedule::ScheduledGame;
use crate::stats::{self, Standings};
use crate::TournamentError;
use anqi_core::record::GameRecord;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// What every game of one run shares.
pub(super) struct Event {
    pub(super) config: Arc<TournamentConfig>,
    /// Where the games' deals come from: the master seed, or the event's book.
    pub(super) dealer: Arc<Dealer>,
    /// Each engine's clock settings (index = engine).
    pub(super) clocks: Arc<Vec<EngineClock>>,
    /// Games in the schedule (of this shard).
    pub(super) total: usize,
    /// Whether the variant is a one-side game (its engines play together).
    pub(super) one_side: bool,
    pub(super) options: RunOptions,
    pub(super) output: PathBuf,
    /// The event's web pages' hub, when they are served.
    pub(super) hub: Option<anqi_server::Hub>,
    /// The games of each deal (of the whole schedule, every shard's).
    pub(super) deal_groups: DealGroups,
    /// The games are played on a Ray cluster, not by this process's server: the pages get
    /// each game from its record.
    pub(super) remote: bool,
}

/// What a run keeps as games end: every record (earlier runs' too) and the file they go to,
/// the games recorded, how far the run has got, which engines have connected in it, and
/// whether the SPRT has stopped it.
pub(super) struct Ledger<'a> {
    pub(super) records: &'a mut Vec<GameRecord>,
    out: &'a mut std::fs::File,
    /// The schedule indexes of the games in `records`.
    pub(super) recorded: BTreeSet<u64>,
    finished: usize,
    played_now: usize,
    started: Instant,
    /// Whether each engine has taken a seat in this run: until it has, not connecting
    /// means the event is set up wrong, and stops it.
    connected: Vec<bool>,
    /// The SPRT has decided: nothing more is started.
    pub(super) stopped_early: bool,
    /// The standings as last computed ([`Ledger::refresh_standings`]), when, and how long
    /// that took.
    standings: Option<Standings>,
    standings_at: Instant,
    standings_cost: Duration,
}

/// How much of a run's time its standings may take: they are computed again after a game
/// unless the last computation took more than this share of the time since.
const STANDINGS_SHARE: u32 = 5;

impl Ledger<'_> {
    /// Brings the standings up to date after a game (`now`: whatever it costs), unless
    /// computing them took more than 1/[`STANDINGS_SHARE`] of the time since they were last
    /// computed. Over every record (the earlier runs' too), they take longer with every game:
    /// a long event's progress lines and pages are then up to date a few times a second, its
    /// SPRT checked as often, instead of its runner spending ever more of its time on them
    /// (BENCHMARKS.md, "A long event's runner"). A small event's are up to date after every
    /// game.
    fn refresh_standings(&mut self, config: &TournamentConfig, now: bool) {
        let due = self.standings.is_none()
            || now
            || self.standings_at.elapsed() >= self.standings_cost * STANDINGS_SHARE;
        if due {
            let started = Instant::now();
            self.standings = Some(stats::standings(
                self.records,
                &config.engine_names(),
                config.sprt.as_ref(),
            ));
            self.standings_at = Instant::now();
            self.standings_cost = started.elapsed();
        }
    }
}

/// What the runner keeps of a record it has written, for the standings: all but its plies,
/// faults, lost connections and final board, which only the records file needs. A long
/// event's runner then holds a few hundred bytes per game, not its whole record.
pub(super) fn for_standings(mut record: GameRecord) -> GameRecord {
    record.plies = Vec::new();
    record.faults = Vec::new();
    record.drops = Vec::new();
    record.final_board = String::new();
    record
}

/// The games of the schedule that share each deal: a finished game's record shows its whole
/// deal, so the event's pages hold it back (`Hub::withhold`) until every game of its deal has
/// ended, in this run or an earlier one. A shard's pages never show a deal whose other games
/// are another shard's.
pub(super) struct DealGroups {
    /// Deal number -> the schedule indexes of its games.
    by_deal: BTreeMap<u64, Vec<u64>>,
}

impl DealGroups {
    pub(super) fn of(schedule: &[ScheduledGame]) -> DealGroups {
        let mut by_deal: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for g in schedule {
            by_deal.entry(g.deal).or_default().push(g.index);
        }
        DealGroups { by_deal }
    }

    /// Whether every game of deal `deal` is in `recorded`, taking `also` as recorded too.
    pub(super) fn all_recorded(
        &self,
        deal: u64,
        recorded: &BTreeSet<u64>,
        also: Option<u64>,
    ) -> bool {
        self.by_deal.get(&deal).is_none_or(|games| {
            games
                .iter()
                .all(|i| recorded.contains(i) || Some(*i) == also)
        })
    }

    /// The games of deal `deal`.
    fn games(&self, deal: u64) -> &[u64] {
        self.by_deal.get(&deal).map_or(&[], Vec::as_slice)
    }
}

impl Event {
    /// Says `line` on stderr, unless the run is quiet.
    pub(super) fn say(&self, line: &str) {
        if !self.options.progress.is_quiet() {
            super::progress::say(line);
        }
    }

    /// Gives the event's pages its progress and standings (`--http`).
    fn publish(&self, tally: &Tally, standings: &Standings) {
        let Some(hub) = &self.hub else { return };
        let elapsed = tally.started.elapsed().as_secs_f64();
        let left = self.total.saturating_sub(tally.finished);
        let eta = (tally.played_now > 0).then(|| elapsed / tally.played_now as f64 * left as f64);
        hub.set_event(event_json(&EventPage {
            finished: tally.finished,
            total: self.total,
            elapsed_s: elapsed,
            eta_s: eta,
            standings,
            commitment: &self.dealer.master.commitment(),
            revealed: None,
            done: false,
        }));
    }

    /// What a run keeps as games end, from the records already in its file.
    pub(super) fn ledger<'a>(
        &self,
        records: &'a mut Vec<GameRecord>,
        out: &'a mut std::fs::File,
    ) -> Ledger<'a> {
        Ledger {
            recorded: recorded(records),
            stopped_early: sprt_decided(records, &self.config),
            finished: records.len(),
            records,
            out,
            played_now: 0,
            started: Instant::now(),
            connected: vec![false; self.config.engines.len()],
            standings: None,
            standings_at: Instant::now(),
            standings_cost: Duration::ZERO,
        }
    }

    /// Plays `todo` on this machine's server, `concurrency` games at a time, appending each
    /// record to `out` (and to `records`) as it comes, until the schedule is done or the SPRT
    /// decides.
    ///
    /// # Errors
    /// I/O failures, and an engine that fails before it ever connected in this run.
    pub(super) async fn play_all(
        &self,
        here: &Here,
        todo: Vec<ScheduledGame>,
        records: &mut Vec<GameRecord>,
        out: &mut std::fs::File,
    ) -> Result<(), TournamentError> {
        let config = &self.config;
        let mut ledger = self.ledger(records, out);
        let mut pending = todo.into_iter();
        let mut running = JoinSet::new();
        loop {
            while !ledger.stopped_early && running.len() < config.concurrency as usize {
                let Some(game) = pending.next() else { break };
                let (config, dealer, here, clocks) = (
                    config.clone(),
                    self.dealer.clone(),
                    here.clone(),
                    self.clocks.clone(),
                );
                running.spawn(async move {
                    let secrets = GameSecrets::of(&dealer, &game);
                    play(&config, &secrets, &here, game, &clocks).await
                });
            }
            let Some(joined) = running.join_next().await else {
                break;
            };
            let played = joined
                .map_err(|e| TournamentError::Server(format!("a game task failed: {e}")))??;
            self.settle(&mut ledger, played)?;
        }
        Ok(())
    }

    /// Takes a played game into the event: checks its engines connected, appends its record,
    /// shows its deal once whole, says how the event goes, and notes when the SPRT decides
    /// (`ledger.stopped_early`).
    ///
    /// # Errors
    /// The records file cannot be written, or an engine failed before it ever connected.
    pub(super) fn settle(
        &self,
        ledger: &mut Ledger<'_>,
        played: Played,
    ) -> Result<(), TournamentError> {
        self.check_connected(&played, &mut ledger.connected)?;
        let record = played.record;
        self.append(ledger.out, &record)?;
        ledger.finished += 1;
        ledger.played_now += 1;
        let tag = record.tournament.clone().expect("tagged");
        if let (Some(hub), true) = (&self.hub, self.remote) {
            // Withheld like any game until its deal is whole (the pages' withholding).
            hub.add_record(record.clone());
        }
        ledger.records.push(for_standings(record));
        ledger.recorded.insert(tag.index);
        self.disclose_deal(tag.deal, &ledger.recorded);
        let every = self.config.standings_every as usize;
        let table_due = every > 0 && ledger.finished % every == 0;
        ledger.refresh_standings(&self.config, table_due);
        let tally = Tally {
            finished: ledger.finished,
            played_now: ledger.played_now,
            started: ledger.started,
        };
        let standings = ledger.standings.as_ref().expect("refreshed");
        self.say_progress(
            ledger.records.last().expect("just pushed"),
            &tally,
            standings,
        );
        if !ledger.stopped_early && self.sprt_stops(standings) {
            ledger.stopped_early = true;
        }
        Ok(())
    }

    /// Stops the event when an engine with a command never connected to the game just played,
    /// unless it has connected in an earlier game of this run; marks those that did connect.
    fn check_connected(
        &self,
        played: &Played,
        connected: &mut [bool],
    ) -> Result<(), TournamentError> {
        match never_connected(&self.config, played, connected) {
            Some(why) => Err(TournamentError::Engine(format!(
                "{why}: the event is stopped"
            ))),
            None => Ok(()),
        }
    }

    /// Appends `record` to the records file, flushed and synced before the next game is
    /// reported: a resumed run never plays again a game this one reported as finished.
    fn append(&self, out: &mut std::fs::File, record: &GameRecord) -> Result<(), TournamentError> {
        let mut line = serde_json::to_string(record).expect("records serialize");
        line.push('\n');
        out.write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .and_then(|()| out.sync_data())
            .map_err(TournamentError::io(format!(
                "cannot write {}",
                self.output.display()
            )))
    }

    /// Once the last game of deal `deal` has ended, every game of the deal may be shown whole on
    /// the event's pages.
    fn disclose_deal(&self, deal: u64, recorded: &BTreeSet<u64>) {
        if let Some(hub) = &self.hub {
            if self.deal_groups.all_recorded(deal, recorded, None) {
                for &index in self.deal_groups.games(deal) {
                    hub.disclose(index + 1);
                }
            }
        }
    }

    /// Says that `record`'s game is over (stderr and the pages), and the standings when
    /// `standings_every` says so.
    fn say_progress(&self, record: &GameRecord, tally: &Tally, standings: &Standings) {
        let progress = self.options.progress;
        let joiner = if self.one_side { " + " } else { " vs " };
        report_progress(progress, joiner, record, self.total, tally, standings);
        self.publish(tally, standings);
        let every = self.config.standings_every as usize;
        if every > 0 && tally.finished % every == 0 && !progress.is_quiet() {
            report_standings(progress, tally.finished, self.total, standings);
        }
    }

    /// Whether the SPRT has just decided: nothing more is started, the games in progress are
    /// finished.
    fn sprt_stops(&self, standings: &Standings) -> bool {
        let Some(s) = &standings.sprt else {
            return false;
        };
        if !s.verdict.is_decided() {
            return false;
        }
        if !self.options.progress.is_quiet() {
            eprintln!(
                "SPRT {} vs {}: {} accepted (LLR {:.2}); finishing the games in progress",
                s.first, s.second, s.verdict, s.llr
            );
        }
        true
    }

    /// After the games: the event is over when every game of its schedule is recorded (a
    /// shard's run ends only its part), or when the SPRT has decided (nothing more is played):
    /// its seed is revealed, on the pages too while they are still up. The pages get the
    /// final standings, every game in them, with `done` (an event over or not: this run has
    /// nothing more to play).
    ///
    /// # Errors
    /// The seed file cannot be marked revealed.
    pub(super) fn end(
        &self,
        schedule: &[ScheduledGame],
        records: &[GameRecord],
        seed: &EventSeed,
        started: Instant,
    ) -> Result<(), TournamentError> {
        let recorded = recorded(records);
        let all_played = schedule.iter().all(|g| recorded.contains(&g.index));
        let decided = sprt_decided(records, &self.config);
        let over = self.options.shard.is_none() && (all_played || decided);
        let revealed = match over {
            true => reveal_seed(seed, &self.output, self.options.progress),
            false => Ok(()),
        };
        if let Some(hub) = &self.hub {
            if over {
                // The seed is public: nothing of a deal is held back any more (the games of a
                // deal the SPRT left unplayed, too).
                for g in schedule {
                    hub.disclose(g.index + 1);
                }
            }
            let names = self.config.engine_names();
            hub.set_event(event_json(&EventPage {
                finished: records.len(),
                total: self.total,
                elapsed_s: started.elapsed().as_secs_f64(),
                eta_s: None,
                standings: &stats::standings(records, &names, self.config.sprt.as_ref()),
                commitment: &seed.seed.commitment(),
                revealed: over.then(|| seed.seed.reveal()),
                done: true,
            }));
        }
        revealed
    }
}

/// Why the event (or a unit of it on a node) must stop after `played`: an engine with a command
/// that did not connect to it and has not connected in any game before (`connected`, which
/// this marks for those that did), named with where its output went. `None` when every engine
/// is accounted for.
pub(super) fn never_connected(
    config: &TournamentConfig,
    played: &Played,
    connected: &mut [bool],
) -> Option<String> {
    for (seat, &engine) in played.seats.iter().enumerate() {
        match &played.absent[seat] {
            None => connected[engine] = true,
            Some(why) if !connected[engine] && config.engines[engine].command.is_some() => {
                return Some(format!(
                    "engine {:?} ({}) {why} in game {} (seat {}), and it has not connected in any game yet (its output is in {})",
                    config.engines[engine].name,
                    config.engines[engine].command.as_deref().unwrap_or_default(),
                    played.record.tournament.as_ref().map_or(0, |t| t.index),
                    seat + 1,
                    played.logs[seat],
                ));
            }
            Some(_) => {}
        }
    }
    None
}
