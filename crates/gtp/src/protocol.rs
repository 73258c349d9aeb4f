//! The wire format of GTP v2: reading command lines and writing responses.
//!
//! Everything here is pure text handling shared by the engine and the client side, kept
//! apart so that it can be tested (and fuzzed) without any process or thread. The rules
//! follow the GTP v2 draft: control characters other than HT and LF are dropped, HT becomes
//! a space, everything from `#` on is a comment, empty lines are skipped; a command is
//! `[id] name [args...]`; a response is `=[id] text` or `?[id] text` ended by an empty line.

use std::fmt;
use std::io::{self, BufRead};

/// The longest command line an engine accepts, in bytes. Longer lines are answered with
/// `? syntax error` and their excess is discarded while reading, so a runaway controller
/// cannot make the engine allocate without bound.
pub const MAX_LINE: usize = 64 * 1024;

/// One preprocessed GTP command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The optional numeric id, echoed back in the response.
    pub id: Option<u32>,
    /// The command name, e.g. `genmove`.
    pub name: String,
    /// The arguments, split at spaces.
    pub args: Vec<String>,
}

impl Command {
    /// The argument at `index`, if present.
    pub fn arg(&self, index: usize) -> Option<&str> {
        self.args.get(index).map(String::as_str)
    }

    /// Checks that there are exactly `n` arguments.
    pub fn expect_args(&self, n: usize) -> Result<(), GtpError> {
        if self.args.len() == n { Ok(()) } else { Err(GtpError::syntax()) }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(id) = self.id {
            write!(f, "{id} ")?;
        }
        f.write_str(&self.name)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        Ok(())
    }
}

/// A failed command: the text after `?` in the response.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GtpError(pub String);

impl GtpError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> GtpError {
        GtpError(message.into())
    }

    /// `syntax error`: wrong number or form of arguments.
    pub fn syntax() -> GtpError {
        GtpError::new("syntax error")
    }

    /// `unknown command`.
    pub fn unknown_command() -> GtpError {
        GtpError::new("unknown command")
    }

    /// `illegal move`.
    pub fn illegal_move() -> GtpError {
        GtpError::new("illegal move")
    }

    /// `cannot undo`.
    pub fn cannot_undo() -> GtpError {
        GtpError::new("cannot undo")
    }

    /// `unacceptable size`.
    pub fn unacceptable_size() -> GtpError {
        GtpError::new("unacceptable size")
    }
}

/// A line that is not a well-formed command. The id is kept when it could be read, so
/// the error response can still carry it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("syntax error")]
pub struct LineError {
    /// The id at the start of the line, if there was a valid one.
    pub id: Option<u32>,
}

/// Applies the GTP preprocessing to raw input bytes: drops control characters except HT
/// and LF (so CR too), cuts the line at `#`, turns HT into a space and trims. Invalid
/// UTF-8 is replaced, not rejected: such bytes can only appear in arguments of private
/// commands, and those fail on their own terms.
pub fn preprocess(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == b'#').unwrap_or(raw.len());
    let mut kept = Vec::with_capacity(end);
    for &b in &raw[..end] {
        match b {
            b'\t' => kept.push(b' '),
            b'\n' => kept.push(b' '),
            0..=31 | 127 => {}
            _ => kept.push(b),
        }
    }
    String::from_utf8_lossy(&kept).trim_matches(' ').to_string()
}

/// Parses one input line into a command. `Ok(None)` is an empty or comment-only line,
/// which the engine skips without answering.
pub fn parse_line(raw: &[u8]) -> Result<Option<Command>, LineError> {
    let text = preprocess(raw);
    let mut words = text.split(' ').filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        let id = first.parse::<u32>().map_err(|_| LineError { id: None })?;
        match words.next() {
            Some(name) => (Some(id), name),
            None => return Err(LineError { id: Some(id) }),
        }
    } else {
        (None, first)
    };
    Ok(Some(Command { id, name: name.to_string(), args: words.map(str::to_string).collect() }))
}

/// The id of an overlong line, read from its beginning, so that the `? syntax error`
/// answer can still carry it.
pub fn id_of_prefix(raw: &[u8]) -> Option<u32> {
    let text = preprocess(raw);
    let first = text.split(' ').find(|w| !w.is_empty())?;
    if first.bytes().all(|b| b.is_ascii_digit()) { first.parse().ok() } else { None }
}

/// Makes response text safe to send: no CR or other control characters, and no empty
/// line inside (an empty line would end the response early). The first line may be
/// empty (multi-line answers such as `showboard` start on the next line).
pub fn sanitize(text: &str) -> String {
    let clean: String = text.chars().filter(|&c| c == '\n' || c == '\t' || !c.is_control()).collect();
    let clean = clean.replace('\t', " ");
    let mut out = String::with_capacity(clean.len());
    for (i, line) in clean.trim_end().split('\n').enumerate() {
        if i == 0 {
            out.push_str(line.trim_end());
        } else if !line.trim().is_empty() {
            out.push('\n');
            out.push_str(line.trim_end());
        }
    }
    out
}

