//! Go's SGF records of finished games (`GM[1]`): the writer `printsgf` uses
//! ([`crate::gtp::game_to_sgf`]), with the players, the game's title and the result added.

use tabula_core::{Game, Player, RecordView, Spec};

use crate::Go;

/// Player 0 is Black.
fn colour(p: Player) -> char {
    if p == Player::FIRST { 'B' } else { 'W' }
}

/// The SGF record of a finished Go game (the registry's [`tabula_core::SgfWriter`]); a move
/// that is not legal where it was played is the error.
pub fn sgf_record(record: &RecordView<'_>) -> Result<String, String> {
    let spec = Spec::parse(record.game).map_err(|e| e.to_string())?;
    let start = Go::from_spec(&spec).map_err(|e| e.to_string())?;
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for (i, text) in record.moves.iter().enumerate() {
        let mv = game.parse_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        // Moves after two passes: the game was played out in the cleanup phase.
        if game.is_over() {
            game.resume_for_cleanup();
        }
        moves.push((game.to_move(), mv));
        game.play_checked(mv).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    let mut tree = crate::gtp::sgf_tree(&start, &moves, &game);
    let root = tabula_sgf::NodeId::ROOT;
    if let [black, white, ..] = record.players {
        tree.set_property(root, "PB", &[black]);
        tree.set_property(root, "PW", &[white]);
    }
    tree.set_property(root, "GN", &[&record.title()]);
    let result = record.ending.sgf_result(colour).unwrap_or_else(|| game.score().to_string());
    tree.set_property(root, "RE", &[&result]);
    let mut out = String::new();
    tabula_sgf::write_tree(&tree, &mut out);
    Ok(out)
}
