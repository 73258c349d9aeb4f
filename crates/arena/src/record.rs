//! Finished games as data: the [`GameRecord`] the runner appends to its results file (one
//! JSON object a line) and hands to the caller's hook, and a plain text format for games
//! that have no SGF.
//!
//! # Text format
//!
//! [`write_text_record`] writes one game as tag lines followed by the moves, then a blank
//! line, so several games concatenate into one file:
//!
//! ```text
//! [Game "tictactoe"]
//! [Id "3"]
//! [Player1 "first"]
//! [Player2 "random(seed=7)"]
//! [Rewards "1 0"]
//! [Termination "normal"]
//! [Opening "2"]
//! a1 b2 a2 c3 a3
//!
//! ```
//!
//! Tag values are double-quoted with `\"` and `\\` escapes. `PlayerN` names the agent in
//! seat `N` (seat 1 moves first); `Rewards` lists each seat's reward (1 win, 0.5 draw, 0
//! loss); `Opening` counts the leading moves that came from the opening rather than the
//! agents. `Resumed` tags (one per dispute of an end after which the rules let play go on,
//! with the number of moves played then) and `Dispute` tags (one per dispute of the final
//! result) follow when there are any. Moves are in the game's own notation, separated by
//! spaces and wrapped at 80 columns; a simultaneous step is written as the seats' moves
//! joined by `|`.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};
use tabula_core::{Ending, RecordView};

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    /// The rules ended the game.
    Normal,
    /// The agent in `seat` chose a move the rules do not allow; it loses.
    IllegalMove {
        /// The offending seat (0-based).
        seat: usize,
        /// The move as the game writes it.
        mv: String,
    },
    /// The agent in `seat` failed (an external engine crashed, broke the protocol or timed
    /// out); it loses.
    AgentError {
        /// The offending seat (0-based).
        seat: usize,
        /// The error.
        error: String,
    },
    /// The agent in `seat` ran past the hard time limit plus the referee's margin; it loses.
    TimeForfeit {
        /// The offending seat (0-based).
        seat: usize,
        /// Time it took, in milliseconds.
        millis: u64,
    },
    /// The agent in `seat` resigned; it loses.
    Resignation {
        /// The seat that resigned (0-based).
        seat: usize,
    },
    /// The game reached the configured ply limit and was scored a draw.
    MaxPlies,
    /// The referee ended the game from the agents' own evaluations: a loss for `loser`
    /// (whose evaluations were hopeless), or a draw when `None`.
    Adjudicated {
        /// The seat scored a loss (0-based), or none for a draw.
        loser: Option<usize>,
    },
    /// In a simultaneous turn some player had no legal move; the game was scored a draw.
    NoLegalMove {
        /// The seat without a move.
        seat: usize,
    },
}

impl Termination {
    /// The seat whose fault ended the game, if any.
    pub fn offender(&self) -> Option<usize> {
        match self {
            Termination::IllegalMove { seat, .. }
            | Termination::AgentError { seat, .. }
            | Termination::TimeForfeit { seat, .. } => Some(*seat),
            _ => None,
        }
    }

    /// How the game ended in a record's terms: a failed agent's or illegal move's loss is a
    /// forfeit, a ply limit or a turn without a move a draw.
    pub fn ending(&self) -> Ending {
        match self {
            Termination::Normal => Ending::Rules,
            Termination::IllegalMove { seat, .. } | Termination::AgentError { seat, .. } => {
                Ending::Forfeit { seat: *seat }
            }
            Termination::TimeForfeit { seat, .. } => Ending::TimeForfeit { seat: *seat },
            Termination::Resignation { seat } => Ending::Resignation { seat: *seat },
            Termination::Adjudicated { loser } => Ending::Adjudicated { loser: *loser },
            Termination::MaxPlies | Termination::NoLegalMove { .. } => Ending::Drawn,
        }
    }

