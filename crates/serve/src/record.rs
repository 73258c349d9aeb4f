//! SGF records of the page's games: saving one (the root and its properties from the registry's
//! writer, the arena's; the whole tree of moves with its variations and comments added), and
//! loading one with its variations and comments.
//!
//! Loading reads the tree with `tabula-sgf` and turns each `B`/`W` point into the game's own
//! move text, so a record is replayed through the same rules as a move played on the board
//! ([`crate::tree::Tree::build`]): a file that names a game the page cannot build, sets up a
//! different start position, or holds a move the rules refuse is an error naming what is
//! wrong, never a half-loaded game. Both directions walk the tree with loops, never recursion.

use tabula_core::{Ending, RecordView, Spec};
use tabula_registry::any::{AnyGame, load};
use tabula_sgf::{GameTree, NodeId, NodeRef};

use crate::tree::{Item, MAX_NODES, Tree};

/// Most bytes of an SGF file the page may load.
pub const MAX_SGF: usize = 1024 * 1024;

/// The games with an SGF form: their name and SGF `GM` number.
const GAMES: &[(&str, u32)] = &[("go", 1), ("othello", 2), ("amazons", 18)];

/// The SGF text of a game: its spec, the seats' names, its moves and how it ended.
pub fn save(spec: &str, players: &[String], moves: &[String], ending: Ending) -> Result<String, String> {
    let view = RecordView { game: spec, id: 0, players, moves, ending };
    match tabula_registry::sgf_record(&view) {
        Some(result) => result,
        None => Err(format!("{spec} has no SGF form (go, othello and amazons have)")),
    }
}

/// The SGF text of a game's whole tree: the root as the game's writer writes the main line
/// (first children) with `ending`, then every node with its move and comment (`C`).
pub fn save_tree(spec: &str, players: &[String], tree: &Tree, ending: Ending) -> Result<String, String> {
    let main: Vec<String> =
        tree.main_line()[1..].iter().filter_map(|&n| tree.node(n).map(|node| node.mv.clone())).collect();
    let text = save(spec, players, &main, ending)?;
    let written = tabula_sgf::parse_lenient(text.as_bytes()).map_err(|e| format!("{spec}: {e}"))?;
    let root = written.games.first().ok_or("the game's record is empty")?.root();
    let name = Spec::parse(spec).map_err(|e| e.to_string())?.name;
    let start = load(spec).map_err(|e| e.to_string())?;
    let (w, h) = start.board_shape().map(|s| (s.width, s.height)).ok_or(format!("{spec} has no board"))?;
    let mut out = GameTree::new();
    for p in root.properties() {
        let values: Vec<(&str, Option<&str>)> = p.values().map(|v| v.parts()).collect();
        if p.ident() == "C" {
            continue;
        }
        out.push_property_parts(NodeId::ROOT, p.ident(), &values);
    }
    let mut root_comment: Vec<&str> = match root.get("C") {
        Some(p) => p.values().map(|v| v.text()).collect(),
        None => Vec::new(),
    };
    let own = tree.node(0).map(|n| n.comment.as_str()).unwrap_or_default();
    if !own.is_empty() {
        root_comment.push(own);
    }
    if !root_comment.is_empty() {
        out.push_property_parts(NodeId::ROOT, "C", &[(&root_comment.join("\n\n"), None)]);
    }
    // Player 0 is Black, except in Amazons, where White moves first.
    let colour = |p: usize| if (p == 0) == (name == "amazons") { "W" } else { "B" };
    let mut stack = vec![(0usize, NodeId::ROOT)];
    while let Some((n, at)) = stack.pop() {
        let Some(node) = tree.node(n) else { continue };
        let from = stack.len();
        for &c in &node.children {
            let Some(child) = tree.node(c) else { continue };
            let value = sgf_value(&name, &child.mv, w, h).ok_or_else(|| format!("{} has no SGF form", child.mv))?;
            let id = out.add_child(at).ok_or("the record's tree lost a node")?;
            out.push_property_parts(id, colour(child.player.unwrap_or_default()), &[(&value, None)]);
            if !child.comment.is_empty() {
                out.push_property_parts(id, "C", &[(&child.comment, None)]);
            }
            stack.push((c, id));
        }
        // The first child is written out first.
        stack[from..].reverse();
    }
    let mut text = String::new();
    tabula_sgf::write_tree(&out, &mut text);
    Ok(text)
}

/// A record read back: the game at its start, the start's comment, and every node with a
/// move (in the game's notation), its parent before it, and its comment.
pub struct Loaded {
    pub start: AnyGame,
    pub root_comment: String,
    pub items: Vec<Item>,
}

