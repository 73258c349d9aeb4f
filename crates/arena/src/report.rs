//! What a match or tournament found, for people (a terminal table) and for programs (JSON,
//! CSV).
//!
//! Reports are plain data built from the running tally once the games are played; numbers
//! that do not exist (an Elo with no games, an infinite Elo from a perfect score) are NaN or
//! infinite in Rust and `null` in JSON.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use serde::Serialize;

use crate::record::{GameRecord, Termination};
use crate::schedule::{Fixture, match_schedule};
use crate::stats::{
    EloEstimate, PairTable, Penta, RatingOptions, ScoreEstimate, Sprt, SprtDecision, SprtStatus, StatsError, Wld,
    bootstrap_errors, fit_ratings,
};

/// Running counts of a match or tournament.
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    n: usize,
    /// Per fixture: the score of `fixture.a` against `fixture.b`, once played.
    done: Vec<Option<f64>>,
    /// `wld[i*n+j]`: `i`'s results against `j`.
    wld: Vec<Wld>,
    /// `penta[i*n+j]`: `i`'s colour-swapped pairs against `j`.
    penta: Vec<Penta>,
    /// `first[i*n+j]`: `i`'s results against `j` in the games where `i` had the first seat.
    first: Vec<Wld>,
    forfeits: Vec<u64>,
    terminations: BTreeMap<String, u64>,
    played: u64,
}

fn termination_kind(t: &Termination) -> &'static str {
    match t {
        Termination::Normal => "normal",
        Termination::IllegalMove { .. } => "illegal_move",
        Termination::AgentError { .. } => "agent_error",
        Termination::TimeForfeit { .. } => "time_forfeit",
        Termination::Resignation { .. } => "resignation",
        Termination::MaxPlies => "max_plies",
        Termination::Adjudicated { .. } => "adjudicated",
        Termination::NoLegalMove { .. } => "no_legal_move",
    }
}

impl Tally {
    pub(crate) fn new(n: usize, fixtures: usize) -> Tally {
        Tally {
            n,
            done: vec![None; fixtures],
            wld: vec![Wld::default(); n * n],
            penta: vec![Penta::default(); n * n],
            first: vec![Wld::default(); n * n],
            forfeits: vec![0; n],
            terminations: BTreeMap::new(),
            played: 0,
        }
    }

    pub(crate) fn is_done(&self, id: usize) -> bool {
        self.done.get(id).is_some_and(Option::is_some)
    }

    pub(crate) fn add(&mut self, fixture: &Fixture, record: &GameRecord) {
        let (a, b, n) = (fixture.a, fixture.b, self.n);
        if a >= n || b >= n || self.is_done(fixture.id) || fixture.id >= self.done.len() {
            return;
        }
        let s = record.score_between(a, b).unwrap_or(0.5);
        self.done[fixture.id] = Some(s);
        self.played += 1;
        self.wld[a * n + b].add(s);
        self.wld[b * n + a].add(1.0 - s);
        match record.participants.first() {
            Some(&p) if p == a => self.first[a * n + b].add(s),
            Some(&p) if p == b => self.first[b * n + a].add(1.0 - s),
            _ => {}
        }
        if let Some(sp) = fixture.partner.and_then(|p| self.done.get(p).copied().flatten()) {
            self.penta[a * n + b].add_pair(s, sp);
            self.penta[b * n + a].add_pair(1.0 - s, 1.0 - sp);
        }
        if let Some(p) = record.termination.offender().and_then(|seat| record.participants.get(seat))
            && let Some(f) = self.forfeits.get_mut(*p)
        {
            *f += 1;
        }
        *self.terminations.entry(termination_kind(&record.termination).to_string()).or_default() += 1;
    }

    pub(crate) fn sprt_status(&self, test: &Sprt) -> SprtStatus {
        let llr =
            if test.pentanomial { test.llr_pentanomial(&self.penta[1]) } else { test.llr_trinomial(&self.wld[1]) };
        test.status(llr)
    }

