//! Monte Carlo tree search on tic-tac-toe, Connect Four and a small simultaneous-move game.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tabula_connect4::{Column, Connect4};
use tabula_core::{
    Agent, AgentError, Game, Limits, MoveParseError, NullReport, Player, Rewards, Rng, SearchInfo, Spec, Turn,
    splitmix64,
};
use tabula_search::{
    FinalChoice, MctsAgent, MctsConfig, MctsPolicy, OWNER_UNKNOWN, Parallelism, RandomAgent, RandomPolicy, RaveBeta,
};
use tabula_tictactoe::{Square, TicTacToe};

fn agent<G: Game>(spec: &str) -> MctsAgent<G, RandomPolicy> {
    MctsAgent::from_spec(&Spec::parse(spec).unwrap(), RandomPolicy).unwrap()
}

fn choose<G: Game, A: Agent<G> + ?Sized>(a: &mut A, s: &G, limits: &Limits) -> tabula_core::Choice<G::Move> {
    let mut cb = NullReport::callback();
    a.choose(s, s.current_player(), limits, &mut cb).unwrap()
}

/// Plays one game; `mcts_first` says who moves first. Returns the MCTS player's reward.
fn play_vs_random<G: Game>(start: &G, mcts: &mut MctsAgent<G>, random: &mut RandomAgent<G>, mcts_first: bool) -> f64 {
    let mut s = start.clone();
    mcts.new_game(&s);
    let me = if mcts_first { Player(0) } else { Player(1) };
    while let Turn::Player(p) = s.turn() {
        let mv = if p == me { choose(mcts, &s, &Limits::none()).mv } else { choose(random, &s, &Limits::none()).mv };
        let mut legal = Vec::new();
        s.legal_moves(&mut legal);
        assert!(legal.contains(&mv), "illegal move {mv:?} in\n{s}");
        mcts.observe(&s, &[mv, mv]);
        s.play(mv);
    }
    s.rewards().get(me)
}

fn ttt(moves: &[&str]) -> TicTacToe {
    let mut g = TicTacToe::new();
    for m in moves {
        let mv = g.parse_move(m).unwrap();
        g.play(mv);
    }
    g
}

#[test]
fn tictactoe_never_loses_to_random() {
    let mut mcts = agent::<TicTacToe>("mcts(playouts=3000,seed=1)");
    let mut random = RandomAgent::new(Some(2));
    let mut wins = 0;
    for g in 0..100 {
        let r = play_vs_random(&TicTacToe::new(), &mut mcts, &mut random, g % 2 == 0);
        assert!(r >= 0.5, "MCTS lost game {g}");
        if r == 1.0 {
            wins += 1;
        }
    }
    assert!(wins >= 60, "only {wins} wins in 100 games against random");
}

#[test]
fn tictactoe_rave_never_loses_to_random() {
    for spec in [
        "mcts(playouts=2000,rave=true,equiv=300,seed=3)",
        "mcts(playouts=2000,rave=true,equiv=3000,rave_beta=mse,rave_distance=3,seed=3)",
    ] {
        let mut mcts = agent::<TicTacToe>(spec);
        let mut random = RandomAgent::new(Some(4));
        for g in 0..50 {
            let r = play_vs_random(&TicTacToe::new(), &mut mcts, &mut random, g % 2 == 1);
            assert!(r >= 0.5, "{spec} lost game {g}");
        }
    }
}

#[test]
fn finds_an_immediate_win_with_every_final_choice() {
    // X: a1 b1, O: a2 b2, X to move: c1 wins (and O threatens c2).
    let s = ttt(&["a1", "a2", "b1", "b2"]);
    let win = s.parse_move("c1").unwrap();
    for (i, f) in ["max", "robust", "robust-max", "secure"].iter().enumerate() {
        for rave in [false, true] {
            let mut a = agent::<TicTacToe>(&format!("mcts(playouts=1000,final={f},rave={rave},seed={i})"));
            let c = choose(&mut a, &s, &Limits::none());
            assert_eq!(c.mv, win, "final={f} rave={rave}: {:?}", c.info.root_moves);
            assert!(c.info.win_rate.unwrap() > 0.9);
            assert_eq!(c.info.pv[0], win);
            assert!(!c.resign);
        }
    }
}

