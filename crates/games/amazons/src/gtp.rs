//! Amazons over GTP, the way Quarry drives Amazons engines: `set_game Amazons`,
//! `boardsize N`, `play white D1-D7-G7` (the arrow may also follow `/` or `x`), and
//! `genmove` answering `D1-D7-G7`. White moves first, so GTP's white is the first player.

use tabula_core::{Game, MoveParseError, Player};
use tabula_gtp::{Color, GtpError, GtpGame, GtpMove};

use crate::{Amazons, Move};

impl GtpGame for Amazons {
    fn gtp_name(&self) -> String {
        "Amazons".to_string()
    }

    fn gtp_board_size(&self) -> Option<u32> {
        (self.width() == self.height()).then_some(self.width() as u32)
    }

    fn gtp_with_board_size(&self, size: u32) -> Result<Self, GtpError> {
        Amazons::new(size as usize).map_err(|_| GtpError::unacceptable_size())
    }

    fn gtp_player(&self, color: Color) -> Player {
        match color {
            Color::White => Player::FIRST,
            Color::Black => Player::SECOND,
        }
    }

    /// Consecutive moves of one colour (GTP v2 allows them; controllers set positions up that
    /// way) hand the turn over: Amazons has no pass.
    fn gtp_hand_over(&self) -> Option<Amazons> {
        let mut after = self.clone();
        after.hand_over();
        Some(after)
    }

    fn parse_gtp_move(&self, text: &str) -> Result<GtpMove<Move>, MoveParseError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("resign") {
            return Ok(GtpMove::Resign);
        }
        if t.eq_ignore_ascii_case("pass") {
            return Ok(GtpMove::Pass);
        }
        // Column letters stop at 'l' (12 files), so an 'x' can only be the arrow separator.
        let normal: String = t.chars().map(|c| if c == 'x' || c == 'X' { '-' } else { c }).collect();
        self.parse_move(&normal).map(GtpMove::Move).map_err(|e| MoveParseError::new(text, e.reason))
    }

    fn format_gtp_move(&self, mv: Move) -> String {
        self.format_move(mv).replace('/', "-").to_ascii_uppercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_search::RandomAgent;

    /// A session on the 10x10 board with a seeded random player.
    fn session(script: &str) -> Vec<String> {
        tabula_gtp::testing::game_session(Amazons::new(10).unwrap(), Box::new(RandomAgent::new(Some(3))), script)
    }

    #[test]
    fn quarry_style_session() {
        let script = "list_games\nset_game Amazons\nboardsize 8\nplay white C1-C7xF7\ngenmove black\nplay black Z9-A1-A2\nboardsize 13\n";
        let replies = session(script);
        assert_eq!(replies[0], "= Amazons");
        assert_eq!(replies[1], "=");
        assert_eq!(replies[2], "=");
        assert_eq!(replies[3], "=", "{replies:?}");
        let mv = replies[4].trim_start_matches("= ");
        assert!(mv.len() >= 8 && mv.matches('-').count() == 2, "{mv}");
        assert!(replies[5].starts_with('?'), "{replies:?}");
        assert!(replies[6].starts_with('?'), "{replies:?}");
    }

    #[test]
    fn a_colour_may_move_twice_in_a_row() {
        // GTP v2: controllers set positions up with consecutive moves of one colour.
        let script = "play black A7-A5-A6\nplay white D1-D5-D6\nplay white G1-G5-G6\ngenmove white\nundo\nundo\nundo\nundo\nundo\n";
        let r = session(script);
        assert_eq!(r[0], "=", "black first, though white starts: {r:?}");
        assert_eq!(r[1], "=", "{r:?}");
        assert_eq!(r[2], "=", "white twice: {r:?}");
        assert!(r[3].starts_with("= ") && r[3].matches('-').count() == 2, "white a third time: {r:?}");
        assert_eq!(&r[4..8], ["=", "=", "=", "="], "{r:?}");
        assert!(r[8].starts_with('?'), "nothing left to undo: {r:?}");
    }

    #[test]
    fn hand_over_keeps_the_position_and_flips_the_side() {
        let g = Amazons::new(10).unwrap();
        let mut h = g.gtp_hand_over().unwrap();
        assert_eq!(h.current_player(), Player::SECOND);
        assert_eq!(h.ply(), g.ply());
        assert_eq!(h.hash(), h.hash_from_scratch());
        h.hand_over();
        assert_eq!(h, g);
        assert_eq!(h.hash(), g.hash());
    }

    #[test]
    fn white_moves_first_and_moves_round_trip() {
        let g = Amazons::new(10).unwrap();
        assert_eq!(g.gtp_player(Color::White), Player::FIRST);
        assert_eq!(g.gtp_color(Player::SECOND), Color::Black);
        let GtpMove::Move(mv) = g.parse_gtp_move("d1-d7/g7").unwrap() else { panic!() };
        assert_eq!(g.format_gtp_move(mv), "D1-D7-G7");
        assert!(matches!(g.parse_gtp_move("D1xD7xG7"), Ok(GtpMove::Move(m)) if m == mv));
        assert!(g.parse_gtp_move("d1-").is_err());
    }
}
