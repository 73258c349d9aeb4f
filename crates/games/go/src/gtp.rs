//! Go over GTP: [`GtpGame`] for [`Go`] and the Go commands GUIs, servers and tournament
//! tools send besides the standard ones.
//!
//! The standard game commands (`boardsize`, `play`, `genmove`, `undo`, clocks, analysis
//! streaming) come from [`GameEngine`]; [`gtp_engine`] adds handicap placement
//! (`fixed_handicap`, `place_free_handicap`, `set_free_handicap`), end-of-game status and
//! scoring (`final_status_list`, `final_score` with dead stones, `kgs-genmove_cleanup`),
//! game records through `tabula-sgf` (`loadsgf`, `printsgf`) and GoGui's analysis menu
//! (`gogui-analyze_commands` with an ownership board). [`run_gtp`] runs it over any reader
//! and writer.
//!
//! Dead stones are judged the way Monte Carlo programs do: heavy playouts from the position
//! ([`playout_stats`]) tell, for each group, how often it survives. A group captured in most
//! playouts is dead; a living group sharing an unowned liberty with a living opponent group
//! is in seki. (Survival is a sharper signal than area ownership, which random play in big
//! open territories dilutes.)
//!
//! ```
//! use std::io::Cursor;
//! use tabula_core::Spec;
//! use tabula_go::{Go, go_agent, run_gtp};
//!
//! let agent = go_agent(&Spec::parse("mcts(playouts=50,seed=1)").unwrap()).unwrap();
//! let input = Cursor::new(b"boardsize 9\nfixed_handicap 2\ngenmove w\n".to_vec());
//! let mut out = Vec::new();
//! run_gtp(Go::default(), Box::new(agent), input, &mut out).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.starts_with("= \n\n= C3 G7\n\n= "), "{out}");
//! ```

use std::io::{self, BufRead, Write};

use tabula_core::{Agent, Game, Limits, MoveParseError};
use tabula_gtp::{Command, Ctx, Engine, GameEngine, GtpError, GtpGame, GtpMove};
use tabula_sgf::{GameTree, GoMove, NodeId};

use crate::board::{Color, MAX_SIZE, MIN_SIZE, Point};
use crate::game::{Go, Move, fixed_handicap_points};

pub use crate::status::{
    PlayoutStats, Status, Territory, dead_stones, group_status, ownership, playout_stats, status_stats, territory,
};

/// The GTP engine for Go.
pub type GoEngine = Engine<GameEngine<Go>>;

/// The largest komi `komi` accepts, either way (as `go(komi=...)` does).
const MAX_KOMI: f64 = 1000.0;

impl GtpGame for Go {
    fn gtp_name(&self) -> String {
        "Go".to_string()
    }

    fn gtp_board_size(&self) -> Option<u32> {
        Some(self.size() as u32)
    }

    fn gtp_with_board_size(&self, size: u32) -> Result<Go, GtpError> {
        let size = size as usize;
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(GtpError::unacceptable_size());
        }
        Go::try_new(size, *self.rules()).map_err(|_| GtpError::unacceptable_size())
    }

    fn gtp_komi(&self) -> Option<f64> {
        Some(self.rules().komi as f64)
    }

    fn gtp_set_komi(&mut self, komi: f64) -> Result<(), GtpError> {
        if !komi.is_finite() || komi.abs() > MAX_KOMI {
            return Err(GtpError::new(format!("komi {komi} out of range: -{MAX_KOMI} to {MAX_KOMI}")));
        }
        self.set_komi(komi as f32);
        Ok(())
    }

    fn gtp_pass_move(&self) -> Option<Move> {
        Some(Move::Pass)
    }

    /// A colour may move twice in a row when a controller sets a position up: the turn is
    /// handed over ([`Go::hand_over`]) instead of inserting a pass, which could end the game.
    fn gtp_hand_over(&self) -> Option<Go> {
        let mut after = self.clone();
        after.hand_over();
        Some(after)
    }

    fn gtp_commands(engine: &mut GoEngine, start: &Go) {
        register_go_commands(engine, start);
    }

    /// The ownership the status commands use ([`status_stats`]: heavy playouts from this
    /// position, deterministic for it), turned to `player`'s side and to KataGo's order, the
    /// top row first.
    fn gtp_ownership(&self, player: tabula_core::Player) -> Option<Vec<f64>> {
        let stats = status_stats(self);
        let size = self.size();
        let sign = if self.gtp_color(player) == tabula_gtp::Color::Black { 1.0 } else { -1.0 };
        let mut out = Vec::with_capacity(size * size);
        for y in (0..size).rev() {
            for x in 0..size {
                out.push(sign * f64::from(stats.ownership[x + y * size]));
            }
        }
        Some(out)
    }

    fn parse_gtp_move(&self, text: &str) -> Result<GtpMove<Move>, MoveParseError> {
        if text.trim().eq_ignore_ascii_case("resign") {
            return Ok(GtpMove::Resign);
        }
        self.parse_move(text).map(GtpMove::Move)
    }

    /// The score by the rules with the stones [`dead_stones`] finds removed: `B+3.5`,
    /// `W+0.5` or `0`. Like GNU Go it answers in an unfinished game too (an estimate).
    fn gtp_final_score(&self) -> Result<String, GtpError> {
        let dead = dead_stones(self);
        self.score_with_dead(&dead).map(|s| s.to_string()).map_err(|e| GtpError::new(format!("cannot score: {e}")))
    }

    /// The rules' count of the finished game, every stone on the board alive.
    fn gtp_result(&self) -> Result<String, GtpError> {
        if !self.is_over() {
            return Err(GtpError::new("cannot score an unfinished game"));
        }
        Ok(self.score().to_string())
    }

    fn gtp_cleanup(&self) -> bool {
        self.in_cleanup()
    }
}

