//! The SGF bridge: positions per node (variations, set-up in mid-game, handicap, passes,
//! captures), illegal moves flagged without losing the record, deep lines without recursion,
//! and every main line of the repository's KGS sample and (a corpus test) of the whole KGS
//! collection replayed on the Go rules.

use std::io::Read;

use tabula_core::testing::{corpus, fixture};
use tabula_go::sgf_replay::{self, IllegalReason, NodeMove, Position, ReplayError};
use tabula_go::{Color, Rules};
use tabula_sgf::{GameTree, NodeId, parse_lenient};

fn tree(sgf: &str) -> GameTree {
    parse_lenient(sgf.as_bytes()).expect("reads").games.remove(0)
}

fn all_positions(t: &GameTree) -> (Vec<(NodeId, Position)>, sgf_replay::ReplaySummary) {
    let mut out = Vec::new();
    let s = sgf_replay::replay_tree(t, &Rules::default(), |n, p| out.push((n.id(), p.clone()))).expect("replays");
    (out, s)
}

#[test]
fn captures_passes_and_komi() {
    // Black's ba and ab capture White's corner stone; then two passes, `[]` and `[tt]`.
    let t = tree("(;GM[1]SZ[5]KM[6.5];B[ba];W[aa];B[ab];W[];B[tt])");
    let (pos, s) = all_positions(&t);
    assert_eq!(s.rules.komi, 6.5);
    assert_eq!(s.size, 5);
    assert_eq!(s.moves, 5);
    assert!(s.illegal.is_empty(), "{:?}", s.illegal);
    let after_capture = &pos[3].1;
    assert_eq!(after_capture.stone_at(0, 0), None);
    assert_eq!(after_capture.captures(Color::Black), 1);
    assert_eq!(after_capture.to_move(), Color::White);
    assert_eq!(pos[4].1.last_move(), Some(NodeMove::Pass(Color::White)));
    assert_eq!(pos[5].1.last_move(), Some(NodeMove::Pass(Color::Black)));
    assert_eq!(pos[5].1.rows()[0], ".X...");
}

#[test]
fn variations_give_their_own_positions() {
    let t = tree("(;SZ[5];B[cc](;W[dd];B[de])(;W[bb](;B[bc])(;B[cb]))(;W[aa]))");
    let (pos, s) = all_positions(&t);
    assert_eq!(s.nodes, t.len());
    assert!(s.illegal.is_empty());
    let by_id = |id: u32| &pos.iter().find(|(n, _)| n.0 == id).expect("visited").1;
    // Node ids follow document order: 0 root, 1 cc, 2 dd, 3 de, 4 bb, 5 bc, 6 cb, 7 aa.
    assert_eq!(by_id(3).rows(), vec![".....", ".....", "..X..", "...O.", "...X."]);
    assert_eq!(by_id(5).rows(), vec![".....", ".O...", ".XX..", ".....", "....."]);
    assert_eq!(by_id(6).rows(), vec![".....", ".OX..", "..X..", ".....", "....."]);
    assert_eq!(by_id(7).rows(), vec!["O....", ".....", "..X..", ".....", "....."]);
    // position_at agrees with the full walk.
    for (id, p) in &pos {
        let (q, _) = sgf_replay::position_at(&t, &Rules::default(), *id).expect("path");
        assert_eq!(q.rows(), p.rows(), "node {}", id.0);
        assert_eq!(q.to_move(), p.to_move());
    }
}

#[test]
fn setup_in_the_middle_of_a_game() {
    // After two moves, AE removes Black's stone, AW adds two stones, AB captures nothing,
    // PL gives the turn to White.
    let t = tree("(;SZ[5];B[aa];W[ee];AE[aa]AW[ab][ba]AB[cc]PL[W];W[dd];B[aa])");
    let (pos, s) = all_positions(&t);
    assert_eq!(pos[3].1.rows(), vec![".O...", "O....", "..X..", ".....", "....O"]);
    assert_eq!(pos[3].1.to_move(), Color::White);
    assert_eq!(pos[4].1.stone_at(3, 3), Some(Color::White));
    // B[aa] is a suicide into White's corner: flagged, and the stone is removed.
    assert_eq!(s.illegal.len(), 1);
    assert_eq!(s.illegal[0].node, NodeId(5));
    assert_eq!(s.illegal[0].reason, IllegalReason::Suicide);
    assert_eq!(pos[5].1.stone_at(0, 0), None);
    assert_eq!(pos[5].1.captures(Color::White), 1);
}

