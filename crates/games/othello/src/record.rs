//! Othello's SGF records (`GM[2]`): the start position as set-up stones (blocked squares of
//! a variant board named in a comment), then one node per move, Black first.

use std::fmt::Write as _;

use tabula_core::{Game, Player, RecordView, Spec};
use tabula_sgf::write::escape;

use crate::Othello;

/// Black moves first: the first player is SGF's black.
fn colour(p: Player) -> char {
    if p == Player::FIRST { 'B' } else { 'W' }
}

/// The SGF record of a finished Othello game (the registry's [`tabula_core::SgfWriter`]);
/// a move that is not legal where it was played is the error.
pub fn sgf_record(record: &RecordView<'_>) -> Result<String, String> {
    let spec = Spec::parse(record.game).map_err(|e| e.to_string())?;
    let mut game = Othello::from_spec(&spec).map_err(|e| e.to_string())?;
    let (w, h) = (game.width(), game.height());
    let size = if w == h { w.to_string() } else { format!("{w}:{h}") };
    let mut out = String::new();
    let _ = write!(out, "(;FF[4]GM[2]CA[UTF-8]AP[tabula:{}]SZ[{size}]", env!("CARGO_PKG_VERSION"));
    let _ = write!(out, "GN[{}]", escape(&record.title()));
    if let [black, white, ..] = record.players {
        let _ = write!(out, "PB[{}]PW[{}]", escape(black), escape(white));
    }
    // Set-up: the start discs (and, as a comment, any blocked squares).
    let cells: Vec<char> = game.board_text().chars().filter(|c| !c.is_whitespace()).collect();
    let point = |i: usize| format!("{}{}", (b'a' + (i % w) as u8) as char, (b'a' + (i / w) as u8) as char);
    for (prop, mark) in [("AB", 'X'), ("AW", 'O')] {
        let pts: Vec<String> = (0..cells.len()).filter(|&i| cells[i] == mark).map(point).collect();
        if !pts.is_empty() {
            let _ = write!(out, "{prop}[{}]", pts.join("]["));
        }
    }
    let blocked: Vec<String> = (0..cells.len()).filter(|&i| cells[i] == '#').map(point).collect();
    if !blocked.is_empty() {
        let _ = write!(out, "C[blocked squares: {}]", blocked.join(" "));
    }
    let mut body = String::new();
    for (i, text) in record.moves.iter().enumerate() {
        let mv = game.parse_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        if !game.is_legal(mv) {
            return Err(format!("move {} ({text}) is not legal", i + 1));
        }
        let c = colour(game.current_player());
        let written = game.format_move(mv);
        let value = if written == "pass" {
            String::new()
        } else {
            let b = written.as_bytes();
            let col = (b[0] - b'a') as usize;
            let row: usize = written[1..].parse().map_err(|_| format!("move {}: {written}", i + 1))?;
            point((row - 1) * w + col)
        };
        let _ = write!(body, "\n;{c}[{value}]");
        game.play(mv);
    }
    let result = record.ending.sgf_result(colour).unwrap_or_else(|| match game.final_score(Player::FIRST) {
        0 => "0".to_string(),
        d if d > 0 => format!("B+{d}"),
        d => format!("W+{}", -d),
    });
    let _ = writeln!(out, "RE[{}]{body})", escape(&result));
    Ok(out)
}
