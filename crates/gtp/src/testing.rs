//! Scripted GTP sessions over strings, for tests of the games that speak GTP.
//!
//! ```no_run
//! # use tabula_gtp::GtpGame;
//! # fn example<G: GtpGame>(start: G, agent: Box<dyn tabula_core::Agent<G>>) {
//! let answers = tabula_gtp::testing::game_session(start, agent, "name\nundo\n");
//! assert_eq!(answers[0], "= tabula");
//! assert!(answers[1].starts_with('?'));
//! # }
//! ```

use std::io::Cursor;

use tabula_core::Agent;

use crate::{Engine, GameEngine, GtpGame};

/// Runs `script` (commands, one a line) through `engine` until its end or `quit`, and
/// returns the answers: one per command, each without the blank line that ends it and
/// without trailing whitespace (`=`, `= C3`, `? illegal move`).
pub fn session<S>(engine: &mut Engine<S>, script: &str) -> Vec<String> {
    let mut out = Vec::new();
    engine.run(Cursor::new(script.as_bytes().to_vec()), &mut out).expect("writing into memory cannot fail");
    answers(&out)
}

/// [`session`] on a fresh [`GameEngine`] (named `tabula`, version `test`) that starts from
/// `start` and plays `genmove` with `agent`; the game's own commands are registered.
pub fn game_session<G: GtpGame>(start: G, agent: Box<dyn Agent<G>>, script: &str) -> Vec<String> {
    session(&mut GameEngine::new(start, agent).into_engine("tabula", "test"), script)
}

/// The answers in an engine's whole output, as [`session`] returns them.
///
/// # Panics
/// If the output is not UTF-8.
pub fn answers(output: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(output).expect("GTP answers are UTF-8");
    text.split("\n\n").filter(|r| !r.is_empty()).map(|r| r.trim_end().to_string()).collect()
}
