//! Where games start: the start position itself, a few seeded random plies, or lines from an
//! opening list.
//!
//! Matches between deterministic agents from one position replay the same game over and
//! over; varied openings make each game a new sample. Every opening is played twice with the
//! colours swapped, so an unbalanced opening favours neither side.

use std::path::Path;

use tabula_core::{Game, ParamInfo, Params, Player, Rng, Spec, SpecError, Turn, splitmix64};

use crate::error::ArenaError;

/// The longest opening list file read (64 MiB).
pub const MAX_OPENINGS_FILE: u64 = 64 << 20;

/// The parameters of `random(...)` openings.
pub const RANDOM_OPENING_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("plies", "4", "random plies from the start position, 0..=1000"),
    ParamInfo::new("seed", "1", "seed of the set of openings"),
];

/// The parameters of `list(...)` openings.
pub const LIST_OPENING_PARAMS: &[ParamInfo] =
    &[ParamInfo::new("file", "", "a text file: one opening a line, moves separated by spaces")];

/// How openings are chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Openings {
    /// Every game starts from the start position.
    #[default]
    None,
    /// Opening `k` is `plies` random moves drawn with a generator seeded by `seed` and `k`;
    /// moves that would end the game are avoided (the opening stops early if every move does).
    RandomPlies {
        /// Plies to play.
        plies: u32,
        /// Seed of the whole set of openings.
        seed: u64,
    },
    /// Opening `k` is line `k` of the list (cycling when there are more games than lines).
    /// A line is moves in the game's notation separated by whitespace; a simultaneous step
    /// is the players' moves joined by `|`.
    List(Vec<String>),
}

impl Openings {
    /// Openings from a spec: `none`, `random(plies=4,seed=1)` or `list(file=openings.txt)`
    /// (see [`RANDOM_OPENING_PARAMS`] and [`LIST_OPENING_PARAMS`]).
    ///
    /// # Errors
    /// [`ArenaError::Spec`] for a bad spec, [`ArenaError::Io`] when the list cannot be read.
    pub fn from_spec(spec: &Spec) -> Result<Openings, ArenaError> {
        match spec.name.as_str() {
            "none" => {
                Params::new(spec, &[])?;
                Ok(Openings::None)
            }
            "random" => {
                let p = Params::new(spec, RANDOM_OPENING_PARAMS)?;
                Ok(Openings::RandomPlies { plies: p.get_in("plies", 0..=1000)?, seed: p.get("seed")? })
            }
            "list" => {
                let p = Params::new(spec, LIST_OPENING_PARAMS)?;
                let file: String = p.get("file")?;
                if file.is_empty() {
                    return Err(ArenaError::Config("list openings need file=<path>".into()));
                }
                Openings::from_file(Path::new(&file))
            }
            other => Err(SpecError::UnknownName {
                kind: "openings".into(),
                name: other.to_string(),
                valid: "none, random, list".into(),
            }
            .into()),
        }
    }

    /// An opening list from text: one opening per line; blank lines and lines starting with
    /// `#` are skipped.
    pub fn parse_list(text: &str) -> Openings {
        Openings::List(
            text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect(),
        )
    }

    /// Reads an opening list file (see [`Openings::parse_list`]) of at most
    /// [`MAX_OPENINGS_FILE`] bytes.
    ///
    /// # Errors
    /// [`ArenaError::Io`] when the file cannot be read, is not UTF-8 or is too long.
    pub fn from_file(path: &Path) -> Result<Openings, ArenaError> {
        let text = tabula_core::resources::read_text_capped(path, MAX_OPENINGS_FILE)
            .map_err(|source| ArenaError::Io { path: path.to_path_buf(), source })?;
        Ok(Openings::parse_list(&text))
    }

