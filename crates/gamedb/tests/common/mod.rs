//! Helpers shared by the database tests: sample games and an independent replay.

// Each test file compiles this module on its own and uses a part of it.
#![allow(dead_code)]

use std::io::Read;
use std::path::Path;

use tabula_gamedb::Position;
use tabula_go::{Go, Move, Rules, Superko};
use tabula_sgf::Color;

/// Writes the first `n` SGF members of the repository's KGS sample (500 games, the first
/// 100 of them from January 2001) into `dir`, returning their bytes.
pub fn extract(dir: &Path, n: usize) -> Vec<(String, Vec<u8>)> {
    let path = tabula_core::testing::fixture("sgf/kgs-sample.tar.gz");
    let file = std::fs::File::open(&path).expect("archive present");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::new();
    for entry in archive.entries().expect("tar") {
        let mut entry = entry.expect("entry");
        let name = entry.path().expect("path").display().to_string();
        if !name.ends_with(".sgf") {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read");
        let file_name = name.replace('/', "_");
        std::fs::write(dir.join(&file_name), &bytes).expect("write");
        out.push((file_name, bytes));
        if out.len() == n {
            break;
        }
    }
    out
}

/// The positions of a stored game (index 0 after the handicap stones), replayed with the Go
/// rules crate, independently of the database's own replay.
pub fn positions_of(moves: &[(Color, Option<(u8, u8)>)], handicap: &[(u8, u8)]) -> Vec<Position> {
    let rules = Rules { superko: Superko::None, suicide: true, ..Rules::default() };
    let mut go = Go::new(19, rules);
    if handicap.len() >= 2 {
        let pts: Vec<_> = handicap.iter().filter_map(|&(x, y)| go.board().point(x as usize, 18 - y as usize)).collect();
        go.place_free_handicap(&pts).expect("handicap");
    }
    let mut out = vec![Position::from_go(&go)];
    for &(c, p) in moves {
        let want = if c == Color::Black { tabula_go::Color::Black } else { tabula_go::Color::White };
        if go.to_move() != want {
            go.play_checked(Move::Pass).expect("pass");
        }
        let mv = match p {
            None => Move::Pass,
            Some((x, y)) => Move::Play(go.board().point(x as usize, 18 - y as usize).expect("point")),
        };
        go.play_checked(mv).expect("stored moves are legal");
        out.push(Position::from_go(&go));
    }
    out
}