/// Formats a complete response: `=[id] text\n\n` on success, `?[id] text\n\n` on failure.
pub fn format_response(id: Option<u32>, result: Result<&str, &str>) -> String {
    let (mark, text) = match result {
        Ok(t) => ('=', t),
        Err(t) => ('?', t),
    };
    let mut s = String::with_capacity(text.len() + 8);
    s.push(mark);
    if let Some(id) = id {
        s.push_str(&id.to_string());
    }
    s.push(' ');
    s.push_str(&sanitize(text));
    s.push_str("\n\n");
    s
}

/// What one call of [`read_line_capped`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawLine {
    /// A line (without its newline) of at most [`MAX_LINE`] bytes.
    Line(Vec<u8>),
    /// A line longer than the cap: its first [`MAX_LINE`] bytes; the rest was discarded.
    Overlong(Vec<u8>),
    /// End of input.
    Eof,
}

/// Reads one line of at most `cap` bytes, discarding (not storing) the rest of a longer
/// line. A last line without a newline still counts as a line.
pub fn read_line_capped<R: BufRead + ?Sized>(input: &mut R, cap: usize) -> io::Result<RawLine> {
    let mut line = Vec::new();
    let mut overlong = false;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !any {
                return Ok(RawLine::Eof);
            }
            break;
        }
        any = true;
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        if chunk.len() > room {
            overlong = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        input.consume(used);
        if done {
            break;
        }
    }
    Ok(if overlong { RawLine::Overlong(line) } else { RawLine::Line(line) })
}

/// A GTP colour.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// Black (`b`, `black`).
    Black,
    /// White (`w`, `white`).
    White,
}

impl Color {
    /// The other colour.
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `B` or `W`, as in scores (`B+3.5`) and SGF.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// 0 for black, 1 for white.
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// Reads a colour: `b`, `black`, `w` or `white`, in any case.
pub fn parse_color(text: &str) -> Result<Color, GtpError> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(GtpError::syntax()),
    }
}

/// Reads a non-negative integer.
pub fn parse_int(text: &str) -> Result<u32, GtpError> {
    text.parse::<u32>().map_err(|_| GtpError::syntax())
}

/// Reads a finite float (`6.5`, `-3`, `7`).
pub fn parse_float(text: &str) -> Result<f64, GtpError> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(GtpError::syntax()),
    }
}

/// Reads a boolean: `true`/`false` as GTP writes them (also `1`/`0`).
pub fn parse_bool(text: &str) -> Result<bool, GtpError> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(GtpError::syntax()),
    }
}

