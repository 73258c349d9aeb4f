//! KIF, the s-expression syntax GDL is written in: a lexer and a parser with line/column
//! positions, so that a game author is told exactly where a file goes wrong.
//!
//! Comments run from `;` to the end of the line. Symbols are case-insensitive (the game
//! manager may send any case), so they are lower-cased here, once.

use std::fmt;

/// A position in the source text, 1-based.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column (in characters), from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A syntax error with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct KifError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub message: String,
}

/// An s-expression: a word or a parenthesised list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexpr {
    /// A symbol, number or `?variable`, lower-cased.
    Atom(String, Pos),
    /// `( ... )`.
    List(Vec<Sexpr>, Pos),
}

impl Sexpr {
    /// Where the expression starts.
    pub fn pos(&self) -> Pos {
        match self {
            Sexpr::Atom(_, p) | Sexpr::List(_, p) => *p,
        }
    }
}

impl fmt::Display for Sexpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexpr::Atom(a, _) => f.write_str(a),
            Sexpr::List(items, _) => {
                f.write_str("(")?;
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{it}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The deepest nesting accepted; real games stay far below it.
pub const MAX_DEPTH: usize = 256;

fn is_word_char(c: char) -> bool {
    !(c.is_whitespace() || c == '(' || c == ')' || c == ';' || c.is_control())
}

/// Parses a whole file (or message) into its top-level expressions.
pub fn parse(text: &str) -> Result<Vec<Sexpr>, KifError> {
    let mut out = Vec::new();
    // Stack of open lists: (items, start position).
    let mut stack: Vec<(Vec<Sexpr>, Pos)> = Vec::new();
    let mut line = 1u32;
    let mut col = 1u32;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let here = Pos { line, col };
        if c == '\n' {
            line += 1;
            col = 1;
            continue;
        }
        col += 1;
        match c {
            ';' => {
                while let Some(&n) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            '(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err(KifError { pos: here, message: format!("nesting deeper than {MAX_DEPTH}") });
                }
                stack.push((Vec::new(), here));
            }
            ')' => match stack.pop() {
                None => return Err(KifError { pos: here, message: "')' without a matching '('".into() }),
                Some((items, start)) => {
                    let e = Sexpr::List(items, start);
                    match stack.last_mut() {
                        Some((parent, _)) => parent.push(e),
                        None => out.push(e),
                    }
                }
            },
            c if c.is_whitespace() => {}
            c if c.is_control() => {
                return Err(KifError {
                    pos: here,
                    message: format!("unexpected control character U+{:04X}", c as u32),
                });
            }
            c => {
                let mut word = String::new();
                word.extend(c.to_lowercase());
                while let Some(&n) = chars.peek() {
                    if !is_word_char(n) {
                        break;
                    }
                    word.extend(n.to_lowercase());
                    chars.next();
                    col += 1;
                }
                let e = Sexpr::Atom(word, here);
                match stack.last_mut() {
                    Some((parent, _)) => parent.push(e),
                    None => out.push(e),
                }
            }
        }
    }
    if let Some((_, start)) = stack.last() {
        return Err(KifError { pos: *start, message: "'(' is never closed".into() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_with_positions() {
        let src = "; comment\n(role xplayer)\n(<= (legal ?P noop)\n   (ROLE ?p)) ; trailing";
        let e = parse(src).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].to_string(), "(role xplayer)");
        assert_eq!(e[1].to_string(), "(<= (legal ?p noop) (role ?p))");
        assert_eq!(e[1].pos(), Pos { line: 3, col: 1 });
        if let Sexpr::List(items, _) = &e[1] {
            assert_eq!(items[2].pos(), Pos { line: 4, col: 4 });
        }
    }

    #[test]
    fn reports_unbalanced_parentheses() {
        let e = parse("(role x)\n(init (cell 1)").unwrap_err();
        assert_eq!(e.pos, Pos { line: 2, col: 1 });
        let e = parse("(role x))").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 9 });
        assert!(parse(&"(".repeat(MAX_DEPTH + 1)).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }

        #[test]
        fn printing_round_trips(text in "[a-z() ?]{0,60}") {
            if let Ok(exprs) = parse(&text) {
                let printed: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
                let again = parse(&printed.join(" ")).unwrap();
                let reprinted: Vec<String> = again.iter().map(|e| e.to_string()).collect();
                proptest::prop_assert_eq!(printed, reprinted);
            }
        }
    }
}
