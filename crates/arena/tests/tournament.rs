//! Tournaments and the reports' output formats.

mod common;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{BadAgent, Fault, FirstAgent, RandomAgent};
use tabula_arena::{
    GameRecord, MatchConfig, Openings, Schedule, Sprt, TournamentConfig, Wld, run_match, run_tournament,
};
use tabula_core::Agent;
use tabula_tictactoe::TicTacToe;

type Ttt = Box<dyn Agent<TicTacToe>>;

/// 0 plays the first legal move, 1 and 2 at random, 3 makes an illegal move in every game.
fn factory(p: usize) -> Result<Ttt, String> {
    match p {
        0 => Ok(Box::new(FirstAgent)),
        1 | 2 => Ok(Box::new(RandomAgent { seed: p as u64 })),
        3 => Ok(Box::new(BadAgent::new(Fault::Illegal))),
        _ => Err(format!("no player {p}")),
    }
}

#[test]
fn round_robin_standings_cross_table_and_ratings() {
    let config = TournamentConfig {
        players: 4,
        games_per_pair: 6,
        jobs: 2,
        openings: Openings::RandomPlies { plies: 1, seed: 3 },
        progress: true,
        ..TournamentConfig::default()
    };
    let mut ids = Vec::new();
    let report = run_tournament(&TicTacToe::new(), factory, &config, |r| ids.push(r.id)).expect("tournament");
    assert_eq!(report.scheduled, 36);
    assert_eq!(report.played, 36);
    assert!(report.complete);
    assert_eq!(ids.iter().copied().collect::<HashSet<_>>(), (0..36).collect());
    // Everyone played 18 games; the illegal mover lost all of them and is last.
    assert!(report.standings.iter().all(|s| s.games == 18));
    let last = report.standings.last().expect("standings");
    assert_eq!((last.player, last.points, last.forfeits), (3, 0.0, 18));
    assert_eq!(last.name, "bad(Illegal)");
    for j in 0..3 {
        assert_eq!(report.cross[3][j], Wld::new(0, 6, 0));
        assert_eq!(report.cross[j][3], Wld::new(6, 0, 0));
    }
    // Cross table is antisymmetric.
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(report.cross[i][j], report.cross[j][i].flipped());
        }
    }
    // A perfect score has no finite maximum-likelihood rating: virtual draws were added.
    assert_eq!(report.rating.prior_draws, 1.0);
    assert!(report.rating_error.is_none());
    let sum: f64 = report.standings.iter().map(|s| s.elo).sum();
    assert!(sum.abs() < 1e-6, "ratings centred on 0: {sum}");
    assert!(report.standings.windows(2).all(|w| w[0].elo >= w[1].elo));
    assert!(last.elo < -200.0);
    assert!(report.standings.iter().all(|s| s.error95 > 0.0 && s.error95.is_finite()));
}

#[test]
fn gauntlet_meets_only_the_first_player() {
    let config =
        TournamentConfig { players: 4, schedule: Schedule::Gauntlet, games_per_pair: 2, ..TournamentConfig::default() };
    let mut records: Vec<GameRecord> = Vec::new();
    let report = run_tournament(&TicTacToe::new(), factory, &config, |r| records.push(r.clone())).expect("gauntlet");
    assert_eq!(report.played, 6);
    assert!(records.iter().all(|r| r.participants.contains(&0)));
    let games: Vec<u64> = (0..4).map(|p| report.standings.iter().find(|s| s.player == p).expect("p").games).collect();
    assert_eq!(games, [6, 2, 2, 2]);
    assert_eq!(report.cross[1][2].games(), 0);
    // Too few players, or a player the factory cannot build.
    let one = TournamentConfig { players: 1, ..TournamentConfig::default() };
    assert!(run_tournament(&TicTacToe::new(), factory, &one, |_| {}).is_err());
    // Stopped before anyone played player 3: the others are still rated.
    let stop = std::sync::Arc::new(AtomicBool::new(true));
    let early = TournamentConfig { players: 4, stop: Some(stop), ..TournamentConfig::default() };
    let none = run_tournament(&TicTacToe::new(), factory, &early, |_| {}).expect("nothing played");
    assert_eq!(none.played, 0);
    assert!(none.standings.iter().all(|s| s.elo.is_nan()));
    let five = TournamentConfig { players: 5, ..TournamentConfig::default() };
    assert!(run_tournament(&TicTacToe::new(), factory, &five, |_| {}).is_err());
}

