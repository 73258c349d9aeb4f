//! Fuzzes the Othello `.obf` endgame-problem reader: any text must read as problems or be
//! refused with a typed error, never panic; every problem read is a position the game
//! accepts (its legal moves can be listed) with move scores within the board, and one with
//! few empty squares is solved exactly, its score within the board too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_core::Game;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(problems) = tabula_othello::obf::parse(&text) {
        for p in problems {
            let mut moves = Vec::new();
            p.position.legal_moves(&mut moves);
            let squares = (p.position.width() * p.position.height()) as i32;
            for (_, score) in &p.moves {
                assert!(score.abs() <= squares);
            }
            let _ = p.position.to_string();
            if p.position.empties() <= 8
                && let Ok(solution) = tabula_othello::solve(&p.position)
            {
                assert!(solution.score.abs() <= squares);
            }
        }
    }
});
