//! Test-local GTP games: tic-tac-toe and Connect Four wrapped in newtypes that implement
//! `GtpGame`, and agents that make the engine's behaviour observable.
#![allow(dead_code)]

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tabula_connect4::{Column, Connect4};
use tabula_core::{
    Agent, AgentError, Choice, Game, Limits, MoveParseError, MoveStat, Player, Report, Rewards, SearchInfo, Turn,
};
use tabula_gtp::{GtpError, GtpGame};
use tabula_tictactoe::{Square, TicTacToe};

/// Tic-tac-toe over GTP: moves `A1`..`C3`, no board size, no komi.
#[derive(Clone, Debug, Default)]
pub struct Ttt(pub TicTacToe);

impl fmt::Display for Ttt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Game for Ttt {
    type Move = Square;
    fn spec(&self) -> String {
        self.0.spec()
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        self.0.turn()
    }
    fn legal_moves(&self, moves: &mut Vec<Square>) {
        self.0.legal_moves(moves)
    }
    fn play(&mut self, mv: Square) {
        self.0.play(mv)
    }
    fn rewards(&self) -> Rewards {
        self.0.rewards()
    }
    fn hash(&self) -> u64 {
        self.0.hash()
    }
    fn format_move(&self, mv: Square) -> String {
        self.0.format_move(mv)
    }
    fn parse_move(&self, text: &str) -> Result<Square, MoveParseError> {
        self.0.parse_move(text)
    }
    fn ply(&self) -> u32 {
        self.0.ply()
    }
}

impl GtpGame for Ttt {
    fn gtp_name(&self) -> String {
        "TicTacToe".into()
    }
    fn format_gtp_move(&self, mv: Square) -> String {
        self.0.format_move(mv).to_ascii_uppercase()
    }
}

/// Connect Four over GTP: `boardsize N` sets the width (height stays 6), komi is kept and
/// reported, moves are column numbers.
#[derive(Clone, Debug)]
pub struct C4 {
    pub game: Connect4,
    pub komi: f64,
}

impl Default for C4 {
    fn default() -> Self {
        C4 { game: Connect4::default(), komi: 0.0 }
    }
}

impl fmt::Display for C4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.game.fmt(f)
    }
}

impl Game for C4 {
    type Move = Column;
    fn spec(&self) -> String {
        self.game.spec()
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        self.game.turn()
    }
    fn legal_moves(&self, moves: &mut Vec<Column>) {
        self.game.legal_moves(moves)
    }
    fn play(&mut self, mv: Column) {
        self.game.play(mv)
    }
    fn rewards(&self) -> Rewards {
        self.game.rewards()
    }
    fn hash(&self) -> u64 {
        self.game.hash()
    }
    fn format_move(&self, mv: Column) -> String {
        self.game.format_move(mv)
    }
    fn parse_move(&self, text: &str) -> Result<Column, MoveParseError> {
        self.game.parse_move(text)
    }
    fn ply(&self) -> u32 {
        self.game.ply()
    }
}

impl GtpGame for C4 {
    fn gtp_name(&self) -> String {
        "ConnectFour".into()
    }
    fn gtp_board_size(&self) -> Option<u32> {
        Some(self.game.width() as u32)
    }
    fn gtp_with_board_size(&self, size: u32) -> Result<Self, GtpError> {
        let game = Connect4::new(size as usize, 6).map_err(|_| GtpError::unacceptable_size())?;
        Ok(C4 { game, komi: self.komi })
    }
    fn gtp_komi(&self) -> Option<f64> {
        Some(self.komi)
    }
    fn gtp_set_komi(&mut self, komi: f64) -> Result<(), GtpError> {
        self.komi = komi;
        Ok(())
    }
}

/// Plays the first legal move and remembers the limits it was given.
pub struct FirstMove {
    pub seen: Arc<Mutex<Vec<Limits>>>,
}

impl FirstMove {
    pub fn new() -> (FirstMove, Arc<Mutex<Vec<Limits>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        (FirstMove { seen: seen.clone() }, seen)
    }
}

impl<G: Game> Agent<G> for FirstMove {
    fn name(&self) -> String {
        "first".into()
    }
    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        _report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        self.seen.lock().unwrap().push(limits.clone());
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        moves.first().map(|&m| Choice::new(m)).ok_or(AgentError::NoMove)
    }
}

/// "Thinks" until told to stop (or for at most 20 seconds, so a broken stop cannot hang a
/// test), reporting root statistics for every legal move; counts its reports.
pub struct Analyst {
    pub reports: Arc<AtomicU64>,
    /// Reports to send before returning when no stop flag is given.
    pub budget: u64,
    pub resign: bool,
}