    fn total(&self, i: usize) -> Wld {
        (0..self.n).fold(Wld::default(), |acc, j| {
            let w = self.wld[i * self.n + j];
            Wld::new(acc.wins + w.wins, acc.losses + w.losses, acc.draws + w.draws)
        })
    }

    pub(crate) fn progress_line(&self, names: &[String], sprt: Option<&Sprt>) -> String {
        if self.n == 2 {
            let w = self.wld[1];
            let mut line = format!("{} vs {}: +{} -{} ={}", names[0], names[1], w.wins, w.losses, w.draws);
            if w.games() > 0 {
                let e = w.elo();
                let _ = write!(line, "  Elo {:+.1} ± {:.1}", e.elo, e.margin);
            }
            if let Some(t) = sprt {
                let s = self.sprt_status(t);
                let _ = write!(line, "  LLR {:.2} [{:.2}, {:.2}]", s.llr, s.lower, s.upper);
            }
            line
        } else {
            let best = (0..self.n).max_by(|&a, &b| self.total(a).points().total_cmp(&self.total(b).points()));
            match best {
                Some(b) => format!("leader {} with {} points", names[b], self.total(b).points()),
                None => String::new(),
            }
        }
    }
}

/// A match's statistics kept up to date one record at a time, for a driver that gathers
/// the games of a match played elsewhere (other processes or machines): whether its SPRT
/// has decided after each game, a progress line, and the report the arena would give for
/// the same games. Games are paired as the match schedule pairs them.
#[derive(Clone, Debug)]
pub struct MatchTally {
    games: usize,
    sprt: Option<Sprt>,
    /// The schedule, made when the first record shows how many seats a game has.
    fixtures: Vec<Fixture>,
    tally: Tally,
    names: [String; 2],
    game: String,
}

impl MatchTally {
    /// An empty tally of a match of `games` games, with `sprt` if one is run.
    pub fn new(games: usize, sprt: Option<Sprt>) -> MatchTally {
        MatchTally {
            games,
            sprt,
            fixtures: Vec::new(),
            tally: Tally::new(2, games),
            names: [String::new(), String::new()],
            game: String::new(),
        }
    }

    /// Counts `record`; false (and nothing counted) when it is not a game of the schedule
    /// (number out of range, other seats) or its game was counted already.
    pub fn add(&mut self, record: &GameRecord) -> bool {
        if self.fixtures.is_empty() && self.games > 0 {
            self.fixtures = match_schedule(self.games, record.participants.len().max(2));
        }
        let Some(f) = self.fixtures.get(record.id) else { return false };
        if f.seats != record.participants || self.tally.is_done(record.id) {
            return false;
        }
        self.tally.add(f, record);
        for (p, name) in record.participants.iter().zip(&record.players) {
            if let Some(slot) = self.names.get_mut(*p)
                && slot.is_empty()
            {
                slot.clone_from(name);
            }
        }
        if self.game.is_empty() {
            self.game.clone_from(&record.game);
        }
        true
    }

    /// Games counted.
    pub fn played(&self) -> u64 {
        self.tally.played
    }

    /// Whether game `id` was counted.
    pub fn has(&self, id: usize) -> bool {
        self.tally.is_done(id)
    }

    /// Whether the SPRT (if any) has decided.
    pub fn decided(&self) -> bool {
        self.sprt.is_some_and(|t| self.tally.sprt_status(&t).decision != SprtDecision::Continue)
    }

    fn names(&self) -> Vec<String> {
        let name = |i: usize| {
            if self.names[i].is_empty() { format!("player {}", i + 1) } else { self.names[i].clone() }
        };
        vec![name(0), name(1)]
    }

    /// One line for a terminal: the score, the Elo and the SPRT's log-likelihood ratio.
    pub fn progress_line(&self) -> String {
        self.tally.progress_line(&self.names(), self.sprt.as_ref())
    }

