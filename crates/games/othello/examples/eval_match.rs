//! Plays the evaluators against each other with a fixed-depth alpha-beta:
//! `cargo run --release -p tabula-othello --example eval_match -- [depth] [openings] [spec]`
//! (defaults: depth 3, 50 openings, `othello`). Each opening (8 seeded random plies) is played twice
//! with colours swapped; the endgame is not solved, the search runs to the end of the game.

use tabula_core::{Game, Player, Rng};
use tabula_othello::{BaselineEval, Move, Othello, PatternEval, StrongEval};
use tabula_search::Evaluator;

fn negamax<E: Evaluator<Othello>>(e: &E, g: &Othello, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
    if g.is_over() {
        return e.terminal(g, g.current_player(), ply);
    }
    if depth == 0 {
        return e.evaluate(g);
    }
    let mut moves = Vec::new();
    let mut scores = Vec::new();
    g.legal_moves(&mut moves);
    e.order_moves(g, &mut moves, &mut scores);
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
    let mut best = -i32::MAX;
    for i in order {
        let mut c = g.clone();
        c.play(moves[i]);
        let v = -negamax(e, &c, depth - 1, ply + 1, -beta, -alpha);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

fn best_move<E: Evaluator<Othello>>(e: &E, g: &Othello, depth: u32) -> Move {
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    let mut best = moves[0];
    let mut alpha = -i32::MAX;
    for &m in &moves {
        let mut c = g.clone();
        c.play(m);
        let v = -negamax(e, &c, depth - 1, 1, -i32::MAX, -alpha);
        if v > alpha {
            alpha = v;
            best = m;
        }
    }
    best
}

/// Plays one game from `start`; returns the final disc difference for black.
fn play<A: Evaluator<Othello>, B: Evaluator<Othello>>(start: &Othello, black: &A, white: &B, depth: u32) -> i32 {
    let mut g = start.clone();
    while !g.is_over() {
        let mv =
            if g.current_player() == Player(0) { best_move(black, &g, depth) } else { best_move(white, &g, depth) };
        g.play(mv);
    }
    g.final_score(Player(0))
}

fn duel<A: Evaluator<Othello>, B: Evaluator<Othello>>(
    board: &Othello,
    name: &str,
    a: &A,
    b: &B,
    depth: u32,
    openings: usize,
) {
    let (mut w, mut d, mut l, mut margin) = (0, 0, 0, 0i64);
    for k in 0..openings {
        let mut rng = Rng::new(1000 + k as u64);
        let mut start = board.clone();
        let mut moves = Vec::new();
        for _ in 0..8 {
            start.legal_moves(&mut moves);
            start.play(moves[rng.below(moves.len())]);
        }
        for a_black in [true, false] {
            let s = if a_black { play(&start, a, b, depth) } else { -play(&start, b, a, depth) };
            margin += s as i64;
            match s.signum() {
                1 => w += 1,
                0 => d += 1,
                _ => l += 1,
            }
        }
    }
    println!(
        "{name}: {w} wins, {d} draws, {l} losses, mean margin {:+.1} discs ({} games, depth {depth})",
        margin as f64 / (2 * openings) as f64,
        2 * openings
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().map(|a| a.parse()).transpose()?.unwrap_or(3);
    let openings: usize = args.get(1).map(|a| a.parse()).transpose()?.unwrap_or(50);
    let spec = args.get(2).map(String::as_str).unwrap_or("othello");
    let board = Othello::from_spec(&tabula_core::Spec::parse(spec)?)?;
    println!("{spec}");
    duel(&board, "strong vs baseline", &StrongEval, &BaselineEval, depth, openings);
    if board.width() == 8 && board.height() == 8 && board.blocked().is_empty() {
        duel(&board, "pattern vs strong", &PatternEval, &StrongEval, depth, openings);
        duel(&board, "pattern vs baseline", &PatternEval, &BaselineEval, depth, openings);
    }
    Ok(())
}