/// Writes a boolean as GTP does.
pub fn format_bool(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// The column letters of Go vertices: `A` to `Z` without `I`, so at most 25 columns.
const VERTEX_LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Reads a Go-style vertex such as `D4` or `q16` on a board of `size` columns and rows:
/// the column letter skips `I`, rows count from 1 at the bottom. Returns 0-based
/// `(column, row)`. Games whose GTP notation follows Go (Go itself, Othello in GTP
/// front ends) can build their move parsing on it.
pub fn parse_vertex(text: &str, size: u32) -> Option<(u32, u32)> {
    let bytes = text.as_bytes();
    let first = bytes.first()?.to_ascii_uppercase();
    let col = VERTEX_LETTERS.iter().position(|&c| c == first)? as u32;
    let digits = text.get(1..)?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let row: u32 = digits.parse().ok()?;
    (col < size && row >= 1 && row <= size).then(|| (col, row - 1))
}

/// Writes a 0-based `(column, row)` as a Go-style vertex (`D4`); `None` past column 25.
pub fn format_vertex(col: u32, row: u32) -> Option<String> {
    let letter = *VERTEX_LETTERS.get(col as usize)? as char;
    Some(format!("{letter}{}", row + 1))
}

/// Parses the first line of a response (`=12 text` / `? text`) into
/// `(success, id, rest of the line)`; `None` if it does not start with `=` or `?`.
pub fn parse_response_head(line: &str) -> Option<(bool, Option<u32>, &str)> {
    let success = match line.as_bytes().first()? {
        b'=' => true,
        b'?' => false,
        _ => return None,
    };
    let rest = &line[1..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = if digits > 0 { Some(rest[..digits].parse::<u32>().ok()?) } else { None };
    let after = &rest[digits..];
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    Some((success, id, after.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Command {
        parse_line(line.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn preprocessing_follows_the_spec() {
        assert_eq!(parse_line(b""), Ok(None));
        assert_eq!(parse_line(b"   \t "), Ok(None));
        assert_eq!(parse_line(b"# just a comment"), Ok(None));
        let c = cmd("12\tplay  b\tD4 # comment\r");
        assert_eq!(c.id, Some(12));
        assert_eq!(c.name, "play");
        assert_eq!(c.args, vec!["b", "D4"]);
        let c = cmd("gen\x01move\x7f w");
        assert_eq!(c.name, "genmove");
        assert_eq!(c.args, vec!["w"]);
        assert_eq!(cmd("name").id, None);
        assert_eq!(cmd("1a name").name, "1a");
    }

    #[test]
    fn malformed_lines_are_syntax_errors() {
        assert_eq!(parse_line(b"42"), Err(LineError { id: Some(42) }));
        assert_eq!(parse_line(b"99999999999999999999 name"), Err(LineError { id: None }));
        assert_eq!(parse_line(b"7 # comment"), Err(LineError { id: Some(7) }));
        assert_eq!(id_of_prefix(b"\t15 play b"), Some(15));
        assert_eq!(id_of_prefix(b"play b"), None);
    }

    #[test]
    fn responses_have_no_blank_line_inside() {
        assert_eq!(format_response(None, Ok("")), "= \n\n");
        assert_eq!(format_response(Some(3), Ok("D4")), "=3 D4\n\n");
        assert_eq!(format_response(Some(3), Err("illegal move")), "?3 illegal move\n\n");
        assert_eq!(format_response(None, Ok("\nA\n\n \nB\r\n\n")), "= \nA\nB\n\n");
        assert_eq!(format_response(None, Ok("a\x00b\tc")), "= ab c\n\n");
    }

    #[test]
    fn response_heads() {
        assert_eq!(parse_response_head("= D4"), Some((true, None, "D4")));
        assert_eq!(parse_response_head("=12 pass"), Some((true, Some(12), "pass")));
        assert_eq!(parse_response_head("?3 illegal move"), Some((false, Some(3), "illegal move")));
        assert_eq!(parse_response_head("="), Some((true, None, "")));
        assert_eq!(parse_response_head("=x"), None);
        assert_eq!(parse_response_head("hello"), None);
        assert_eq!(parse_response_head(""), None);
    }

    #[test]
    fn capped_reading_discards_the_excess() {
        let mut input: &[u8] = b"short\nabcdefghij\nlast";
        assert_eq!(read_line_capped(&mut input, 8).unwrap(), RawLine::Line(b"short".to_vec()));
        assert_eq!(read_line_capped(&mut input, 8).unwrap(), RawLine::Overlong(b"abcdefgh".to_vec()));
        assert_eq!(read_line_capped(&mut input, 8).unwrap(), RawLine::Line(b"last".to_vec()));
        assert_eq!(read_line_capped(&mut input, 8).unwrap(), RawLine::Eof);
        let mut empty: &[u8] = b"\n";
        assert_eq!(read_line_capped(&mut empty, 8).unwrap(), RawLine::Line(Vec::new()));
        assert_eq!(read_line_capped(&mut empty, 8).unwrap(), RawLine::Eof);
    }

    #[test]
    fn argument_helpers() {
        assert_eq!(parse_color("B"), Ok(Color::Black));
        assert_eq!(parse_color("White"), Ok(Color::White));
        assert!(parse_color("x").is_err());
        assert_eq!(parse_int("19"), Ok(19));
        assert!(parse_int("-1").is_err());
        assert_eq!(parse_float("6.5"), Ok(6.5));
        assert!(parse_float("nan").is_err());
        assert!(parse_float("inf").is_err());
        assert_eq!(parse_bool("TRUE"), Ok(true));
        assert!(parse_bool("maybe").is_err());
    }

    #[test]
    fn vertices_skip_i() {
        assert_eq!(parse_vertex("A1", 19), Some((0, 0)));
        assert_eq!(parse_vertex("j10", 19), Some((8, 9)));
        assert_eq!(parse_vertex("T19", 19), Some((18, 18)));
        assert_eq!(parse_vertex("I5", 19), None);
        assert_eq!(parse_vertex("T19", 9), None);
        assert_eq!(parse_vertex("A0", 9), None);
        assert_eq!(parse_vertex("A", 9), None);
        assert_eq!(parse_vertex("", 9), None);
        assert_eq!(parse_vertex("Ä1", 9), None);
        assert_eq!(format_vertex(8, 9).as_deref(), Some("J10"));
        for c in 0..25 {
            for r in 0..25 {
                let v = format_vertex(c, r).unwrap();
                assert_eq!(parse_vertex(&v, 25), Some((c, r)));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            if let Ok(Some(c)) = parse_line(&bytes) {
                proptest::prop_assert!(!c.name.is_empty());
                proptest::prop_assert!(!c.name.contains(' '));
                proptest::prop_assert!(c.args.iter().all(|a| !a.is_empty() && !a.contains(' ')));
                // Reparsing the canonical form gives the same command.
                proptest::prop_assert_eq!(parse_line(c.to_string().as_bytes()), Ok(Some(c.clone())));
            }
            let _ = parse_vertex(&String::from_utf8_lossy(&bytes), 19);
            let _ = parse_response_head(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn sanitized_text_never_ends_a_response(text in "\\PC{0,60}|[\\n\\r a-z]{0,30}") {
            let r = format_response(Some(1), Ok(&text));
            proptest::prop_assert!(r.ends_with("\n\n"));
            proptest::prop_assert!(!r[..r.len() - 2].contains("\n\n"));
        }
    }
}
