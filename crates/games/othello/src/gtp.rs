//! Othello over GTP, the way Quarry and GRhino use it: `list_games` answers `Othello`,
//! `boardsize 8` (or 10, or any even size 4..=10), `play black D3`, `genmove white`, and a
//! colour with no move plays (and answers) `pass`. Black moves first.

use tabula_core::{Game, Player};
use tabula_gtp::{GtpError, GtpGame};

use crate::{Move, Othello};

impl GtpGame for Othello {
    fn gtp_name(&self) -> String {
        "Othello".to_string()
    }

    fn gtp_board_size(&self) -> Option<u32> {
        let (w, h) = (self.width(), self.height());
        (w == h).then_some(w as u32)
    }

    fn gtp_with_board_size(&self, size: u32) -> Result<Self, GtpError> {
        Othello::new(size as usize, size as usize, &[]).map_err(|_| GtpError::unacceptable_size())
    }

    /// Consecutive moves of one colour (GTP v2 allows them; controllers set positions up that
    /// way) hand the turn over: a pass is legal in Othello only for a side with no move.
    fn gtp_hand_over(&self) -> Option<Othello> {
        let mut after = self.clone();
        after.hand_over();
        Some(after)
    }

    fn format_gtp_move(&self, mv: Move) -> String {
        self.format_move(mv).to_ascii_uppercase().replace("PASS", "pass")
    }

    fn gtp_final_score(&self) -> Result<String, GtpError> {
        if !self.is_over() {
            return Err(GtpError::new("cannot score"));
        }
        let diff = self.final_score(Player::FIRST);
        Ok(match diff {
            0 => "0".to_string(),
            d if d > 0 => format!("B+{d}"),
            d => format!("W+{}", -d),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_search::RandomAgent;

    fn session(script: &str) -> Vec<String> {
        session_from(Othello::standard(), script)
    }

    #[test]
    fn grhino_style_session() {
        let r = session(
            "list_games\nset_game Othello\nboardsize 8\nplay black D3\ngenmove white\nplay black A1\nboardsize 7\nboardsize 10\nplay b e4\nundo\nfinal_score\n",
        );
        assert_eq!(r[0], "= Othello");
        assert_eq!(r[1], "=");
        assert_eq!(r[2], "=");
        assert_eq!(r[3], "=");
        let mv = r[4].trim_start_matches("= ");
        assert!(["C3", "E3", "C5"].contains(&mv), "white's replies to d3: {mv}");
        assert!(r[5].starts_with("? illegal move"), "{r:?}");
        assert!(r[6].starts_with('?'), "odd sizes are refused: {r:?}");
        assert_eq!(r[7], "=");
        assert_eq!(r[8], "=", "e4 opens on 10x10: {r:?}");
        assert_eq!(r[9], "=");
        assert!(r[10].starts_with('?'), "no score before the end: {r:?}");
    }

    fn session_from(start: Othello, script: &str) -> Vec<String> {
        tabula_gtp::testing::game_session(start, Box::new(RandomAgent::new(Some(5))), script)
    }

    #[test]
    fn a_colour_with_no_move_passes_and_the_game_is_scored() {
        // Black a1, white b1, white to move: white has no move, black then takes c1 and
        // wipes white out.
        let start = Othello::from_board(&format!("XO{}", "-".repeat(62)), Player(1)).unwrap();
        let r = session_from(
            start,
            "genmove white\nplay white c1\ngenmove black\nfinal_score\nundo\nundo\nplay white pass\nplay black c1\nfinal_score\n",
        );
        assert_eq!(r[0], "= pass", "{r:?}");
        assert!(r[1].starts_with("? illegal move"), "white cannot play c1: {r:?}");
        assert_eq!(r[2], "= C1", "{r:?}");
        assert_eq!(r[3], "= B+64", "{r:?}");
        assert_eq!(r[4], "=");
        assert_eq!(r[5], "=");
        assert_eq!(r[6], "=", "an explicit pass is accepted: {r:?}");
        assert_eq!(r[7], "=");
        assert_eq!(r[8], "= B+64");
    }

    #[test]
    fn time_commands_and_bad_input_get_answers() {
        let r = session(
            "time_settings 300 0 0\ntime_left black 120 0\ngenmove black\nplay black Z9\nplay purple D3\nplay black\nplay black K11\nboardsize x\nboardsize 12\nplay white D3\nplay white pass\n",
        );
        assert_eq!(r[0], "=", "{r:?}");
        assert_eq!(r[1], "=", "{r:?}");
        let mv = r[2].trim_start_matches("= ");
        assert!(["D3", "C4", "F5", "E6"].contains(&mv), "black's openings: {mv}");
        for (i, answer) in r.iter().enumerate().skip(3) {
            assert!(answer.starts_with('?'), "command {i} must fail: {r:?}");
            assert!(answer.len() > 2, "command {i} needs a reason: {r:?}");
        }
    }

    #[test]
    fn a_colour_may_move_twice_in_a_row() {
        // GTP v2: controllers set positions up with consecutive moves of one colour. After
        // black d3 and white c3, white e3 (through e4 to e5) is legal once handed the turn.
        let r = session(
            "play black D3\nplay white C3\nplay white E3\ngenmove white\nundo\nundo\nundo\nundo\nundo\nplay white D3\nplay white E3\n",
        );
        assert_eq!(r[0], "=", "{r:?}");
        assert_eq!(r[1], "=", "{r:?}");
        assert_eq!(r[2], "=", "white moves twice: {r:?}");
        assert!(r[3].starts_with("= "), "and a third time: {r:?}");
        assert_eq!(&r[4..8], ["=", "=", "=", "="], "{r:?}");
        assert!(r[8].starts_with("? cannot undo"), "four moves were played: {r:?}");
        assert!(r[9].starts_with("? illegal move"), "d3 flips nothing for white at the start: {r:?}");
        assert_eq!(r[10], "=", "white may open when handed the turn: {r:?}");
    }

    #[test]
    fn hand_over_keeps_the_discs_and_flips_the_side() {
        let g = Othello::standard();
        let mut h = g.gtp_hand_over().unwrap();
        assert_eq!(h.current_player(), Player::SECOND);
        assert_eq!(h.ply(), g.ply());
        assert_ne!(h.hash(), g.hash());
        assert_eq!(h.hash(), h.hash_from_scratch());
        h.hand_over();
        assert_eq!(h, g);
    }

    #[test]
    fn finished_games_are_scored_by_disc_difference() {
        // Play random games to the end through the engine and compare with the rules.
        let mut g = Othello::standard();
        let mut rng = tabula_core::Rng::new(9);
        let mut moves = Vec::new();
        while !g.is_over() {
            g.legal_moves(&mut moves);
            g.play(moves[rng.below(moves.len())]);
        }
        let text = g.gtp_final_score().unwrap();
        let d = g.final_score(Player::FIRST);
        let expected = if d == 0 {
            "0".into()
        } else if d > 0 {
            format!("B+{d}")
        } else {
            format!("W+{}", -d)
        };
        assert_eq!(text, expected);
    }
}
