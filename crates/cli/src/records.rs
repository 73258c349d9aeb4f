//! Game records written by `tabula match` and `tabula tourney`: SGF (`FF[4]`) for Go
//! (`GM[1]`), Othello (`GM[2]`) and Amazons (`GM[18]`), which GUIs and other programs read (GNU Go's
//! `loadsgf`), and the arena's plain text format for every other game.

use std::fmt::Write as _;
use std::path::Path;

use tabula_arena::{GameRecord, Termination, write_text_record};
use tabula_core::{Game, Player, Spec};

/// Writes `record` into `dir` as `game-NNNN.sgf` when the game has an SGF form, else as
/// `game-NNNN.txt`. Errors are reported, never fatal: a record must not stop a match.
pub fn write(dir: &Path, record: &GameRecord) {
    let stem = format!("game-{:04}", record.id + 1);
    let result = match sgf(record) {
        Some(Ok(text)) => std::fs::write(dir.join(format!("{stem}.sgf")), text),
        Some(Err(e)) => {
            eprintln!("warning: game {}: no SGF record ({e}); writing text", record.id + 1);
            text(dir, &stem, record)
        }
        None => text(dir, &stem, record),
    };
    if let Err(e) = result {
        eprintln!("warning: cannot write the record of game {} in {}: {e}", record.id + 1, dir.display());
    }
}

/// Writes `record` to `path`: SGF when the game has an SGF form, else the arena's text
/// record; returns which ("SGF" or "text").
pub fn write_file(path: &Path, record: &GameRecord) -> std::io::Result<&'static str> {
    match sgf(record) {
        Some(Ok(text)) => std::fs::write(path, text).map(|()| "SGF"),
        _ => {
            let mut f = std::fs::File::create(path)?;
            write_text_record(record, &mut f).map(|()| "text")
        }
    }
}

fn text(dir: &Path, stem: &str, record: &GameRecord) -> std::io::Result<()> {
    let mut f = std::fs::File::create(dir.join(format!("{stem}.txt")))?;
    write_text_record(record, &mut f)
}

/// The SGF text of a record, for games that have one.
pub fn sgf(record: &GameRecord) -> Option<Result<String, String>> {
    let spec = Spec::parse(&record.game).ok()?;
    match spec.name.as_str() {
        "go" => Some(go_sgf(&spec, record)),
        "othello" => Some(othello_sgf(&spec, record)),
        "amazons" => Some(amazons_sgf(&spec, record)),
        _ => None,
    }
}

/// A simple-text property value escaped by the SGF crate's writer.
fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    tabula_sgf::write::escape_into(&mut s, text, false);
    s
}

fn colour(p: Player) -> char {
    if p == Player::FIRST { 'B' } else { 'W' }
}

/// `RE` for a game that did not end by the rules, or `None` when the rules decided;
/// `colour` names the SGF colour of each player.
fn result_by_termination(record: &GameRecord, colour: impl Fn(Player) -> char) -> Option<String> {
    let winner_of_loser = |seat: usize| colour(Player(seat as u8).other());
    match &record.termination {
        Termination::Normal => None,
        Termination::Resignation { seat } => Some(format!("{}+R", winner_of_loser(*seat))),
        Termination::TimeForfeit { seat, .. } => Some(format!("{}+T", winner_of_loser(*seat))),
        Termination::IllegalMove { seat, .. } | Termination::AgentError { seat, .. } => {
            Some(format!("{}+F", winner_of_loser(*seat)))
        }
        Termination::Adjudicated { loser: Some(seat) } => Some(format!("{}+", winner_of_loser(*seat))),
        Termination::Adjudicated { loser: None } | Termination::MaxPlies | Termination::NoLegalMove { .. } => {
            Some("0".to_string())
        }
    }
}

/// Writes the root properties; `colour` maps a seat to its SGF colour (`B` or `W`), so that
/// PB and PW name the right agents in games where White moves first.
fn root(out: &mut String, gm: u32, size: &str, record: &GameRecord, colour: impl Fn(Player) -> char) {
    let _ = write!(out, "(;FF[4]GM[{gm}]CA[UTF-8]AP[tabula:{}]SZ[{size}]", env!("CARGO_PKG_VERSION"));
    let _ = write!(out, "GN[{}]", escape(&game_name(record)));
    if let [first, second, ..] = record.players.as_slice() {
        let (black, white) = if colour(Player(0)) == 'B' { (first, second) } else { (second, first) };
        let _ = write!(out, "PB[{}]PW[{}]", escape(black), escape(white));
    }
}

fn game_name(record: &GameRecord) -> String {
    format!("{} game {}", record.game, record.id + 1)
}