/// Reads an SGF file's first game and turns its tree into moves of the game it names; the
/// moves are checked by [`Tree::build`] as it plays them.
pub fn load_sgf(text: &str) -> Result<Loaded, String> {
    if text.len() > MAX_SGF {
        return Err(format!("the file is larger than {MAX_SGF} bytes"));
    }
    let collection = tabula_sgf::parse_lenient(text.as_bytes()).map_err(|e| format!("not SGF: {e}"))?;
    let tree = collection.games.first().ok_or("the file holds no game")?;
    let gm = tree.game_type();
    let Some(&(name, _)) = GAMES.iter().find(|g| g.1 == gm) else {
        return Err(format!("GM[{gm}] is not a game the page plays from SGF (go 1, othello 2, amazons 18)"));
    };
    let spec = spec_of(tree, name)?;
    let start = load(&spec).map_err(|e| format!("{spec}: {e}"))?;
    let (w, h) = match start.board_shape() {
        Some(s) => (s.width, s.height),
        None => return Err(format!("{spec} has no board")),
    };
    let (fw, fh) = tree.checked_board_size()?;
    if (fw as usize, fh as usize) != (w, h) {
        return Err(format!("the file's board is {fw}x{fh}, {spec}'s is {w}x{h}"));
    }
    // The start position the file sets up must be the game's own: compare with what the
    // game's writer puts in the root of an empty record.
    let empty = save(&spec, &[], &[], Ending::Rules)?;
    let own = tabula_sgf::parse_lenient(empty.as_bytes()).map_err(|e| format!("{spec}: {e}"))?;
    let own_root = own.games.first().ok_or("the game's own record is empty")?.root();
    if setup(tree.root()) != setup(own_root) {
        return Err(format!("the file's setup stones differ from {spec}'s start position"));
    }
    let text_of = |node: NodeRef<'_>| -> String {
        node.get("C").map(|p| p.values().map(|v| v.text()).collect::<Vec<_>>().join("\n")).unwrap_or_default()
    };
    let mut root_comment = text_of(tree.root());
    let mut items: Vec<Item> = Vec::new();
    // Each SGF node with the item it hangs under (0: the start) and its depth in moves;
    // a node without a move hands its children and its comment to that item.
    let mut stack: Vec<(NodeRef<'_>, usize, usize)> = tree.root().children().map(|c| (c, 0, 0)).collect();
    stack.reverse();
    let mut seen = 0usize;
    while let Some((node, parent, depth)) = stack.pop() {
        seen += 1;
        if seen > 4 * MAX_NODES {
            return Err(format!("the file has more than {} nodes", 4 * MAX_NODES));
        }
        let i = node.id().0;
        let (colour, value) = match (node.first_value("B"), node.first_value("W")) {
            (Some(_), Some(_)) => return Err(format!("node {i} has both a black and a white move")),
            (Some(v), None) => (Some('B'), v.text()),
            (None, Some(v)) => (Some('W'), v.text()),
            (None, None) if ["AB", "AW", "AE", "AA"].iter().any(|p| node.has(p)) => {
                return Err(format!("node {i} changes the board outside the moves"));
            }
            (None, None) => (None, ""),
        };
        let comment = text_of(node);
        let (here, depth) = match colour {
            Some(colour) => {
                if items.len() + 1 >= MAX_NODES {
                    return Err(format!("the file has more than {MAX_NODES} moves"));
                }
                let mv = move_text(name, value, w, h).ok_or_else(|| {
                    format!("move {} ({colour}[{value}]) is not a point of a {w}x{h} board", depth + 1)
                })?;
                items.push(Item { parent, mv, comment });
                (items.len(), depth + 1)
            }
            None => {
                if !comment.is_empty() {
                    let to = if parent == 0 { &mut root_comment } else { &mut items[parent - 1].comment };
                    if !to.is_empty() {
                        to.push('\n');
                    }
                    to.push_str(&comment);
                }
                (parent, depth)
            }
        };
        let at = stack.len();
        stack.extend(node.children().map(|c| (c, here, depth)));
        stack[at..].reverse();
    }
    Ok(Loaded { start, root_comment, items })
}

/// The game's spec: the one in the record's name (`go(size=9) game 1`, as the writers name
/// games) when it names this game, else built from the size (and for Go the komi).
fn spec_of(tree: &GameTree, name: &str) -> Result<String, String> {
    let root = tree.root();
    if let Some(gn) = root.first_value("GN")
        && let Some((spec, _)) = gn.text().rsplit_once(" game ")
        && let Ok(parsed) = Spec::parse(spec)
        && parsed.name == name
        && parsed.params.iter().all(|(k, _)| !["file", "weights", "cmd"].contains(&k.as_str()))
    {
        return Ok(spec.to_string());
    }
    let (w, h) = tree.checked_board_size()?;
    let size = if w == h { format!("size={w}") } else { format!("width={w},height={h}") };
    let komi = root.first_value("KM").and_then(|k| k.text().trim().parse::<f64>().ok());
    Ok(match komi {
        Some(k) if name == "go" && k.is_finite() && k.abs() <= 1000.0 => format!("go({size},komi={k})"),
        _ => format!("{name}({size})"),
    })
}