#[test]
fn tournament_resumes_from_its_results_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.jsonl");
    let stop = Arc::new(AtomicBool::new(false));
    let config = TournamentConfig {
        players: 3,
        games_per_pair: 4,
        results_path: Some(path.clone()),
        stop: Some(stop.clone()),
        ..TournamentConfig::default()
    };
    let mut n = 0;
    let partial = run_tournament(&TicTacToe::new(), factory, &config, |_| {
        n += 1;
        if n == 5 {
            stop.store(true, Ordering::SeqCst);
        }
    })
    .expect("partial");
    assert_eq!(partial.played, 5);
    // Five games of the first round: pairs (0,1), (0,2) and one game of (1,2); all rated.
    assert!(partial.rating_error.is_none(), "{:?}", partial.rating_error);
    stop.store(false, Ordering::SeqCst);
    let mut more = 0;
    let full = run_tournament(&TicTacToe::new(), factory, &config, |_| more += 1).expect("resume");
    assert_eq!(more, 7);
    assert_eq!(full.played, 12);
    let uninterrupted = run_tournament(
        &TicTacToe::new(),
        factory,
        &TournamentConfig { results_path: None, stop: None, ..config },
        |_| {},
    )
    .expect("fresh");
    assert_eq!(full.cross, uninterrupted.cross);
    let rebuilt = tabula_arena::TournamentReport::from_records(
        &tabula_arena::read_results(&path).expect("read"),
        3,
        &tabula_arena::RatingOptions::default(),
    );
    assert_eq!(rebuilt, full);
    assert_eq!(full.standings, uninterrupted.standings);
}

#[test]
fn tournament_report_formats() {
    let config = TournamentConfig { players: 3, games_per_pair: 4, ..TournamentConfig::default() };
    let report = run_tournament(&TicTacToe::new(), factory, &config, |_| {}).expect("tournament");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("json");
    assert_eq!(json["played"], 12);
    assert_eq!(json["standings"].as_array().map(Vec::len), Some(3));
    assert_eq!(json["cross"][0][1]["wins"].as_u64(), Some(report.cross[0][1].wins));
    let csv = report.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("rank,player,name,elo"));
    assert!(lines[1].starts_with("1,"));
    assert_eq!(lines[1].split(',').count(), lines[0].split(',').count());
    let table = report.to_string();
    assert!(table.contains("rank"));
    assert!(table.contains("random(seed=1)") && table.contains("random(seed=2)") && table.contains("first"));
    assert_eq!(table.lines().count(), 5, "{table}");
}

#[test]
fn match_report_formats() {
    let sprt = Sprt::new(0.0, 30.0, 0.05, 0.05).expect("sprt");
    let config = MatchConfig { games: 10, sprt: Some(sprt), ..MatchConfig::default() };
    let report = run_match(
        &TicTacToe::new(),
        || Ok::<Ttt, String>(Box::new(FirstAgent)),
        || Ok::<Ttt, String>(Box::new(BadAgent::new(Fault::Illegal))),
        &config,
        |_| {},
    )
    .expect("match");
    // A perfect score: the Elo is infinite, which JSON writes as null.
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("json");
    assert_eq!(json["wld"]["wins"], 10);
    assert!(json["elo"]["elo"].is_null());
    assert_eq!(json["sprt"]["status"]["decision"], "Continue");
    assert_eq!(json["forfeits"][1], 10);
    let csv = report.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with("first,bad(Illegal),10,10,0,0,1.0000,inf"), "{}", lines[1]);
    assert!(lines[1].ends_with(",continue"));
    let text = report.to_string();
    assert!(text.contains("first vs bad(Illegal) (tictactoe), 10 of 10 games"), "{text}");
    assert!(text.contains("+10 -0 =0"));
    assert!(text.contains("first moving first: +5 -0 =0  moving second: +5 -0 =0"), "{text}");
    assert!(text.contains("SPRT elo0=0 elo1=30"));
    assert!(text.contains("forfeits: first 0, bad(Illegal) 10"));
}

#[test]
fn tournament_error_bars_by_bootstrap() {
    let base = TournamentConfig { players: 3, games_per_pair: 20, ..TournamentConfig::default() };
    let fisher = run_tournament(&TicTacToe::new(), factory, &base, |_| {}).expect("tournament");
    let rating = tabula_arena::RatingOptions { bootstrap: 200, ..tabula_arena::RatingOptions::default() };
    let boot = run_tournament(&TicTacToe::new(), factory, &TournamentConfig { rating, ..base }, |_| {}).expect("boot");
    for (f, b) in fisher.standings.iter().zip(&boot.standings) {
        assert_eq!((f.player, f.elo), (b.player, b.elo), "same fit");
        assert!(b.error95.is_finite() && b.error95 > 0.0);
        assert!(b.error95 != f.error95);
        // Same order of magnitude as the Fisher bars.
        assert!(b.error95 > f.error95 / 3.0 && b.error95 < f.error95 * 3.0, "{} vs {}", b.error95, f.error95);
    }
}
