//! The alpha-beta agent playing Connect Four: strength, time limits and threads.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tabula_connect4::{Connect4, Connect4Eval};
use tabula_core::{Agent, Clock, Game, Limits, NullReport, Player, Rng, SearchInfo, Spec, Turn};
use tabula_search::alphabeta::SolveOptions;
use tabula_search::{AlphaBetaAgent, ParanoidAgent, RandomAgent, WIN_MIN, solve};

fn agent(spec: &str) -> AlphaBetaAgent<Connect4, Connect4Eval> {
    AlphaBetaAgent::from_spec(&Spec::parse(spec).unwrap(), Connect4Eval).unwrap()
}

fn legal(g: &Connect4) -> Vec<<Connect4 as Game>::Move> {
    let mut v = Vec::new();
    g.legal_moves(&mut v);
    v
}

#[test]
fn depth_six_beats_random() {
    let mut rng = Rng::new(99);
    let mut wins = 0;
    let games = 20;
    for game in 0..games {
        let mut ab = agent("alphabeta(depth=6,tt_mb=4)");
        let mut rnd = RandomAgent::<Connect4>::new(Some(rng.next_u64()));
        let me = Player((game % 2) as u8);
        let mut g = Connect4::default();
        while let Turn::Player(p) = g.turn() {
            let c = if p == me {
                ab.choose(&g, p, &Limits::none(), &mut NullReport::callback())
            } else {
                rnd.choose(&g, p, &Limits::none(), &mut NullReport::callback())
            }
            .unwrap();
            assert!(legal(&g).contains(&c.mv));
            g.play(c.mv);
        }
        if g.rewards().winner() == Some(me) {
            wins += 1;
        }
    }
    assert!(wins >= games - 1, "won {wins} of {games}");
}

#[test]
fn deeper_search_beats_shallow() {
    let mut score = 0.0;
    for game in 0..4 {
        let mut deep = agent(&format!("alphabeta(depth=7,tt_mb=4,random=true,seed={game})"));
        let mut shallow = agent(&format!("alphabeta(depth=2,tt_mb=4,random=true,seed={game})"));
        let deep_player = Player((game % 2) as u8);
        let mut g = Connect4::default();
        while let Turn::Player(p) = g.turn() {
            let a: &mut dyn Agent<Connect4> = if p == deep_player { &mut deep } else { &mut shallow };
            let c = a.choose(&g, p, &Limits::none(), &mut NullReport::callback()).unwrap();
            g.play(c.mv);
        }
        score += g.rewards().get(deep_player);
    }
    assert!(score >= 3.0, "deep scored {score} of 4");
}

#[test]
fn stop_flag_returns_a_legal_move_at_once() {
    let stop = Arc::new(AtomicBool::new(true));
    let limits = Limits { stop: Some(stop), ..Limits::default() };
    let g = Connect4::default();
    let mut a = agent("alphabeta(threads=2)");
    let started = Instant::now();
    let c = a.choose(&g, Player(0), &limits, &mut NullReport::callback()).unwrap();
    assert!(legal(&g).contains(&c.mv));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn time_budgets_are_honoured() {
    let g = Connect4::default();
    for spec in ["alphabeta", "alphabeta(threads=2)"] {
        let mut a = agent(spec);
        let mut infos: Vec<SearchInfo<_>> = Vec::new();
        let started = Instant::now();
        let c =
            a.choose(&g, Player(0), &Limits::time(Duration::from_millis(50)), &mut |i| infos.push(i.clone())).unwrap();
        assert!(started.elapsed() < Duration::from_secs(2), "{spec}: {:?}", started.elapsed());
        assert!(legal(&g).contains(&c.mv));
        assert!(!infos.is_empty(), "{spec}: at least depth 1 is reported");
        let last = infos.last().unwrap();
        assert!(last.depth >= 1 && last.nodes > 0 && !last.pv.is_empty());
    }
    // A spec time and a nearly empty game clock.
    let mut a = agent("alphabeta(time_ms=40)");
    let started = Instant::now();
    a.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    let clock = Clock { remaining: Duration::from_millis(300), ..Clock::default() };
    let limits = Limits { clock: Some(clock), ..Limits::default() };
    let started = Instant::now();
    let c = agent("alphabeta").choose(&g, Player(0), &limits, &mut NullReport::callback()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(legal(&g).contains(&c.mv));
    // Paranoid honours time too.
    let mut p =
        ParanoidAgent::<Connect4, Connect4Eval>::from_spec(&Spec::parse("paranoid").unwrap(), Connect4Eval).unwrap();
    let started = Instant::now();
    p.choose(&g, Player(0), &Limits::time(Duration::from_millis(50)), &mut NullReport::callback()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn agent_finds_forced_wins_and_reports_them() {
    // X to move wins with column 4 two ways; a search proves the win at short depth.
    let g = Connect4::from_moves(7, 6, "4455").unwrap();
    let s = solve(&g, Connect4Eval, 4, 1);
    assert!(s.score >= WIN_MIN);
    let mut a = agent("alphabeta(depth=12)");
    let c = a.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert_eq!(c.info.proven_in, s.proven_in, "{:?}", c.info);
    assert_eq!(c.info.score, Some(s.score));
    let mut child = g.clone();
    child.play(c.mv);
    let after = solve(&child, Connect4Eval, 4, 1);
    // A loss in n plies for the opponent is a win in n + 1 for the mover.
    assert_eq!(after.proven_in.map(|d| 1 - d), s.proven_in, "the chosen move keeps the win at the same distance");
}

#[test]
fn threads_and_weak_solves_agree() {
    let mut rng = Rng::new(17);
    let mut done = 0;
    while done < 12 {
        let mut g = Connect4::default();
        let mut ok = true;
        for _ in 0..18 + rng.below(8) {
            let moves = legal(&g);
            g.play(rng.choose(&moves));
            if g.is_over() {
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        let one = solve(&g, Connect4Eval, 4, 1);
        let two = solve(&g, Connect4Eval, 4, 2);
        assert_eq!(one.score, two.score, "\n{g}");
        let weak = tabula_search::alphabeta::solve_with(
            &g,
            Connect4Eval,
            &SolveOptions { tt_mb: 4, threads: 1, weak: true, stop: None },
            &mut |_| {},
        );
        assert!(weak.complete && weak.weak);
        assert_eq!(weak.score.signum(), one.score.signum(), "\n{g}");
        // A depth-limited search that reaches the end sees the same value.
        let mut a = agent("alphabeta(tt_mb=4)");
        let c = a.choose(&g, g.current_player(), &Limits::depth(60), &mut NullReport::callback()).unwrap();
        assert_eq!(c.info.score, Some(one.score), "\n{g}");
        done += 1;
    }
}
