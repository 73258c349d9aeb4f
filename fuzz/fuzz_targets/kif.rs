//! Fuzzes the GDL front end: any bytes go through the KIF reader, the GDL sentence reader,
//! the validator and the dialect expansion, and a description that passes all of them is
//! loaded by the reference reasoner up to its initial state's legal moves. Nothing may
//! panic; every rejection is a typed error. Expressions that read print back to text that
//! reads as the same expressions, and any expressions that read translate to Prolog or are
//! refused with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_core::{Game, Player};
use tabula_gdl::{GdlGame, kif, load_str};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(exprs) = kif::parse(&text) {
        let printed: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
        let again = kif::parse(&printed.join("\n")).expect("printed expressions read back");
        let reprinted: Vec<String> = again.iter().map(|e| e.to_string()).collect();
        assert_eq!(reprinted, printed);
        let _ = tabula_gdl::prolog::translate(&exprs);
        for e in &exprs {
            let _ = tabula_gdl::prolog::ground_term(e);
        }
    }
    if load_str(&text).is_ok() {
        // A valid description: the reference reasoner must load it or say why, and answer
        // for the initial state. Few plies keep one input cheap.
        if let Ok(game) = GdlGame::from_str(&text, "fuzz".into(), 4) {
            let mut moves = Vec::new();
            for p in 0..game.num_players() {
                game.legal_moves_of(Player(p as u8), &mut moves);
            }
            let _ = game.rewards();
        }
    }
});
