//! Hex over GTP, as HexGui drives MoHex: `boardsize 11 11` (or `boardsize 11`),
//! `play black a1`, `genmove white` answering a cell such as `f6` or `swap-pieces`, `undo`.
//! Black moves first, as in Go, so GTP's black is the first player. `play white swap` and
//! `play white swap-pieces` both play the swap move.
//!
//! HexGui sends the board size as width and height, which the standard `boardsize` does
//! not read; the game registers a `boardsize` that does ([`GtpGame::gtp_commands`]). A colour may
//! move twice in a row (HexGui sets positions up that way, for instance after a swap): the
//! turn is handed over.

use tabula_gtp::protocol::parse_int;
use tabula_gtp::{Command, Ctx, Engine, GameEngine, GtpError, GtpGame, GtpMove};

use crate::{Hex, MAX_SIZE, MIN_SIZE, Move};

impl GtpGame for Hex {
    fn gtp_name(&self) -> String {
        "hex".to_string()
    }

    fn gtp_board_size(&self) -> Option<u32> {
        Some(self.size() as u32)
    }

    fn gtp_with_board_size(&self, size: u32) -> Result<Self, GtpError> {
        let size = size as usize;
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(GtpError::unacceptable_size());
        }
        Hex::new(size, self.swap_rule()).map_err(|_| GtpError::unacceptable_size())
    }

    /// Consecutive moves of one colour hand the turn over: Hex has no pass.
    fn gtp_hand_over(&self) -> Option<Hex> {
        let mut after = self.clone();
        after.hand_over();
        Some(after)
    }

    fn parse_gtp_move(&self, text: &str) -> Result<GtpMove<Move>, tabula_core::MoveParseError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("resign") {
            return Ok(GtpMove::Resign);
        }
        if t.eq_ignore_ascii_case("pass") {
            return Ok(GtpMove::Pass);
        }
        tabula_core::Game::parse_move(self, t).map(GtpMove::Move)
    }

    /// HexGui's `boardsize W H`, replacing the standard one.
    fn gtp_commands(engine: &mut Engine<GameEngine<Hex>>, _start: &Hex) {
        engine.register("boardsize", cmd_boardsize);
    }

    fn format_gtp_move(&self, mv: Move) -> String {
        match mv {
            Move::Swap => "swap-pieces".to_string(),
            Move::Cell(_) => tabula_core::Game::format_move(self, mv),
        }
    }
}

/// `boardsize N` or HexGui's `boardsize W H` (square boards only).
fn cmd_boardsize(g: &mut GameEngine<Hex>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    let sizes = match cmd.args.as_slice() {
        [n] => (parse_int(n)?, parse_int(n)?),
        [w, h] => (parse_int(w)?, parse_int(h)?),
        _ => return Err(GtpError::syntax()),
    };
    if sizes.0 != sizes.1 {
        return Err(GtpError::unacceptable_size());
    }
    let start = g.start().gtp_with_board_size(sizes.0)?;
    g.reset(start);
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{Game, Player};
    use tabula_search::RandomAgent;

    fn session_with(start: Hex, script: &str) -> Vec<String> {
        tabula_gtp::testing::game_session(start, Box::new(RandomAgent::new(Some(5))), script)
    }

    #[test]
    fn hexgui_style_session() {
        let start = Hex::new(11, true).unwrap();
        let r = session_with(
            start,
            "list_games\nboardsize 7 7\nclear_board\nplay black c2\nplay white swap\nshowboard\ngenmove black\nundo\nundo\n\
             play white swap-pieces\nplay black b3\nplay white b3\nplay white z9\nplay white swap\nboardsize 7 8\nboardsize 20 20\n\
             boardsize 5\ngenmove black\nfinal_score\n",
        );
        assert_eq!(r[0], "= hex");
        assert_eq!(r[1], "=", "{r:?}");
        assert_eq!(r[2], "=");
        assert_eq!(r[3], "=");
        assert_eq!(r[4], "=", "swap after Black's first stone: {r:?}");
        assert!(r[5].contains('W') && !r[5].contains('B'), "c2 became White's b3: {r:?}");
        let mv = r[6].trim_start_matches("= ");
        assert!(mv.len() >= 2 && mv != "b3" && mv != "swap-pieces", "a free cell of 7x7: {r:?}");
        assert_eq!(r[7], "=", "{r:?}");
        assert_eq!(r[8], "=", "{r:?}");
        assert_eq!(r[9], "=", "swap-pieces is the same move: {r:?}");
        assert!(r[10].starts_with("? illegal move"), "b3 holds White's swapped stone: {r:?}");
        assert!(r[11].starts_with("? illegal move"), "{r:?}");
        assert!(r[12].starts_with('?'), "z9 is off the board: {r:?}");
        assert!(r[13].starts_with("? illegal move"), "swap only answers the first stone: {r:?}");
        assert!(r[14].starts_with('?'), "rectangles are refused: {r:?}");
        assert!(r[15].starts_with('?'), "20x20 is refused: {r:?}");
        assert_eq!(r[16], "=", "{r:?}");
        assert!(r[17].starts_with("= "), "{r:?}");
        assert!(r[18].starts_with('?'), "no score before the end: {r:?}");
    }

    #[test]
    fn the_engine_plays_swap_pieces_and_games_to_the_end() {
        // On 2x2 a game lasts three or four plies; genmove after the end answers pass.
        let r = session_with(
            Hex::new(2, false).unwrap(),
            "genmove black\ngenmove white\ngenmove black\ngenmove white\ngenmove black\nfinal_score\n",
        );
        assert!(r.iter().take(3).all(|a| a.starts_with("= ") && a.len() == 4), "cells: {r:?}");
        assert!(r.iter().any(|a| a == "= B+1" || a == "= W+1"), "a finished game is scored: {r:?}");
    }

    #[test]
    fn a_colour_may_move_twice_in_a_row() {
        // HexGui replays a position stone by stone after a swap: White first on an empty board.
        let r = session_with(
            Hex::new(5, false).unwrap(),
            "play white c3\nplay white d3\ngenmove white\nundo\nundo\nundo\nundo\n",
        );
        assert_eq!(&r[0..2], ["=", "="], "{r:?}");
        assert!(r[2].starts_with("= "), "{r:?}");
        assert_eq!(&r[3..6], ["=", "=", "="], "{r:?}");
        assert!(r[6].starts_with('?'), "nothing left to undo: {r:?}");
    }

    #[test]
    fn moves_and_colours_round_trip() {
        let g = Hex::new(11, true).unwrap();
        assert_eq!(g.gtp_player(tabula_gtp::Color::Black), Player::FIRST);
        let GtpMove::Move(mv) = g.parse_gtp_move("K11").unwrap() else { panic!() };
        assert_eq!(g.format_gtp_move(mv), "k11");
        assert_eq!(g.parse_gtp_move("swap-pieces").unwrap(), GtpMove::Move(Move::Swap));
        assert_eq!(g.parse_gtp_move("SWAP").unwrap(), GtpMove::Move(Move::Swap));
        assert_eq!(g.format_gtp_move(Move::Swap), "swap-pieces");
        assert_eq!(g.parse_gtp_move("resign").unwrap(), GtpMove::Resign);
        assert!(g.parse_gtp_move("l1").is_err());
        let mut h = g.gtp_hand_over().unwrap();
        assert_eq!(h.current_player(), Player::SECOND);
        assert_eq!(h.hash(), h.hash_from_scratch());
        h.hand_over();
        assert_eq!(h, g);
    }
}
