//! SGF (Smart Game Format) reading and writing for tabula.
//!
//! Every Go tool of tabula (engine, arena, game database, browser) reads and writes game records
//! through this crate, so it aims to be complete, forgiving and exact:
//!
//! - [`parse()`] reads `FF[1]`–`FF[4]` collections of any game type, with variations at any depth
//!   (iteratively), escapes and soft line breaks, compressed point lists, `FF[3]` long identifiers and
//!   unknown properties, which are kept in order. Lenient mode (default) recovers from the faults of
//!   real files and lists them; strict mode fails with every deviation and its line/column.
//! - Text is decoded per game tree from the declared `CA` or, where that is missing or wrong, a
//!   detected encoding ([`charset`] documents the rules). The choice is reported in
//!   [`GameTree::charset`].
//! - [`GameTree`] is a flat arena of nodes with typed accessors ([`NodeRef::go_move`],
//!   [`NodeRef::setup`], [`NodeRef::game_info`], ...). [`GameTree::main_line`] walks the main line
//!   and [`GameTree::replay`] yields its set-up and moves, ready for a board to replay.
//! - [`write_collection`] / [`format()`] write canonical `FF[4]` UTF-8 that reads back to the same tree.
//! - [`check`] validates files, directories and `.tar.gz` archives of records.
//!
//! ```
//! use tabula_sgf::{parse_lenient, Color, GoMove};
//! let games = parse_lenient(b"(;GM[1]SZ[9]KM[7];B[ee];W[])").unwrap().games;
//! let tree = &games[0];
//! let moves: Vec<_> = tree.main_line().filter_map(|n| n.go_move(tree.board_size())).collect();
//! assert_eq!(moves[1], (Color::White, GoMove::Pass));
//! ```

pub mod charset;
pub mod check;
pub mod error;
pub mod parse;
pub mod props;
pub mod tree;
pub mod types;
pub mod write;

pub use error::{Diagnostic, Issue, SgfError};
pub use parse::{Collection, Mode, ParseOptions, parse, parse_lenient, parse_strict};
pub use tree::{Charset, CharsetSource, GameTree, MainLine, NodeId, NodeRef, PropRef, Value};
pub use types::{Color, GameInfo, GoMove, Point, ReplayStep, Setup, parse_go_move};
pub use write::{Formatted, format, normalize, write_collection, write_tree};
