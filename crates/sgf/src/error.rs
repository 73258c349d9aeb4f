//! Errors and diagnostics.
//!
//! A read either fails with an [`SgfError`] (no game tree at all, or any deviation in strict mode)
//! or succeeds with a list of [`Diagnostic`]s: every deviation from `FF[4]` that was found and, in
//! lenient mode, recovered from. Diagnostics carry 1-based line and column (in bytes).

use std::fmt;

/// The kind of a deviation from `FF[4]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Issue {
    /// Non-blank data after the last game tree, or stray characters inside a tree.
    Garbage,
    /// A node or game tree without its leading `;`.
    MissingSemicolon,
    /// A `)` with no open game tree.
    ExtraParen,
    /// The file ends inside a game tree or a value.
    Truncated,
    /// A `]` inside a value that should have been escaped.
    UnescapedBracket,
    /// A property repeated in one node.
    DuplicateProperty,
    /// A property identifier without a value.
    MissingValue,
    /// An `FF[3]`-style identifier with lower-case letters (`PlayerBlack`).
    LowercaseIdent,
    /// A value that does not fit its property's type.
    InvalidValue,
    /// An empty variation `()`.
    EmptyVariation,
    /// `CA` missing, unknown or contradicted by the bytes.
    Charset,
    /// Fox server komi written times 100 (`KM[750]`).
    FoxKomi,
    /// Structural problem of the tree (variation without a root, move and set-up mixed).
    Structure,
    /// Legal `FF[4]` but suspicious game content, reported in strict mode only (successive moves of
    /// one colour, set-up stones inside the main line, a move in the root node, handicap mismatch).
    Suspicious,
}

/// One deviation found while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
    /// What kind of deviation.
    pub issue: Issue,
    /// Human-readable description.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum SgfError {
    /// No game tree `(;` was found in the input.
    #[error("no SGF game tree found")]
    NoGameTree,
    /// Strict mode found deviations from `FF[4]`.
    #[error("{} deviation(s) from FF[4], first: {}", .0.len(), .0.first().map(|d| d.to_string()).unwrap_or_default())]
    Strict(Vec<Diagnostic>),
    /// Reading the input failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
