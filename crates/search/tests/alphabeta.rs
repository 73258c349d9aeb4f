//! The alpha-beta family on tic-tac-toe and two tiny test games of more than two players
//! and simultaneous moves.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tabula_core::{
    Agent, Game, Limits, MoveParseError, NullReport, Player, Rewards, Rng, SearchInfo, Spec, Turn, testing,
};
use tabula_search::alphabeta::{SearchConfig, SearchResult, TransTable, search};
use tabula_search::{AlphaBetaAgent, MaxnAgent, NoEval, ParanoidAgent, RandomAgent, WIN, solve};
use tabula_tictactoe::TicTacToe;

fn ttt(moves: &[&str]) -> TicTacToe {
    let mut g = TicTacToe::new();
    for m in moves {
        let mv = g.parse_move(m).unwrap();
        g.play(mv);
    }
    g
}

fn agent(spec: &str) -> AlphaBetaAgent<TicTacToe, NoEval> {
    AlphaBetaAgent::from_spec(&Spec::parse(spec).unwrap(), NoEval).unwrap()
}

fn choose<G: Game, A: Agent<G>>(a: &mut A, g: &G, limits: &Limits) -> G::Move {
    a.choose(g, g.current_player(), limits, &mut NullReport::callback()).unwrap().mv
}

#[test]
fn tictactoe_is_a_draw() {
    let s = solve(&TicTacToe::new(), NoEval, 1, 1);
    assert_eq!(s.score, 0);
    assert!(s.complete && !s.weak);
    assert!(s.best_move.is_some());
    assert!(s.nodes > 100);

    let tt = TransTable::new(1);
    let mut infos: Vec<SearchInfo<_>> = Vec::new();
    let r = search(&TicTacToe::new(), &NoEval, &tt, &SearchConfig::default(), &Limits::none(), &mut |i| {
        infos.push(i.clone())
    })
    .unwrap();
    assert_eq!(r.score, 0);
    assert!(r.exact, "the whole tree was searched: {r:?}");
    assert!(r.depth >= 9 && r.depth <= 10, "stops once exact: depth {}", r.depth);
    assert!(!infos.is_empty());
    for w in infos.windows(2) {
        assert!(w[1].depth > w[0].depth && w[1].nodes >= w[0].nodes);
    }
    assert_eq!(infos.last().unwrap().pv.first(), Some(&r.best_move));
    assert!(infos.last().unwrap().pv.len() >= 5, "pv {:?}", infos.last().unwrap().pv);
}

#[test]
fn solver_finds_mate_distances() {
    // X: a1 b1, O: a2 b2; X to move wins at once with c1.
    let g = ttt(&["a1", "a2", "b1", "b2"]);
    let s = solve(&g, NoEval, 1, 1);
    assert_eq!(s.score, WIN - 1);
    assert_eq!(s.proven_in, Some(1));
    assert_eq!(s.best_move, Some(g.parse_move("c1").unwrap()));
    // O to move after X's a1 b1 against O's a2: O must block at c1, then X forks? Check exactly
    // against a brute-force minimax.
    for moves in [&["a1"][..], &["b2", "a1"], &["a1", "b2", "c3"], &["a1", "a2", "b2"], &["b2"]] {
        let g = ttt(moves);
        let s = solve(&g, NoEval, 1, 2);
        assert_eq!(s.score, minimax(&g, 0), "{moves:?}");
        assert!(s.complete);
        // The best move reaches the value.
        let mut child = g.clone();
        child.play(s.best_move.unwrap());
        let v = if child.is_over() {
            tabula_search::terminal_score(&child, g.current_player(), 1)
        } else {
            -minimax(&child, 1)
        };
        assert_eq!(v, s.score, "{moves:?}");
    }
}

/// Plain minimax with mate distances, the reference for the solver.
fn minimax(g: &TicTacToe, ply: u32) -> i32 {
    let me = g.current_player();
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    let mut best = -2 * WIN;
    for m in moves {
        let mut c = g.clone();
        c.play(m);
        let v = if c.is_over() { tabula_search::terminal_score(&c, me, ply + 1) } else { -minimax(&c, ply + 1) };
        best = best.max(v);
    }
    best
}

