//! Reads every game of the shared KGS corpus (32,047 records) in lenient mode, checks that no move
//! is lost against an independent token count, and that writing and re-reading gives the same
//! tree.

use std::io::Read;

use tabula_core::testing::{corpus, fixture};
use tabula_sgf::{GoMove, parse_lenient, write_collection};

/// Counts `B`/`W` properties of the main line straight from the bytes: every node before the
/// first `)` of a game tree is on the main line. Independent of the crate's parser.
fn count_main_line_moves(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    let mut ident = Vec::new();
    let mut started = false;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'(' => started = true,
            b')' if started => return count,
            b'[' if started => {
                let upper: Vec<u8> = ident.iter().copied().filter(u8::is_ascii_uppercase).collect();
                if upper == b"B" || upper == b"W" {
                    count += 1;
                }
                ident.clear();
                // Skip this value and any further values of the same property.
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
            c if c.is_ascii_alphabetic() => ident.push(c),
            _ => ident.clear(),
        }
        i += 1;
    }
    count
}

/// Reads one archive; returns (games, main-line moves).
fn check_archive(path: &std::path::Path) -> (usize, usize) {
    let mut games = 0usize;
    let mut moves = 0usize;
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
        assert_eq!(collection.games.len(), 1, "{name}");
        let tree = &collection.games[0];
        let size = tree.board_size();
        let mut played = 0;
        for node in tree.main_line() {
            if let Some((_, raw)) = node.raw_move() {
                // Every move of these 19x19 records is a point on the board or a pass.
                let mv = node.go_move(size);
                assert!(mv.is_some(), "{name}: bad move {:?}", raw.text());
                if let Some((_, GoMove::Play(p))) = mv {
                    assert!(p.on_board(size));
                }
                played += 1;
            }
        }
        assert_eq!(played, count_main_line_moves(&buf), "{name}");
        moves += played;
        // Round trip: read -> write -> read gives the same tree, and writing is stable.
        let written = write_collection(&collection.games);
        let again = parse_lenient(written.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(again.games == collection.games, "{name}: round trip changed the tree");
        assert_eq!(write_collection(&again.games), written, "{name}");
        games += 1;
    }
    (games, moves)
}

/// The repository's sample of 500 KGS games (handicaps, resignations, time-outs, passes,
/// games without a result or without moves).
#[test]
fn every_game_of_the_kgs_sample_reads_without_losing_moves() {
    let (games, moves) = check_archive(&fixture("sgf/kgs-sample.tar.gz"));
    assert_eq!(games, 500);
    assert!(moves > 50_000, "{moves}");
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn every_kgs_game_reads_without_losing_moves() {
    let Some(dir) = corpus("sgf") else { return };
    let mut archives: Vec<_> = std::fs::read_dir(&dir)
        .expect("$TABULA_DATA/sgf")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .collect();
    archives.sort();
    assert_eq!(archives.len(), 5);
    // Two workers share the archives (the machine has two cores).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (games, moves) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut total = (0, 0);
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = archives.get(i) else { return total };
                        let (g, m) = check_archive(path);
                        total = (total.0 + g, total.1 + m);
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    assert_eq!(games, 32_047);
    assert!(moves > 6_000_000, "{moves}");
}

#[test]
fn independent_counter_sees_only_the_main_line() {
    assert_eq!(count_main_line_moves(b"(;GM[1];B[aa];W[bb](;B[cc])(;B[dd];W[ee]))"), 3);
    assert_eq!(count_main_line_moves(b"(;C[B\\[aa\\] ;W[x\\]];B[]PB[x]W[ab])"), 2);
}
