//! The game side of GTP: what a game supplies ([`GtpGame`]) and the standard game
//! commands over any such game and any agent ([`GameEngine`]).
//!
//! GTP was written for Go, but its core — board size, komi, moves by colour, genmove,
//! undo, clocks — fits every two-player board game, and GUIs such as Quarry and GRhino
//! speak it for Othello and Amazons (`list_games`, `set_game Othello`). So the commands are
//! written once here; a game crate only says how its moves, sizes and scores look in GTP,
//! and registers its own extra commands (handicap, scoring of dead stones) on the
//! [`Engine`] it gets back.

use std::time::{Duration, Instant};

use tabula_core::{Agent, AgentError, Budget, Game, Limits, MoveParseError, Player, SearchInfo};

use crate::analysis::{Style, analysis_line, push_ownership};
use crate::engine::{Ctx, Engine};
use crate::protocol::{Color, Command, GtpError, parse_color, parse_float, parse_int};
use crate::time::{SideClock, TimeSystem};

/// A move as GTP writes it: a move of the game, or `pass` / `resign` when the game has no
/// such move of its own.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum GtpMove<M> {
    /// A move of the game (a game with a pass move of its own returns it here).
    Move(M),
    /// `pass` in a game without a pass move.
    Pass,
    /// `resign`.
    Resign,
}

/// A game that can be played over GTP. Game crates implement it; every method but
/// [`gtp_name`](GtpGame::gtp_name) has a default that fits games without sizes or komi.
pub trait GtpGame: Game {
    /// The game's name in `list_games` / `set_game`, e.g. `Go`, `Othello`, `Amazons`.
    fn gtp_name(&self) -> String;

    /// The board size `boardsize` sets, if the game has one.
    fn gtp_board_size(&self) -> Option<u32> {
        None
    }

    /// This start position on a board of `size`, keeping the other settings (komi), or the
    /// failure to answer (`unacceptable size`, the default).
    fn gtp_with_board_size(&self, _size: u32) -> Result<Self, GtpError> {
        Err(GtpError::unacceptable_size())
    }

    /// The komi the engine should be told, if the game has one.
    fn gtp_komi(&self) -> Option<f64> {
        None
    }

    /// Sets the komi. The default accepts and ignores it: GTP controllers send `komi` to
    /// every engine.
    fn gtp_set_komi(&mut self, _komi: f64) -> Result<(), GtpError> {
        Ok(())
    }

    /// The player a GTP colour stands for. Default: black is the first player (Go,
    /// Othello); games where white starts (Amazons) override it.
    fn gtp_player(&self, color: Color) -> Player {
        match color {
            Color::Black => Player::FIRST,
            Color::White => Player::SECOND,
        }
    }

    /// The GTP colour of a player; the inverse of [`gtp_player`](GtpGame::gtp_player).
    fn gtp_color(&self, player: Player) -> Color {
        if self.gtp_player(Color::Black) == player { Color::Black } else { Color::White }
    }

    /// A move that is always legal and only hands the turn over (Go's pass), if the game has
    /// one. `play` and `genmove` for the side not to move insert it first when the game has
    /// no [`gtp_hand_over`](GtpGame::gtp_hand_over), as GTP allows either colour to move at
    /// any time; without either they fail.
    fn gtp_pass_move(&self) -> Option<Self::Move> {
        None
    }

    /// This position with the other side to move and nothing played, for games where a
    /// colour may meaningfully move twice in a row (GTP v2 accepts consecutive moves of one
    /// colour: controllers set positions up that way). `play`, `genmove` and the analysis
    /// commands for the side not to move use it rather than inserting a pass, which could end
    /// the game. `None` (the default) when the game has no such position.
    fn gtp_hand_over(&self) -> Option<Self> {
        None
    }