#[test]
fn finds_and_defends_immediate_wins() {
    for spec in ["alphabeta(depth=2)", "alphabeta", "alphabeta(depth=4,threads=2)"] {
        let mut a = agent(spec);
        // X to move can win with c1 (a1 b1 X; a2 b2 O).
        let g = ttt(&["a1", "a2", "b1", "b2"]);
        assert_eq!(choose(&mut a, &g, &Limits::none()), g.parse_move("c1").unwrap(), "{spec}");
        // O to move must block c1 (X has a1 b1).
        let g = ttt(&["a1", "b2", "b1"]);
        assert_eq!(choose(&mut a, &g, &Limits::none()), g.parse_move("c1").unwrap(), "{spec}");
    }
}

#[test]
fn never_loses_to_random() {
    let mut rng = Rng::new(11);
    for game in 0..60 {
        let mut ab = agent(&format!("alphabeta(random=true,seed={game})"));
        let mut rnd = RandomAgent::<TicTacToe>::new(Some(rng.next_u64()));
        let ab_player = Player((game % 2) as u8);
        let mut g = TicTacToe::new();
        while let Turn::Player(p) = g.turn() {
            let mv = if p == ab_player {
                choose(&mut ab, &g, &Limits::none())
            } else {
                choose(&mut rnd, &g, &Limits::none())
            };
            g.play(mv);
        }
        assert_ne!(g.rewards().winner(), Some(ab_player.other()), "game {game} lost:\n{g}");
    }
}

#[test]
fn random_ties_vary_and_plain_is_deterministic() {
    let g = TicTacToe::new();
    let mut seen = std::collections::HashSet::new();
    for seed in 0..20 {
        let mut a = agent(&format!("alphabeta(random=true,seed={seed})"));
        seen.insert(choose(&mut a, &g, &Limits::none()));
    }
    assert!(seen.len() >= 3, "all nine openings draw; random ties should vary: {seen:?}");
    let mut plain = std::collections::HashSet::new();
    for _ in 0..3 {
        let mut a = agent("alphabeta");
        plain.insert(choose(&mut a, &g, &Limits::none()));
    }
    assert_eq!(plain.len(), 1);
}

#[test]
fn specs_are_checked() {
    for bad in [
        "alphabeta(depht=3)",
        "alphabeta(depth=0)",
        "alphabeta(depth=x)",
        "alphabeta(threads=0)",
        "alphabeta(tt_mb=-1)",
        "alphabeta(random=maybe)",
        "alphabeta(time_ms=0)",
    ] {
        let spec = Spec::parse(bad).unwrap();
        assert!(AlphaBetaAgent::<TicTacToe, NoEval>::from_spec(&spec, NoEval).is_err(), "{bad}");
    }
    for bad in ["paranoid(threads=2)", "paranoid(depth=501)"] {
        let spec = Spec::parse(bad).unwrap();
        assert!(ParanoidAgent::<TicTacToe, NoEval>::from_spec(&spec, NoEval).is_err(), "{bad}");
    }
    for bad in ["maxn(tt_mb=3)", "maxn(nodes=0)"] {
        let spec = Spec::parse(bad).unwrap();
        assert!(MaxnAgent::<TicTacToe, NoEval>::from_spec(&spec, NoEval).is_err(), "{bad}");
    }
    let a = agent("alphabeta(depth=8,tt_mb=2,threads=2,time_ms=300,random=true,seed=4)");
    let name = Agent::<TicTacToe>::name(&a);
    let again = agent(&name);
    assert_eq!(Agent::<TicTacToe>::name(&again), name);
    assert!(name.contains("depth=8") && name.contains("threads=2") && name.contains("time_ms=300"), "{name}");
}

#[test]
fn stop_flag_and_no_move() {
    let stop = Arc::new(AtomicBool::new(true));
    let limits = Limits { stop: Some(stop), ..Limits::default() };
    let g = TicTacToe::new();
    let mut a = agent("alphabeta");
    let mv = choose(&mut a, &g, &limits);
    let mut legal = Vec::new();
    g.legal_moves(&mut legal);
    assert!(legal.contains(&mv));
    let over = ttt(&["a1", "a2", "b1", "b2", "c1"]);
    assert!(over.is_over());
    assert!(a.choose(&over, Player(1), &Limits::none(), &mut NullReport::callback()).is_err());
    // Not this player's turn.
    assert!(a.choose(&g, Player(1), &Limits::none(), &mut NullReport::callback()).is_err());
}

