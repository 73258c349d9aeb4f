//! Game records written by `tabula match`, `tabula tourney` and `tabula play`: SGF for the
//! games whose crate registers an SGF writer (Go, Othello, Amazons), which GUIs and other
//! programs read (GNU Go's `loadsgf`), and the arena's plain text format for every other
//! game. This module only names and writes the files.

use std::path::Path;

use tabula_arena::{GameRecord, write_text_record};

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

/// The SGF text of a record, for games that have one: written by the game's own writer,
/// which the registry looks up.
pub fn sgf(record: &GameRecord) -> Option<Result<String, String>> {
    tabula_registry::sgf_record(&record.view())
}

/// Whether the record's game writes SGF records (else they are text).
pub fn has_sgf(record: &GameRecord) -> bool {
    tabula_registry::sgf_writer(&record.game).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_arena::Termination;
    use tabula_core::{Game, Rng};

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
            resumed: None,
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

    /// The `RE` of a record ended by `termination`, for each game's colours: Go and Othello
    /// give the first seat Black, Amazons White.
    #[test]
    fn terminations_become_results_in_each_games_colours() {
        let cases = [
            (Termination::Resignation { seat: 0 }, ["W+R", "W+R", "B+R"]),
            (Termination::Resignation { seat: 1 }, ["B+R", "B+R", "W+R"]),
            (Termination::TimeForfeit { seat: 0, millis: 5 }, ["W+T", "W+T", "B+T"]),
            (Termination::IllegalMove { seat: 1, mv: "x".into() }, ["B+F", "B+F", "W+F"]),
            (Termination::AgentError { seat: 0, error: "e".into() }, ["W+F", "W+F", "B+F"]),
            (Termination::Adjudicated { loser: Some(1) }, ["B+", "B+", "W+"]),
            (Termination::Adjudicated { loser: None }, ["0", "0", "0"]),
            (Termination::MaxPlies, ["0", "0", "0"]),
            (Termination::NoLegalMove { seat: 0 }, ["0", "0", "0"]),
        ];
        for (termination, results) in cases {
            for (spec, want) in ["go(size=9)", "othello(size=6)", "amazons(size=6)"].into_iter().zip(results) {
                let mut rec = random_record(spec, 2);
                rec.moves.truncate(3);
                rec.termination = termination.clone();
                let text = sgf(&rec).unwrap().unwrap();
                assert!(text.contains(&format!("RE[{want}]")), "{spec} {termination:?}: {text}");
            }
        }
    }

    #[test]
    fn other_games_have_no_sgf_form() {
        assert!(sgf(&random_record("connect4", 1)).is_none());
    }
}