#[test]
fn handicap_stones_give_white_the_move() {
    let t = tree("(;SZ[9]HA[2]AB[cc][gg];W[ee])");
    let (pos, s) = all_positions(&t);
    assert_eq!(s.handicap, 2);
    assert_eq!(pos[0].1.to_move(), Color::White);
    assert_eq!(pos[1].1.stone_at(4, 4), Some(Color::White));
    assert!(s.illegal.is_empty());
}

#[test]
fn illegal_moves_are_flagged_and_the_replay_goes_on() {
    // Node 3: W on Black's stone (replaced); node 5: off the board; node 7: B on White's stone.
    let t = tree("(;SZ[5];B[aa];W[bb];W[aa];B[cc];B[zz];W[];B[bb])");
    let (pos, s) = all_positions(&t);
    let reasons: Vec<_> = s.illegal.iter().map(|f| (f.node.0, f.reason)).collect();
    assert_eq!(reasons, vec![(3, IllegalReason::Occupied), (5, IllegalReason::OffBoard), (7, IllegalReason::Occupied)]);
    assert_eq!(pos[3].1.stone_at(0, 0), Some(Color::White));
    // The off-board move is a pass: White is to move after it.
    assert_eq!(pos[5].1.to_move(), Color::White);
    assert_eq!(pos[7].1.stone_at(1, 1), Some(Color::Black));
    assert_eq!(s.moves, 7);
}

#[test]
fn simple_ko_is_flagged() {
    // White takes a ko at bb (capturing cb) and Black retakes at cb at once.
    let t = tree("(;SZ[5]AB[ba][ab][bc][cb]AW[ca][db][cc]PL[W];W[bb];B[cb])");
    let (pos, s) = all_positions(&t);
    // W[bb] captures the black stone on cb.
    assert_eq!(pos[1].1.stone_at(2, 1), None);
    assert_eq!(pos[1].1.captures(Color::White), 1);
    // B[cb] retakes at once: flagged as ko, captured anyway.
    let reasons: Vec<_> = s.illegal.iter().map(|f| (f.node.0, f.reason)).collect();
    assert_eq!(reasons, vec![(2, IllegalReason::Ko)]);
    assert_eq!(pos[2].1.stone_at(1, 1), None);
    assert_eq!(pos[2].1.stone_at(2, 1), Some(Color::Black));
}

#[test]
fn bad_boards_are_clear_errors() {
    let err = |s: &str| sgf_replay::replay_tree(&tree(s), &Rules::default(), |_, _| {}).err();
    assert_eq!(err("(;SZ[9:13];B[aa])"), Some(ReplayError::NotSquare(9, 13)));
    assert_eq!(err("(;SZ[30];B[aa])"), Some(ReplayError::Size(30)));
    assert_eq!(err("(;GM[2]SZ[8];B[dd])"), Some(ReplayError::NotGo(2)));
    assert!(err("(;SZ[25];B[yy])").is_none());
}

#[test]
fn a_100000_move_main_line_does_not_overflow() {
    // Passes and a few stones, generated: deep enough to break any recursive walk.
    let mut sgf = String::from("(;GM[1]SZ[19]");
    for i in 0..100_000 {
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        sgf.push_str(&format!(";{c}[]"));
    }
    sgf.push_str("(;B[aa])(;B[bb]))");
    let t = tree(&sgf);
    let mut visited = 0;
    let s = sgf_replay::replay_tree(&t, &Rules::default(), |_, _| visited += 1).expect("replays");
    assert_eq!(visited, 100_003);
    assert_eq!(s.moves, 100_002);
    assert!(s.illegal.is_empty());
    let main = sgf_replay::replay_main_line(&t, &Rules::default(), |_, _| {}).expect("replays");
    assert_eq!(main.moves, 100_001);
}

/// Counts `B`/`W` properties of the main line straight from the bytes (every node before the
/// first `)` is on the main line), independently of the SGF reader.
fn count_main_line_moves(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    let mut ident = Vec::new();
    let mut started = false;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => started = true,
            b')' if started => return count,
            b'[' if started => {
                if ident == b"B" || ident == b"W" {
                    count += 1;
                }
                ident.clear();
                // Skip this value and the further values of the same property.
                loop {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b']' {
                        if bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    let mut j = i + 1;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if j < bytes.len() && bytes[j] == b'[' {
                        i = j;
                        continue;
                    }
                    break;
                }
            }
            c if c.is_ascii_uppercase() => ident.push(c),
            c if c.is_ascii_lowercase() => {}
            _ => ident.clear(),
        }
        i += 1;
    }
    count
}