fn vertices(state: &Go, points: &[Point]) -> String {
    points.iter().map(|&p| state.format_point(p)).collect::<Vec<_>>().join(" ")
}

fn board_is_empty(state: &Go) -> bool {
    state.ply() == 0 && state.board().empty_count() == state.size() * state.size()
}

/// `fixed_handicap N`.
fn cmd_fixed_handicap(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(1)?;
    let n = tabula_gtp::protocol::parse_int(&cmd.args[0])? as usize;
    if !board_is_empty(e.state()) || !e.history().is_empty() {
        return Err(GtpError::new("board not empty"));
    }
    let mut start = e.state().clone();
    let points = start.place_fixed_handicap(n).map_err(|_| GtpError::new("invalid number of stones"))?;
    let text = vertices(&start, &points);
    e.reset(start);
    Ok(text)
}

/// The points `place_free_handicap` chooses: the fixed points as far as they go, then
/// greedily the point farthest from every stone placed, preferring the third and fourth
/// lines.
pub fn free_handicap_points(size: usize, stones: usize) -> Vec<(usize, usize)> {
    let max_fixed = if size >= 7 { if size % 2 == 1 && size >= 9 { 9 } else { 4 } } else { 0 };
    let mut pts = fixed_handicap_points(size, stones.min(max_fixed)).unwrap_or_default();
    let line_bonus = |x: usize, y: usize| -> i64 {
        let line = x.min(y).min(size - 1 - x).min(size - 1 - y);
        match line {
            2 | 3 => 2,
            1 | 4 => 1,
            _ => 0,
        }
    };
    while pts.len() < stones.min(size * size - 1) {
        let mut best: Option<((i64, i64), (usize, usize))> = None;
        for y in 0..size {
            for x in 0..size {
                if pts.contains(&(x, y)) {
                    continue;
                }
                let dist = pts.iter().map(|&(a, b)| (a.abs_diff(x) + b.abs_diff(y)) as i64).min().unwrap_or(0);
                let key = (dist, line_bonus(x, y));
                if best.is_none_or(|(k, _)| key > k) {
                    best = Some((key, (x, y)));
                }
            }
        }
        match best {
            Some((_, p)) => pts.push(p),
            None => break,
        }
    }
    pts
}

/// `place_free_handicap N`: the engine chooses the points.
fn cmd_place_free_handicap(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(1)?;
    let n = tabula_gtp::protocol::parse_int(&cmd.args[0])? as usize;
    if !board_is_empty(e.state()) || !e.history().is_empty() {
        return Err(GtpError::new("board not empty"));
    }
    let size = e.state().size();
    if n < 2 || n >= size * size {
        return Err(GtpError::new("invalid number of stones"));
    }
    let mut start = e.state().clone();
    let points: Vec<Point> =
        free_handicap_points(size, n).into_iter().filter_map(|(x, y)| start.board().point(x, y)).collect();
    start.place_free_handicap(&points).map_err(|err| GtpError::new(err.to_string()))?;
    let text = vertices(&start, &points);
    e.reset(start);
    Ok(text)
}