#[test]
fn connect4_never_loses_to_random_in_200_games() {
    // Two threads of 100 games each; every MCTS agent searches single-threaded.
    let losses = AtomicU64::new(0);
    let wins = AtomicU64::new(0);
    std::thread::scope(|sc| {
        for t in 0..2u64 {
            let (losses, wins) = (&losses, &wins);
            sc.spawn(move || {
                let mut mcts = agent::<Connect4>(&format!("mcts(playouts=10000,seed={})", 10 + t));
                let mut random = RandomAgent::new(Some(20 + t));
                for g in 0..100 {
                    let r = play_vs_random(&Connect4::default(), &mut mcts, &mut random, g % 2 == 0);
                    if r < 0.5 {
                        losses.fetch_add(1, Ordering::Relaxed);
                    } else if r == 1.0 {
                        wins.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(losses.load(Ordering::Relaxed), 0, "MCTS lost to random");
    assert!(wins.load(Ordering::Relaxed) >= 195, "too many draws");
}

#[test]
fn blocks_and_takes_wins_in_connect4() {
    // X (first) has 2,3,4 on the bottom row; O to move cannot stop both 1 and 5.
    let lost = Connect4::from_moves(7, 6, "22334").unwrap();
    let mut a = agent::<Connect4>("mcts(playouts=4000,resign=0.1,seed=5)");
    let c = choose(&mut a, &lost, &Limits::none());
    assert!(c.info.win_rate.unwrap() < 0.1, "{:?}", c.info.win_rate);
    assert!(c.resign, "a lost position should trigger resignation");
    // X to move in the same structure wins at once.
    let win = Connect4::from_moves(7, 6, "223344").unwrap();
    let c = choose(&mut a, &win, &Limits::none());
    assert!(c.mv == Column(0) || c.mv == Column(4), "{:?}", c.mv);
    assert!(!c.resign);
}

#[test]
fn playout_counts_are_respected_single_and_parallel() {
    let s = Connect4::default();
    for spec in [
        "mcts(playouts=3000,early=false,seed=1)",
        "mcts(playouts=3000,early=false,threads=2,seed=1)",
        "mcts(playouts=3000,early=false,threads=2,parallel=root,seed=1)",
        "mcts(playouts=3000,early=false,threads=3,rave=true,vloss=1,seed=1)",
    ] {
        let mut a = agent::<Connect4>(spec);
        let c = choose(&mut a, &s, &Limits::none());
        assert!((c.mv.0 as usize) < 7, "{spec}");
        assert_eq!(c.info.nodes, 3000, "{spec}");
        assert_eq!(a.root_visits(), 3000, "{spec}");
        let visits: u64 = c.info.root_moves.iter().map(|m| m.visits).sum();
        assert_eq!(visits, 3000, "{spec}: root children hold every playout");
        assert_eq!(c.info.root_moves.len(), 7);
        // Limits override the spec.
        let c = choose(&mut a, &s, &Limits::nodes(500));
        assert_eq!(c.info.nodes, 500, "{spec}");
    }
}

#[test]
fn parallel_tree_search_plays_legal_winning_moves() {
    let s = ttt(&["a1", "a2", "b1", "b2"]);
    for spec in ["mcts(playouts=4000,threads=2,seed=9)", "mcts(playouts=4000,threads=2,parallel=root,seed=9)"] {
        let mut a = agent::<TicTacToe>(spec);
        assert_eq!(choose(&mut a, &s, &Limits::none()).mv, s.parse_move("c1").unwrap(), "{spec}");
    }
    let mut a = agent::<Connect4>("mcts(playouts=20000,threads=2,seed=2)");
    let mut random = RandomAgent::new(Some(3));
    for g in 0..4 {
        assert!(play_vs_random(&Connect4::default(), &mut a, &mut random, g % 2 == 0) >= 0.5);
    }
}

#[test]
fn early_stop_keeps_the_choice() {
    // X has 1, 2, 3 on the bottom row and wins only at 4 (O's 1, 2, 3 above also threaten 4).
    let s = Connect4::from_moves(7, 6, "112233").unwrap();
    let mut a = agent::<Connect4>("mcts(playouts=20000,seed=4)");
    let c = choose(&mut a, &s, &Limits::none());
    assert!(c.info.nodes < 20000, "a clear win should stop early: {}", c.info.nodes);
    let mut b = agent::<Connect4>("mcts(playouts=20000,early=false,seed=4)");
    let d = choose(&mut b, &s, &Limits::none());
    assert_eq!(d.info.nodes, 20000);
    assert_eq!(c.mv, d.mv);
    assert_eq!(c.mv, Column(3));
}

#[test]
fn tree_reuse_keeps_visits() {
    let s0 = Connect4::default();
    // Told the moves through observe.
    let mut a = agent::<Connect4>("mcts(playouts=5000,early=false,seed=6)");
    let c = choose(&mut a, &s0, &Limits::none());
    assert_eq!(a.last_reused(), 0);
    let mut s1 = s0.clone();
    a.observe(&s0, &[c.mv, c.mv]);
    s1.play(c.mv);
    let reply = Column(3);
    let mut s2 = s1.clone();
    a.observe(&s1, &[reply, reply]);
    s2.play(reply);
    choose(&mut a, &s2, &Limits::none());
    assert!(a.last_reused() > 50, "kept only {} visits", a.last_reused());
    assert_eq!(a.root_visits(), a.last_reused() + 5000);

    // Not told: found by hash two plies down.
    let mut b = agent::<Connect4>("mcts(playouts=5000,early=false,seed=6,parallel=root,threads=2)");
    let c = choose(&mut b, &s0, &Limits::none());
    let mut s2 = s0.clone();
    s2.play(c.mv);
    s2.play(Column(3));
    choose(&mut b, &s2, &Limits::none());
    assert!(b.last_reused() > 50, "kept only {} visits", b.last_reused());
    assert_eq!(b.root_visits(), b.last_reused() + 5000);

    // An unrelated position starts afresh; so does a new game; reuse=false never keeps.
    let far = Connect4::from_moves(7, 6, "1111222").unwrap();
    choose(&mut b, &far, &Limits::none());
    assert_eq!(b.last_reused(), 0);
    b.new_game(&s0);
    choose(&mut b, &s0, &Limits::none());
    assert_eq!(b.last_reused(), 0);
    let mut r = agent::<Connect4>("mcts(playouts=2000,reuse=false,seed=6)");
    choose(&mut r, &s0, &Limits::none());
    choose(&mut r, &s0, &Limits::none());
    assert_eq!(r.last_reused(), 0);
    // Searching the same position again keeps everything.
    let mut same = agent::<Connect4>("mcts(playouts=2000,early=false,seed=6)");
    choose(&mut same, &s0, &Limits::none());
    choose(&mut same, &s0, &Limits::none());
    assert_eq!(same.last_reused(), 2000);
    assert_eq!(same.root_visits(), 4000);
}

#[test]
fn reports_stream_analysis_data() {
    let s = Connect4::default();
    let mut a = agent::<Connect4>("mcts(playouts=3000,early=false,seed=8)");
    let mut reports: Vec<SearchInfo<Column>> = Vec::new();
    let mut cb = |i: &SearchInfo<Column>| reports.push(i.clone());
    let c = a.choose(&s, Player(0), &Limits::none(), &mut cb).unwrap();
    let last = reports.last().expect("at least the final report");
    assert_eq!(last, &c.info);
    assert_eq!(last.nodes, 3000);
    assert!(last.seldepth >= last.depth && last.depth >= 1);
    assert_eq!(last.pv[0], c.mv);
    assert!(last.pv.len() >= 2);
    assert_eq!(last.root_moves[0].mv, c.mv);
    let wr = last.win_rate.unwrap();
    assert!((0.3..=0.9).contains(&wr), "{wr}");
    for m in &last.root_moves {
        assert!(m.visits > 0 && m.win_rate.is_some() && m.pv[0] == m.mv && m.prior.is_none());
    }
}

#[test]
fn stop_flag_and_time_limits_end_the_search() {
    let s = Connect4::default();
    let mut a = agent::<Connect4>("mcts(seed=1)");
    let stop = Arc::new(AtomicBool::new(true));
    let limits = Limits { stop: Some(stop), nodes: Some(u64::MAX), ..Limits::default() };
    let c = choose(&mut a, &s, &limits);
    assert!((c.mv.0 as usize) < 7);
    assert_eq!(c.info.nodes, 0);
    // A time limit with no playout count: the search ends by the clock and plays a legal move.
    let c = choose(&mut a, &s, &Limits::time(std::time::Duration::from_millis(30)));
    assert!((c.mv.0 as usize) < 7 && c.info.nodes > 0);
    let mut t = agent::<Connect4>("mcts(time_ms=20,threads=2,seed=1)");
    let c = choose(&mut t, &s, &Limits::none());
    assert!((c.mv.0 as usize) < 7 && c.info.nodes > 0);
    // Not this player's turn, or the game is over: no move.
    let mut cb = NullReport::callback();
    assert_eq!(a.choose(&s, Player(1), &Limits::none(), &mut cb).unwrap_err(), AgentError::NoMove);
    let over = ttt(&["a1", "a2", "b1", "b2", "c1"]);
    let mut b = agent::<TicTacToe>("mcts(seed=1)");
    let mut cb = NullReport::callback();
    assert_eq!(b.choose(&over, Player(1), &Limits::none(), &mut cb).unwrap_err(), AgentError::NoMove);
}

#[test]
fn spec_round_trip_and_errors() {
    let spec = "mcts(playouts=20000,c=0.5,fpu=0.9,expand=2,final=robust-max,rave=true,equiv=500,bias=2,\
                cutoff=10,threads=2,parallel=root,vloss=1,seed=7,reuse=false,resign=0.05,max_nodes=100000,early=false,\
                time_ms=1500,solver=false,rave_beta=mse,rave_distance=3)";
    let cfg = MctsConfig::from_spec(&Spec::parse(spec).unwrap()).unwrap();
    assert_eq!(cfg.playouts, Some(20000));
    assert_eq!(cfg.final_choice, FinalChoice::RobustMax);
    assert_eq!(cfg.parallel, Parallelism::Root);
    assert_eq!(cfg.fpu, Some(0.9));
    assert_eq!(cfg.cutoff, Some(10));
    assert!(cfg.rave && !cfg.reuse && !cfg.early_stop && !cfg.solver);
    assert_eq!((cfg.rave_beta, cfg.rave_distance), (RaveBeta::Mse, 3));
    let again = MctsConfig::from_spec(&cfg.to_spec()).unwrap();
    assert_eq!(again, cfg);
    let a = agent::<TicTacToe>("mcts");
    assert_eq!(Agent::<TicTacToe>::name(&a), "mcts");
    for bad in [
        "mcts(depth=3)",
        "mcts(playouts=0)",
        "mcts(playouts=-5)",
        "mcts(c=-1)",
        "mcts(final=best)",
        "mcts(parallel=gpu)",
        "mcts(threads=0)",
        "mcts(fpu=2)",
        "mcts(rave=maybe)",
        "mcts(resign=1.5)",
        "mcts(solver=perhaps)",
        "mcts(rave_beta=linear)",
        "mcts(rave_distance=17)",
    ] {
        assert!(MctsConfig::from_spec(&Spec::parse(bad).unwrap()).is_err(), "{bad} should be rejected");
    }
}

/// Knowledge for tic-tac-toe: the centre is best, and widening shows only the best move.
#[derive(Clone, Default)]
struct CentreFirst {
    evaluations: Arc<AtomicU64>,
    playout_moves: Arc<AtomicU64>,
    widen: bool,
}

impl MctsPolicy<TicTacToe> for CentreFirst {
    fn has_priors(&self) -> bool {
        true
    }

    fn priors(&self, _state: &TicTacToe, moves: &[Square], priors: &mut Vec<f32>) {
        priors.clear();
        priors.extend(moves.iter().map(|m| if m.index() == 4 { 1.0 } else { 0.1 }));
    }

    fn widening(&self, visits: u32, children: usize) -> usize {
        if self.widen { 1 + (visits as usize / 1000) } else { children }
    }

    fn playout_move(&self, _state: &TicTacToe, moves: &[Square], rng: &mut Rng) -> Square {
        self.playout_moves.fetch_add(1, Ordering::Relaxed);
        rng.choose(moves)
    }

    fn evaluate(&self, state: &TicTacToe) -> Rewards {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        // Whoever holds the centre is ahead.
        let centre = state.at(Square::new(4).unwrap());
        let mut r = Rewards::new(2);
        for p in 0..2u8 {
            r.set(
                Player(p),
                if centre == Some(Player(p)) {
                    0.8
                } else if centre.is_none() {
                    0.5
                } else {
                    0.2
                },
            );
        }
        r
    }
}

#[test]
fn policy_priors_widening_and_cutoff() {
    let s = TicTacToe::new();
    let centre = Square::new(4).unwrap();
    // Widening to one child: every root visit goes to the best prior.
    let policy = CentreFirst { widen: true, ..CentreFirst::default() };
    let mut a = MctsAgent::from_spec(&Spec::parse("mcts(playouts=900,early=false,seed=1)").unwrap(), policy).unwrap();
    let c = choose(&mut a, &s, &Limits::none());
    assert_eq!(c.mv, centre);
    assert_eq!(c.info.root_moves[0].visits, 900);
    assert_eq!(c.info.root_moves[0].prior, Some(1.0));
    assert!(c.info.root_moves[1..].iter().all(|m| m.visits == 0));
    assert!(a.policy().playout_moves.load(Ordering::Relaxed) > 0);
    assert_eq!(a.policy().evaluations.load(Ordering::Relaxed), 0);

    // Cutoff 0: every playout that does not reach the end is scored by the evaluation,
    // and no playout move is played.
    let policy = CentreFirst::default();
    let mut b = MctsAgent::from_spec(&Spec::parse("mcts(playouts=500,cutoff=0,seed=1)").unwrap(), policy).unwrap();
    let c = choose(&mut b, &s, &Limits::none());
    assert_eq!(c.mv, centre);
    let evals = b.policy().evaluations.load(Ordering::Relaxed);
    assert!(evals > 200 && evals <= 500, "{evals}");
    assert_eq!(b.policy().playout_moves.load(Ordering::Relaxed), 0);
    // Cutoff 2: two playout moves before each evaluation.
    let policy = CentreFirst::default();
    let mut d = MctsAgent::from_spec(&Spec::parse("mcts(playouts=100,cutoff=2,seed=1)").unwrap(), policy).unwrap();
    choose(&mut d, &s, &Limits::none());
    let evals = d.policy().evaluations.load(Ordering::Relaxed);
    let moves = d.policy().playout_moves.load(Ordering::Relaxed);
    assert!(evals > 50 && moves >= 2 * evals, "{evals} evaluations, {moves} playout moves");
}

/// An evaluation that knows nothing of the position: the first player wins every other
/// call. When recording, every win reports that the first player took the corner square 8
/// in the playout behind it (and two entries no game could have: a move index out of bounds
/// and a player who does not exist).
#[derive(Clone, Default)]
struct CornerWins {
    calls: Arc<AtomicU64>,
    record: bool,
}

impl MctsPolicy<TicTacToe> for CornerWins {
    fn evaluate(&self, _state: &TicTacToe) -> Rewards {
        let win = self.calls.fetch_add(1, Ordering::Relaxed).is_multiple_of(2);
        Rewards::from_slice(if win { &[1.0, 0.0] } else { &[0.0, 1.0] })
    }

    fn evaluate_recording(&self, state: &TicTacToe, played: &mut Vec<(u8, u32)>) -> Rewards {
        let r = self.evaluate(state);
        if self.record && r.get(Player(0)) == 1.0 {
            played.extend([(0, 8), (0, 1_000_000), (7, 3)]);
        }
        r
    }
}

#[test]
fn moves_reported_by_the_evaluation_feed_rave() {
    let s = TicTacToe::new();
    let corner = Square::new(8).unwrap();
    let spec = Spec::parse("mcts(playouts=3000,cutoff=0,rave=true,equiv=1000000,early=false,seed=5)").unwrap();
    let mut recording = MctsAgent::from_spec(&spec, CornerWins { record: true, ..CornerWins::default() }).unwrap();
    let c = choose(&mut recording, &s, &Limits::none());
    assert_eq!(c.mv, corner, "{:?}", c.info.root_moves);
    // Without the reported moves nothing singles the corner out.
    let mut silent = MctsAgent::from_spec(&spec, CornerWins::default()).unwrap();
    let c = choose(&mut silent, &s, &Limits::none());
    let top = c.info.root_moves.iter().map(|m| m.visits).max().unwrap();
    let corner_visits = c.info.root_moves.iter().find(|m| m.mv == corner).map_or(0, |m| m.visits);
    assert!(corner_visits < top / 2, "{:?}", c.info.root_moves);
}

/// An evaluation that knows nothing of the position (each side wins every other call), and
/// that says the winner owns the corner square 8 at the end while the first player owns
/// every other square whoever wins: the corner is the one critical point.
#[derive(Clone, Default)]
struct CornerDecides {
    calls: Arc<AtomicU64>,
}

impl MctsPolicy<TicTacToe> for CornerDecides {
    fn evaluate(&self, _state: &TicTacToe) -> Rewards {
        let win = self.calls.fetch_add(1, Ordering::Relaxed).is_multiple_of(2);
        Rewards::from_slice(if win { &[1.0, 0.0] } else { &[0.0, 1.0] })
    }

    fn evaluate_owning(&self, state: &TicTacToe, _played: &mut Vec<(u8, u32)>, owners: &mut [u8]) -> Rewards {
        let r = self.evaluate(state);
        assert!(owners.iter().all(|&o| o == OWNER_UNKNOWN), "the owners come in unknown");
        owners.fill(0);
        owners[8] = if r.get(Player(0)) == 1.0 { 0 } else { 1 };
        r
    }
}

#[test]
fn criticality_in_rave_favours_the_point_whose_owner_wins() {
    let s = TicTacToe::new();
    let corner = Square::new(8).unwrap();
    let base = "playouts=4000,cutoff=0,rave=true,equiv=1000000,early=false,seed=9";
    let corner_share = |spec: &str| {
        let mut a = MctsAgent::from_spec(&Spec::parse(spec).unwrap(), CornerDecides::default()).unwrap();
        one_against_the_rest(&choose(&mut a, &s, &Limits::none()).info, corner)
    };
    // Without criticality nothing singles the corner out.
    let (plain, other) = corner_share(&format!("mcts({base})"));
    assert!(plain < 2 * other, "{plain} vs {other}");
    // With it, once the root's children pass `crit_min` visits, the corner takes the lead.
    let (crit, other) = corner_share(&format!("mcts({base},crit_rave=2,crit_min=100)"));
    assert!(crit > 3 * other, "{crit} vs {other}");
    // Below `crit_min` it never enters.
    let (late, other) = corner_share(&format!("mcts({base},crit_rave=2,crit_min=100000)"));
    assert_eq!((late, other), (plain, corner_share(&format!("mcts({base})")).1));
    // The keys round-trip through the spec and are checked.
    let config = MctsConfig::from_spec(&Spec::parse("mcts(crit_rave=1.1,crit_min=500)").unwrap()).unwrap();
    assert_eq!((config.crit_rave, config.crit_min), (1.1, 500));
    assert_eq!(MctsConfig::from_spec(&config.to_spec()).unwrap(), config);
    for bad in ["mcts(crit_rave=11)", "mcts(crit_rave=-1)", "mcts(crit_min=x)"] {
        assert!(MctsConfig::from_spec(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
    }
}

/// The root visits of `square`, and the most of any other root move.
fn one_against_the_rest(info: &SearchInfo<Square>, square: Square) -> (u64, u64) {
    let of_square = info.root_moves.iter().find(|m| m.mv == square).map_or(0, |m| m.visits);
    let most_other = info.root_moves.iter().filter(|m| m.mv != square).map(|m| m.visits).max().unwrap();
    (of_square, most_other)
}

/// Priors that favour the centre over an evaluation that knows nothing (a win for each side
/// in turn), with no widening.
#[derive(Clone, Default)]
struct CentreHunch {
    calls: Arc<AtomicU64>,
}

impl MctsPolicy<TicTacToe> for CentreHunch {
    fn has_priors(&self) -> bool {
        true
    }

    fn priors(&self, _state: &TicTacToe, moves: &[Square], priors: &mut Vec<f32>) {
        priors.clear();
        priors.extend(moves.iter().map(|m| if m.index() == 4 { 1.0 } else { 0.1 }));
    }

    fn evaluate(&self, _state: &TicTacToe) -> Rewards {
        let win = self.calls.fetch_add(1, Ordering::Relaxed).is_multiple_of(2);
        Rewards::from_slice(if win { &[1.0, 0.0] } else { &[0.0, 1.0] })
    }
}

#[test]
fn priors_as_virtual_visits_last_longer_than_the_bias() {
    let s = TicTacToe::new();
    let centre = Square::new(4).unwrap();
    let visits = |spec: &str| {
        let mut a = MctsAgent::from_spec(&Spec::parse(spec).unwrap(), CentreHunch::default()).unwrap();
        one_against_the_rest(&choose(&mut a, &s, &Limits::none()).info, centre)
    };
    // Neither bias nor virtual visits: the centre is one move among nine.
    let (centre_plain, other_plain) = visits("mcts(playouts=1800,cutoff=0,c=0.2,bias=0,early=false,seed=3)");
    assert!(centre_plain < 2 * other_plain, "{centre_plain} vs {other_plain}");
    // 100 won virtual visits for the centre, 10 for the others: the centre leads by far.
    let (centre_virtual, other_virtual) =
        visits("mcts(playouts=1800,cutoff=0,c=0.2,bias=0,prior_visits=100,prior_even=10,early=false,seed=3)");
    assert!(centre_virtual > 4 * other_virtual, "{centre_virtual} vs {other_virtual}");
    // The same priors as a progressive bias (`bias=1`) fade after a few visits: the centre
    // gets fewer visits than with the virtual ones.
    let (centre_bias, _) = visits("mcts(playouts=1800,cutoff=0,c=0.2,bias=1,early=false,seed=3)");
    assert!(centre_virtual > centre_bias, "{centre_virtual} vs {centre_bias}");
    // Even visits alone weigh every move alike.
    let (centre_even, other_even) =
        visits("mcts(playouts=1800,cutoff=0,c=0.2,bias=0,prior_even=50,early=false,seed=3)");
    assert!(centre_even < 2 * other_even, "{centre_even} vs {other_even}");
    // The keys round-trip through the spec and are checked.
    let config = MctsConfig::from_spec(&Spec::parse("mcts(prior_visits=40,prior_even=7)").unwrap()).unwrap();
    assert_eq!((config.prior_visits, config.prior_even), (40.0, 7.0));
    assert_eq!(MctsConfig::from_spec(&config.to_spec()).unwrap(), config);
    assert!(MctsConfig::from_spec(&Spec::parse("mcts(prior_visits=-1)").unwrap()).is_err());
}

/// Two rounds of a zero-sum 3x3 matrix game played simultaneously; the row player's reward
/// is the mean of its two payoffs. The saddle point is (row 0, column 0).
#[derive(Clone, Debug)]
struct Matrix {
    round: u8,
    total: f64,
    hash: u64,
}

const PAYOFF: [[f64; 3]; 3] = [[0.6, 0.7, 0.8], [0.3, 0.9, 0.2], [0.5, 0.4, 0.9]];
const ROUNDS: u8 = 2;

impl fmt::Display for Matrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "round {} total {}", self.round, self.total)
    }
}

impl Game for Matrix {
    type Move = u8;

    fn spec(&self) -> String {
        "matrix".into()
    }

    fn num_players(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.round == ROUNDS { Turn::Over } else { Turn::Simultaneous }
    }

    fn legal_moves(&self, moves: &mut Vec<u8>) {
        moves.clear();
        if !self.is_over() {
            moves.extend(0..3);
        }
    }

    fn legal_moves_of(&self, _player: Player, moves: &mut Vec<u8>) {
        self.legal_moves(moves);
    }

    fn play(&mut self, mv: u8) {
        self.play_joint(&[mv, mv]);
    }

    fn play_joint(&mut self, joint: &[u8]) {
        self.total += PAYOFF[joint[0] as usize][joint[1] as usize];
        let mut x = (self.round as u64) << 8 | (joint[0] as u64) << 4 | joint[1] as u64;
        self.hash ^= splitmix64(&mut x);
        self.round += 1;
    }

    fn rewards(&self) -> Rewards {
        let row = self.total / ROUNDS as f64;
        Rewards::from_slice(&[row, 1.0 - row])
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn format_move(&self, mv: u8) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, MoveParseError> {
        text.trim().parse().ok().filter(|m| *m < 3).ok_or_else(|| MoveParseError::new(text, "expected 0, 1 or 2"))
    }

    fn ply(&self) -> u32 {
        self.round as u32
    }

    fn move_index_bound(&self) -> usize {
        3
    }

    fn move_index(&self, mv: u8) -> usize {
        mv as usize
    }
}

#[test]
fn decoupled_uct_finds_the_saddle_point() {
    let s = Matrix { round: 0, total: 0.0, hash: 0 };
    for spec in [
        "mcts(playouts=20000,c=0.4,early=false,seed=1)",
        "mcts(playouts=20000,c=0.4,early=false,seed=2,threads=2)",
        "mcts(playouts=20000,c=0.4,early=false,seed=3,threads=2,parallel=root)",
        "mcts(playouts=20000,c=0.4,early=false,seed=4,rave=true)",
    ] {
        for p in 0..2u8 {
            let mut a = agent::<Matrix>(spec);
            let mut cb = NullReport::callback();
            let c = a.choose(&s, Player(p), &Limits::none(), &mut cb).unwrap();
            assert_eq!(c.mv, 0, "{spec} player {p}: {:?}", c.info.root_moves);
            assert_eq!(c.info.root_moves.len(), 3);
            let share = c.info.root_moves[0].visits as f64 / c.info.nodes as f64;
            assert!(share > 0.8, "{spec} player {p}: the saddle move has {share:.2} of the visits");
            let value = if p == 0 { 0.6 } else { 0.4 };
            let wr = c.info.win_rate.unwrap();
            assert!((wr - value).abs() < 0.06, "{spec} player {p}: value {wr}");
        }
    }
}

#[test]
fn simultaneous_tree_is_reused_through_observe() {
    let s0 = Matrix { round: 0, total: 0.0, hash: 0 };
    let mut a = agent::<Matrix>("mcts(playouts=5000,seed=5,early=false)");
    let mut cb = NullReport::callback();
    a.choose(&s0, Player(0), &Limits::none(), &mut cb).unwrap();
    let mut s1 = s0.clone();
    a.observe(&s0, &[0, 0]);
    s1.play_joint(&[0, 0]);
    let c = a.choose(&s1, Player(0), &Limits::none(), &mut cb).unwrap();
    assert!(a.last_reused() > 100, "kept {}", a.last_reused());
    assert_eq!(c.mv, 0);

    // Not told: found by hash among the joint children.
    let mut b = agent::<Matrix>("mcts(playouts=5000,seed=6,early=false)");
    b.choose(&s0, Player(1), &Limits::none(), &mut cb).unwrap();
    let mut s1 = s0.clone();
    s1.play_joint(&[2, 1]);
    b.choose(&s1, Player(1), &Limits::none(), &mut cb).unwrap();
    assert!(b.last_reused() > 10, "kept {}", b.last_reused());
    assert_eq!(b.root_visits(), b.last_reused() + 5000);
}

#[test]
fn expansion_threshold_and_first_play_urgency() {
    let s = Connect4::default();
    let mut eager = agent::<Connect4>("mcts(playouts=3000,early=false,seed=1)");
    let mut lazy = agent::<Connect4>("mcts(playouts=3000,early=false,expand=8,seed=1)");
    choose(&mut eager, &s, &Limits::none());
    let c = choose(&mut lazy, &s, &Limits::none());
    assert!(lazy.tree_size() * 3 < eager.tree_size(), "{} vs {}", lazy.tree_size(), eager.tree_size());
    assert_eq!(c.info.root_moves.len(), 7, "the root is expanded at once");

    // A pessimistic urgency never leaves the first child tried; an optimistic one tries all.
    let mut pessimist = agent::<Connect4>("mcts(playouts=500,early=false,fpu=0,seed=1)");
    let c = choose(&mut pessimist, &s, &Limits::none());
    assert_eq!(c.info.root_moves.iter().filter(|m| m.visits > 0).count(), 1);
    let mut optimist = agent::<Connect4>("mcts(playouts=500,early=false,fpu=1,seed=1)");
    let c = choose(&mut optimist, &s, &Limits::none());
    assert!(c.info.root_moves.iter().all(|m| m.visits > 0));
}

#[test]
fn agents_box_as_trait_objects() {
    let mut boxed: Vec<Box<dyn Agent<TicTacToe>>> =
        vec![Box::new(agent::<TicTacToe>("mcts(playouts=200,seed=1)")), Box::new(RandomAgent::new(Some(1)))];
    let s = TicTacToe::new();
    for a in &mut boxed {
        assert!(choose(a.as_mut(), &s, &Limits::none()).mv.index() < 9);
    }
    assert_eq!(boxed[0].name(), "mcts(playouts=200,seed=1)");
}

/// Three players each choose 0 or 1 once, in turn; the rewards table is built so that
/// random play favours the wrong first move and only per-player backward induction finds
/// the right one (player 1 takes 0 -> 0.6; taking 1 leads to 0.3).
#[derive(Clone, Debug)]
struct ThreeChoices {
    moves: [u8; 3],
    ply: u8,
    hash: u64,
}

const THREE: [[[[f64; 3]; 2]; 2]; 2] = [
    [[[0.9, 0.2, 0.1], [0.1, 0.3, 0.8]], [[0.6, 0.6, 0.5], [0.2, 0.1, 0.4]]],
    [[[1.0, 0.7, 0.2], [0.3, 0.2, 0.3]], [[0.9, 0.1, 0.6], [0.95, 0.0, 0.1]]],
];

impl fmt::Display for ThreeChoices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &self.moves[..self.ply as usize])
    }
}

impl Game for ThreeChoices {
    type Move = u8;

    fn spec(&self) -> String {
        "three".into()
    }

    fn num_players(&self) -> usize {
        3
    }

    fn turn(&self) -> Turn {
        if self.ply == 3 { Turn::Over } else { Turn::Player(Player(self.ply)) }
    }

    fn legal_moves(&self, moves: &mut Vec<u8>) {
        moves.clear();
        if self.ply < 3 {
            moves.extend([0, 1]);
        }
    }

    fn play(&mut self, mv: u8) {
        self.moves[self.ply as usize] = mv;
        let mut x = (self.ply as u64) << 1 | mv as u64;
        self.hash ^= splitmix64(&mut x);
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        let [x, y, z] = self.moves.map(|m| m as usize);
        Rewards::from_slice(&THREE[x][y][z])
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn format_move(&self, mv: u8) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, MoveParseError> {
        text.trim().parse().ok().filter(|m| *m < 2).ok_or_else(|| MoveParseError::new(text, "expected 0 or 1"))
    }

    fn ply(&self) -> u32 {
        self.ply as u32
    }
}

#[test]
fn three_players_each_maximise_their_own_reward() {
    let s = ThreeChoices { moves: [0; 3], ply: 0, hash: 0 };
    for spec in ["mcts(playouts=4000,seed=1)", "mcts(playouts=4000,threads=2,seed=2)"] {
        let mut a = agent::<ThreeChoices>(spec);
        let c = choose(&mut a, &s, &Limits::none());
        assert_eq!(c.mv, 0, "{spec}: {:?}", c.info.root_moves);
        assert_eq!(c.info.pv, vec![0, 1, 0], "{spec}");
        assert!((c.info.win_rate.unwrap() - 0.6).abs() < 0.05, "{spec}: {:?}", c.info.win_rate);
        // After 1, the second player takes 0 (0.2 beats 0.1 for it).
        let mut t = s.clone();
        t.play(1);
        let c = choose(&mut a, &t, &Limits::none());
        assert_eq!(c.mv, 0, "{spec}");
        assert!((c.info.win_rate.unwrap() - 0.2).abs() < 0.05, "{spec}: {:?}", c.info.win_rate);
    }
}

#[test]
fn full_tree_and_robust_max_stay_within_bounds() {
    let s = Connect4::default();
    // A tree capped at its smallest size keeps searching from its leaves.
    let mut small = agent::<Connect4>("mcts(playouts=5000,max_nodes=1024,early=false,seed=1)");
    let c = choose(&mut small, &s, &Limits::none());
    assert!(small.tree_size() <= 1024, "{}", small.tree_size());
    assert_eq!(c.info.nodes, 5000);
    assert!((c.mv.0 as usize) < 7);
    let c = choose(&mut small, &Connect4::from_moves(7, 6, "112233").unwrap(), &Limits::none());
    assert_eq!(c.mv, Column(3));
    // Robust-max may search on, but never past half its budget again.
    for seed in 0..4 {
        let mut rm = agent::<Connect4>(&format!("mcts(playouts=2000,final=robust-max,seed={seed})"));
        let c = choose(&mut rm, &s, &Limits::none());
        assert!((2000..=3000).contains(&c.info.nodes), "{}", c.info.nodes);
        let best = &c.info.root_moves[0];
        let most = c.info.root_moves.iter().map(|m| m.visits).max().unwrap();
        if c.info.nodes < 3000 {
            // It stopped because the most visited move is also the best valued.
            assert_eq!(best.visits, most);
            let top = c.info.root_moves.iter().filter_map(|m| m.win_rate).fold(0.0, f64::max);
            assert_eq!(best.win_rate, Some(top));
        }
    }
}

#[test]
fn solver_proves_wins_and_losses() {
    let c4 = |m: &str| Connect4::from_moves(7, 6, m).unwrap();
    for threads in [1, 2] {
        let spec = format!("mcts(playouts=30000,threads={threads},resign=0.05,seed=3)");
        // Win in one.
        let mut a = agent::<Connect4>(&spec);
        let c = choose(&mut a, &c4("112233"), &Limits::none());
        assert_eq!((c.mv, c.info.proven_in, c.info.win_rate), (Column(3), Some(1), Some(1.0)), "{spec}");
        assert!(c.info.nodes < 30000, "a proven root ends the search");
        // Win in three: an open three on the bottom row cannot be stopped.
        let c = choose(&mut a, &c4("3344"), &Limits::none());
        assert!(c.mv == Column(1) || c.mv == Column(4), "{spec}: {:?}", c.mv);
        assert_eq!(c.info.proven_in, Some(3), "{spec}");
        // Lost in two: whatever O does, X completes the bottom row.
        let c = choose(&mut a, &c4("22334"), &Limits::none());
        assert_eq!((c.info.proven_in, c.info.win_rate, c.resign), (Some(-2), Some(0.0), true), "{spec}");
    }
    // Without the solver nothing is proven, but the move is still found.
    let mut plain = agent::<Connect4>("mcts(playouts=5000,solver=false,seed=3)");
    let c = choose(&mut plain, &c4("112233"), &Limits::none());
    assert_eq!((c.mv, c.info.proven_in), (Column(3), None));
    // Tic-tac-toe from the start is a draw: nothing to prove, and MCTS takes the centre.
    let mut t = agent::<TicTacToe>("mcts(playouts=20000,early=false,seed=3)");
    let c = choose(&mut t, &TicTacToe::new(), &Limits::none());
    assert_eq!(c.info.proven_in, None);
    assert!(c.info.root_moves.iter().all(|m| m.win_rate.unwrap() < 1.0 && m.win_rate.unwrap() > 0.0));
}