    /// The report of the games counted.
    pub fn report(&self) -> MatchReport {
        MatchReport::new(&self.game, &self.names(), &self.tally, self.games, self.sprt)
    }
}

/// The SPRT's test and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    /// The test.
    pub test: Sprt,
    /// Its state after the games played.
    pub status: SprtStatus,
}

/// The result of a match, from the first player's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    /// The game's spec.
    pub game: String,
    /// The two players' names (first, second).
    pub players: [String; 2],
    /// Games scheduled.
    pub scheduled: usize,
    /// Games played (including those of earlier, resumed runs).
    pub played: u64,
    /// Whether every scheduled game was played.
    pub complete: bool,
    /// Wins, losses and draws of the first player.
    pub wld: Wld,
    /// The first player's results in the games where it moved first (had seat 1).
    pub moving_first: Wld,
    /// The first player's results in the games where the second player moved first.
    pub moving_second: Wld,
    /// The first player's score with its 95% interval.
    pub score: ScoreEstimate,
    /// The Elo difference (first minus second) with its 95% interval.
    pub elo: EloEstimate,
    /// The normalized Elo difference with its 95% interval (from the pairs when there are
    /// any, else from single games).
    pub normalized_elo: EloEstimate,
    /// Likelihood that the first player is stronger.
    pub los: f64,
    /// Fraction of draws.
    pub draw_ratio: f64,
    /// Colour-swapped game pairs of the first player.
    pub penta: Penta,
    /// The Elo difference from the pairs, when there are any.
    pub penta_elo: Option<EloEstimate>,
    /// The SPRT, if one was run.
    pub sprt: Option<SprtReport>,
    /// Games each player lost by its own fault (illegal move, error, time).
    pub forfeits: [u64; 2],
    /// How the games ended, by kind.
    pub terminations: BTreeMap<String, u64>,
}

impl MatchReport {
    pub(crate) fn new(
        game: &str,
        names: &[String],
        tally: &Tally,
        scheduled: usize,
        sprt: Option<Sprt>,
    ) -> MatchReport {
        let wld = tally.wld[1];
        let penta = tally.penta[1];
        let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("player {}", i + 1));
        MatchReport {
            game: game.to_string(),
            players: [name(0), name(1)],
            scheduled,
            played: tally.played,
            complete: tally.played as usize >= scheduled,
            wld,
            moving_first: tally.first[1],
            moving_second: tally.first[2].flipped(),
            score: wld.score_estimate(0.95),
            elo: wld.elo(),
            normalized_elo: if penta.pairs() > 0 { penta.normalized_elo() } else { wld.normalized_elo() },
            los: wld.los(),
            draw_ratio: wld.draw_ratio(),
            penta,
            penta_elo: (penta.pairs() > 0).then(|| penta.elo()),
            sprt: sprt.map(|test| SprtReport { test, status: tally.sprt_status(&test) }),
            forfeits: [tally.forfeits[0], tally.forfeits[1]],
            terminations: tally.terminations.clone(),
        }
    }

    /// The report of a match's records (see [`crate::read_results`]), participant 0 first;
    /// games are paired as the match schedule pairs them.
    pub fn from_records(records: &[GameRecord], sprt: Option<Sprt>) -> MatchReport {
        MatchReport::from_scheduled_records(records, 0, sprt)
    }

    /// [`from_records`](MatchReport::from_records) for a match of `scheduled` games (at
    /// least as many as the records' numbers show), so that a report of a match cut short
    /// (by an SPRT, or still running) says how many games it was to have, as the arena's
    /// own report does.
    pub fn from_scheduled_records(records: &[GameRecord], scheduled: usize, sprt: Option<Sprt>) -> MatchReport {
        let games = records.iter().map(|r| r.id + 1).max().unwrap_or(0).max(scheduled);
        let mut tally = MatchTally::new(games, sprt);
        for r in records {
            tally.add(r);
        }
        tally.report()
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report as CSV: a header line and one row.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "player1,player2,games,wins,losses,draws,score,elo,elo_low,elo_high,elo_margin,los,llr,sprt_decision\n",
        );
        let (llr, decision) = match &self.sprt {
            Some(s) => (format!("{:.4}", s.status.llr), decision_text(s.status.decision).to_string()),
            None => (String::new(), String::new()),
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:.4},{:.2},{:.2},{:.2},{:.2},{:.4},{llr},{decision}",
            csv_field(&self.players[0]),
            csv_field(&self.players[1]),
            self.wld.games(),
            self.wld.wins,
            self.wld.losses,
            self.wld.draws,
            self.score.score,
            self.elo.elo,
            self.elo.low,
            self.elo.high,
            self.elo.margin,
            self.los,
        );
        out
    }
}