    /// Opening number `index` from `start`: the moves (one step per entry, one move per
    /// player in a simultaneous step) and their text.
    ///
    /// # Errors
    /// [`ArenaError::Opening`] when a listed move cannot be read, is illegal, or the line ends
    /// the game; or when the list is empty.
    pub fn opening<G: Game>(&self, start: &G, index: usize) -> Result<Opening<G>, ArenaError> {
        match self {
            Openings::None => Ok(Opening { steps: vec![], text: vec![] }),
            Openings::RandomPlies { plies, seed } => Ok(random_opening(start, *plies, *seed, index)),
            Openings::List(lines) => {
                if lines.is_empty() {
                    return Err(ArenaError::Opening { index, message: "the opening list is empty".into() });
                }
                let line = &lines[index % lines.len()];
                parse_line(start, line).map_err(|message| ArenaError::Opening { index: index % lines.len(), message })
            }
        }
    }
}

/// The moves of one opening.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<G: Game> {
    /// One entry per step: the mover's move, or every player's move in a simultaneous step.
    pub steps: Vec<Vec<G::Move>>,
    /// Each step as text.
    pub text: Vec<String>,
}

fn parse_line<G: Game>(start: &G, line: &str) -> Result<Opening<G>, String> {
    let mut state = start.clone();
    let mut steps = Vec::new();
    let mut text = Vec::new();
    let mut legal = Vec::new();
    for word in line.split_whitespace() {
        let step = match state.turn() {
            Turn::Over => return Err(format!("the game is over before '{word}'")),
            Turn::Player(_) => {
                let mv = state.parse_move(word).map_err(|e| e.to_string())?;
                if !state.is_legal(mv) {
                    return Err(format!("'{word}' is not legal at ply {}", state.ply()));
                }
                vec![mv]
            }
            Turn::Simultaneous => {
                let parts: Vec<&str> = word.split('|').collect();
                if parts.len() != state.num_players() {
                    return Err(format!("'{word}' needs one move per player, joined by '|'"));
                }
                let mut joint = Vec::with_capacity(parts.len());
                for (i, part) in parts.iter().enumerate() {
                    let mv = state.parse_move(part).map_err(|e| e.to_string())?;
                    state.legal_moves_of(Player(i as u8), &mut legal);
                    if !legal.contains(&mv) {
                        return Err(format!("'{part}' is not legal for player {} at ply {}", i + 1, state.ply()));
                    }
                    joint.push(mv);
                }
                joint
            }
        };
        apply_step(&mut state, &step);
        steps.push(step);
        text.push(word.to_string());
    }
    if state.is_over() {
        return Err("the opening ends the game".to_string());
    }
    Ok(Opening { steps, text })
}

/// Plays one step: a single move in an alternating turn, one move per player in a
/// simultaneous one.
pub(crate) fn apply_step<G: Game>(state: &mut G, step: &[G::Move]) {
    match (state.turn(), step) {
        (Turn::Player(_), [mv]) => state.play(*mv),
        _ => state.play_joint(step),
    }
}

/// Writes a step the way the records do.
pub(crate) fn step_text<G: Game>(state: &G, step: &[G::Move]) -> String {
    step.iter().map(|&m| state.format_move(m)).collect::<Vec<_>>().join("|")
}