/// The root's setup: the points of each of `AB`, `AW` and `AA`, sorted.
fn setup(root: NodeRef<'_>) -> Vec<Vec<String>> {
    ["AB", "AW", "AA"]
        .iter()
        .map(|p| {
            let mut pts: Vec<String> =
                root.get(p).map(|prop| prop.values().map(|v| v.text().to_string()).collect()).unwrap_or_default();
            pts.sort();
            pts
        })
        .collect()
}

/// An SGF coordinate letter as a 0-based index (`a`..`z`, then `A`..`Z`).
fn coord(c: u8) -> Option<usize> {
    match c {
        b'a'..=b'z' => Some((c - b'a') as usize),
        b'A'..=b'Z' => Some((c - b'A') as usize + 26),
        _ => None,
    }
}

/// An SGF point (`xy`, row `a` at the top) as column and row counted from the top.
fn point(text: &str, w: usize, h: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let (x, y) = (coord(*b.first()?)?, coord(*b.get(1)?)?);
    (x < w && y < h).then_some((x, y))
}

/// A move's SGF value as the game's move text.
fn move_text(game: &str, value: &str, w: usize, h: usize) -> Option<String> {
    let value = value.trim();
    match game {
        "go" => {
            if value.is_empty() || (value == "tt" && w <= 19) {
                return Some("pass".into());
            }
            const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
            let (x, y) = point(value, w, h).filter(|_| value.len() == 2)?;
            Some(format!("{}{}", *COLUMNS.get(x)? as char, h - y))
        }
        "othello" => {
            if value.is_empty() {
                return Some("pass".into());
            }
            let (x, y) = point(value, w, h).filter(|_| value.len() == 2)?;
            Some(format!("{}{}", (b'a' + x as u8) as char, y + 1))
        }
        "amazons" => {
            if value.len() != 6 {
                return None;
            }
            let mut out = String::new();
            for (i, sep) in ["", "-", "/"].iter().enumerate() {
                let (x, y) = point(value.get(2 * i..2 * i + 2)?, w, h)?;
                out.push_str(sep);
                out.push((b'a' + x as u8) as char);
                out.push_str(&(h - y).to_string());
            }
            Some(out)
        }
        _ => None,
    }
}

/// A 0-based index as an SGF coordinate letter.
fn letter(i: usize) -> Option<char> {
    match i {
        0..=25 => Some((b'a' + i as u8) as char),
        26..=51 => Some((b'A' + (i - 26) as u8) as char),
        _ => None,
    }
}

/// A square's name (`c7`, column letter then row number from the bottom when `from_bottom`,
/// else from the top) as an SGF point.
fn square(text: &str, columns: &[u8], from_bottom: bool, w: usize, h: usize) -> Option<String> {
    let mut chars = text.chars();
    let c = chars.next()?.to_ascii_uppercase();
    let x = columns.iter().position(|&l| l as char == c)?;
    let row: usize = chars.as_str().parse().ok()?;
    if x >= w || row == 0 || row > h {
        return None;
    }
    let y = if from_bottom { h - row } else { row - 1 };
    Some(format!("{}{}", letter(x)?, letter(y)?))
}

