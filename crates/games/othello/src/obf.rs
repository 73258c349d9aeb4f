//! The `.obf` endgame-problem format (as in the FFO test suites).
//!
//! One problem per line: a board of 64 characters (`X` black, `O` white, `-` empty; squares
//! a1..h1, a2..h2, ..., rank 1 on top), a space, the side to move (`X` or `O`), then `;`
//! and any number of `move:score;` entries — every move with its exact final disc
//! difference, best first (`G8:+18; H1:+12;`). `PS` stands for a pass. Blank lines and lines
//! starting with `%` are ignored. Every malformed line is reported with its number.

use std::path::Path;

use crate::{Move, Othello, Square};

/// One problem: a position and the known scores of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfProblem {
    /// The position, side to move as given.
    pub position: Othello,
    /// Moves with their exact final disc difference for the side to move, as listed.
    pub moves: Vec<(Move, i32)>,
    /// Line number in the file, from 1.
    pub line: usize,
}

impl ObfProblem {
    /// The best listed score, if any move is listed.
    pub fn best_score(&self) -> Option<i32> {
        self.moves.iter().map(|&(_, s)| s).max()
    }

    /// Every listed move reaching the best score.
    pub fn best_moves(&self) -> Vec<Move> {
        let best = self.best_score();
        self.moves.iter().filter(|&&(_, s)| Some(s) == best).map(|&(m, _)| m).collect()
    }
}

/// An error reading `.obf` text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObfError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// A malformed line.
    #[error("line {line}: {reason}")]
    Line {
        /// Line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Reads one problem line (`line` is its number, for errors).
pub fn parse_line(text: &str, line: usize) -> Result<ObfProblem, ObfError> {
    let err = |reason: String| ObfError::Line { line, reason };
    let mut parts = text.split(';');
    let head = parts.next().unwrap_or("").trim();
    let mut words = head.split_whitespace();
    let board = words.next().ok_or_else(|| err("empty line".into()))?;
    let side = match words.next() {
        Some(word) => Othello::parse_side(word).map_err(|e| err(e.to_string()))?,
        None => return Err(err("missing side to move after the board".into())),
    };
    if let Some(extra) = words.next() {
        return Err(err(format!("unexpected '{extra}' before ';'")));
    }
    let position = Othello::from_board(board, side).map_err(|e| err(e.to_string()))?;
    let mut moves = Vec::new();
    for entry in parts {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let (mv, score) = entry.split_once(':').ok_or_else(|| err(format!("entry '{entry}' is not move:score")))?;
        let mv = mv.trim();
        let mv = if mv.eq_ignore_ascii_case("ps") || mv.eq_ignore_ascii_case("pass") {
            Move::PASS
        } else {
            let sq = Square::parse(mv).map_err(|e| err(e.to_string()))?;
            if sq.col as usize >= position.width() || sq.row as usize >= position.height() {
                return Err(err(format!("move {sq} is outside the board")));
            }
            Move::at(sq)
        };
        let score = score.trim();
        let score: i32 = score
            .strip_prefix('+')
            .unwrap_or(score)
            .parse()
            .map_err(|_| err(format!("score '{score}' of {mv} is not a whole number")))?;
        let max = (position.width() * position.height()) as i32;
        if score.abs() > max {
            return Err(err(format!("score {score} of {mv} is beyond the board's {max} squares")));
        }
        moves.push((mv, score));
    }
    Ok(ObfProblem { position, moves, line })
}

/// Reads every problem of a `.obf` text.
pub fn parse(text: &str) -> Result<Vec<ObfProblem>, ObfError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        out.push(parse_line(t, i + 1)?);
    }
    Ok(out)
}

/// Reads every problem of a `.obf` file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<ObfProblem>, ObfError> {
    let path = path.as_ref();
    let text = tabula_core::resources::read_text_capped(path, tabula_core::resources::MAX_INPUT_FILE)
        .map_err(|e| ObfError::Io { path: path.display().to_string(), message: e.to_string() })?;
    parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{Game, Player};

    #[test]
    fn reads_a_problem_line() {
        let line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; A4:-22;";
        let p = parse_line(line, 1).unwrap();
        assert_eq!(p.position.current_player(), Player(0));
        assert_eq!(p.position.empties(), 14);
        assert_eq!(p.moves.len(), 3);
        assert_eq!(p.moves[0], (Move::at(Square::parse("g8").unwrap()), 18));
        assert_eq!(p.best_score(), Some(18));
        assert_eq!(p.best_moves(), [Move::at(Square::parse("g8").unwrap())]);
        assert_eq!(p.position.board_text(), line[..64]);
        // Every listed move is legal.
        let mut legal = Vec::new();
        p.position.legal_moves(&mut legal);
        for (m, _) in &p.moves {
            assert!(legal.contains(m));
        }
    }

    #[test]
    fn malformed_lines_give_errors_with_line_numbers() {
        let board = "-".repeat(27) + "OX------XO" + &"-".repeat(27);
        let cases = [
            board.clone(),
            format!("{board} Z;"),
            format!("{board} X Y;"),
            format!("{} X;", &board[1..]),
            format!("{}Q X;", &board[1..]),
            format!("{board} X; G8"),
            format!("{board} X; Z9:+1;"),
            format!("{board} X; G8:+x;"),
            format!("{board} X; G8:+99;"),
            format!("{board} X; G8:;"),
            format!("{board} X; :3;"),
            "X;".to_string(),
        ];
        for (i, c) in cases.iter().enumerate() {
            match parse(&format!("\n{c}\n")) {
                Err(ObfError::Line { line, .. }) => assert_eq!(line, 2, "{c}"),
                other => panic!("case {i} {c:?}: expected a line error, got {other:?}"),
            }
        }
        assert!(parse(&format!("% comment\n\n{board} O; PS:-2;\n")).is_ok());
        assert!(matches!(read_file("/nonexistent/x.obf"), Err(ObfError::Io { .. })));
    }
}