    /// A short description, e.g. `normal` or `illegal move e9 by seat 2`.
    pub fn describe(&self) -> String {
        match self {
            Termination::Normal => "normal".to_string(),
            Termination::IllegalMove { seat, mv } => format!("illegal move {mv} by seat {}", seat + 1),
            Termination::AgentError { seat, error } => format!("agent error by seat {}: {error}", seat + 1),
            Termination::TimeForfeit { seat, millis } => format!("time forfeit by seat {} ({millis} ms)", seat + 1),
            Termination::Resignation { seat } => format!("resignation by seat {}", seat + 1),
            Termination::MaxPlies => "ply limit".to_string(),
            Termination::Adjudicated { loser: Some(seat) } => format!("adjudicated loss for seat {}", seat + 1),
            Termination::Adjudicated { loser: None } => "adjudicated draw".to_string(),
            Termination::NoLegalMove { seat } => format!("no legal move for seat {}", seat + 1),
        }
    }
}

/// What an agent reported about one of its moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// Index of the move in [`GameRecord::moves`].
    pub ply: usize,
    /// The seat that moved (0-based).
    pub seat: usize,
    /// Thinking time in milliseconds, as the referee measured it.
    pub millis: u64,
    /// Search depth reached, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Nodes or playouts searched, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Score for the mover in the agent's units, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
    /// Win rate for the mover, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win_rate: Option<f64>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Index of the game in the schedule (stable across resumed runs).
    pub id: usize,
    /// The game's spec string.
    pub game: String,
    /// The participant (index into the match or tournament's players) in each seat.
    pub participants: Vec<usize>,
    /// The agent name in each seat.
    pub players: Vec<String>,
    /// How many leading moves came from the opening.
    pub opening_plies: usize,
    /// Every move from the start position, in the game's notation (a simultaneous step as the
    /// seats' moves joined by `|`).
    pub moves: Vec<String>,
    /// The reward of each seat, in 0..=1.
    pub rewards: Vec<f64>,
    /// How the game ended.
    pub termination: Termination,
    /// One entry per agent move (opening moves have none).
    #[serde(default)]
    pub stats: Vec<MoveStats>,
    /// Agents that disagree with the result the rules gave (`seat N: ...`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disputes: Vec<String>,
    /// An earlier end that was disputed and played out (Go's cleanup phase), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<Resumption>,
}

/// A disputed end after which the rules let play go on (Go's cleanup phase, where the
/// players capture the stones they disagree about).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resumption {
    /// The number of moves played when the game first ended.
    pub after: usize,
    /// The agents' disputes of that end (`seat N: ...`).
    pub disputes: Vec<String>,
}

impl GameRecord {
    /// The game as a game's record writer reads it (its SGF writer, through the registry).
    pub fn view(&self) -> RecordView<'_> {
        RecordView {
            game: &self.game,
            id: self.id,
            players: &self.players,
            moves: &self.moves,
            ending: self.termination.ending(),
        }
    }

    /// The mean reward of `participant` over its seats (None if it did not play).
    pub fn reward_of(&self, participant: usize) -> Option<f64> {
        let (sum, n) = self
            .participants
            .iter()
            .zip(&self.rewards)
            .filter(|(p, _)| **p == participant)
            .fold((0.0, 0usize), |(s, n), (_, r)| (s + r, n + 1));
        (n > 0).then(|| sum / n as f64)
    }

    /// The result for participant `a` against `b`: 1 if `a`'s mean reward is higher, 0 if
    /// lower, ½ if equal.
    pub fn score_between(&self, a: usize, b: usize) -> Option<f64> {
        let (ra, rb) = (self.reward_of(a)?, self.reward_of(b)?);
        Some(if ra > rb {
            1.0
        } else if ra < rb {
            0.0
        } else {
            0.5
        })
    }
}

