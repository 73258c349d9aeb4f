//! Amazons' SGF records, in the `GM[18]` conventions: points as column and row letters (row
//! `a` at the top), a move as its three points concatenated (from, to, arrow). The start
//! position is always written out (AB/AW/AA), and since White moves first here, `PL[W]`.

use std::fmt::Write as _;

use tabula_core::{Game, Player, RecordView, Spec};
use tabula_sgf::write::escape;

use crate::Amazons;

/// White moves first in tabula's Amazons, so the first player is SGF's white.
fn colour(p: Player) -> char {
    if p == Player::FIRST { 'W' } else { 'B' }
}

/// The SGF record of a finished Amazons game (the registry's [`tabula_core::SgfWriter`]);
/// a move that is not legal where it was played is the error.
pub fn sgf_record(record: &RecordView<'_>) -> Result<String, String> {
    let spec = Spec::parse(record.game).map_err(|e| e.to_string())?;
    let mut game = Amazons::from_spec(&spec).map_err(|e| e.to_string())?;
    let (w, h) = (game.width(), game.height());
    let size = if w == h { w.to_string() } else { format!("{w}:{h}") };
    let point = |index: usize| {
        let (col, row) = (index % (w + 1), index / (w + 1));
        format!("{}{}", (b'a' + col as u8) as char, (b'a' + (h - 1 - row) as u8) as char)
    };
    let mut out = String::new();
    let _ = write!(out, "(;FF[4]GM[18]CA[UTF-8]AP[tabula:{}]SZ[{size}]", env!("CARGO_PKG_VERSION"));
    let _ = write!(out, "GN[{}]", escape(&record.title()));
    if let [white, black, ..] = record.players {
        let _ = write!(out, "PB[{}]PW[{}]", escape(black), escape(white));
    }
    for (prop, bits) in
        [("AW", game.amazons(Player::FIRST)), ("AB", game.amazons(Player::SECOND)), ("AA", game.arrows())]
    {
        let pts: Vec<String> = bits.iter().map(point).collect();
        if !pts.is_empty() {
            let _ = write!(out, "{prop}[{}]", pts.join("]["));
        }
    }
    out.push_str("PL[W]");
    let mut body = String::new();
    for (i, text) in record.moves.iter().enumerate() {
        let mv = game.parse_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        if !game.is_legal(mv) {
            return Err(format!("move {} ({text}) is not legal", i + 1));
        }
        let c = colour(game.current_player());
        let _ =
            write!(body, "\n;{c}[{}{}{}]", point(mv.from().index()), point(mv.to().index()), point(mv.arrow().index()));
        game.play(mv);
    }
    let result = record.ending.sgf_result(colour).unwrap_or_else(|| match game.rewards().winner() {
        Some(p) => format!("{}+", colour(p)),
        None => "0".to_string(),
    });
    let _ = writeln!(out, "RE[{}]{body})", escape(&result));
    Ok(out)
}