fn decision_text(d: SprtDecision) -> &'static str {
    match d {
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::Continue => "continue",
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b] = &self.players;
        writeln!(f, "{a} vs {b} ({}), {} of {} games", self.game, self.played, self.scheduled)?;
        let w = &self.wld;
        writeln!(
            f,
            "  {a}: +{} -{} ={}  score {:.1}% [{:.1}%, {:.1}%]  draws {:.1}%",
            w.wins,
            w.losses,
            w.draws,
            100.0 * self.score.score,
            100.0 * self.score.low,
            100.0 * self.score.high,
            100.0 * self.draw_ratio
        )?;
        let elo = if self.elo.elo.is_nan() {
            "n/a (no games)".to_string()
        } else {
            format!("{:+.1} ± {:.1} [{:+.1}, {:+.1}]", self.elo.elo, self.elo.margin, self.elo.low, self.elo.high)
        };
        let nelo = if self.normalized_elo.elo.is_nan() || self.normalized_elo.margin.is_nan() {
            "n/a (needs games with different results)".to_string()
        } else {
            format!("{:+.1} ± {:.1}", self.normalized_elo.elo, self.normalized_elo.margin)
        };
        writeln!(f, "  Elo difference {elo}  nElo {nelo}  LOS {:.1}%", 100.0 * self.los)?;
        let (m1, m2) = (&self.moving_first, &self.moving_second);
        writeln!(
            f,
            "  {a} moving first: +{} -{} ={}  moving second: +{} -{} ={}",
            m1.wins, m1.losses, m1.draws, m2.wins, m2.losses, m2.draws
        )?;
        if let Some(e) = &self.penta_elo {
            let c = self.penta.counts;
            let elo = if e.elo.is_nan() || e.margin.is_nan() {
                "n/a (needs pairs with different results)".to_string()
            } else {
                format!("{:+.1} ± {:.1}", e.elo, e.margin)
            };
            writeln!(f, "  Pairs [{} {} {} {} {}]  Elo {elo}", c[0], c[1], c[2], c[3], c[4])?;
        }
        if let Some(s) = &self.sprt {
            writeln!(
                f,
                "  SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} [{:.2}, {:.2}] {}",
                s.test.elo0,
                s.test.elo1,
                s.test.alpha,
                s.test.beta,
                s.status.llr,
                s.status.lower,
                s.status.upper,
                match s.status.decision {
                    SprtDecision::AcceptH0 => "H0 accepted",
                    SprtDecision::AcceptH1 => "H1 accepted",
                    SprtDecision::Continue => "undecided",
                }
            )?;
        }
        if self.forfeits.iter().any(|&x| x > 0) {
            writeln!(f, "  forfeits: {a} {}, {b} {}", self.forfeits[0], self.forfeits[1])?;
        }
        if let Some(&n) = self.terminations.get("agent_error").filter(|&&n| n > 0) {
            writeln!(
                f,
                "  {n} game(s) forfeited by an agent that failed (crashed, hung or broke the protocol); \
                 the match went on with a fresh agent (details in the results file)"
            )?;
        }
        Ok(())
    }
}