#[test]
fn node_limit_is_honoured() {
    let tt = TransTable::new(1);
    let r: SearchResult<_> =
        search(&TicTacToe::new(), &NoEval, &tt, &SearchConfig::default(), &Limits::nodes(300), &mut |_| {}).unwrap();
    assert!(r.nodes < 300 + 600, "{} nodes", r.nodes);
}

#[test]
fn paranoid_and_maxn_on_tictactoe() {
    let g = ttt(&["a1", "a2", "b1", "b2"]);
    let mut p = ParanoidAgent::<TicTacToe, NoEval>::from_spec(&Spec::parse("paranoid").unwrap(), NoEval).unwrap();
    let mut m = MaxnAgent::<TicTacToe, NoEval>::from_spec(&Spec::parse("maxn").unwrap(), NoEval).unwrap();
    assert_eq!(choose(&mut p, &g, &Limits::none()), g.parse_move("c1").unwrap());
    assert_eq!(choose(&mut m, &g, &Limits::none()), g.parse_move("c1").unwrap());
    let g = ttt(&["a1", "b2", "b1"]);
    assert_eq!(choose(&mut p, &g, &Limits::none()), g.parse_move("c1").unwrap());
    assert_eq!(choose(&mut m, &g, &Limits::none()), g.parse_move("c1").unwrap());
    // From the start both see the draw.
    let c = p.choose(&TicTacToe::new(), Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert_eq!(c.info.score, Some(0));
    let c = m.choose(&TicTacToe::new(), Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert_eq!(c.info.score, Some(0));
}

/// Three-player take-away: a pile of stones, each turn take 1..=3 in turn order; whoever
/// takes the last stone wins alone.
#[derive(Clone, Debug)]
struct TakeAway {
    pile: u32,
    to_move: u8,
    ply: u32,
    last: u8,
}

impl fmt::Display for TakeAway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pile {} player {}", self.pile, self.to_move)
    }
}

impl Game for TakeAway {
    type Move = u32;
    fn spec(&self) -> String {
        "takeaway".into()
    }
    fn num_players(&self) -> usize {
        3
    }
    fn turn(&self) -> Turn {
        if self.pile == 0 { Turn::Over } else { Turn::Player(Player(self.to_move)) }
    }
    fn legal_moves(&self, moves: &mut Vec<u32>) {
        moves.clear();
        moves.extend((1..=3).filter(|&k| k <= self.pile));
    }
    fn play(&mut self, mv: u32) {
        self.pile -= mv;
        self.last = self.to_move;
        self.to_move = (self.to_move + 1) % 3;
        self.ply += 1;
    }
    fn rewards(&self) -> Rewards {
        let mut r = Rewards::new(3);
        r.set(Player(self.last), 1.0);
        r
    }
    fn hash(&self) -> u64 {
        (self.pile as u64) << 8 | self.to_move as u64
    }
    fn format_move(&self, mv: u32) -> String {
        mv.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<u32, MoveParseError> {
        text.parse().map_err(|_| MoveParseError::new(text, "a number"))
    }
    fn ply(&self) -> u32 {
        self.ply
    }
}

#[test]
fn three_player_searches_take_the_win() {
    let start = TakeAway { pile: 3, to_move: 0, ply: 0, last: 0 };
    testing::conformance(&start, 20, 20, 1);
    let mut m = MaxnAgent::<TakeAway, NoEval>::from_spec(&Spec::parse("maxn").unwrap(), NoEval).unwrap();
    let mut p = ParanoidAgent::<TakeAway, NoEval>::from_spec(&Spec::parse("paranoid").unwrap(), NoEval).unwrap();
    for pile in 1..=3 {
        let g = TakeAway { pile, ..start.clone() };
        assert_eq!(choose(&mut m, &g, &Limits::none()), pile);
        let c = p.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
        assert_eq!(c.mv, pile);
        assert_eq!(c.info.score, Some(WIN - 1));
    }
    // With 5 stones player 0 cannot force a win against two opponents together: any take
    // leaves 2..=4, and the two others between them can always take the last stone.
    let g = TakeAway { pile: 5, ..start.clone() };
    let c = p.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert!(c.info.score.unwrap() <= -tabula_search::WIN_MIN, "{:?}", c.info);
    // Max-n: with 4 stones, taking 1 leaves 3 for player 1, who takes all; taking 3 leaves 1
    // for player 1 as well. Every move hands player 1 a win, so max-n values are losses.
    let g = TakeAway { pile: 4, ..start };
    let c = m.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert!(c.info.score.unwrap() < 0, "{:?}", c.info);
}

/// Negamax is for two players: on a three-player game alpha-beta refuses to search, saying
/// which searches fit, rather than answering with a meaningless move.
#[test]
fn alphabeta_refuses_games_of_more_than_two_players() {
    let g = TakeAway { pile: 3, to_move: 0, ply: 0, last: 0 };
    let mut a = AlphaBetaAgent::<TakeAway, NoEval>::from_spec(&Spec::parse("alphabeta").unwrap(), NoEval).unwrap();
    let e = a.choose(&g, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap_err();
    assert!(matches!(e, tabula_core::AgentError::Unavailable(_)), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("two-player") && text.contains("3 players") && text.contains("paranoid"), "{text}");
}

/// A simultaneous duel: both players name 1..=3 at once; the higher number wins, equal
/// numbers draw. Naming 3 never loses.
#[derive(Clone, Debug)]
struct Duel {
    picks: Option<(u32, u32)>,
}

impl fmt::Display for Duel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.picks)
    }
}

