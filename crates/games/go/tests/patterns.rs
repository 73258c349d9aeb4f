//! Harvesting 3x3 patterns from real games (the shared KGS collection): the selection
//! rates must single out shapes strong players choose, and heavy playouts must run with
//! the harvested set.

use std::io::Read;

use tabula_core::{Game, Rng, testing::fixture};
use tabula_go::{Color, Go, HeavyPolicy, Move, PatternStats, Point, Rules};

/// Main-line `;B[xx]` / `;W[xx]` moves of an SGF game.
fn sgf_moves(text: &str) -> Vec<(Color, String)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i + 3 < b.len() {
        if b[i] == b';' && (b[i + 1] == b'B' || b[i + 1] == b'W') && b[i + 2] == b'[' {
            let color = if b[i + 1] == b'B' { Color::Black } else { Color::White };
            if let Some(end) = text[i + 3..].find(']') {
                out.push((color, text[i + 3..i + 3 + end].to_string()));
                i += 3 + end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Replays up to `limit` even 19x19 games of the repository's KGS sample taken from the
/// archive named `from`, calling `visit` with the position before every stone played and
/// its point; returns the games replayed.
fn replay_games(from: &str, limit: usize, mut visit: impl FnMut(&Go, Point)) -> usize {
    let path = fixture("sgf/kgs-sample.tar.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut games = 0;
    for entry in archive.entries().expect("tar entries") {
        if games >= limit {
            break;
        }
        let mut entry = entry.expect("tar entry");
        let wanted = entry
            .path()
            .is_ok_and(|p| p.extension().is_some_and(|e| e == "sgf") && p.parent().is_some_and(|d| d.ends_with(from)));
        if !wanted {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read sgf");
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("SZ[19]") || text.contains("AB[") {
            continue;
        }
        let mut g = Go::new(19, Rules::default());
        for (color, coord) in sgf_moves(&text) {
            if g.to_move() != color || g.is_over() {
                break;
            }
            let mv = match g.sgf_point(&coord) {
                Some(p) => {
                    visit(&g, p);
                    Move::Play(p)
                }
                None => Move::Pass,
            };
            if g.play_checked(mv).is_err() {
                break;
            }
        }
        games += 1;
    }
    games
}

#[test]
fn harvested_patterns_prefer_real_shapes() {
    let mut stats = PatternStats::new();
    replay_games("kgs6d-KGS2002", 25, |g, p| stats.observe(g.board(), p));
    assert!(stats.moves() > 3000, "{} moves", stats.moves());
    // The empty 3x3 neighbourhood in the open is available everywhere and rarely chosen.
    let (played, seen) = stats.counts(0);
    assert!(seen > 100_000 && (played as f64) < 0.05 * seen as f64, "empty: {played}/{seen}");
    let set = stats.select(0.3, 20);
    assert!(!set.is_empty() && !set.contains(0));
    // Every selected pattern really has a high rate.
    let mut selected = 0;
    for key in 0..=u16::MAX {
        if set.contains(key) {
            let (p, s) = stats.counts(key);
            assert!(s >= 20 && p as f64 >= 0.3 * s as f64);
            selected += 1;
        }
    }
    eprintln!("{} moves, {selected} keys selected", stats.moves());
    assert!(selected >= 8, "{selected} keys selected");
    // Heavy playouts with the harvested set finish.
    let policy = HeavyPolicy::new(set);
    let mut rng = Rng::new(3);
    let g9 = Go::new(9, Rules::default());
    for _ in 0..20 {
        let s = g9.playout_with(&policy, &mut rng);
        assert!(s.abs() <= 90.0);
    }
}

/// Expected top-1 hit of `priors` for the move at `played`: 1 / (moves tied at the maximum)
/// when the move played is among them, else 0.
fn top1_credit(priors: &[f32], played: usize) -> f64 {
    let max = priors.iter().copied().fold(f32::MIN, f32::max);
    if priors[played] < max {
        return 0.0;
    }
    1.0 / priors.iter().filter(|&&p| p == max).count() as f64
}

#[test]
fn the_learned_move_model_predicts_expert_moves_better_than_the_hand_rules() {
    use tabula_go::{GoPolicy, Playouts, Priors};
    use tabula_search::MctsPolicy;
    let hand = GoPolicy::new(Playouts::Heavy, 1).with_priors(Priors::Hand);
    let model = GoPolicy::new(Playouts::Heavy, 1).with_priors(Priors::Model);
    let (mut positions, mut hand_hits, mut model_hits) = (0usize, 0.0f64, 0.0f64);
    let (mut moves, mut hp, mut mp) = (Vec::new(), Vec::new(), Vec::new());
    // The built-in model was fitted to the 2001-2006 archives; these games are held out.
    let games = replay_games("kgs6d-kgs-19-2015", 12, |g, p| {
        g.legal_moves(&mut moves);
        if let Some(at) = moves.iter().position(|&m| m == Move::Play(p)) {
            hand.priors(g, &moves, &mut hp);
            model.priors(g, &moves, &mut mp);
            assert!(mp.iter().all(|x| (0.0..=1.0).contains(x)));
            hand_hits += top1_credit(&hp, at);
            model_hits += top1_credit(&mp, at);
            positions += 1;
        }
    });
    assert!(positions > 1500, "{positions} positions");
    let (h, m) = (hand_hits / positions as f64, model_hits / positions as f64);
    eprintln!("{positions} positions of {games} held-out games: top-1 hand {:.1}%, model {:.1}%", 100.0 * h, 100.0 * m);
    assert!(m > 0.2, "the model predicts {:.1}% of the moves", 100.0 * m);
    assert!(m > h + 0.05, "model {:.1}% against hand {:.1}%", 100.0 * m, 100.0 * h);
}

#[test]
fn the_spatial_patterns_raise_the_models_prediction_rate() {
    use tabula_go::MoveModel;
    let full = MoveModel::builtin();
    assert!(full.spatial_dict().len() > 1000, "{} spatial patterns", full.spatial_dict().len());
    // The same gammas with the spatial patterns taken out of the text.
    let text = full.to_text("");
    let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("spatial")).collect();
    let small = MoveModel::parse(&kept.join("\n")).unwrap();
    assert!(small.spatial_dict().is_empty());
    assert_eq!(&MoveModel::parse(&text).unwrap(), full, "the text form round-trips");
    let (mut positions, mut full_hits, mut small_hits, mut matched) = (0usize, 0.0f64, 0.0f64, 0usize);
    let (mut moves, mut fp, mut sp) = (Vec::new(), Vec::new(), Vec::new());
    let games = replay_games("kgs6d-kgs-19-2015", 12, |g, p| {
        let b = g.board();
        let color = b.to_move();
        moves.clear();
        moves.extend(b.points().filter(|&q| b.is_legal_for(color, q, false) && !b.is_eye(color, q)));
        let Some(at) = moves.iter().position(|&q| q == p) else { return };
        fp.clear();
        fp.extend(moves.iter().map(|&q| full.gamma_of(b, q)));
        sp.clear();
        sp.extend(moves.iter().map(|&q| small.gamma_of(b, q)));
        full_hits += top1_credit(&fp, at);
        small_hits += top1_credit(&sp, at);
        matched += (full.features(b, p).spatial != 0) as usize;
        positions += 1;
    });
    assert!(positions > 1500, "{positions} positions");
    let (f, s) = (full_hits / positions as f64, small_hits / positions as f64);
    eprintln!(
        "{positions} positions of {games} held-out games: top-1 with spatial patterns {:.1}%, without {:.1}%; \
         the move played matched a spatial pattern {:.1}% of the time",
        100.0 * f,
        100.0 * s,
        100.0 * matched as f64 / positions as f64
    );
    assert!(f > s + 0.02, "with spatial patterns {:.1}%, without {:.1}%", 100.0 * f, 100.0 * s);
    assert!(matched * 2 > positions, "the move played matched a spatial pattern in {matched} of {positions}");
}
