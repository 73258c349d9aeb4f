//! SGF for Python: game trees read and written by tabula's SGF crate.
//!
//! A tree crosses the boundary flat — its nodes in depth-first order, each with the index
//! of its parent and its properties — so that neither side recurses (a record of thousands
//! of moves is a tree thousands of nodes deep). `tabula.sgf` builds `Node` objects from it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tabula_core::{Ending, RecordView};
use tabula_sgf::{GameTree, Mode, NodeId, NodeRef, ParseOptions};

use crate::State;

/// One node: its parent's index (-1 for the root) and its properties with their values.
type FlatNode = (i64, Vec<(String, Vec<String>)>);

/// Most bytes of SGF read at once (a file, or a position search's record).
pub(crate) const MAX_SGF_BYTES: usize = 64 << 20;

fn flatten(tree: &GameTree) -> Vec<FlatNode> {
    let mut out = Vec::with_capacity(tree.len());
    let mut stack: Vec<(NodeRef<'_>, i64)> = vec![(tree.root(), -1)];
    while let Some((node, parent)) = stack.pop() {
        let index = out.len() as i64;
        let props = node
            .properties()
            .map(|p| (p.ident().to_string(), p.values().map(|v| v.text().to_string()).collect()))
            .collect();
        out.push((parent, props));
        let children: Vec<NodeRef<'_>> = node.children().collect();
        // Pushed last to first, so that the first child (the main line) comes out next.
        for child in children.into_iter().rev() {
            stack.push((child, index));
        }
    }
    out
}

/// Parses SGF text (`str` or `bytes`; bytes are decoded by the file's `CA` or detected
/// charset). Returns the trees, flat, and the deviations found (lenient mode repairs them;
/// `strict=True` makes the first one an error).
#[pyfunction]
#[pyo3(signature = (data, strict=false))]
pub(crate) fn sgf_parse(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    strict: bool,
) -> PyResult<(Vec<Vec<FlatNode>>, Vec<String>)> {
    let bytes: Vec<u8> = match data.extract::<String>() {
        Ok(text) => text.into_bytes(),
        Err(_) => data.extract::<Vec<u8>>().map_err(|_| PyValueError::new_err("SGF data must be str or bytes"))?,
    };
    if bytes.len() > MAX_SGF_BYTES {
        return Err(PyValueError::new_err(format!("{} bytes of SGF is more than {MAX_SGF_BYTES}", bytes.len())));
    }
    let mode = if strict { Mode::Strict } else { Mode::Lenient };
    let collection = py
        .detach(|| tabula_sgf::parse(&bytes, &ParseOptions::new(mode)))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut warnings: Vec<String> = collection.diagnostics.iter().map(|d| d.to_string()).collect();
    if collection.suppressed > 0 {
        warnings.push(format!("{} more deviations", collection.suppressed));
    }
    Ok((collection.games.iter().map(flatten).collect(), warnings))
}

/// Whether `ident` is an SGF property identifier: upper-case letters only.
fn valid_ident(ident: &str) -> bool {
    !ident.is_empty() && ident.len() <= 32 && ident.bytes().all(|b| b.is_ascii_uppercase())
}

/// Writes trees given flat (each node after its parent) as SGF text.
#[pyfunction]
pub(crate) fn sgf_write(trees: Vec<Vec<FlatNode>>) -> PyResult<String> {
    let mut built = Vec::with_capacity(trees.len());
    for (t, flat) in trees.iter().enumerate() {
        let mut tree = GameTree::new();
        let mut ids: Vec<NodeId> = Vec::with_capacity(flat.len());
        for (i, (parent, props)) in flat.iter().enumerate() {
            let id = if i == 0 {
                if *parent != -1 {
                    return Err(PyValueError::new_err(format!("tree {t}: the first node must be the root")));
                }
                tree.root().id()
            } else {
                let parent = usize::try_from(*parent).ok().filter(|&p| p < i).ok_or_else(|| {
                    PyValueError::new_err(format!("tree {t}, node {i}: its parent must come before it"))
                })?;
                tree.add_child(ids[parent])
                    .ok_or_else(|| PyValueError::new_err(format!("tree {t}, node {i}: cannot add a child")))?
            };
            for (ident, values) in props {
                if !valid_ident(ident) {
                    return Err(PyValueError::new_err(format!(
                        "tree {t}, node {i}: {ident:?} is not a property identifier (upper-case letters)"
                    )));
                }
                let values: Vec<&str> = values.iter().map(String::as_str).collect();
                tree.push_property(id, ident, &values);
            }
            ids.push(id);
        }
        built.push(tree);
    }
    Ok(tabula_sgf::write_collection(&built))
}

/// The SGF record of a state's game so far (Go, Othello and Amazons), with `players` as the
/// seats' names; `resigned` names the seat that resigned, if one did.
#[pyfunction]
#[pyo3(signature = (state, players=None, resigned=None))]
pub(crate) fn state_to_sgf(state: &State, players: Option<Vec<String>>, resigned: Option<usize>) -> PyResult<String> {
    let game = &state.game;
    let mut moves = Vec::with_capacity(game.history().len());
    for ply in game.history() {
        match ply.as_slice() {
            [one] => moves.push(one.clone()),
            _ => return Err(PyValueError::new_err("a game with simultaneous turns has no SGF record")),
        }
    }
    let players = players.unwrap_or_else(|| (1..=game.num_players()).map(|i| format!("player {i}")).collect());
    if players.len() != game.num_players() {
        return Err(PyValueError::new_err(format!("{} names for {} players", players.len(), game.num_players())));
    }
    let ending = match resigned {
        Some(seat) if seat < game.num_players() => Ending::Resignation { seat },
        Some(seat) => return Err(PyValueError::new_err(format!("no seat {seat}"))),
        None => Ending::Rules,
    };
    let spec = game.spec();
    let view = RecordView { game: &spec, id: 0, players: &players, moves: &moves, ending };
    match tabula_registry::sgf_record(&view) {
        None => Err(PyValueError::new_err(format!("{spec} has no SGF record; Go, Othello and Amazons have"))),
        Some(Err(e)) => Err(PyValueError::new_err(e)),
        Some(Ok(text)) => Ok(text),
    }
}