/// `set_free_handicap V1 V2 ...`: the controller chooses the points.
fn cmd_set_free_handicap(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    if !board_is_empty(e.state()) || !e.history().is_empty() {
        return Err(GtpError::new("board not empty"));
    }
    let mut start = e.state().clone();
    let mut points = Vec::with_capacity(cmd.args.len());
    for a in &cmd.args {
        let p = start.parse_point(a).map_err(|_| GtpError::new("bad vertex list"))?;
        if points.contains(&p) {
            return Err(GtpError::new("bad vertex list"));
        }
        points.push(p);
    }
    if points.len() < 2 || points.len() >= start.size() * start.size() {
        return Err(GtpError::new("bad vertex list"));
    }
    start.place_free_handicap(&points).map_err(|_| GtpError::new("bad vertex list"))?;
    e.reset(start);
    Ok(String::new())
}

/// `final_status_list alive|dead|seki`: one group per line.
fn cmd_final_status_list(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(1)?;
    let want = match cmd.args[0].to_ascii_lowercase().as_str() {
        "alive" => Status::Alive,
        "dead" => Status::Dead,
        "seki" => Status::Seki,
        _ => return Err(GtpError::syntax()),
    };
    let state = e.state();
    let lines: Vec<String> = group_status(state, &status_stats(state))
        .into_iter()
        .filter(|g| g.1 == want)
        .map(|g| vertices(state, &g.0))
        .collect();
    Ok(lines.join("\n"))
}

/// The position in which `color` moves (after a pass when the other side is to move), or
/// `None` when the game is over there.
fn position_for(state: &Go, color: Color) -> Option<Go> {
    let mut pos = state.clone();
    if pos.is_over() {
        return None;
    }
    if pos.to_move() != color {
        pos.play(Move::Pass);
    }
    (!pos.is_over()).then_some(pos)
}

/// A move that helps capture the stones `dead` of the opponent of the side to move: a legal
/// point next to them that neither fills an own eye nor puts own stones in atari, when
/// possible.
pub fn cleanup_move(pos: &Go, dead: &[Point]) -> Option<Point> {
    let b = pos.board();
    let color = pos.to_move();
    let mut fallback = None;
    for &d in dead {
        if b.color_at(d) != Some(color.other()) {
            continue;
        }
        for l in b.nbrs(d.index()) {
            let Some(lp) = b.point_of_index(l) else { continue };
            if !b.is_empty_point(lp) || !pos.is_legal_point(lp) || b.is_eye(color, lp) {
                continue;
            }
            if b.liberties_after(color, lp, 2) >= 2 {
                return Some(lp);
            }
            fallback.get_or_insert(lp);
        }
    }
    fallback
}

/// The move that captures the opponent's dead stones ([`dead_stones`]) instead of a pass,
/// if any is left: what a player in the cleanup phase plays rather than passing.
pub fn capture_before_passing(pos: &Go) -> Option<Point> {
    cleanup_move(pos, &dead_stones(pos))
}

/// `kgs-genmove_cleanup COLOUR`: like `genmove`, but before passing captures the opponent's
/// dead stones, so that a server scoring by area with every stone alive scores right.
fn cmd_genmove_cleanup(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(1)?;
    let gtp_color = tabula_gtp::protocol::parse_color(&cmd.args[0])?;
    let color = if gtp_color == tabula_gtp::Color::Black { Color::Black } else { Color::White };
    // Sent after two passes, it starts the cleanup phase (where the rules have one).
    e.resume_for_cleanup();
    let player = e.player(gtp_color);
    let limits = e.limits_for(gtp_color);
    let answer = e.generate(gtp_color, false, limits, &mut |_, _| {})?;
    let Some(pos) = position_for(e.state(), color) else { return Ok("pass".to_string()) };
    let chosen = match pos.parse_gtp_move(&answer) {
        Ok(GtpMove::Move(Move::Play(p))) => Some(Move::Play(p)),
        _ => {
            // The agent would pass (or resign): first capture what is dead.
            capture_before_passing(&pos).map(Move::Play)
        }
    };
    let mv = chosen.unwrap_or(Move::Pass);
    e.play_checked(player, mv)?;
    Ok(pos.format_move(mv))
}