/// One player's line in the tournament standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The player's index among the participants.
    pub player: usize,
    /// The player's name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Points scored.
    pub points: f64,
    /// Points per game.
    pub score: f64,
    /// Wins, losses and draws against everyone.
    pub wld: Wld,
    /// Fitted rating.
    pub elo: f64,
    /// Half width of the rating's 95% interval.
    pub error95: f64,
    /// Games lost by the player's own fault.
    pub forfeits: u64,
}

/// The result of a tournament.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentReport {
    /// The game's spec.
    pub game: String,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games played.
    pub played: u64,
    /// Whether every scheduled game was played.
    pub complete: bool,
    /// Players by rating, best first.
    pub standings: Vec<Standing>,
    /// `cross[i][j]`: results of participant `i` against `j` (by participant index).
    pub cross: Vec<Vec<Wld>>,
    /// The rating fit's options as used (prior draws are added when a perfect score leaves
    /// the plain fit without a finite answer).
    pub rating: RatingOptions,
    /// Why there are no ratings, if the fit failed.
    pub rating_error: Option<String>,
    /// How the games ended, by kind.
    pub terminations: BTreeMap<String, u64>,
}

impl TournamentReport {
    pub(crate) fn new(
        game: &str,
        names: &[String],
        tally: &Tally,
        scheduled: usize,
        rating: &RatingOptions,
    ) -> TournamentReport {
        let n = tally.n;
        // Players without games (a run stopped early) are left out of the fit.
        let active: Vec<usize> = (0..n).filter(|&i| tally.total(i).games() > 0).collect();
        let mut table = PairTable::new(active.len());
        for (a, &i) in active.iter().enumerate() {
            for (b, &j) in active.iter().enumerate().skip(a + 1) {
                let w = tally.wld[i * n + j];
                if w.games() > 0 {
                    table.add(a, b, w.games() as f64, w.points());
                }
            }
        }
        let mut used = *rating;
        let mut options = used;
        if let crate::stats::Anchor::Player(p) = used.anchor {
            // The anchor by its position among the active players (out of range if inactive).
            options.anchor = crate::stats::Anchor::Player(active.iter().position(|&i| i == p).unwrap_or(usize::MAX));
        }
        let mut fit = fit_ratings(&table, &options);
        if matches!(fit, Err(StatsError::Unbounded(_))) && used.prior_draws == 0.0 {
            used.prior_draws = 1.0;
            options.prior_draws = 1.0;
            fit = fit_ratings(&table, &options);
        }
        let (mut elo, mut error95) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        let rating_error = match fit {
            Ok(mut r) => {
                if used.bootstrap > 0 {
                    let mut pairs = Vec::new();
                    for (a, &i) in active.iter().enumerate() {
                        for (b, &j) in active.iter().enumerate().skip(a + 1) {
                            let w = tally.wld[i * n + j];
                            if w.games() > 0 {
                                pairs.push((a, b, w));
                            }
                        }
                    }
                    if let Ok(e) = bootstrap_errors(&pairs, active.len(), &options, used.bootstrap as usize, 0x5EED) {
                        r.error95 = e;
                    }
                }
                for (a, &i) in active.iter().enumerate() {
                    elo[i] = r.elo[a];
                    error95[i] = r.error95[a];
                }
                None
            }
            Err(e) => Some(e.to_string()),
        };
        let mut standings: Vec<Standing> = (0..n)
            .map(|i| {
                let wld = tally.total(i);
                Standing {
                    player: i,
                    name: names.get(i).cloned().unwrap_or_else(|| format!("player {}", i + 1)),
                    games: wld.games(),
                    points: wld.points(),
                    score: wld.score(),
                    wld,
                    elo: elo[i],
                    error95: error95[i],
                    forfeits: tally.forfeits[i],
                }
            })
            .collect();
        standings
            .sort_by(|a, b| b.elo.total_cmp(&a.elo).then(b.points.total_cmp(&a.points)).then(a.player.cmp(&b.player)));
        TournamentReport {
            game: game.to_string(),
            scheduled,
            played: tally.played,
            complete: tally.played as usize >= scheduled,
            standings,
            cross: (0..n).map(|i| (0..n).map(|j| tally.wld[i * n + j]).collect()).collect(),
            rating: used,
            rating_error,
            terminations: tally.terminations.clone(),
        }
    }