impl Game for Duel {
    type Move = u32;
    fn spec(&self) -> String {
        "duel".into()
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        if self.picks.is_some() { Turn::Over } else { Turn::Simultaneous }
    }
    fn legal_moves(&self, moves: &mut Vec<u32>) {
        moves.clear();
    }
    fn legal_moves_of(&self, _player: Player, moves: &mut Vec<u32>) {
        moves.clear();
        if self.picks.is_none() {
            moves.extend([1, 2, 3]);
        }
    }
    fn play(&mut self, _mv: u32) {}
    fn play_joint(&mut self, joint: &[u32]) {
        self.picks = Some((joint[0], joint[1]));
    }
    fn rewards(&self) -> Rewards {
        match self.picks {
            Some((a, b)) if a > b => Rewards::two_player(Some(Player(0))),
            Some((a, b)) if a < b => Rewards::two_player(Some(Player(1))),
            _ => Rewards::two_player(None),
        }
    }
    fn hash(&self) -> u64 {
        self.picks.map_or(0, |(a, b)| (a * 4 + b) as u64)
    }
    fn format_move(&self, mv: u32) -> String {
        mv.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<u32, MoveParseError> {
        text.parse().map_err(|_| MoveParseError::new(text, "a number"))
    }
    fn ply(&self) -> u32 {
        u32::from(self.picks.is_some())
    }
}

#[test]
fn simultaneous_turns_are_searched_jointly() {
    let g = Duel { picks: None };
    for player in [Player(0), Player(1)] {
        let mut p = ParanoidAgent::<Duel, NoEval>::from_spec(&Spec::parse("paranoid").unwrap(), NoEval).unwrap();
        let c = p.choose(&g, player, &Limits::none(), &mut NullReport::callback()).unwrap();
        assert_eq!((c.mv, c.info.score), (3, Some(0)), "{player}");
        let mut a = agent_duel();
        let c = a.choose(&g, player, &Limits::none(), &mut NullReport::callback()).unwrap();
        assert_eq!(c.mv, 3);
        let mut m = MaxnAgent::<Duel, NoEval>::from_spec(&Spec::parse("maxn").unwrap(), NoEval).unwrap();
        let c = m.choose(&g, player, &Limits::none(), &mut NullReport::callback()).unwrap();
        assert_eq!(c.mv, 3, "{player}");
    }
}

fn agent_duel() -> AlphaBetaAgent<Duel, NoEval> {
    AlphaBetaAgent::from_spec(&Spec::parse("alphabeta(depth=3)").unwrap(), NoEval).unwrap()
}

#[test]
fn rewards_are_checked_by_random_games() {
    // The helper games above follow the Game contract (the searches rely on it).
    let mut rng = Rng::new(3);
    let g = testing::random_game(&Duel { picks: None }, &mut rng);
    assert!(g.is_over());
}

/// The value of `m` for the player to move in `g`, by minimax.
fn move_value(g: &TicTacToe, m: <TicTacToe as Game>::Move) -> i32 {
    let me = g.current_player();
    let mut c = g.clone();
    c.play(m);
    if c.is_over() { tabula_search::terminal_score(&c, me, 1) } else { -minimax(&c, 1) }
}

#[test]
fn monte_carlo_add_on_finds_wins_a_shallow_search_misses() {
    // Positions two plies in, X to move, where X has a forced win but no immediate one and
    // a 1-ply search without evaluation does not pick a winning move. The add-on's playouts
    // (2-ply alpha-beta on both sides, no evaluation) are single samples and easily fooled,
    // but they must turn a good share of these into wins (11 of 26 when this was written).
    let start = TicTacToe::new();
    let mut firsts = Vec::new();
    start.legal_moves(&mut firsts);
    let (mut checked, mut won) = (0, 0);
    for &a in &firsts {
        let mut g1 = start.clone();
        g1.play(a);
        let mut seconds = Vec::new();
        g1.legal_moves(&mut seconds);
        for &b in &seconds {
            let mut g = g1.clone();
            g.play(b);
            if minimax(&g, 0) <= 0 {
                continue;
            }
            let plain = choose(&mut agent("alphabeta(depth=1)"), &g, &Limits::none());
            if move_value(&g, plain) > 0 {
                continue;
            }
            let spec = "alphabeta(depth=1,mc=9,mc_depth=2)";
            let chosen = choose(&mut agent(spec), &g, &Limits::none());
            assert_eq!(chosen, choose(&mut agent(spec), &g, &Limits::none()), "deterministic");
            if move_value(&g, chosen) > 0 {
                won += 1;
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} positions where the 1-ply search misses a forced win");
    assert!(4 * won >= checked, "the add-on found a winning move in only {won} of {checked} positions");
    let mc = agent("alphabeta(depth=2,mc=5)");
    assert_eq!(mc.name(), "alphabeta(depth=2,tt_mb=16,mc=5,mc_depth=2)");
    assert!(AlphaBetaAgent::<TicTacToe, _>::from_spec(&Spec::parse("alphabeta(mc=51)").unwrap(), NoEval).is_err());
    assert!(AlphaBetaAgent::<TicTacToe, _>::from_spec(&Spec::parse("alphabeta(mc_depth=0)").unwrap(), NoEval).is_err());
}

#[test]
fn analysis_scores_every_root_move_exactly() {
    let mut rng = Rng::new(5);
    for round in 0..12 {
        let mut g = TicTacToe::new();
        for _ in 0..round % 5 {
            let mut moves = Vec::new();
            g.legal_moves(&mut moves);
            g.play(rng.choose(&moves));
        }
        if g.is_over() {
            continue;
        }
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut a = agent("alphabeta");
        let limits = Limits { analyse: true, ..Limits::none() };
        let mut last: Option<SearchInfo<_>> = None;
        let choice = a.choose(&g, g.current_player(), &limits, &mut |i| last = Some(i.clone())).unwrap();
        let stats = &choice.info.root_moves;
        assert_eq!(stats.len(), moves.len(), "every legal move is scored: {stats:?}");
        for s in stats {
            assert!(moves.contains(&s.mv));
            assert_eq!(s.score, Some(move_value(&g, s.mv)), "move {} in {g:?}", g.format_move(s.mv));
            assert_eq!(s.pv.first(), Some(&s.mv));
            let mut line = g.clone();
            for &m in &s.pv {
                assert!(!line.is_over() && line.is_legal(m), "the line {:?} is legal", s.pv);
                line.play(m);
            }
        }
        assert!(stats.windows(2).all(|w| w[0].score >= w[1].score), "best first: {stats:?}");
        assert_eq!(stats[0].score, choice.info.score);
        assert_eq!(stats[0].mv, choice.mv);
        assert_eq!(last.map(|i| i.root_moves.len()), Some(moves.len()), "the reports carry them too");

        // Without the request only the best move is searched to its exact value.
        let plain = a.choose(&g, g.current_player(), &Limits::none(), &mut NullReport::callback()).unwrap();
        assert!(plain.info.root_moves.is_empty());
        assert_eq!(plain.info.score, choice.info.score);
    }
}