/// Go records come from the Go crate's own SGF writer (the one `printsgf` uses), with the
/// players and the match result added.
fn go_sgf(spec: &Spec, record: &GameRecord) -> Result<String, String> {
    let start = tabula_go::Go::from_spec(spec).map_err(|e| e.to_string())?;
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for (i, text) in record.moves.iter().enumerate() {
        let mv = game.parse_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        moves.push((game.to_move(), mv));
        game.play_checked(mv).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    let text = tabula_go::gtp::game_to_sgf(&start, &moves, &game);
    let mut coll = tabula_sgf::parse_lenient(text.as_bytes()).map_err(|e| e.to_string())?;
    let tree = coll.games.first_mut().ok_or("no game tree written")?;
    let root = tabula_sgf::NodeId::ROOT;
    if let [black, white, ..] = record.players.as_slice() {
        tree.set_property(root, "PB", &[black]);
        tree.set_property(root, "PW", &[white]);
    }
    tree.set_property(root, "GN", &[&game_name(record)]);
    let result = result_by_termination(record, colour).unwrap_or_else(|| game.score().to_string());
    tree.set_property(root, "RE", &[&result]);
    let mut out = String::new();
    tabula_sgf::write_tree(tree, &mut out);
    Ok(out)
}

fn othello_sgf(spec: &Spec, record: &GameRecord) -> Result<String, String> {
    let mut game = tabula_othello::Othello::from_spec(spec).map_err(|e| e.to_string())?;
    let (w, h) = (game.width(), game.height());
    let size = if w == h { w.to_string() } else { format!("{w}:{h}") };
    let mut out = String::new();
    root(&mut out, 2, &size, record, colour);
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
    let result = result_by_termination(record, colour).unwrap_or_else(|| {
        let d = game.final_score(Player::FIRST);
        match d {
            0 => "0".to_string(),
            d if d > 0 => format!("B+{d}"),
            d => format!("W+{}", -d),
        }
    });
    let _ = writeln!(out, "RE[{}]{body})", escape(&result));
    Ok(out)
}

/// White moves first in tabula's Amazons, so the first player is SGF's white.
fn amazons_colour(p: Player) -> char {
    if p == Player::FIRST { 'W' } else { 'B' }
}

/// Amazons records follow the `GM[18]` conventions: points as column and row letters (row
/// `a` at the top), a move as its three points concatenated (from, to, arrow). The start
/// position is always written out (AB/AW/AA), and since White moves first here, `PL[W]`.
fn amazons_sgf(spec: &Spec, record: &GameRecord) -> Result<String, String> {
    let mut game = tabula_amazons::Amazons::from_spec(spec).map_err(|e| e.to_string())?;
    let (w, h) = (game.width(), game.height());
    let size = if w == h { w.to_string() } else { format!("{w}:{h}") };
    let point = |index: usize| {
        let (col, row) = (index % (w + 1), index / (w + 1));
        format!("{}{}", (b'a' + col as u8) as char, (b'a' + (h - 1 - row) as u8) as char)
    };
    let mut out = String::new();
    root(&mut out, 18, &size, record, amazons_colour);
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
        let c = amazons_colour(game.current_player());
        let _ =
            write!(body, "\n;{c}[{}{}{}]", point(mv.from().index()), point(mv.to().index()), point(mv.arrow().index()));
        game.play(mv);
    }
    let result = result_by_termination(record, amazons_colour).unwrap_or_else(|| match game.rewards().winner() {
        Some(p) => format!("{}+", amazons_colour(p)),
        None => "0".to_string(),
    });
    let _ = writeln!(out, "RE[{}]{body})", escape(&result));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::Rng;

    fn random_record(spec: &str, seed: u64) -> GameRecord {
        struct Rec(u64);
        impl tabula_registry::GameVisitor for Rec {
            type Output = (Vec<String>, String);
            fn visit<G: Game>(self, game: G, _: &dyn tabula_registry::AgentFactory<G>) -> Self::Output {
                let mut rng = Rng::new(self.0);
                let mut s = game;
                let mut moves = Vec::new();
                let mut texts = Vec::new();
                while !s.is_over() {
                    s.legal_moves(&mut moves);
                    let mv = moves[rng.below(moves.len())];
                    texts.push(s.format_move(mv));
                    s.play(mv);
                }
                (texts, s.spec())
            }
        }
        let (moves, spec) = tabula_registry::with_game(spec, Rec(seed)).unwrap();
        GameRecord {
            id: seed as usize,
            game: spec,
            participants: vec![0, 1],
            players: vec!["random] \\ a".into(), "b".into()],
            opening_plies: 0,
            moves,
            rewards: vec![1.0, 0.0],
            termination: Termination::Normal,
            stats: Vec::new(),
            disputes: Vec::new(),
        }
    }

    #[test]
    fn records_are_strict_sgf_that_replays_to_the_same_game() {
        for (spec, gm) in
            [("go(size=9,komi=7)", 1), ("go(size=13,handicap=3)", 1), ("othello", 2), ("othello(size=6)", 2)]
        {
            for seed in 1..4 {
                let rec = random_record(spec, seed);
                let text = sgf(&rec).unwrap().unwrap();
                let coll = tabula_sgf::parse_strict(text.as_bytes()).unwrap_or_else(|e| panic!("{spec}: {e}\n{text}"));
                let tree = &coll.games[0];
                let moves = tree.main_line().count() - 1;
                assert_eq!(moves, rec.moves.len(), "{spec}");
                assert!(text.contains(&format!("GM[{gm}]")));
                assert!(text.contains("PB[random\\] \\\\ a]"), "{text}");
                assert!(text.contains("RE["));
            }
        }
    }

    #[test]
    fn amazons_records_name_the_first_mover_white() {
        for seed in 1..3 {
            let rec = random_record("amazons(size=6)", seed);
            let text = sgf(&rec).unwrap().unwrap();
            // White moves first in Amazons: the first seat is PW, the second PB.
            assert!(text.contains("PB[b]PW[random\\] \\\\ a]"), "{text}");
            assert!(text.contains("GM[18]") && text.contains("PL[W]"), "{text}");
            let coll = tabula_sgf::parse_strict(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(coll.games[0].main_line().count() - 1, rec.moves.len());
        }
    }

    #[test]
    fn other_games_have_no_sgf_form() {
        assert!(sgf(&random_record("connect4", 1)).is_none());
    }
}
