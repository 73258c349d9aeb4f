//! Analysis output in the formats GUIs read (Leela Zero's `lz-analyze`, KataGo's
//! `kata-analyze`).
//!
//! One line carries every root move that has visits, best first: `info move D4 visits 120
//! winrate 5312 prior 830 lcb 5021 order 0 pv D4 Q16 info move ...`, the fields in Leela
//! Zero's order. Win rates, priors and lower confidence bounds are integers in units of
//! 1/10000 for the side to move. Sabaki, Lizzie and KaTrain draw their candidate-move
//! overlays from it. KataGo's form ([`Style::Kata`]) writes the same fields as floats in
//! 0..1 and may end with `ownership` and one value in -1..1 per point, row by row from the
//! top-left corner, for the side to move. The score fields KataGo adds (`scoreLead`,
//! `utility`) are left out: the searches here estimate no score per move, and GUIs read the
//! fields by name. The same lines read back ([`parse_lz_analyze_line`]) turn an external
//! engine's analysis into the [`SearchInfo`] stream every front end reads.

use std::fmt::Write as _;

use tabula_core::{MoveStat, SearchInfo};

use crate::{GtpGame, GtpMove};

/// The two analysis formats.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Style {
    /// Leela Zero's `lz-analyze`: win rates, priors and bounds as integers in 1/10000.
    Lz,
    /// KataGo's `kata-analyze`: the same as floats in 0..1.
    Kata,
}

/// Formats one `lz-analyze` line from a search report of `root`: one `info` block per root
/// move with visits, in the agent's order (or a single block from the principal variation
/// when the agent reports no per-move statistics). Empty when there is nothing to show.
pub fn lz_analyze_line<G: GtpGame>(root: &G, info: &SearchInfo<G::Move>) -> String {
    analysis_line(root, info, Style::Lz)
}

/// Formats one analysis line in either [`Style`] (see [`lz_analyze_line`]).
pub fn analysis_line<G: GtpGame>(root: &G, info: &SearchInfo<G::Move>, style: Style) -> String {
    let mut line = String::new();
    if info.root_moves.is_empty() {
        if let Some(&mv) = info.pv.first()
            && info.nodes > 0
        {
            let block = Block { mv, visits: info.nodes, win_rate: info.win_rate, prior: None, order: 0 };
            push_block(&mut line, root, &block, &info.pv, style);
        }
        return line;
    }
    // Leela Zero sends only moves that were searched; the order counts those.
    for (order, stat) in info.root_moves.iter().filter(|s| s.visits > 0).enumerate() {
        let pv: &[G::Move] = if stat.pv.is_empty() { std::slice::from_ref(&stat.mv) } else { &stat.pv };
        let block = Block { mv: stat.mv, visits: stat.visits, win_rate: stat.win_rate, prior: stat.prior, order };
        push_block(&mut line, root, &block, pv, style);
    }
    line
}

/// Appends KataGo's ownership section to an analysis line: ` ownership` and one value per
/// point in -1..1, as [`GtpGame::gtp_ownership`] gives them.
pub fn push_ownership(line: &mut String, ownership: &[f64]) {
    line.push_str(" ownership");
    for v in ownership {
        let _ = write!(line, " {}", round6(v.clamp(-1.0, 1.0)));
    }
}

/// A value with at most six decimals and no trailing zeros, as KataGo prints its floats.
fn round6(v: f64) -> f64 {
    let r = (v * 1e6).round() / 1e6;
    if r == 0.0 { 0.0 } else { r }
}

/// A lower confidence bound of a win rate seen over `visits` playouts: the normal
/// approximation two standard errors below it, with the variance of a win/loss outcome.
/// Leela Zero writes 0 below two visits, as it does.
pub fn win_rate_lcb(win_rate: f64, visits: u64) -> f64 {
    if visits < 2 {
        return 0.0;
    }
    let w = win_rate.clamp(0.0, 1.0);
    (w - 2.0 * (w * (1.0 - w) / visits as f64).sqrt()).max(0.0)
}

/// The figures of one `info` block.
struct Block<M> {
    mv: M,
    visits: u64,
    win_rate: Option<f64>,
    prior: Option<f64>,
    order: usize,
}