fn random_opening<G: Game>(start: &G, plies: u32, seed: u64, index: usize) -> Opening<G> {
    let mut mix = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng::new(splitmix64(&mut mix));
    let mut state = start.clone();
    let mut steps = Vec::new();
    let mut text = Vec::new();
    let mut legal = Vec::new();
    'plies: for _ in 0..plies {
        let step = match state.turn() {
            Turn::Over => break,
            Turn::Player(_) => {
                state.legal_moves(&mut legal);
                rng.shuffle(&mut legal);
                let keeps_going = legal.iter().copied().find(|&m| {
                    let mut s = state.clone();
                    s.play(m);
                    !s.is_over()
                });
                match keeps_going {
                    Some(m) => vec![m],
                    None => break,
                }
            }
            Turn::Simultaneous => {
                let mut found = None;
                for _ in 0..32 {
                    let mut joint = Vec::with_capacity(state.num_players());
                    for p in 0..state.num_players() {
                        state.legal_moves_of(Player(p as u8), &mut legal);
                        if legal.is_empty() {
                            break 'plies;
                        }
                        joint.push(rng.choose(&legal));
                    }
                    let mut s = state.clone();
                    s.play_joint(&joint);
                    if !s.is_over() {
                        found = Some(joint);
                        break;
                    }
                }
                match found {
                    Some(j) => j,
                    None => break,
                }
            }
        };
        text.push(step_text(&state, &step));
        apply_step(&mut state, &step);
        steps.push(step);
    }
    Opening { steps, text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_tictactoe::TicTacToe;

    #[test]
    fn random_openings_are_seeded_and_never_finish_the_game() {
        let start = TicTacToe::new();
        let o = Openings::RandomPlies { plies: 3, seed: 9 };
        let a = o.opening(&start, 4).expect("opening");
        let b = o.opening(&start, 4).expect("opening");
        assert_eq!(a, b);
        assert_eq!(a.steps.len(), 3);
        let distinct: std::collections::HashSet<Vec<String>> =
            (0..20).map(|k| o.opening(&start, k).expect("opening").text).collect();
        assert!(distinct.len() > 10);
        // Eight plies of tic-tac-toe would often end the game; the opening steers clear.
        let long = Openings::RandomPlies { plies: 8, seed: 1 };
        for k in 0..50 {
            let op = long.opening(&start, k).expect("opening");
            let mut s = start.clone();
            for step in &op.steps {
                apply_step(&mut s, step);
            }
            assert!(!s.is_over());
        }
    }

    #[test]
    fn opening_lists_are_checked_against_the_rules() {
        let start = TicTacToe::new();
        let list = Openings::parse_list("# comment\n\na1 b2\n  c3  \n");
        let Openings::List(lines) = &list else { panic!("list") };
        assert_eq!(lines.len(), 2);
        let o = list.opening(&start, 0).expect("opening");
        assert_eq!(o.text, vec!["a1", "b2"]);
        assert_eq!(list.opening(&start, 3).expect("cycles").text, vec!["c3"]);
        let bad = Openings::parse_list("a1 a1");
        assert!(matches!(bad.opening(&start, 0), Err(ArenaError::Opening { index: 0, .. })));
        let unreadable = Openings::parse_list("zz");
        assert!(unreadable.opening(&start, 0).is_err());
        let ends = Openings::parse_list("a1 b1 a2 b2 a3");
        assert!(ends.opening(&start, 0).is_err());
        assert!(Openings::List(vec![]).opening(&start, 0).is_err());
        assert!(Openings::None.opening(&start, 7).expect("none").steps.is_empty());
    }

    #[test]
    fn openings_from_specs() {
        let parse = |t: &str| Openings::from_spec(&Spec::parse(t).expect("spec"));
        assert_eq!(parse("none").expect("none"), Openings::None);
        assert_eq!(parse("random").expect("random"), Openings::RandomPlies { plies: 4, seed: 1 });
        assert_eq!(parse("random(plies=2,seed=9)").expect("random"), Openings::RandomPlies { plies: 2, seed: 9 });
        assert!(matches!(parse("random(plies=-1)"), Err(ArenaError::Spec(_))));
        assert!(matches!(parse("book"), Err(ArenaError::Spec(SpecError::UnknownName { .. }))));
        assert!(matches!(parse("list"), Err(ArenaError::Config(_))));
        assert!(matches!(parse("list(file=/nonexistent/openings.txt)"), Err(ArenaError::Io { .. })));
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("o.txt");
        std::fs::write(&path, "a1 b2\n# c\nc3\n").expect("write");
        let spec = Spec::named("list").with("file", path.display());
        assert_eq!(Openings::from_spec(&spec).expect("list"), Openings::List(vec!["a1 b2".into(), "c3".into()]));
    }
}
