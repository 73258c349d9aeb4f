//! What can stop a match or a tournament.

use std::path::PathBuf;

/// Why a match or tournament could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// The factory could not build an agent, or an agent cannot play at all (an engine
    /// that cannot start): the run stops rather than forfeit every game.
    #[error("agent {} cannot play: {message}", participant + 1)]
    Agent {
        /// The participant (0-based).
        participant: usize,
        /// The factory's error.
        message: String,
    },
    /// An opening that cannot be played.
    #[error("opening {index}: {message}")]
    Opening {
        /// The opening's index in its list.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A results file line that is not a game record.
    #[error("{path}, line {line}: not a game record: {message}")]
    ResultsFile {
        /// The file.
        path: PathBuf,
        /// The line number (1-based).
        line: usize,
        /// The parse error.
        message: String,
    },
    /// The results file holds games of a different schedule.
    #[error("{path}: game {id} does not belong to this match ({message}); use a new results file")]
    ResumeMismatch {
        /// The file.
        path: PathBuf,
        /// The game id.
        id: usize,
        /// The difference.
        message: String,
    },
    /// A configuration that cannot work.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A spec string (openings, SPRT) that does not parse.
    #[error(transparent)]
    Spec(#[from] tabula_core::SpecError),
}