/// A move in the game's notation as its SGF value (the inverse of [`move_text`]).
fn sgf_value(game: &str, mv: &str, w: usize, h: usize) -> Option<String> {
    const GO: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    const PLAIN: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if mv.eq_ignore_ascii_case("pass") && game != "amazons" {
        return Some(String::new());
    }
    match game {
        "go" => square(mv, GO, true, w, h),
        "othello" => square(mv, PLAIN, false, w, h),
        "amazons" => {
            let (from, rest) = mv.split_once('-')?;
            let (to, arrow) = rest.split_once('/')?;
            let mut out = String::new();
            for s in [from, to, arrow] {
                out.push_str(&square(s, PLAIN, true, w, h)?);
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `plies` moves (each the middle legal one, after the `first` given), saves the
    /// game, loads it back and replays it.
    fn round_trip(spec: &str, first: &[&str], plies: usize) {
        let mut game = load(spec).unwrap();
        for mv in first {
            game.play_move(mv).unwrap();
        }
        while game.history().len() < first.len() + plies {
            let tabula_core::Turn::Player(p) = game.turn() else { break };
            let legal = game.legal_moves(p.index());
            game.play_move(&legal[legal.len() / 2]).unwrap();
        }
        let moves: Vec<String> = game.history().iter().flatten().cloned().collect();
        assert!(moves.len() >= first.len() + plies.min(4), "{spec}: {moves:?}");
        let players = ["human".to_string(), "random".to_string()];
        let text = save(spec, &players, &moves, Ending::Rules).unwrap();
        let loaded = load_sgf(&text).unwrap_or_else(|e| panic!("{spec}: {e}\n{text}"));
        assert_eq!(loaded.start.spec(), load(spec).unwrap().spec());
        let mut game = loaded.start.clone();
        for (i, item) in loaded.items.iter().enumerate() {
            assert_eq!(item.parent, i, "{spec}: one line");
            game.play_move(&item.mv).unwrap_or_else(|e| panic!("{spec}: {}: {e}", item.mv));
        }
        let played: Vec<String> = game.history().iter().flatten().cloned().collect();
        assert_eq!(played, moves, "{spec}\n{text}");
    }

    #[test]
    fn records_load_back_to_the_same_moves() {
        round_trip("go(size=9,komi=6.5)", &["C3", "G7", "pass", "J1"], 6);
        round_trip("go(size=19)", &["A1", "T19"], 0);
        round_trip("othello(size=6)", &[], 8);
        round_trip("othello(width=8,height=6)", &[], 8);
        round_trip("amazons(size=6)", &[], 6);
        round_trip("amazons(width=7,height=5)", &[], 4);
    }

    /// A tree of `spec` (a main line of six moves, a variation at the second move with a
    /// line of its own, comments on the start and on the variation) saved and loaded back.
    fn tree_round_trip(spec: &str) {
        let start = load(spec).unwrap();
        let middle = |g: &AnyGame, k: usize| {
            let tabula_core::Turn::Player(p) = g.turn() else { panic!("{spec}: over") };
            let legal = g.legal_moves(p.index());
            legal[(legal.len() / 2 + k) % legal.len()].clone()
        };
        let mut items = Vec::new();
        let mut game = start.clone();
        for i in 0..6 {
            let mv = middle(&game, 0);
            game.play_move(&mv).unwrap();
            items.push(Item { parent: i, mv, comment: String::new() });
        }
        let mut game = start.clone();
        game.play_move(&items[0].mv).unwrap();
        for (i, k) in [1, 0, 0].into_iter().enumerate() {
            let mv = middle(&game, k);
            game.play_move(&mv).unwrap();
            let parent = if i == 0 { 1 } else { items.len() };
            let comment = if i == 0 { "another try: a ] and a \\".to_string() } else { String::new() };
            items.push(Item { parent, mv, comment });
        }
        let tree = Tree::build(&start, "from the start", &items).unwrap();
        let players = ["human".to_string(), "human".to_string()];
        let text = save_tree(spec, &players, &tree, Ending::Rules).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let loaded = load_sgf(&text).unwrap_or_else(|e| panic!("{spec}: {e}\n{text}"));
        assert_eq!(loaded.items, items, "{spec}\n{text}");
        assert!(loaded.root_comment.ends_with("from the start"), "{spec}: {}", loaded.root_comment);
        let back = Tree::build(&loaded.start, &loaded.root_comment, &loaded.items).unwrap();
        assert_eq!(back.len(), 10);
        // The main line is the first children, as written by the game's own writer.
        let main: Vec<String> = items[..6].iter().map(|i| i.mv.clone()).collect();
        assert_eq!(text, save_tree(spec, &players, &back, Ending::Rules).unwrap());
        assert!(text.starts_with(&save(spec, &players, &main, Ending::Rules).unwrap()[..20]));
    }

    #[test]
    fn trees_with_variations_and_comments_load_back_the_same() {
        tree_round_trip("go(size=9,komi=6.5)");
        tree_round_trip("go(size=19)");
        tree_round_trip("othello(size=6)");
        tree_round_trip("othello(width=8,height=6)");
        tree_round_trip("amazons(size=6)");
        tree_round_trip("amazons(width=7,height=5)");
    }

    #[test]
    fn files_that_cannot_be_replayed_are_refused() {
        let err = |text: &str| load_sgf(text).err().unwrap_or_default();
        assert!(err("not sgf").contains("SGF"), "{}", err("not sgf"));
        assert!(err("(;GM[3]SZ[8])").contains("GM[3]"));
        assert!(err("(;GM[1]SZ[9];B[zz])").contains("move 1"));
        assert!(err("(;GM[1]SZ[9]AB[aa];B[cc])").contains("setup"));
        assert!(err("(;GM[1]SZ[9];B[aa]W[bb])").contains("both"));
        let big = format!("(;GM[1]SZ[9]C[{}])", "x".repeat(MAX_SGF));
        assert!(err(&big).contains("larger"));
        // A named spec that loads a file is not taken from the record.
        let spec = spec_of(&tabula_sgf::parse_lenient(b"(;GM[1]SZ[9]GN[go(file=x) game 1])").unwrap().games[0], "go");
        assert_eq!(spec.unwrap(), "go(size=9)");
    }
}