impl<G: Game> Agent<G> for Analyst {
    fn name(&self) -> String {
        "analyst".into()
    }
    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        let best = *moves.first().ok_or(AgentError::NoMove)?;
        let start = Instant::now();
        let mut info = SearchInfo::default();
        let mut n = 0u64;
        loop {
            n += 1;
            info.nodes = n;
            info.pv = vec![best];
            info.root_moves = moves
                .iter()
                .enumerate()
                .map(|(i, &m)| MoveStat {
                    mv: m,
                    visits: n / (i as u64 + 1),
                    win_rate: Some(0.6 - 0.1 * i as f64),
                    score: None,
                    prior: Some(0.25),
                    pv: vec![m],
                })
                .collect();
            report(&info);
            self.reports.fetch_add(1, Ordering::Relaxed);
            let done = match &limits.stop {
                Some(_) => limits.stopped(),
                None => n >= self.budget,
            };
            if done || start.elapsed().as_secs() >= 20 {
                break;
            }
        }
        Ok(Choice { mv: best, resign: self.resign, info })
    }
}

/// A small game with a real pass move, as Go has: cells `1`..`N` in a row; a move marks an
/// empty cell or passes; two passes in a row or a full row end it; more marks (white gets
/// komi) wins. Exercises passes, board sizes, komi and scores with a margin.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub cells: Vec<Option<Player>>,
    pub to_move: Player,
    pub passes: u8,
    pub ply: u32,
    pub komi: f64,
}

/// The pass move of [`Row`].
pub const PASS: u8 = u8::MAX;

impl Row {
    pub fn new(size: usize) -> Row {
        Row { cells: vec![None; size], to_move: Player::FIRST, passes: 0, ply: 0, komi: 0.0 }
    }

    /// Black's marks minus white's marks and komi.
    pub fn margin(&self) -> f64 {
        let count = |p| self.cells.iter().filter(|c| **c == Some(p)).count() as f64;
        count(Player::FIRST) - count(Player::SECOND) - self.komi
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.cells {
            f.write_str(match c {
                Some(Player(0)) => "X",
                Some(_) => "O",
                None => ".",
            })?;
        }
        writeln!(f)
    }
}

impl Game for Row {
    type Move = u8;
    fn spec(&self) -> String {
        format!("row(size={})", self.cells.len())
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        if self.passes >= 2 || self.cells.iter().all(Option::is_some) { Turn::Over } else { Turn::Player(self.to_move) }
    }
    fn legal_moves(&self, moves: &mut Vec<u8>) {
        moves.clear();
        if self.is_over() {
            return;
        }
        moves.extend((0..self.cells.len() as u8).filter(|&i| self.cells[i as usize].is_none()));
        moves.push(PASS);
    }
    fn play(&mut self, mv: u8) {
        if mv == PASS {
            self.passes += 1;
        } else {
            self.cells[mv as usize] = Some(self.to_move);
            self.passes = 0;
        }
        self.to_move = self.to_move.other();
        self.ply += 1;
    }
    fn rewards(&self) -> Rewards {
        let m = self.margin();
        Rewards::two_player(if m > 0.0 {
            Some(Player::FIRST)
        } else if m < 0.0 {
            Some(Player::SECOND)
        } else {
            None
        })
    }
    fn hash(&self) -> u64 {
        let mut h = self.passes as u64 ^ ((self.to_move.0 as u64) << 2);
        for (i, c) in self.cells.iter().enumerate() {
            h = h.wrapping_mul(0x100000001b3) ^ ((i as u64 + 1) * c.map_or(0, |p| p.0 as u64 + 1));
        }
        h
    }
    fn format_move(&self, mv: u8) -> String {
        if mv == PASS { "pass".into() } else { (mv + 1).to_string() }
    }
    fn parse_move(&self, text: &str) -> Result<u8, MoveParseError> {
        if text.eq_ignore_ascii_case("pass") {
            return Ok(PASS);
        }
        match text.parse::<u8>() {
            Ok(n) if n >= 1 && (n as usize) <= self.cells.len() => Ok(n - 1),
            _ => Err(MoveParseError::new(text, "expected a cell number or pass")),
        }
    }
    fn ply(&self) -> u32 {
        self.ply
    }
}

impl GtpGame for Row {
    fn gtp_name(&self) -> String {
        "Row".into()
    }
    fn gtp_board_size(&self) -> Option<u32> {
        Some(self.cells.len() as u32)
    }
    fn gtp_with_board_size(&self, size: u32) -> Result<Self, GtpError> {
        if !(1..=25).contains(&size) {
            return Err(GtpError::unacceptable_size());
        }
        Ok(Row { komi: self.komi, ..Row::new(size as usize) })
    }
    fn gtp_komi(&self) -> Option<f64> {
        Some(self.komi)
    }
    fn gtp_set_komi(&mut self, komi: f64) -> Result<(), GtpError> {
        self.komi = komi;
        Ok(())
    }
    fn gtp_pass_move(&self) -> Option<u8> {
        Some(PASS)
    }
    fn gtp_final_score(&self) -> Result<String, GtpError> {
        let m = self.margin();
        Ok(if m > 0.0 {
            format!("B+{m}")
        } else if m < 0.0 {
            format!("W+{}", -m)
        } else {
            "0".into()
        })
    }
}
