//! SGF records of the page's games: saving one with the registry's writer (the arena's), and
//! loading one by replaying its main line.
//!
//! Loading reads the tree with `tabula-sgf` and turns each `B`/`W` point into the game's own
//! move text, so a record is replayed through the same rules as a move played on the board:
//! a file that names a game the page cannot build, sets up a different start position, or
//! holds a move the rules refuse is an error naming what is wrong, never a half-loaded game.

use tabula_core::{Ending, RecordView, Spec};
use tabula_registry::any::{AnyGame, load};
use tabula_sgf::{GameTree, NodeRef};

/// Most bytes of an SGF file the page may load.
pub const MAX_SGF: usize = 1024 * 1024;

/// Most moves replayed from a file.
const MAX_MOVES: usize = 10_000;

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

/// A record read back: the game at its start and the moves of its main line, in the game's
/// notation.
pub struct Loaded {
    pub start: AnyGame,
    pub moves: Vec<String>,
}

/// Reads an SGF file's first game and turns its main line into moves of the game it names;
/// the moves are checked by the caller as it plays them.
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
    let mut moves = Vec::new();
    for (i, node) in tree.main_line().enumerate() {
        let (colour, value) = match (node.first_value("B"), node.first_value("W")) {
            (Some(_), Some(_)) => return Err(format!("node {i} has both a black and a white move")),
            (Some(v), None) => ('B', v.text()),
            (None, Some(v)) => ('W', v.text()),
            (None, None) if i > 0 && ["AB", "AW", "AE", "AA"].iter().any(|p| node.has(p)) => {
                return Err(format!("node {i} changes the board outside the moves"));
            }
            (None, None) => continue,
        };
        if moves.len() >= MAX_MOVES {
            return Err(format!("the main line has more than {MAX_MOVES} moves"));
        }
        let mv = move_text(name, value, w, h)
            .ok_or_else(|| format!("move {} ({colour}[{value}]) is not a point of a {w}x{h} board", moves.len() + 1))?;
        moves.push(mv);
    }
    Ok(Loaded { start, moves })
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
        for mv in &loaded.moves {
            game.play_move(mv).unwrap_or_else(|e| panic!("{spec}: {mv}: {e}"));
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