fn push_block<G: GtpGame>(line: &mut String, root: &G, b: &Block<G::Move>, pv: &[G::Move], style: Style) {
    if !line.is_empty() {
        line.push(' ');
    }
    let win_rate = b.win_rate.unwrap_or(0.5);
    let lcb = win_rate_lcb(win_rate, b.visits);
    let prior = b.prior.unwrap_or(0.0);
    let _ = write!(line, "info move {} visits {}", root.format_gtp_move(b.mv), b.visits);
    match style {
        Style::Lz => {
            let per_10k = |x: f64| (x.clamp(0.0, 1.0) * 10000.0).round() as u32;
            let _ = write!(line, " winrate {} prior {} lcb {}", per_10k(win_rate), per_10k(prior), per_10k(lcb));
        }
        Style::Kata => {
            let unit = |x: f64| round6(x.clamp(0.0, 1.0));
            let _ = write!(line, " winrate {} prior {} lcb {}", unit(win_rate), unit(prior), unit(lcb));
        }
    }
    let _ = write!(line, " order {} pv", b.order);
    line.push_str(&format_pv(root, pv));
}

/// Formats a line of play from `root` as space-led GTP moves, playing it out so that each
/// move is written in its own position; stops at the first move that is not legal there.
pub fn format_pv<G: GtpGame>(root: &G, pv: &[G::Move]) -> String {
    let mut s = String::new();
    let mut pos = root.clone();
    for &mv in pv {
        let text = pos.format_gtp_move(mv);
        if pos.try_play(mv).is_err() {
            break;
        }
        s.push(' ');
        s.push_str(&text);
    }
    s
}

/// Reads one `lz-analyze` / `lz-genmove_analyze` line of an engine analysing `root` back
/// into a search report: root moves in the engine's order, the best one's line as the
/// principal variation. Win rates and priors written as integers are in 1/10000, those with
/// a decimal point (KataGo) in 0..1. Unknown keys are skipped; `None` when the line holds no
/// readable `info move` block.
pub fn parse_lz_analyze_line<G: GtpGame>(root: &G, line: &str) -> Option<SearchInfo<G::Move>> {
    let ratio = |t: &str| -> Option<f64> {
        let v: f64 = t.parse().ok().filter(|v: &f64| v.is_finite())?;
        Some(if t.contains('.') { v } else { v / 10000.0 }.clamp(0.0, 1.0))
    };
    let read_move = |t: &str| match root.parse_gtp_move(t) {
        Ok(GtpMove::Move(m)) => Some(m),
        _ => None,
    };
    let mut stats: Vec<(u32, MoveStat<G::Move>)> = Vec::new();
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w != "info" {
            continue;
        }
        let mut stat: Option<MoveStat<G::Move>> = None;
        let mut order = u32::MAX;
        let (mut visits, mut win_rate, mut prior, mut pv) = (0u64, None, None, Vec::new());
        while let Some(&key) = words.peek() {
            if key == "info" {
                break;
            }
            words.next();
            if key == "pv" {
                while let Some(m) = words.peek().and_then(|t| read_move(t)) {
                    pv.push(m);
                    words.next();
                }
                continue;
            }
            let Some(value) = words.next() else { break };
            match key {
                "move" => {
                    stat = read_move(value).map(|mv| MoveStat {
                        mv,
                        visits: 0,
                        win_rate: None,
                        score: None,
                        prior: None,
                        pv: Vec::new(),
                    })
                }
                "visits" => visits = value.parse().unwrap_or(0),
                "winrate" => win_rate = ratio(value),
                "prior" => prior = ratio(value),
                "order" => order = value.parse().unwrap_or(u32::MAX),
                _ => {}
            }
        }
        if let Some(mut s) = stat {
            s.visits = visits;
            s.win_rate = win_rate;
            s.prior = prior;
            s.pv = pv;
            stats.push((order, s));
        }
    }
    if stats.is_empty() {
        return None;
    }
    stats.sort_by_key(|(order, _)| *order);
    let root_moves: Vec<MoveStat<G::Move>> = stats.into_iter().map(|(_, s)| s).collect();
    let best = &root_moves[0];
    Some(SearchInfo {
        nodes: root_moves.iter().map(|s| s.visits).sum(),
        win_rate: best.win_rate,
        pv: if best.pv.is_empty() { vec![best.mv] } else { best.pv.clone() },
        root_moves,
        ..SearchInfo::default()
    })
}
