//! `tabula play`: a game in the terminal between people and agents.
//!
//! People type moves in the game's own notation; anything that is not a legal move is
//! answered with the reason and asked again. `moves` lists the legal moves, `quit` ends.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_core::{Agent, Game, Limits, Player, SearchInfo, Turn};
use tabula_registry::{AgentFactory, GameVisitor, with_game};

/// Arguments of `tabula play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Game spec, e.g. `connect4` or `connect4(width=8,height=7)`.
    game: String,
    /// Who moves first: `human` or an agent spec.
    #[arg(long, default_value = "human")]
    first: String,
    /// Who moves second: `human` or an agent spec (default: the game's engine, as `tabula
    /// list` shows).
    #[arg(long)]
    second: Option<String>,
    /// Thinking time per agent move, in milliseconds (agents' own limits apply if unset).
    #[arg(long)]
    time_ms: Option<u64>,
}

enum Seat<G: Game> {
    Human,
    Agent(Box<dyn Agent<G>>),
}

struct Play<'a, R: BufRead, W: Write> {
    specs: Vec<String>,
    limits: Limits,
    input: &'a mut R,
    out: &'a mut W,
}

impl<R: BufRead, W: Write> GameVisitor for Play<'_, R, W> {
    type Output = Result<()>;

    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
        let Play { specs, limits, input, out } = self;
        let n = game.num_players();
        let mut seats: Vec<Seat<G>> = Vec::with_capacity(n);
        for p in 0..n {
            let spec = specs.get(p).or(specs.last()).map(String::as_str).unwrap_or("human");
            seats.push(if spec.eq_ignore_ascii_case("human") {
                Seat::Human
            } else {
                Seat::Agent(agents.build_str(spec).with_context(|| format!("player {}", p + 1))?)
            });
        }
        for seat in seats.iter_mut() {
            if let Seat::Agent(a) = seat {
                a.new_game(&game);
            }
        }
        let mut state = game;
        let mut moves = Vec::new();
        let mut joint = Vec::new();
        loop {
            writeln!(out, "\n{state}")?;
            let movers: Vec<Player> = match state.turn() {
                Turn::Over => {
                    let r = state.rewards();
                    match r.winner() {
                        Some(p) => writeln!(out, "game over: player {} wins", p.0 + 1)?,
                        None => writeln!(out, "game over: no single winner ({:?})", r.as_slice())?,
                    }
                    return Ok(());
                }
                Turn::Player(p) => vec![p],
                Turn::Simultaneous => (0..n).map(|i| Player(i as u8)).collect(),
            };
            joint.clear();
            for &p in &movers {
                state.legal_moves_of(p, &mut moves);
                let mv = match &mut seats[p.index()] {
                    Seat::Human => match ask_move(&state, p, &moves, input, out)? {
                        Some(mv) => mv,
                        None => {
                            writeln!(out, "game abandoned")?;
                            return Ok(());
                        }
                    },
                    Seat::Agent(agent) => {
                        let mut last: Option<SearchInfo<G::Move>> = None;
                        let choice = agent
                            .choose(&state, p, &limits, &mut |info| last = Some(info.clone()))
                            .map_err(|e| anyhow::anyhow!("{} failed: {e}", agent.name()))?;
                        if !moves.contains(&choice.mv) {
                            bail!("{} chose an illegal move: {}", agent.name(), state.format_move(choice.mv));
                        }
                        let info = last.unwrap_or(choice.info);
                        writeln!(
                            out,
                            "player {} ({}) plays {}{}",
                            p.0 + 1,
                            agent.name(),
                            state.format_move(choice.mv),
                            summary(&info)
                        )?;
                        choice.mv
                    }
                };
                joint.push(mv);
            }
            for seat in seats.iter_mut() {
                if let Seat::Agent(a) = seat {
                    a.observe(&state, &joint);
                }
            }
            if movers.len() == 1 && state.turn() != Turn::Simultaneous {
                state.play(joint[0]);
            } else {
                state.play_joint(&joint);
            }
        }
    }
}

fn summary<M>(info: &SearchInfo<M>) -> String {
    let mut parts = Vec::new();
    if info.depth > 0 {
        parts.push(format!("depth {}", info.depth));
    }
    if info.nodes > 0 {
        parts.push(format!("{} nodes", info.nodes));
    }
    if let Some(w) = info.win_rate {
        parts.push(format!("win {:.1}%", w * 100.0));
    }
    if let Some(m) = info.proven_in {
        parts.push(if m > 0 { format!("wins in {m}") } else { format!("loses in {}", -m) });
    } else if let Some(s) = info.score {
        parts.push(format!("score {s}"));
    }
    if !info.elapsed.is_zero() {
        parts.push(format!("{:.2} s", info.elapsed.as_secs_f64()));
    }
    if parts.is_empty() { String::new() } else { format!("  ({})", parts.join(", ")) }
}

/// Asks a person for a move until a legal one is typed; `None` on `quit` or end of input.
fn ask_move<G: Game>(
    state: &G,
    p: Player,
    legal: &[G::Move],
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Option<G::Move>> {
    loop {
        write!(out, "player {} move> ", p.0 + 1)?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" => return Ok(None),
            "moves" | "help" | "?" => {
                let list: Vec<String> = legal.iter().map(|&m| state.format_move(m)).collect();
                writeln!(out, "legal moves: {}", list.join(" "))?;
                continue;
            }
            _ => {}
        }
        match state.parse_move(text) {
            Err(e) => writeln!(out, "{e}; type 'moves' to list the legal moves")?,
            Ok(mv) if !legal.contains(&mv) => {
                writeln!(out, "'{text}' is not a legal move here; type 'moves' to list them")?
            }
            Ok(mv) => return Ok(Some(mv)),
        }
    }
}

/// Runs `tabula play`.
pub fn run(args: PlayArgs) -> Result<()> {
    let limits = match args.time_ms {
        Some(ms) => Limits::time(Duration::from_millis(ms)),
        None => Limits::none(),
    };
    let engine = tabula_registry::default_engine(&args.game).unwrap_or("random");
    let specs = vec![args.first, args.second.unwrap_or_else(|| engine.to_string())];
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    with_game(&args.game, Play { specs, limits, input: &mut input, out: &mut out })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(game: &str, specs: &[&str], typed: &str) -> Result<String> {
        let mut input = io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let specs = specs.iter().map(|s| s.to_string()).collect();
        with_game(game, Play { specs, limits: Limits::none(), input: &mut input, out: &mut out })??;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn humans_play_to_the_end_with_bad_input_reprompted() {
        let out = session("tictactoe", &["human", "human"], "a1\nzz\na1\nb1\nmoves\na2\nb2\na3\n").unwrap();
        assert!(out.contains("cannot read move 'zz'"), "{out}");
        assert!(out.contains("'a1' is not a legal move here"), "{out}");
        assert!(out.contains("legal moves: c1 a2"), "{out}");
        assert!(out.contains("game over: player 1 wins"), "{out}");
    }

    #[test]
    fn agents_play_each_other_and_input_can_end() {
        let out = session("connect4", &["random(seed=1)", "random(seed=2)"], "").unwrap();
        assert!(out.contains("game over"), "{out}");
        let out = session("connect4", &["human", "random"], "4\n").unwrap();
        assert!(out.contains("game abandoned"), "{out}");
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(session("connect4", &["alphabeat"], "").is_err());
        assert!(session("connect5", &["human"], "").is_err());
        assert!(session("connect4(width=2)", &["human"], "").is_err());
    }
}
