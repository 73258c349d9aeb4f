//! Analysis output in the format GUIs read (Leela Zero's `lz-analyze`).
//!
//! One line carries every root move: `info move D4 visits 120 winrate 5312 prior 830
//! order 0 pv D4 Q16 info move ...`. Win rates and priors are in units of 1/10000 for the
//! side to move. Sabaki, Lizzie and KaTrain draw their candidate-move overlays from it.

use std::fmt::Write as _;

use tabula_core::SearchInfo;

use crate::GtpGame;

/// Formats one `lz-analyze` line from a search report of `root`: one `info` block per root
/// move (or a single block from the principal variation when the agent reports no per-move
/// statistics). Empty when there is nothing to show.
pub fn lz_analyze_line<G: GtpGame>(root: &G, info: &SearchInfo<G::Move>) -> String {
    let mut line = String::new();
    if info.root_moves.is_empty() {
        if let Some(&mv) = info.pv.first() {
            push_block(&mut line, root, mv, info.nodes, info.win_rate, None, 0, &info.pv);
        }
        return line;
    }
    for (order, stat) in info.root_moves.iter().enumerate() {
        let pv: &[G::Move] = if stat.pv.is_empty() { std::slice::from_ref(&stat.mv) } else { &stat.pv };
        push_block(&mut line, root, stat.mv, stat.visits, stat.win_rate, stat.prior, order, pv);
    }
    line
}

#[allow(clippy::too_many_arguments)]
fn push_block<G: GtpGame>(
    line: &mut String,
    root: &G,
    mv: G::Move,
    visits: u64,
    win_rate: Option<f64>,
    prior: Option<f64>,
    order: usize,
    pv: &[G::Move],
) {
    if !line.is_empty() {
        line.push(' ');
    }
    let per_10k = |x: f64| (x.clamp(0.0, 1.0) * 10000.0).round() as u32;
    let _ = write!(line, "info move {} visits {visits}", root.format_gtp_move(mv));
    let _ = write!(line, " winrate {}", per_10k(win_rate.unwrap_or(0.5)));
    let _ = write!(line, " prior {}", per_10k(prior.unwrap_or(0.0)));
    let _ = write!(line, " order {order} pv");
    line.push_str(&format_pv(root, pv));
}

/// Formats a line of play from `root` as space-led GTP moves, playing it out so that each
/// move is written in its own position; stops at the first move that is not legal there.
pub fn format_pv<G: GtpGame>(root: &G, pv: &[G::Move]) -> String {
    let mut s = String::new();
    let mut pos = root.clone();
    let mut legal = Vec::new();
    for &mv in pv {
        pos.legal_moves(&mut legal);
        if !legal.contains(&mv) {
            break;
        }
        s.push(' ');
        s.push_str(&pos.format_gtp_move(mv));
        pos.play(mv);
    }
    s
}