/// Replays every game of one archive; returns (games, moves, games with illegal moves).
fn replay_archive(path: &std::path::Path) -> (usize, usize, usize) {
    let (mut games, mut moves, mut flagged) = (0, 0, 0);
    let mut buf = Vec::new();
    let file = std::fs::File::open(path).expect("archive");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let name = entry.path().expect("path").display().to_string();
        if !name.ends_with(".sgf") {
            continue;
        }
        buf.clear();
        entry.read_to_end(&mut buf).expect("read");
        let collection = parse_lenient(&buf).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = &collection.games[0];
        let mut last = None;
        let s = sgf_replay::replay_main_line(t, &Rules::default(), |_, p| last = Some(p.to_move()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(last.is_some());
        assert_eq!(s.moves, count_main_line_moves(&buf), "{name}");
        games += 1;
        moves += s.moves;
        // KGS games are legal under their own rules: only long cycles (which positional
        // superko forbids) may show up, never an occupied point, a ko or a suicide.
        assert!(s.illegal.iter().all(|f| f.reason == IllegalReason::Superko), "{name}: {:?}", s.illegal);
        if let Some(first) = s.illegal.first() {
            flagged += 1;
            println!("{name}: {} illegal, first {first}", s.illegal.len());
        }
    }
    (games, moves, flagged)
}

#[test]
fn every_main_line_of_the_kgs_sample_replays_on_the_go_rules() {
    let (games, moves, flagged) = replay_archive(&fixture("sgf/kgs-sample.tar.gz"));
    assert_eq!(games, 500);
    assert!(moves > 50_000, "{moves}");
    assert!(flagged <= 1, "{flagged} games with illegal moves");
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn every_kgs_main_line_replays_on_the_go_rules() {
    let Some(dir) = corpus("sgf") else { return };
    let mut archives: Vec<_> = std::fs::read_dir(&dir)
        .expect("$TABULA_DATA/sgf")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .collect();
    archives.sort();
    assert_eq!(archives.len(), 5);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (games, moves, flagged) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut total = (0, 0, 0);
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = archives.get(i) else { return total };
                        let (g, m, f) = replay_archive(path);
                        total = (total.0 + g, total.1 + m, total.2 + f);
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    });
    println!("{games} games, {moves} moves replayed, {flagged} games with illegal moves");
    assert_eq!(games, 32_047);
    assert!(moves > 6_000_000, "{moves}");
    assert!(flagged <= 10, "{flagged} games with illegal moves");
}

/// Random byte edits of small records with variations, set-up and odd values: the replay
/// never panics, visits every node, and the position after each node equals the one
/// replayed along its path alone.
#[test]
fn mutated_records_replay_without_panics() {
    let base: [&[u8]; 3] = [
        b"(;GM[1]SZ[5]HA[2]AB[bb][dd];W[cc](;B[cb];W[bc])(;B[aa]AE[bb];W[ab]PL[W];W[ba]))",
        b"(;SZ[4]AB[aa:bd]AW[ca:db];B[cc];W[bb];B[tt];W[];B[cc])",
        b"(;SZ[3];B[bb];W[ab];B[ba];W[bc];B[cb];W[aa];B[ab](;W[ac])(;W[ca]))",
    ];
    let specials = b"()[];:ABWELPSZabcdt0123456789";
    let mut rng = tabula_core::Rng::new(99);
    let mut replayed = 0;
    for case in 0..4_000 {
        let mut bytes = base[case % base.len()].to_vec();
        for _ in 0..1 + rng.below(3) {
            let pos = rng.below(bytes.len());
            match rng.below(3) {
                0 => {
                    bytes.remove(pos);
                }
                1 => bytes.insert(pos, specials[rng.below(specials.len())]),
                _ => bytes[pos] = specials[rng.below(specials.len())],
            }
        }
        let Ok(c) = parse_lenient(&bytes) else { continue };
        for t in &c.games {
            let mut seen = Vec::new();
            let Ok(s) = sgf_replay::replay_tree(t, &Rules::default(), |n, p| seen.push((n.id(), p.rows()))) else {
                continue;
            };
            replayed += 1;
            assert_eq!(s.nodes, t.len());
            for (id, rows) in seen.iter().step_by(3) {
                let (p, _) = sgf_replay::position_at(t, &Rules::default(), *id).expect("node exists");
                assert_eq!(&p.rows(), rows, "{:?} node {}", String::from_utf8_lossy(&bytes), id.0);
            }
        }
    }
    assert!(replayed > 1_000, "{replayed}");
}