    /// Reads a move in GTP notation. The default reads the game's own notation, then
    /// `pass` and `resign` (any case) when the game does not read them itself.
    fn parse_gtp_move(&self, text: &str) -> Result<GtpMove<Self::Move>, MoveParseError> {
        match self.parse_move(text) {
            Ok(mv) => Ok(GtpMove::Move(mv)),
            Err(e) => {
                if text.eq_ignore_ascii_case("pass") {
                    Ok(GtpMove::Pass)
                } else if text.eq_ignore_ascii_case("resign") {
                    Ok(GtpMove::Resign)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// Who is expected to own each point at the end, for `kata-analyze … ownership true`:
    /// one value in -1..=1 per point from `player`'s side (1: surely `player`'s), row by row
    /// from the top-left corner (A19 first on 19x19), as KataGo writes it. `None` (the
    /// default) when the game has no such estimate.
    fn gtp_ownership(&self, _player: Player) -> Option<Vec<f64>> {
        None
    }

    /// Registers the game's own commands (handicap, dead stones, records) on an engine
    /// [`GameEngine::into_engine`] has just built from `start`, after the standard ones, which
    /// they may replace. The default adds none.
    fn gtp_commands(_engine: &mut Engine<GameEngine<Self>>, _start: &Self)
    where
        Self: Sized,
    {
    }

    /// Writes a move in GTP notation; the default is the game's own notation.
    fn format_gtp_move(&self, mv: Self::Move) -> String {
        self.format_move(mv)
    }

    /// The answer to `final_score`: `B+3.5`, `W+12`, or `0` for a draw. The default, for
    /// finished games without a margin, writes a win as `B+1` / `W+1`.
    fn gtp_final_score(&self) -> Result<String, GtpError> {
        if !self.is_over() {
            return Err(GtpError::new("cannot score"));
        }
        Ok(match self.rewards().winner() {
            None => "0".to_string(),
            Some(p) => format!("{}+1", self.gtp_color(p).letter()),
        })
    }

    /// The result the rules give this finished game, written as `final_score` answers
    /// (`B+3.5`): what an engine's own `final_score` is compared with when a referee asks
    /// whether it disputes the result. The default is [`gtp_final_score`](Self::gtp_final_score);
    /// games whose `final_score` is an estimate (Go's, with dead stones removed) give the
    /// rules' count instead.
    fn gtp_result(&self) -> Result<String, GtpError> {
        self.gtp_final_score()
    }

    /// Whether play resumed after a disputed end ([`Game::resume_for_cleanup`]): an engine is
    /// then asked for `kgs-genmove_cleanup` instead of `genmove`, so that it captures the
    /// stones it calls dead before it passes. The default: never.
    fn gtp_cleanup(&self) -> bool {
        false
    }
}

/// Builds the start position of a game by name.
pub type GameFactory<G> = Box<dyn Fn(&str) -> Option<G> + Send>;

/// The games a multi-game engine offers through `list_games` / `set_game`.
pub struct GameRegistry<G> {
    names: Vec<String>,
    make: GameFactory<G>,
}

impl<G> GameRegistry<G> {
    /// `names` as `list_games` lists them; `make` builds the start position of a name
    /// (matched case-insensitively against `names` first).
    pub fn new(names: Vec<String>, make: impl Fn(&str) -> Option<G> + Send + 'static) -> GameRegistry<G> {
        GameRegistry { names, make: Box::new(make) }
    }
}

/// The standard GTP game commands over one game type and an agent.
pub struct GameEngine<G: GtpGame> {
    start: G,
    state: G,
    history: Vec<(G, G::Move)>,
    /// For each history entry: how it was played (in turn, or out of turn after an inserted
    /// pass or a hand-over).
    inserted: Vec<Inserted<G>>,
    agent: Box<dyn Agent<G>>,
    time: TimeSystem,
    clocks: [Option<SideClock>; 2],
    default_limits: Limits,
    registry: Option<GameRegistry<G>>,
    allow_resign: bool,
    /// The position before a hand-over whose move is about to be pushed.
    pending_hand_over: Option<G>,
}

/// How a move came into the history.
enum Inserted<G> {
    /// In turn.
    No,
    /// A pass inserted to let the other colour move.
    Pass,
    /// Played out of turn after [`GtpGame::gtp_hand_over`]; holds the position before it.
    HandOver(G),
}

/// How a colour that is not to move gets to move.
enum OutOfTurn<G: GtpGame> {
    /// The game's pass move is played first.
    Pass(G::Move),
    /// The turn is handed over; holds the position before.
    HandOver(G),
}

fn seconds(text: &str) -> Result<Duration, GtpError> {
    let v = parse_float(text)?;
    Duration::try_from_secs_f64(v).map_err(|_| GtpError::syntax())
}

impl<G: GtpGame> GameEngine<G> {
    /// A controller starting from `start` (also what `clear_board` returns to) with
    /// `agent` choosing the moves of `genmove`.
    pub fn new(start: G, agent: Box<dyn Agent<G>>) -> GameEngine<G> {
        let mut agent = agent;
        agent.new_game(&start);
        GameEngine {
            state: start.clone(),
            start,
            history: Vec::new(),
            inserted: Vec::new(),
            agent,
            time: TimeSystem::None,
            clocks: [None, None],
            default_limits: Limits::none(),
            registry: None,
            allow_resign: true,
            pending_hand_over: None,
        }
    }

    /// Offers several games through `list_games` / `set_game`.
    pub fn with_registry(mut self, registry: GameRegistry<G>) -> GameEngine<G> {
        self.registry = Some(registry);
        self
    }

    /// The limits `genmove` uses when no time control is set (e.g. a fixed time per move
    /// from the command line).
    pub fn with_default_limits(mut self, limits: Limits) -> GameEngine<G> {
        self.default_limits = limits;
        self
    }

    /// Whether `genmove` may answer `resign` when the agent would rather resign (default on).
    pub fn with_resign(mut self, allow: bool) -> GameEngine<G> {
        self.allow_resign = allow;
        self
    }

    /// Builds the GTP engine: built-ins plus every standard game command, the analysis
    /// commands `lz-analyze`, `lz-genmove_analyze`, `kata-analyze` and
    /// `kata-genmove_analyze`, and the game's own ([`GtpGame::gtp_commands`]). Each `cmd_*`
    /// method can also be registered under other names.
    pub fn into_engine(self, name: &str, version: &str) -> Engine<GameEngine<G>> {
        let start = self.start.clone();
        let mut e = Engine::new(self, name, version);
        e.register("boardsize", Self::cmd_boardsize);
        e.register("clear_board", Self::cmd_clear_board);
        e.register("komi", Self::cmd_komi);
        e.register("play", Self::cmd_play);
        e.register("genmove", Self::cmd_genmove);
        e.register("reg_genmove", Self::cmd_reg_genmove);
        e.register("kgs-genmove_cleanup", Self::cmd_genmove);
        e.register("undo", Self::cmd_undo);
        e.register("showboard", Self::cmd_showboard);
        e.register("final_score", Self::cmd_final_score);
        e.register("time_settings", Self::cmd_time_settings);
        e.register("kgs-time_settings", Self::cmd_kgs_time_settings);
        e.register("time_left", Self::cmd_time_left);
        e.register("list_games", Self::cmd_list_games);
        e.register("set_game", Self::cmd_set_game);
        e.register("lz-analyze", Self::cmd_lz_analyze);
        e.register("lz-genmove_analyze", Self::cmd_lz_genmove_analyze);
        e.register("kata-analyze", Self::cmd_kata_analyze);
        e.register("kata-genmove_analyze", Self::cmd_kata_genmove_analyze);
        G::gtp_commands(&mut e, &start);
        e
    }

    /// The current position.
    pub fn state(&self) -> &G {
        &self.state
    }

    /// The position `clear_board` returns to.
    pub fn start(&self) -> &G {
        &self.start
    }

    /// The moves played since the start, each with the position it was played in (passes
    /// inserted for out-of-turn moves included).
    pub fn history(&self) -> &[(G, G::Move)] {
        &self.history
    }

    /// The agent.
    pub fn agent_mut(&mut self) -> &mut dyn Agent<G> {
        self.agent.as_mut()
    }

    /// The time control in force.
    pub fn time_system(&self) -> &TimeSystem {
        &self.time
    }

    /// Starts a new game from `start` (which becomes what `clear_board` returns to).
    pub fn reset(&mut self, start: G) {
        self.start = start;
        self.state = self.start.clone();
        self.history.clear();
        self.inserted.clear();
        self.clocks = [self.time.start_clock(), self.time.start_clock()];
        self.agent.new_game(&self.start);
    }

    /// The player a colour stands for, checked to be a player of the game.
    pub fn player(&self, color: Color) -> Player {
        self.state.gtp_player(color)
    }

    /// Plays `mv` for `player` after checking it is legal; when `player` is not to move,
    /// first plays the game's pass move for the other side if it has one.
    pub fn play_checked(&mut self, player: Player, mv: G::Move) -> Result<(), GtpError> {
        let (pos, how) = self.position_for(player, true).ok_or_else(GtpError::illegal_move)?;
        if !pos.is_legal(mv) {
            return Err(GtpError::illegal_move());
        }
        self.push_out_of_turn(how, pos);
        self.push_move(mv, Inserted::No);
        Ok(())
    }

    /// Resumes a finished game for cleanup where the rules allow it
    /// ([`Game::resume_for_cleanup`]; `kgs-genmove_cleanup` after two passes): the moves
    /// from now on are played in the resumed position, and `undo` of the first of them goes
    /// back to the finished one. Returns whether play resumed.
    pub fn resume_for_cleanup(&mut self) -> bool {
        if !self.state.is_over() {
            return false;
        }
        let mut resumed = self.state.clone();
        if !resumed.resume_for_cleanup() {
            return false;
        }
        self.pending_hand_over = Some(std::mem::replace(&mut self.state, resumed));
        true
    }

    /// Brings the state to `pos`, the position `position_for` found for an out-of-turn move.
    fn push_out_of_turn(&mut self, how: Option<OutOfTurn<G>>, pos: G) {
        match how {
            None => {}
            Some(OutOfTurn::Pass(pass)) => self.push_move(pass, Inserted::Pass),
            Some(OutOfTurn::HandOver(before)) => {
                self.state = pos;
                // The move that follows records the position before the hand-over.
                self.pending_hand_over = Some(before);
            }
        }
    }

    fn push_move(&mut self, mv: G::Move, inserted: Inserted<G>) {
        let before = self.state.clone();
        self.state.play(mv);
        self.agent.observe(&before, &[mv]);
        self.history.push((before, mv));
        let inserted = match (inserted, self.pending_hand_over.take()) {
            (Inserted::No, Some(original)) => Inserted::HandOver(original),
            (inserted, _) => inserted,
        };
        self.inserted.push(inserted);
    }

    /// Takes back the last move (with the pass inserted before it, if any, or back to the
    /// colour to move before a hand-over); the agent is brought back in step by replaying the
    /// game.
    pub fn undo_move(&mut self) -> Result<(), GtpError> {
        let (mut before, _) = self.history.pop().ok_or_else(GtpError::cannot_undo)?;
        if let Some(Inserted::HandOver(original)) = self.inserted.pop() {
            before = original;
        }
        if matches!(self.inserted.last(), Some(Inserted::Pass)) {
            self.inserted.pop();
            if let Some((b, _)) = self.history.pop() {
                before = b;
            }
        }
        self.state = before;
        self.pending_hand_over = None;
        self.agent.new_game(&self.start);
        for (pos, mv) in &self.history {
            self.agent.observe(pos, &[*mv]);
        }
        Ok(())
    }

    /// The limits for a move of `color`: when a time control is set, its clock and the
    /// budget the shared policy gives it for the moves the position has left
    /// ([`Budget::from_limits`], which agents that read the clock arrive at too); else the
    /// default limits.
    pub fn limits_for(&self, color: Color) -> Limits {
        match &self.clocks[color.index()] {
            Some(c) => {
                let clock = Limits { clock: Some(c.to_clock(&self.time)), ..Limits::default() };
                let budget = Budget::from_limits(&clock, self.state.moves_left());
                Limits { time: budget.soft, hard_time: budget.hard, ..clock }
            }
            None => self.default_limits.clone(),
        }
    }

    /// The position in which `player` moves: the current one, or when the other side is to
    /// move the game's hand-over or else the position after its pass move; with `resume`, a
    /// finished game resumed for cleanup where the rules allow it (`None` when none works).
    fn position_for(&self, player: Player, resume: bool) -> Option<(G, Option<OutOfTurn<G>>)> {
        if self.state.is_over() {
            if !resume {
                return None;
            }
            // A move after the end: a server resumed the game after a disputed result (the
            // KGS cleanup phase), where the rules allow it.
            let mut resumed = self.state.clone();
            if !resumed.resume_for_cleanup() {
                return None;
            }
            let how = Some(OutOfTurn::HandOver(self.state.clone()));
            if resumed.current_player() == player {
                return Some((resumed, how));
            }
            let after = resumed.gtp_hand_over()?;
            return (!after.is_over() && after.current_player() == player).then_some((after, how));
        }
        if self.state.current_player() == player {
            return Some((self.state.clone(), None));
        }
        if let Some(after) = self.state.gtp_hand_over() {
            let ok = !after.is_over() && after.current_player() == player;
            return ok.then(|| (after, Some(OutOfTurn::HandOver(self.state.clone()))));
        }
        let pass = self.state.gtp_pass_move()?;
        let mut legal = Vec::new();
        self.state.legal_moves(&mut legal);
        if !legal.contains(&pass) {
            return None;
        }
        let mut after = self.state.clone();
        after.play(pass);
        (!after.is_over() && after.current_player() == player).then_some((after, Some(OutOfTurn::Pass(pass))))
    }

    /// Lets the agent choose a move for `color`, reporting progress to `report`. Returns the
    /// GTP answer (`pass` when there is nothing to play, `resign`, or the move) and plays the
    /// move when `play` is set.
    pub fn generate(
        &mut self,
        color: Color,
        play: bool,
        limits: Limits,
        report: &mut dyn FnMut(&G, &SearchInfo<G::Move>),
    ) -> Result<String, GtpError> {
        let found = self.position_for(self.player(color), false);
        self.generate_at(found, color, play, limits, report)
    }

    /// [`generate`](Self::generate) in `found`, what `position_for` gave for `color`.
    fn generate_at(
        &mut self,
        found: Option<(G, Option<OutOfTurn<G>>)>,
        color: Color,
        play: bool,
        limits: Limits,
        report: &mut dyn FnMut(&G, &SearchInfo<G::Move>),
    ) -> Result<String, GtpError> {
        let player = self.player(color);
        let Some((pos, how)) = found else {
            if self.state.is_over() {
                return Ok("pass".to_string());
            }
            return Err(GtpError::new("not this colour's turn"));
        };
        let started = Instant::now();
        let mut forward = |info: &SearchInfo<G::Move>| report(&pos, info);
        let result = self.agent.choose(&pos, player, &limits, &mut forward);
        if play && let Some(clock) = &mut self.clocks[color.index()] {
            clock.charge(&self.time, started.elapsed());
        }
        let choice = match result {
            Ok(c) => c,
            Err(AgentError::NoMove) => return Ok("pass".to_string()),
            Err(e) => return Err(GtpError::new(e.to_string())),
        };
        if choice.resign && self.allow_resign {
            return Ok("resign".to_string());
        }
        if !pos.is_legal(choice.mv) {
            return Err(GtpError::new(format!("agent chose an illegal move: {}", pos.format_gtp_move(choice.mv))));
        }
        let text = pos.format_gtp_move(choice.mv);
        if play {
            self.push_out_of_turn(how, pos);
            self.push_move(choice.mv, Inserted::No);
        }
        Ok(text)
    }

    fn color_arg(cmd: &Command, index: usize) -> Result<Color, GtpError> {
        parse_color(cmd.arg(index).ok_or_else(GtpError::syntax)?)
    }

    /// `boardsize N`.
    pub fn cmd_boardsize(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(1)?;
        let size = parse_int(&cmd.args[0]).map_err(|_| GtpError::new("boardsize not an integer"))?;
        let start = self.start.gtp_with_board_size(size)?;
        self.reset(start);
        Ok(String::new())
    }

    /// `clear_board`.
    pub fn cmd_clear_board(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(0)?;
        self.reset(self.start.clone());
        Ok(String::new())
    }

    /// `komi K`: applies to the start position, the current one and the history.
    pub fn cmd_komi(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(1)?;
        let komi = parse_float(&cmd.args[0]).map_err(|_| GtpError::new("komi not a float"))?;
        self.start.gtp_set_komi(komi)?;
        self.state.gtp_set_komi(komi)?;
        for (pos, _) in &mut self.history {
            pos.gtp_set_komi(komi)?;
        }
        Ok(String::new())
    }

    /// `play COLOUR MOVE`.
    pub fn cmd_play(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(2)?;
        let color = Self::color_arg(cmd, 0)?;
        let player = self.player(color);
        let pos = self.position_for(player, true).map(|p| p.0).unwrap_or_else(|| self.state.clone());
        match pos.parse_gtp_move(&cmd.args[1]) {
            Ok(GtpMove::Move(mv)) => self.play_checked(player, mv).map(|_| String::new()),
            Ok(GtpMove::Pass) | Ok(GtpMove::Resign) => Err(GtpError::illegal_move()),
            Err(_) => Err(GtpError::syntax()),
        }
    }

    /// `genmove COLOUR`: chooses and plays.
    pub fn cmd_genmove(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(1)?;
        let color = Self::color_arg(cmd, 0)?;
        let limits = self.limits_for(color);
        self.generate(color, true, limits, &mut |_, _| {})
    }

    /// `reg_genmove COLOUR`: chooses without playing.
    pub fn cmd_reg_genmove(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(1)?;
        let color = Self::color_arg(cmd, 0)?;
        let limits = self.limits_for(color);
        self.generate(color, false, limits, &mut |_, _| {})
    }

    /// `undo`.
    pub fn cmd_undo(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(0)?;
        self.undo_move().map(|_| String::new())
    }

    /// `showboard`: the game's own drawing, starting on the line after `=`.
    pub fn cmd_showboard(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(0)?;
        Ok(format!("\n{}", self.state))
    }

    /// `final_score`.
    pub fn cmd_final_score(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(0)?;
        self.state.gtp_final_score()
    }

    fn set_time(&mut self, system: TimeSystem) {
        self.time = system;
        self.clocks = [self.time.start_clock(), self.time.start_clock()];
    }

    /// `time_settings MAIN BYO STONES` (seconds; Canadian overtime).
    pub fn cmd_time_settings(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(3)?;
        let main = seconds(&cmd.args[0])?;
        let byo = seconds(&cmd.args[1])?;
        let stones = parse_int(&cmd.args[2])?;
        self.set_time(TimeSystem::from_gtp(main, byo, stones));
        Ok(String::new())
    }

    /// `kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS |
    /// canadian MAIN PERIOD STONES`.
    pub fn cmd_kgs_time_settings(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        let kind = cmd.arg(0).ok_or_else(GtpError::syntax)?.to_ascii_lowercase();
        let system = match (kind.as_str(), cmd.args.len()) {
            ("none", 1) => TimeSystem::None,
            ("absolute", 2) => TimeSystem::Absolute { main: seconds(&cmd.args[1])? },
            ("byoyomi", 4) => TimeSystem::Byoyomi {
                main: seconds(&cmd.args[1])?,
                period: seconds(&cmd.args[2])?,
                periods: parse_int(&cmd.args[3])?,
            },
            ("canadian", 4) => {
                let (main, period) = (seconds(&cmd.args[1])?, seconds(&cmd.args[2])?);
                match parse_int(&cmd.args[3])? {
                    0 => return Err(GtpError::syntax()),
                    stones => TimeSystem::Canadian { main, period, stones },
                }
            }
            _ => return Err(GtpError::syntax()),
        };
        self.set_time(system);
        Ok(String::new())
    }

    /// `time_left COLOUR TIME STONES`.
    pub fn cmd_time_left(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(3)?;
        let color = Self::color_arg(cmd, 0)?;
        let time = seconds(&cmd.args[1])?;
        let stones = parse_int(&cmd.args[2])?;
        match &mut self.clocks[color.index()] {
            Some(clock) => clock.set_left(time, stones),
            // Told the time left without a time control: treat it as absolute time.
            slot @ None if stones == 0 && !time.is_zero() => {
                let absolute = TimeSystem::Absolute { main: time };
                *slot = absolute.start_clock();
            }
            None => {}
        }
        Ok(String::new())
    }

    /// `list_games`: one name per line.
    pub fn cmd_list_games(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        cmd.expect_args(0)?;
        Ok(match &self.registry {
            Some(r) => r.names.join("\n"),
            None => self.start.gtp_name(),
        })
    }

    /// `set_game NAME`: switches game (and starts a new one).
    pub fn cmd_set_game(&mut self, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
        if cmd.args.is_empty() {
            return Err(GtpError::syntax());
        }
        let name = cmd.args.join(" ");
        if let Some(r) = &self.registry {
            if let Some(known) = r.names.iter().find(|n| n.eq_ignore_ascii_case(&name)) {
                let start = (r.make)(known).ok_or_else(|| GtpError::new("unsupported game"))?;
                self.reset(start);
                return Ok(String::new());
            }
        } else if name.eq_ignore_ascii_case(&self.start.gtp_name()) {
            self.reset(self.start.clone());
            return Ok(String::new());
        }
        Err(GtpError::new("unsupported game"))
    }

    /// Reads the arguments of the analysis commands: `[COLOUR] [INTERVAL]`, also
    /// `interval N` and `ownership true|false`; other `key value` pairs (`minmoves 5`) are
    /// accepted and ignored.
    fn analysis_args(&self, args: &[String], need_color: bool) -> Result<AnalysisArgs, GtpError> {
        let mut i = 0;
        let color = match args.first().map(|a| parse_color(a)) {
            Some(Ok(c)) => {
                i = 1;
                c
            }
            _ if need_color => return Err(GtpError::syntax()),
            _ => self.state.gtp_color(self.state.current_player()),
        };
        let mut interval = Duration::from_secs(1);
        let mut ownership = false;
        while i < args.len() {
            if let Ok(cs) = parse_int(&args[i]) {
                interval = Duration::from_millis(cs as u64 * 10);
                i += 1;
            } else if i + 1 < args.len() {
                let value = &args[i + 1];
                match args[i].as_str() {
                    "interval" => interval = Duration::from_millis(parse_int(value)? as u64 * 10),
                    "ownership" => {
                        ownership = match value.to_ascii_lowercase().as_str() {
                            "true" => true,
                            "false" => false,
                            _ => return Err(GtpError::new("ownership must be true or false")),
                        }
                    }
                    _ => {}
                }
                i += 2;
            } else {
                return Err(GtpError::syntax());
            }
        }
        Ok(AnalysisArgs { color, interval, ownership })
    }

    /// Runs an analysis command: searches for the colour asked, streaming one line per
    /// interval (and always the last one), and plays the move found when `genmove` is set.
    /// Returns the final text: the last line not yet sent, and `play MOVE` after a genmove.
    fn analyse(&mut self, cmd: &Command, ctx: &mut Ctx<'_>, style: Style, genmove: bool) -> Result<String, GtpError> {
        let args = self.analysis_args(&cmd.args, genmove)?;
        if args.ownership && style == Style::Lz {
            return Err(GtpError::new("ownership needs kata-analyze"));
        }
        // The position searched, found once for the ownership estimate and the search.
        let player = self.player(args.color);
        let found = self.position_for(player, false);
        let mut ownership = None;
        if args.ownership {
            let Some((pos, _)) = &found else {
                return Err(GtpError::new("not this colour's turn"));
            };
            let values = pos
                .gtp_ownership(player)
                .ok_or_else(|| GtpError::new(format!("no ownership estimate for {}", pos.gtp_name())))?;
            let mut text = String::new();
            push_ownership(&mut text, &values);
            ownership = Some(text);
        }
        ctx.start_stream();
        let limits = if genmove {
            self.limits_for(args.color)
        } else {
            Limits { stop: Some(ctx.interrupt_flag()), analyse: true, ..Limits::none() }
        };
        let mut last: Option<Instant> = None;
        let mut pending = String::new();
        let result = self.generate_at(found, args.color, genmove, limits, &mut |pos, info| {
            let mut line = analysis_line(pos, info, style);
            if line.is_empty() {
                return;
            }
            if let Some(own) = &ownership {
                line.push_str(own);
            }
            if last.is_none_or(|t| t.elapsed() >= args.interval) {
                ctx.stream_line(&line);
                pending.clear();
                last = Some(Instant::now());
            } else {
                pending = line;
            }
        });
        let mv = result?;
        // The last report is always shown, however soon it came; after a genmove, before
        // the move.
        Ok(match (genmove, pending.is_empty()) {
            (false, _) => pending,
            (true, true) => format!("play {mv}"),
            (true, false) => format!("{pending}\nplay {mv}"),
        })
    }

    /// `lz-analyze [COLOUR] [INTERVAL]`: streams `info` lines every INTERVAL centiseconds
    /// until the next command arrives; the position is not changed.
    pub fn cmd_lz_analyze(&mut self, cmd: &Command, ctx: &mut Ctx<'_>) -> Result<String, GtpError> {
        self.analyse(cmd, ctx, Style::Lz, false)
    }

    /// `lz-genmove_analyze COLOUR [INTERVAL]`: like `genmove`, streaming `info` lines while
    /// thinking (at most one per INTERVAL centiseconds, and always the last one) and ending
    /// with `play MOVE`.
    pub fn cmd_lz_genmove_analyze(&mut self, cmd: &Command, ctx: &mut Ctx<'_>) -> Result<String, GtpError> {
        self.analyse(cmd, ctx, Style::Lz, true)
    }

    /// `kata-analyze [COLOUR] [INTERVAL] [ownership true]`: `lz-analyze` in KataGo's format,
    /// with each line ending in the ownership estimate of the position when asked (and the
    /// game has one; else an error before anything is streamed).
    pub fn cmd_kata_analyze(&mut self, cmd: &Command, ctx: &mut Ctx<'_>) -> Result<String, GtpError> {
        self.analyse(cmd, ctx, Style::Kata, false)
    }

    /// `kata-genmove_analyze COLOUR [INTERVAL] [ownership true]`: `lz-genmove_analyze` in
    /// KataGo's format.
    pub fn cmd_kata_genmove_analyze(&mut self, cmd: &Command, ctx: &mut Ctx<'_>) -> Result<String, GtpError> {
        self.analyse(cmd, ctx, Style::Kata, true)
    }
}

/// The arguments of an analysis command.
struct AnalysisArgs {
    color: Color,
    interval: Duration,
    ownership: bool,
}