    /// The report of a tournament's records (see [`crate::read_results`]) between `players`
    /// participants.
    pub fn from_records(records: &[GameRecord], players: usize, rating: &RatingOptions) -> TournamentReport {
        let games = records.iter().map(|r| r.id + 1).max().unwrap_or(0);
        let mut tally = Tally::new(players, games);
        let mut names = vec![String::new(); players];
        for r in records {
            let Some(&a) = r.participants.first() else { continue };
            let Some(&b) = r.participants.iter().find(|&&p| p != a) else { continue };
            let fixture = Fixture { id: r.id, seats: r.participants.clone(), a, b, opening: 0, partner: None };
            tally.add(&fixture, r);
            for (p, name) in r.participants.iter().zip(&r.players) {
                if let Some(slot) = names.get_mut(*p)
                    && slot.is_empty()
                {
                    slot.clone_from(name);
                }
            }
        }
        for (i, n) in names.iter_mut().enumerate() {
            if n.is_empty() {
                *n = format!("player {}", i + 1);
            }
        }
        let game = records.first().map(|r| r.game.clone()).unwrap_or_default();
        TournamentReport::new(&game, &names, &tally, games, rating)
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The standings as CSV: a header line and one row per player, best first.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("rank,player,name,elo,error95,games,points,score,wins,losses,draws,forfeits\n");
        for (rank, s) in self.standings.iter().enumerate() {
            let _ = writeln!(
                out,
                "{},{},{},{:.2},{:.2},{},{},{:.4},{},{},{},{}",
                rank + 1,
                s.player,
                csv_field(&s.name),
                s.elo,
                s.error95,
                s.games,
                s.points,
                s.score,
                s.wld.wins,
                s.wld.losses,
                s.wld.draws,
                s.forfeits
            );
        }
        out
    }
}

impl fmt::Display for TournamentReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "tournament ({}), {} of {} games", self.game, self.played, self.scheduled)?;
        let width = self.standings.iter().map(|s| s.name.chars().count()).max().unwrap_or(4).max(4);
        write!(
            f,
            "{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>6}  {:>6}",
            "rank", "name", "elo", "±95", "games", "points", "score"
        )?;
        for k in 1..=self.standings.len() {
            write!(f, "  {k:>5}")?;
        }
        writeln!(f)?;
        for (rank, s) in self.standings.iter().enumerate() {
            write!(
                f,
                "{:>4}  {:<width$}  {:>+7.1}  {:>6.1}  {:>5}  {:>6}  {:>5.1}%",
                rank + 1,
                s.name,
                s.elo,
                s.error95,
                s.games,
                s.points,
                100.0 * s.score
            )?;
            for o in &self.standings {
                let w = self.cross[s.player][o.player];
                if o.player == s.player {
                    write!(f, "  {:>5}", "-")?;
                } else if w.games() == 0 {
                    write!(f, "  {:>5}", "")?;
                } else {
                    write!(f, "  {:>5}", format!("{}/{}", w.points(), w.games()))?;
                }
            }
            writeln!(f)?;
        }
        if let Some(e) = &self.rating_error {
            writeln!(f, "no ratings: {e}")?;
        } else if self.rating.prior_draws > 0.0 {
            writeln!(f, "ratings include {} virtual draws per pair", self.rating.prior_draws)?;
        }
        Ok(())
    }
}