fn quote(value: &str) -> String {
    let mut s = String::with_capacity(value.len() + 2);
    s.push('"');
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            '\n' | '\r' => s.push(' '),
            _ => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Writes a game in the text format described in the module documentation.
///
/// # Errors
/// Any error of the writer.
pub fn write_text_record(record: &GameRecord, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "[Game {}]", quote(&record.game))?;
    writeln!(out, "[Id {}]", quote(&record.id.to_string()))?;
    for (seat, name) in record.players.iter().enumerate() {
        writeln!(out, "[Player{} {}]", seat + 1, quote(name))?;
    }
    let rewards: Vec<String> = record.rewards.iter().map(|r| r.to_string()).collect();
    writeln!(out, "[Rewards {}]", quote(&rewards.join(" ")))?;
    writeln!(out, "[Termination {}]", quote(&record.termination.describe()))?;
    writeln!(out, "[Opening {}]", quote(&record.opening_plies.to_string()))?;
    if let Some(r) = &record.resumed {
        for d in &r.disputes {
            writeln!(out, "[Resumed {}]", quote(&format!("after move {}, {d}", r.after)))?;
        }
    }
    for d in &record.disputes {
        writeln!(out, "[Dispute {}]", quote(d))?;
    }
    let mut column = 0;
    for mv in &record.moves {
        if column > 0 && column + 1 + mv.len() > 80 {
            writeln!(out)?;
            column = 0;
        }
        if column > 0 {
            write!(out, " ")?;
            column += 1;
        }
        write!(out, "{mv}")?;
        column += mv.len();
    }
    if column > 0 {
        writeln!(out)?;
    }
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            disputes: Vec::new(),
            resumed: None,
            id: 3,
            game: "tictactoe".into(),
            participants: vec![0, 1],
            players: vec!["first".into(), "say \"hi\"".into()],
            opening_plies: 2,
            moves: ["a1", "b2", "a2", "c3", "a3"].map(String::from).to_vec(),
            rewards: vec![1.0, 0.0],
            termination: Termination::Normal,
            stats: vec![MoveStats { ply: 2, seat: 0, millis: 5, depth: Some(3), ..MoveStats::default() }],
        }
    }

    #[test]
    fn text_format_is_as_documented() {
        let mut out = Vec::new();
        write_text_record(&sample(), &mut out).expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            "[Game \"tictactoe\"]\n[Id \"3\"]\n[Player1 \"first\"]\n[Player2 \"say \\\"hi\\\"\"]\n\
             [Rewards \"1 0\"]\n[Termination \"normal\"]\n[Opening \"2\"]\na1 b2 a2 c3 a3\n\n"
        );
    }

    #[test]
    fn a_played_out_dispute_is_kept_apart_from_those_of_the_result() {
        let mut r = sample();
        r.resumed = Some(Resumption { after: 4, disputes: vec!["seat 2: B2 is dead".into()] });
        r.disputes = vec!["seat 1: still not".into()];
        let mut out = Vec::new();
        write_text_record(&r, &mut out).expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert!(
            text.contains(
                "[Opening \"2\"]\n[Resumed \"after move 4, seat 2: B2 is dead\"]\n[Dispute \"seat 1: still not\"]\n"
            ),
            "{text}"
        );
        let json = serde_json::to_string(&r).expect("json");
        assert_eq!(serde_json::from_str::<GameRecord>(&json).expect("read back"), r);
        // Records without the field (written before it, or with no resumption) read as none.
        let plain = serde_json::to_string(&sample()).expect("json");
        assert!(!plain.contains("resumed"), "{plain}");
        assert_eq!(serde_json::from_str::<GameRecord>(&plain).expect("read back").resumed, None);
    }

    #[test]
    fn long_move_lists_wrap_at_80_columns() {
        let mut r = sample();
        r.moves = (0..100).map(|i| format!("m{i}")).collect();
        let mut out = Vec::new();
        write_text_record(&r, &mut out).expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert!(text.lines().all(|l| l.len() <= 80));
        let moves: Vec<&str> = text.lines().filter(|l| !l.starts_with('[')).flat_map(|l| l.split(' ')).collect();
        assert_eq!(moves.iter().filter(|m| !m.is_empty()).count(), 100);
    }

    #[test]
    fn json_round_trip_and_scores() {
        let mut r = sample();
        r.termination = Termination::IllegalMove { seat: 1, mv: "z9".into() };
        let line = serde_json::to_string(&r).expect("json");
        assert!(line.contains("\"kind\":\"illegal_move\""));
        assert!(line.contains("\"depth\":3") && !line.contains("nodes"));
        let back: GameRecord = serde_json::from_str(&line).expect("parse");
        assert_eq!(back, r);
        assert_eq!(r.termination.offender(), Some(1));
        assert_eq!(r.score_between(0, 1), Some(1.0));
        assert_eq!(r.score_between(1, 0), Some(0.0));
        assert_eq!(r.reward_of(5), None);
    }
}
