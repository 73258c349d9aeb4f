//! Test-only agents and a small simultaneous-move game.

#![allow(dead_code)]

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tabula_core::{
    Agent, AgentError, Choice, Game, Limits, MoveParseError, Player, Report, Rewards, Rng, Turn, splitmix64,
};

/// Plays a uniformly random legal move, seeded by its seed and the position, so a game is
/// fully determined by its opening and the seats.
pub struct RandomAgent {
    pub seed: u64,
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        format!("random(seed={})", self.seed)
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        _: &Limits,
        _: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        if moves.is_empty() {
            return Err(AgentError::NoMove);
        }
        let mut mix = self.seed ^ state.hash() ^ (u64::from(state.ply()) << 40) ^ player.0 as u64;
        let mut rng = Rng::new(splitmix64(&mut mix));
        Ok(Choice::new(rng.choose(&moves)))
    }
}

/// Plays the first legal move.
pub struct FirstAgent;

impl<G: Game> Agent<G> for FirstAgent {
    fn name(&self) -> String {
        "first".into()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        _: &Limits,
        _: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        moves.first().copied().map(Choice::new).ok_or(AgentError::NoMove)
    }
}

/// How a [`BadAgent`] misbehaves.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Returns an engine error on its `n`th move (0-based).
    CrashAt(u32),
    /// Plays a square that is already taken (tic-tac-toe), when there is one.
    Illegal,
    /// Resigns at once.
    Resign,
    /// Spends `Duration` before answering with the first legal move.
    Slow(Duration),
    /// Panics.
    Panic,
    /// Cannot play at all (an engine that cannot be started).
    CannotStart,
}

/// A deliberately failing agent (plays the first legal move when it does not fail).
pub struct BadAgent {
    pub fault: Fault,
    pub moves: u32,
}

impl BadAgent {
    pub fn new(fault: Fault) -> BadAgent {
        BadAgent { fault, moves: 0 }
    }
}

impl Agent<tabula_tictactoe::TicTacToe> for BadAgent {
    fn name(&self) -> String {
        format!("bad({:?})", self.fault)
    }

    fn choose(
        &mut self,
        state: &tabula_tictactoe::TicTacToe,
        player: Player,
        _: &Limits,
        _: Report<'_, tabula_tictactoe::Square>,
    ) -> Result<Choice<tabula_tictactoe::Square>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        let first = *moves.first().ok_or(AgentError::NoMove)?;
        let n = self.moves;
        self.moves += 1;
        match self.fault {
            Fault::CrashAt(k) if k == n => Err(AgentError::Engine("engine process exited".into())),
            Fault::CrashAt(_) => Ok(Choice::new(first)),
            Fault::Illegal => {
                let taken = (0..9).filter_map(tabula_tictactoe::Square::new).find(|s| !moves.contains(s));
                Ok(Choice::new(taken.unwrap_or(first)))
            }
            Fault::Resign => Ok(Choice { resign: true, ..Choice::new(first) }),
            Fault::Panic => panic!("bug in agent"),
            Fault::CannotStart => Err(AgentError::Unavailable("no such program".into())),
            Fault::Slow(d) => {
                let t = Instant::now();
                while t.elapsed() < d {
                    std::hint::spin_loop();
                }
                Ok(Choice::new(first))
            }
        }
    }
}

/// Counts how often a factory ran.
#[derive(Clone, Default)]
pub struct Counter(pub Arc<AtomicUsize>);

impl Counter {
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Repeated matching pennies: both players show heads or tails at once for `rounds` rounds;
/// player 1 scores a round when the coins match, player 2 when they differ. The player with
/// more rounds wins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pennies {
    pub rounds: u8,
    pub played: u8,
    pub score: [u8; 2],
}

impl Pennies {
    pub fn new(rounds: u8) -> Pennies {
        Pennies { rounds, played: 0, score: [0, 0] }
    }
}

impl fmt::Display for Pennies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{} after {}", self.score[0], self.score[1], self.played)
    }
}

impl Game for Pennies {
    type Move = bool;

    fn spec(&self) -> String {
        format!("pennies(rounds={})", self.rounds)
    }

    fn num_players(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.played >= self.rounds { Turn::Over } else { Turn::Simultaneous }
    }

    fn legal_moves(&self, moves: &mut Vec<bool>) {
        moves.clear();
        if !self.is_over() {
            moves.extend([true, false]);
        }
    }

    fn legal_moves_of(&self, _: Player, moves: &mut Vec<bool>) {
        self.legal_moves(moves);
    }

    fn play(&mut self, _: bool) {}

    fn play_joint(&mut self, joint: &[bool]) {
        let winner = usize::from(joint[0] != joint[1]);
        self.score[winner] += 1;
        self.played += 1;
    }

    fn rewards(&self) -> Rewards {
        let w = match self.score[0].cmp(&self.score[1]) {
            std::cmp::Ordering::Greater => Some(Player(0)),
            std::cmp::Ordering::Less => Some(Player(1)),
            std::cmp::Ordering::Equal => None,
        };
        Rewards::two_player(w)
    }

    fn hash(&self) -> u64 {
        u64::from(self.played) << 16 | u64::from(self.score[0]) << 8 | u64::from(self.score[1])
    }

    fn format_move(&self, mv: bool) -> String {
        if mv { "h" } else { "t" }.into()
    }

    fn parse_move(&self, text: &str) -> Result<bool, MoveParseError> {
        match text {
            "h" => Ok(true),
            "t" => Ok(false),
            _ => Err(MoveParseError::new(text, "expected h or t")),
        }
    }

    fn ply(&self) -> u32 {
        u32::from(self.played)
    }
}

/// Plays the first legal move and remembers the clock it was shown.
pub struct ClockSpy {
    pub seen: Arc<std::sync::Mutex<Vec<Option<tabula_core::Clock>>>>,
}

impl<G: Game> Agent<G> for ClockSpy {
    fn name(&self) -> String {
        "spy".into()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        _: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(limits.clock.clone());
        }
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        moves.first().copied().map(Choice::new).ok_or(AgentError::NoMove)
    }
}

/// Plays the first legal move, streams one progress report and, when `final_info`, returns
/// a fuller one with the choice.
pub struct Reporter {
    pub final_info: bool,
}

impl<G: Game> Agent<G> for Reporter {
    fn name(&self) -> String {
        "reporter".into()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        _: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        let mv = *moves.first().ok_or(AgentError::NoMove)?;
        report(&tabula_core::SearchInfo { depth: 2, nodes: 10, score: Some(-5), ..Default::default() });
        let mut choice = Choice::new(mv);
        if self.final_info {
            choice.info = tabula_core::SearchInfo { depth: 3, nodes: 30, win_rate: Some(0.25), ..Default::default() };
        }
        Ok(choice)
    }
}

/// Plays the first legal move and reports a fixed evaluation.
pub struct Evaluator {
    pub score: Option<i32>,
    pub win_rate: Option<f64>,
}

impl<G: Game> Agent<G> for Evaluator {
    fn name(&self) -> String {
        "evaluator".into()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        _: &Limits,
        _: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        let mut choice = Choice::new(*moves.first().ok_or(AgentError::NoMove)?);
        choice.info.score = self.score;
        choice.info.win_rate = self.win_rate;
        Ok(choice)
    }
}