/// The colour word GTP uses.
fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Builds the start position an SGF game tree describes (size, komi, setup stones and
/// handicap of its root) and its main-line moves; a size that is not a board (`SZ[99]`) or a
/// move that is not a point of the board is an error.
pub fn game_from_sgf(tree: &GameTree, template: &Go) -> Result<(Go, Vec<(Color, Move)>), String> {
    let (w, h) = tree.checked_board_size()?;
    if w != h {
        return Err(format!("board {w}x{h} is not square"));
    }
    let size = w as usize;
    let mut rules = *template.rules();
    let root = tree.root();
    let info = root.game_info();
    if let Some(k) = info.komi
        && k.is_finite()
        && k.abs() <= 1000.0
    {
        rules.komi = k as f32;
    }
    let mut start = Go::try_new(size, rules).map_err(|e| e.to_string())?;
    let to_point = |p: tabula_sgf::Point, g: &Go| -> Result<Point, String> {
        if (p.y as usize) >= size {
            return Err(format!("point {} is off the board", p.to_sgf()));
        }
        g.board()
            .point(p.x as usize, size - 1 - p.y as usize)
            .ok_or_else(|| format!("point {} is off the board", p.to_sgf()))
    };
    let mut moves = Vec::new();
    let mut first = true;
    for node in tree.main_line() {
        let setup = node.setup();
        if !setup.black.is_empty() || !setup.white.is_empty() || !setup.empty.is_empty() {
            if !moves.is_empty() {
                return Err("setup stones after the start are not supported".into());
            }
            if !setup.empty.is_empty() {
                return Err("AE on the empty board".into());
            }
            let black = setup.black.iter().map(|&p| to_point(p, &start)).collect::<Result<Vec<_>, _>>()?;
            let white = setup.white.iter().map(|&p| to_point(p, &start)).collect::<Result<Vec<_>, _>>()?;
            let to_move = match setup.to_play {
                Some(tabula_sgf::Color::White) => Color::White,
                Some(tabula_sgf::Color::Black) => Color::Black,
                None if white.is_empty() && black.len() >= 2 => Color::White,
                None => Color::Black,
            };
            if white.is_empty() && black.len() >= 2 && to_move == Color::White {
                start.place_free_handicap(&black).map_err(|e| e.to_string())?;
            } else {
                start.setup(&black, &white, to_move).map_err(|e| e.to_string())?;
            }
        } else if first && let Some(c) = setup.to_play {
            let to_move = if c == tabula_sgf::Color::White { Color::White } else { Color::Black };
            start.setup(&[], &[], to_move).map_err(|e| e.to_string())?;
        }
        first = false;
        if let Some((c, raw)) = node.raw_move() {
            let Some((_, m)) = node.go_move((w, h)) else {
                let shown: String = raw.text().chars().take(20).collect();
                return Err(format!("move {} {}[{shown}] is not a point of the board", moves.len() + 1, c.ident()));
            };
            let color = if c == tabula_sgf::Color::White { Color::White } else { Color::Black };
            let mv = match m {
                GoMove::Pass => Move::Pass,
                GoMove::Play(p) => Move::Play(to_point(p, &start)?),
            };
            moves.push((color, mv));
        }
    }
    Ok((start, moves))
}

/// `loadsgf FILE [MOVE_NUMBER]`: the position before move MOVE_NUMBER (1-based) of the
/// main line, or after all moves; answers the colour to move.
fn cmd_loadsgf(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    let file = cmd.arg(0).ok_or_else(GtpError::syntax)?;
    let limit = match cmd.arg(1) {
        None => usize::MAX,
        Some(a) => match tabula_gtp::protocol::parse_int(a)? {
            0 => return Err(GtpError::syntax()),
            n => n as usize - 1,
        },
    };
    if cmd.args.len() > 2 {
        return Err(GtpError::syntax());
    }
    let bytes = std::fs::read(file).map_err(|_| GtpError::new("cannot open file"))?;
    let collection =
        tabula_sgf::parse_lenient(&bytes).map_err(|err| GtpError::new(format!("cannot load file: {err}")))?;
    let tree = collection.games.first().ok_or_else(|| GtpError::new("cannot load file: no game"))?;
    if tree.game_type() != 1 {
        return Err(GtpError::new("cannot load file: not a Go game"));
    }
    let (start, moves) =
        game_from_sgf(tree, e.state()).map_err(|err| GtpError::new(format!("cannot load file: {err}")))?;
    let backup = (e.start().clone(), e.history().to_vec());
    e.reset(start);
    for &(color, mv) in moves.iter().take(limit) {
        let gtp_color = if color == Color::White { tabula_gtp::Color::White } else { tabula_gtp::Color::Black };
        let player = e.player(gtp_color);
        if let Err(err) = e.play_checked(player, mv) {
            // Leave the engine as it was.
            let (start, history) = backup;
            e.reset(start);
            for (pos, m) in history {
                let _ = e.play_checked(tabula_core::Player(pos.to_move() as u8), m);
            }
            return Err(GtpError::new(format!(
                "cannot load file: illegal move {}: {}",
                e.state().format_move(mv),
                err.0
            )));
        }
    }
    Ok(color_word(e.state().to_move()).to_string())
}

/// The SGF record of the game so far: size, komi, rules, handicap and setup stones at the
/// root, then every move, and the result when the game is over.
pub fn game_to_sgf(start: &Go, moves: &[(Color, Move)], end: &Go) -> String {
    tabula_sgf::write_collection(std::slice::from_ref(&sgf_tree(start, moves, end)))
}

/// The game tree [`game_to_sgf`] writes, which match records complete with the players.
pub(crate) fn sgf_tree(start: &Go, moves: &[(Color, Move)], end: &Go) -> GameTree {
    let mut tree = GameTree::new();
    let root = NodeId(0);
    let size = start.size();
    let sgf_point = |g: &Go, p: Point| -> Option<String> {
        let (x, y) = g.board().coords(p)?;
        Some(tabula_sgf::Point { x: x as u8, y: (size - 1 - y) as u8 }.to_sgf())
    };
    tree.push_property(root, "GM", &["1"]);
    tree.push_property(root, "FF", &["4"]);
    tree.push_property(root, "CA", &["UTF-8"]);
    tree.push_property(root, "AP", &[&format!("tabula:{}", env!("CARGO_PKG_VERSION"))]);
    tree.push_property(root, "SZ", &[&size.to_string()]);
    tree.push_property(root, "KM", &[&start.rules().komi.to_string()]);
    let ru = match start.rules().rule_set {
        crate::RuleSet::Chinese => "Chinese",
        crate::RuleSet::Japanese => "Japanese",
        crate::RuleSet::TrompTaylor => "Tromp-Taylor",
        crate::RuleSet::NewZealand => "NZ",
    };
    tree.push_property(root, "RU", &[ru]);
    if start.handicap() > 0 {
        tree.push_property(root, "HA", &[&start.handicap().to_string()]);
    }
    let mut black = Vec::new();
    let mut white = Vec::new();
    for p in start.board().points() {
        match start.board().color_at(p) {
            Some(Color::Black) => black.extend(sgf_point(start, p)),
            Some(Color::White) => white.extend(sgf_point(start, p)),
            None => {}
        }
    }
    if !black.is_empty() {
        let refs: Vec<&str> = black.iter().map(String::as_str).collect();
        tree.push_property(root, "AB", &refs);
    }
    if !white.is_empty() {
        let refs: Vec<&str> = white.iter().map(String::as_str).collect();
        tree.push_property(root, "AW", &refs);
    }
    if start.to_move() == Color::White && start.handicap() == 0 {
        tree.push_property(root, "PL", &["W"]);
    }
    if end.is_over() {
        let result = match end.gtp_final_score() {
            Ok(s) if s == "0" => "0".to_string(),
            Ok(s) => s.replace(".0", ""),
            Err(_) => "?".to_string(),
        };
        tree.push_property(root, "RE", &[&result]);
    }
    let mut node = root;
    for &(color, mv) in moves {
        let Some(next) = tree.add_child(node) else { break };
        node = next;
        let ident = if color == Color::White { "W" } else { "B" };
        let value = match mv {
            Move::Pass => String::new(),
            Move::Play(p) => sgf_point(start, p).unwrap_or_default(),
        };
        tree.push_property(node, ident, &[&value]);
    }
    tree
}

/// `printsgf [FILE]`: the game record, or written to FILE.
fn cmd_printsgf(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    if cmd.args.len() > 1 {
        return Err(GtpError::syntax());
    }
    let moves: Vec<(Color, Move)> = e.history().iter().map(|(pos, mv)| (pos.to_move(), *mv)).collect();
    let sgf = game_to_sgf(e.start(), &moves, e.state());
    match cmd.arg(0) {
        Some(file) => {
            std::fs::write(file, sgf.as_bytes()).map_err(|_| GtpError::new("cannot write file"))?;
            Ok(String::new())
        }
        None => Ok(format!("\n{}", sgf.trim_end())),
    }
}

/// The commands of GoGui's analysis menu, one `type/label/command` per line.
pub const GOGUI_ANALYZE_COMMANDS: &str = "dboard/Ownership/gogui-ownership\n\
     gfx/Territory/gogui-territory\n\
     plist/Dead stones/final_status_list dead\n\
     plist/Seki stones/final_status_list seki\n\
     string/Final score/final_score";

/// `gogui-ownership`: the ownership board (Black positive), top row first.
fn cmd_gogui_ownership(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(0)?;
    let state = e.state();
    let own = status_stats(state).ownership;
    let n = state.size();
    let mut text = String::new();
    for y in (0..n).rev() {
        text.push('\n');
        let row: Vec<String> = (0..n).map(|x| format!("{:.2}", own.get(x + y * n).copied().unwrap_or(0.0))).collect();
        text.push_str(&row.join(" "));
    }
    Ok(text)
}

/// `gogui-territory`: ownership as GoGui's influence graphics, dead stones marked.
fn cmd_gogui_territory(e: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>) -> Result<String, GtpError> {
    cmd.expect_args(0)?;
    let state = e.state();
    let stats = status_stats(state);
    let own = &stats.ownership;
    let b = state.board();
    let mut influence = String::from("INFLUENCE");
    for p in b.points() {
        let v = own.get(b.dense_index(p)).copied().unwrap_or(0.0);
        if v.abs() >= 0.2 {
            influence.push_str(&format!(" {} {v:.2}", state.format_point(p)));
        }
    }
    let dead: Vec<Point> =
        group_status(state, &stats).into_iter().filter(|g| g.1 == Status::Dead).flat_map(|g| g.0).collect();
    let mut text = influence;
    if !dead.is_empty() {
        text.push_str(&format!("\nMARK {}", vertices(state, &dead)));
    }
    Ok(text)
}

/// The GTP engine for Go: [`GameEngine`]'s standard commands over `agent`, starting from
/// `start` (which `clear_board` returns to on the same board size), plus the Go commands.
pub fn gtp_engine(start: Go, agent: Box<dyn Agent<Go>>) -> GoEngine {
    gtp_engine_with_limits(start, agent, Limits::none())
}

/// [`gtp_engine`] with the limits `genmove` uses when no time control is set (e.g. a fixed
/// time per move from the command line).
pub fn gtp_engine_with_limits(start: Go, agent: Box<dyn Agent<Go>>, limits: Limits) -> GoEngine {
    GameEngine::new(start, agent).with_default_limits(limits).into_engine("tabula", env!("CARGO_PKG_VERSION"))
}

/// Go's own commands: handicap, dead stones, records, GoGui's analysis menu, and a
/// `clear_board` that keeps the spec's start (its handicap) and the komi.
fn register_go_commands(e: &mut GoEngine, start: &Go) {
    let original = start.clone();
    e.register("clear_board", move |g: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>| {
        cmd.expect_args(0)?;
        let current = g.start();
        let mut fresh = if current.size() == original.size() {
            original.clone()
        } else {
            Go::new(current.size(), *current.rules())
        };
        fresh.set_komi(current.rules().komi);
        g.reset(fresh);
        Ok(String::new())
    });
    e.register("fixed_handicap", cmd_fixed_handicap);
    e.register("place_free_handicap", cmd_place_free_handicap);
    e.register("set_free_handicap", cmd_set_free_handicap);
    e.register("final_status_list", cmd_final_status_list);
    e.register("kgs-genmove_cleanup", cmd_genmove_cleanup);
    e.register("loadsgf", cmd_loadsgf);
    e.register("printsgf", cmd_printsgf);
    e.register("genmove_analyze", GameEngine::<Go>::cmd_lz_genmove_analyze);
    e.register("gogui-analyze_commands", |_: &mut GameEngine<Go>, cmd: &Command, _: &mut Ctx<'_>| {
        cmd.expect_args(0)?;
        Ok(GOGUI_ANALYZE_COMMANDS.to_string())
    });
    e.register("gogui-ownership", cmd_gogui_ownership);
    e.register("gogui-territory", cmd_gogui_territory);
}

/// Runs the Go GTP engine ([`gtp_engine`]) over `input` and `output` until `quit` or the end
/// of input.
pub fn run_gtp<R, W>(start: Go, agent: Box<dyn Agent<Go>>, input: R, output: W) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    gtp_engine(start, agent).run(input, output)
}
