//! GGP messages: the S-expressions a game manager sends and the typed [`Message`]s they mean.
//!
//! The player and the game manager both read untrusted text here, so the reader is its own
//! module with typed errors ([`MessageError`]) and hard limits on nesting and size: any
//! input yields a message or an error, never a panic. Keywords (`START`, `play`, `nil`, ...)
//! are case-insensitive; every other symbol keeps its spelling, because game managers
//! compare move terms with the spelling of their own rules and may scramble every symbol
//! into arbitrary words ([`CaseMap`] restores the spelling of terms tabula writes).

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

/// The deepest nesting accepted (GDL rules stay far below it).
pub const MAX_DEPTH: usize = 256;

/// The longest message accepted, in bytes.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The longest clock accepted, in seconds (a day).
pub const MAX_CLOCK_SECS: f64 = 86_400.0;

/// An S-expression as received: a symbol (any spelling) or a parenthesised list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A symbol, number or `?variable`, as written.
    Atom(String),
    /// `( ... )`.
    List(Vec<Term>),
}

impl Term {
    /// The symbol, if this is an atom.
    pub fn as_atom(&self) -> Option<&str> {
        match self {
            Term::Atom(a) => Some(a),
            Term::List(_) => None,
        }
    }

    /// Whether this is the atom `word`, ignoring case.
    pub fn is_word(&self, word: &str) -> bool {
        self.as_atom().is_some_and(|a| a.eq_ignore_ascii_case(word))
    }

    /// Visits every atom of the term, depth first.
    pub fn for_each_atom(&self, f: &mut impl FnMut(&str)) {
        match self {
            Term::Atom(a) => f(a),
            Term::List(items) => items.iter().for_each(|t| t.for_each_atom(f)),
        }
    }

    /// The term with every atom replaced by `f(atom)`.
    pub fn map_atoms(&self, f: &impl Fn(&str) -> String) -> Term {
        match self {
            Term::Atom(a) => Term::Atom(f(a)),
            Term::List(items) => Term::List(items.iter().map(|t| t.map_atoms(f)).collect()),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Atom(a) => f.write_str(a),
            Term::List(items) => {
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

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Nothing but white space and comments.
    #[error("empty message")]
    Empty,
    /// Longer than [`MAX_MESSAGE`].
    #[error("message of {0} bytes is longer than the limit of {MAX_MESSAGE}")]
    TooLong(usize),
    /// Not well-formed S-expression text.
    #[error("syntax error at byte {offset}: {reason}")]
    Syntax {
        /// Byte offset into the message.
        offset: usize,
        /// What is wrong there.
        reason: String,
    },
    /// More than one expression where one was expected.
    #[error("expected one expression, found {0}")]
    NotOne(usize),
    /// The message is a bare symbol or a list not starting with a keyword.
    #[error("a message is a list starting with a keyword such as START or PLAY")]
    NotACommand,
    /// A keyword this protocol does not know.
    #[error("unknown message '{0}' (expected START, PLAY, STOP, ABORT, INFO or PREVIEW)")]
    UnknownKeyword(String),
    /// The wrong number of fields.
    #[error("{keyword} takes {expected} fields, found {found}")]
    Arity {
        /// The message keyword.
        keyword: &'static str,
        /// What the protocol requires.
        expected: usize,
        /// What was received.
        found: usize,
    },
    /// A field of the wrong shape.
    #[error("{keyword}: bad {field}: {reason}")]
    BadField {
        /// The message keyword.
        keyword: &'static str,
        /// Which field.
        field: &'static str,
        /// Why.
        reason: String,
    },
}

fn syntax(offset: usize, reason: impl Into<String>) -> MessageError {
    MessageError::Syntax { offset, reason: reason.into() }
}

fn is_word_byte(c: char) -> bool {
    !(c.is_whitespace() || c == '(' || c == ')' || c == ';' || c.is_control())
}

/// Reads every top-level expression of `text`. Comments run from `;` to the end of a line.
pub fn parse_terms(text: &str) -> Result<Vec<Term>, MessageError> {
    if text.len() > MAX_MESSAGE {
        return Err(MessageError::TooLong(text.len()));
    }
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<Term>, usize)> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ';' => {
                while chars.peek().is_some_and(|&(_, n)| n != '\n') {
                    chars.next();
                }
            }
            '(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err(syntax(i, format!("nesting deeper than {MAX_DEPTH}")));
                }
                stack.push((Vec::new(), i));
            }
            ')' => {
                let Some((items, _)) = stack.pop() else {
                    return Err(syntax(i, "')' without a matching '('"));
                };
                let t = Term::List(items);
                match stack.last_mut() {
                    Some((parent, _)) => parent.push(t),
                    None => out.push(t),
                }
            }
            c if c.is_whitespace() => {}
            c if c.is_control() => {
                return Err(syntax(i, format!("unexpected control character U+{:04X}", c as u32)));
            }
            c => {
                let mut word = String::new();
                word.push(c);
                while let Some(&(_, n)) = chars.peek() {
                    if !is_word_byte(n) {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                let t = Term::Atom(word);
                match stack.last_mut() {
                    Some((parent, _)) => parent.push(t),
                    None => out.push(t),
                }
            }
        }
    }
    if let Some((_, start)) = stack.last() {
        return Err(syntax(*start, "'(' is never closed"));
    }
    Ok(out)
}

/// Reads exactly one expression (a message, or a move a player answered).
pub fn parse_term(text: &str) -> Result<Term, MessageError> {
    let mut terms = parse_terms(text)?;
    match terms.len() {
        0 => Err(MessageError::Empty),
        1 => Ok(terms.remove(0)),
        n => Err(MessageError::NotOne(n)),
    }
}

/// A message from a game manager to a player.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `(START id role (rules...) startclock playclock)`: a new match; answer `ready`.
    Start {
        /// The match id.
        id: String,
        /// The role this player plays.
        role: String,
        /// The game's rules, one sentence each.
        rules: Vec<Term>,
        /// Time to answer this message.
        start_clock: Duration,
        /// Time to answer each `PLAY`.
        play_clock: Duration,
    },
    /// `(PLAY id moves)`: the last joint move (`None` for `nil`, the first turn); answer a move.
    Play {
        /// The match id.
        id: String,
        /// One move per role, in role order; `None` on the first turn.
        moves: Option<Vec<Term>>,
    },
    /// `(STOP id moves)`: the match ended after these moves; answer `done`.
    Stop {
        /// The match id.
        id: String,
        /// The last joint move, if sent.
        moves: Option<Vec<Term>>,
    },
    /// `(ABORT id)`: the match is cancelled; answer `aborted`.
    Abort {
        /// The match id.
        id: String,
    },
    /// `(INFO)`: answer the player's name and whether it is free.
    Info,
    /// `(PREVIEW (rules...) clock)`: a game to come; answer `ready`.
    Preview {
        /// The game's rules.
        rules: Vec<Term>,
        /// Time to answer.
        clock: Duration,
    },
}

impl Message {
    /// The message's keyword, upper case.
    pub fn keyword(&self) -> &'static str {
        match self {
            Message::Start { .. } => "START",
            Message::Play { .. } => "PLAY",
            Message::Stop { .. } => "STOP",
            Message::Abort { .. } => "ABORT",
            Message::Info => "INFO",
            Message::Preview { .. } => "PREVIEW",
        }
    }

    /// The match id, for messages about a match.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Start { id, .. } | Message::Play { id, .. } | Message::Stop { id, .. } | Message::Abort { id } => {
                Some(id)
            }
            Message::Info | Message::Preview { .. } => None,
        }
    }
}

impl fmt::Display for Message {
    /// The message as a game manager sends it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn moves(f: &mut fmt::Formatter<'_>, m: &Option<Vec<Term>>) -> fmt::Result {
            match m {
                None => f.write_str("nil"),
                Some(ms) => write!(f, "{}", Term::List(ms.clone())),
            }
        }
        fn secs(d: &Duration) -> String {
            let s = d.as_secs_f64();
            if s.fract() == 0.0 { format!("{}", s as u64) } else { format!("{s}") }
        }
        match self {
            Message::Start { id, role, rules, start_clock, play_clock } => write!(
                f,
                "(START {id} {role} {} {} {})",
                Term::List(rules.clone()),
                secs(start_clock),
                secs(play_clock)
            ),
            Message::Play { id, moves: m } => {
                write!(f, "(PLAY {id} ")?;
                moves(f, m)?;
                f.write_str(")")
            }
            Message::Stop { id, moves: m } => {
                write!(f, "(STOP {id} ")?;
                moves(f, m)?;
                f.write_str(")")
            }
            Message::Abort { id } => write!(f, "(ABORT {id})"),
            Message::Info => f.write_str("(INFO)"),
            Message::Preview { rules, clock } => write!(f, "(PREVIEW {} {})", Term::List(rules.clone()), secs(clock)),
        }
    }
}

fn atom_field(keyword: &'static str, field: &'static str, t: &Term) -> Result<String, MessageError> {
    match t {
        Term::Atom(a) => Ok(a.clone()),
        Term::List(_) => {
            Err(MessageError::BadField { keyword, field, reason: format!("expected a symbol, found {t}") })
        }
    }
}

fn list_field(keyword: &'static str, field: &'static str, t: &Term) -> Result<Vec<Term>, MessageError> {
    match t {
        Term::List(items) => Ok(items.clone()),
        Term::Atom(a) => Err(MessageError::BadField { keyword, field, reason: format!("expected a list, found {a}") }),
    }
}

fn moves_field(keyword: &'static str, t: &Term) -> Result<Option<Vec<Term>>, MessageError> {
    if t.is_word("nil") {
        return Ok(None);
    }
    match t {
        Term::List(items) => Ok(Some(items.clone())),
        Term::Atom(a) => Err(MessageError::BadField {
            keyword,
            field: "moves",
            reason: format!("expected a list of moves or nil, found {a}"),
        }),
    }
}

fn clock_field(keyword: &'static str, field: &'static str, t: &Term) -> Result<Duration, MessageError> {
    let bad = |reason: String| MessageError::BadField { keyword, field, reason };
    let text = t.as_atom().ok_or_else(|| bad(format!("expected a number of seconds, found {t}")))?;
    let secs: f64 = text.parse().map_err(|_| bad(format!("'{text}' is not a number of seconds")))?;
    if !secs.is_finite() || !(0.0..=MAX_CLOCK_SECS).contains(&secs) {
        return Err(bad(format!("{text} is not within 0..={MAX_CLOCK_SECS} seconds")));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn arity(keyword: &'static str, fields: &[Term], expected: usize) -> Result<(), MessageError> {
    if fields.len() == expected { Ok(()) } else { Err(MessageError::Arity { keyword, expected, found: fields.len() }) }
}

/// Reads a message from its text.
pub fn parse_message(text: &str) -> Result<Message, MessageError> {
    let term = parse_term(text)?;
    let Term::List(items) = term else { return Err(MessageError::NotACommand) };
    let Some((head, fields)) = items.split_first() else { return Err(MessageError::NotACommand) };
    let Term::Atom(keyword) = head else { return Err(MessageError::NotACommand) };
    match keyword.to_ascii_lowercase().as_str() {
        "start" => {
            const K: &str = "START";
            arity(K, fields, 5)?;
            Ok(Message::Start {
                id: atom_field(K, "match id", &fields[0])?,
                role: atom_field(K, "role", &fields[1])?,
                rules: list_field(K, "rules", &fields[2])?,
                start_clock: clock_field(K, "start clock", &fields[3])?,
                play_clock: clock_field(K, "play clock", &fields[4])?,
            })
        }
        "play" => {
            const K: &str = "PLAY";
            arity(K, fields, 2)?;
            Ok(Message::Play { id: atom_field(K, "match id", &fields[0])?, moves: moves_field(K, &fields[1])? })
        }
        "stop" => {
            const K: &str = "STOP";
            // Some managers send STOP without the moves.
            if fields.len() == 1 {
                return Ok(Message::Stop { id: atom_field(K, "match id", &fields[0])?, moves: None });
            }
            arity(K, fields, 2)?;
            Ok(Message::Stop { id: atom_field(K, "match id", &fields[0])?, moves: moves_field(K, &fields[1])? })
        }
        "abort" => {
            const K: &str = "ABORT";
            arity(K, fields, 1)?;
            Ok(Message::Abort { id: atom_field(K, "match id", &fields[0])? })
        }
        "info" => {
            arity("INFO", fields, 0)?;
            Ok(Message::Info)
        }
        "preview" => {
            const K: &str = "PREVIEW";
            arity(K, fields, 2)?;
            Ok(Message::Preview {
                rules: list_field(K, "rules", &fields[0])?,
                clock: clock_field(K, "preview clock", &fields[1])?,
            })
        }
        _ => Err(MessageError::UnknownKeyword(keyword.clone())),
    }
}

/// The spelling of every symbol of a game's rules, by its lower-case form.
///
/// tabula's GDL reader folds symbols to lower case (GDL is case-insensitive), but game
/// managers such as ggp-base compare the moves they receive with the spelling of their own
/// rules. Terms tabula writes are passed through [`CaseMap::restore`] before they are sent.
#[derive(Clone, Debug, Default)]
pub struct CaseMap {
    map: HashMap<String, String>,
}

impl CaseMap {
    /// The spellings used in `terms` (the first spelling of each symbol wins).
    pub fn new(terms: &[Term]) -> CaseMap {
        let mut map = HashMap::new();
        for t in terms {
            t.for_each_atom(&mut |a| {
                let lower = a.to_lowercase();
                if lower != a {
                    map.entry(lower).or_insert_with(|| a.to_string());
                }
            });
        }
        CaseMap { map }
    }

    /// The original spelling of a lower-case symbol.
    pub fn symbol<'a>(&'a self, lower: &'a str) -> &'a str {
        self.map.get(lower).map_or(lower, |s| s.as_str())
    }

    /// A term written by tabula (lower case), with every symbol spelled as in the rules.
    /// Text that does not read as one term is returned unchanged.
    pub fn restore(&self, text: &str) -> String {
        match parse_term(text) {
            Ok(t) => t.map_atoms(&|a| self.symbol(a).to_string()).to_string(),
            Err(_) => text.to_string(),
        }
    }
}

/// Text of rules as one KIF document (a sentence per line), for the GDL reader.
pub fn rules_text(rules: &[Term]) -> String {
    let mut s = String::new();
    for r in rules {
        s.push_str(&r.to_string());
        s.push('\n');
    }
    s
}

/// Decodes `%XX` escapes and `+` of a URL path (the message of a `GET /message` request).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn reads_every_message_kind() {
        let m = parse_message("(START m1 xplayer ((role xplayer) (role oplayer) (init (cell 1 1 b))) 30 15)").unwrap();
        let Message::Start { id, role, rules, start_clock, play_clock } = m else { panic!("{m:?}") };
        assert_eq!((id.as_str(), role.as_str()), ("m1", "xplayer"));
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[2].to_string(), "(init (cell 1 1 b))");
        assert_eq!((start_clock, play_clock), (secs(30), secs(15)));

        assert_eq!(parse_message("( PLAY m1 NIL )").unwrap(), Message::Play { id: "m1".into(), moves: None });
        let m = parse_message("(play m1 ((mark 1 1) noop))").unwrap();
        let Message::Play { moves: Some(moves), .. } = m else { panic!("{m:?}") };
        assert_eq!(moves.iter().map(|t| t.to_string()).collect::<Vec<_>>(), ["(mark 1 1)", "noop"]);
        assert_eq!(parse_message("(STOP m1 (noop (mark 3 3)))").unwrap().to_string(), "(STOP m1 (noop (mark 3 3)))");
        assert_eq!(parse_message("(stop m1)").unwrap(), Message::Stop { id: "m1".into(), moves: None });
        assert_eq!(parse_message("(abort m1)").unwrap(), Message::Abort { id: "m1".into() });
        assert_eq!(parse_message("  (INFO)\r\n").unwrap(), Message::Info);
        let m = parse_message("(PREVIEW ((role a)) 5)").unwrap();
        assert_eq!(m, Message::Preview { rules: vec![parse_term("(role a)").unwrap()], clock: secs(5) });
    }

    #[test]
    fn keywords_are_case_insensitive_and_symbols_keep_their_spelling() {
        for text in ["(PLAY Base.ticTacToe.1 NIL)", "(play Base.ticTacToe.1 nil)", "(pLaY Base.ticTacToe.1 Nil)"] {
            assert_eq!(parse_message(text).unwrap(), Message::Play { id: "Base.ticTacToe.1".into(), moves: None });
        }
        let m = parse_message("(Start M Xplayer ((ROLE Xplayer)) 1.5 2)").unwrap();
        let Message::Start { role, rules, start_clock, .. } = &m else { panic!() };
        assert_eq!(role, "Xplayer");
        assert_eq!(rules[0].to_string(), "(ROLE Xplayer)");
        assert_eq!(*start_clock, Duration::from_millis(1500));
        assert_eq!(m.keyword(), "START");
        assert_eq!(m.match_id(), Some("M"));
    }

    #[test]
    fn garbage_gets_typed_errors() {
        assert_eq!(parse_message(""), Err(MessageError::Empty));
        assert_eq!(parse_message("  ; only a comment\n"), Err(MessageError::Empty));
        assert!(matches!(parse_message("(PLAY m1 nil"), Err(MessageError::Syntax { offset: 0, .. })));
        assert!(matches!(parse_message("(INFO))"), Err(MessageError::Syntax { offset: 6, .. })));
        assert_eq!(parse_message("(INFO) (INFO)"), Err(MessageError::NotOne(2)));
        assert_eq!(parse_message("hello"), Err(MessageError::NotACommand));
        assert_eq!(parse_message("()"), Err(MessageError::NotACommand));
        assert_eq!(parse_message("((play) m1 nil)"), Err(MessageError::NotACommand));
        assert_eq!(parse_message("(DANCE m1)"), Err(MessageError::UnknownKeyword("DANCE".into())));
        assert_eq!(parse_message("(PLAY m1)"), Err(MessageError::Arity { keyword: "PLAY", expected: 2, found: 1 }));
        assert_eq!(parse_message("(INFO now)"), Err(MessageError::Arity { keyword: "INFO", expected: 0, found: 1 }));
        assert!(matches!(
            parse_message("(START m1 x ((role x)) soon 5)"),
            Err(MessageError::BadField { field: "start clock", .. })
        ));
        assert!(matches!(
            parse_message("(START m1 x ((role x)) -1 5)"),
            Err(MessageError::BadField { field: "start clock", .. })
        ));
        assert!(matches!(
            parse_message("(START m1 x ((role x)) 1 NaN)"),
            Err(MessageError::BadField { field: "play clock", .. })
        ));
        assert!(matches!(parse_message("(START m1 (x) ((role x)) 1 1)"), Err(MessageError::BadField { .. })));
        assert!(matches!(parse_message("(START m1 x rules 1 1)"), Err(MessageError::BadField { .. })));
        assert!(matches!(parse_message("(PLAY m1 yes)"), Err(MessageError::BadField { field: "moves", .. })));
        assert!(matches!(parse_message("(PLAY m1 \u{7} nil)"), Err(MessageError::Syntax { offset: 9, .. })));
        let deep = format!("{}{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        assert!(matches!(parse_message(&deep), Err(MessageError::Syntax { .. })));
        // Every error reads as a sentence.
        assert!(parse_message("(PLAY m1)").unwrap_err().to_string().contains("PLAY takes 2 fields"));
    }

    #[test]
    fn case_map_restores_the_rules_spelling() {
        let rules = parse_terms("(role xPlayer) (<= (legal xPlayer (Mark ?X 1)) (true (Free ?X)))").unwrap();
        let map = CaseMap::new(&rules);
        assert_eq!(map.restore("(mark 2 1)"), "(Mark 2 1)");
        assert_eq!(map.symbol("xplayer"), "xPlayer");
        assert_eq!(map.restore("noop"), "noop");
        assert_eq!(map.restore("(("), "((");
        assert_eq!(rules_text(&rules), "(role xPlayer)\n(<= (legal xPlayer (Mark ?X 1)) (true (Free ?X)))\n");
    }

    #[test]
    fn url_paths_decode() {
        assert_eq!(percent_decode("%28INFO%29"), "(INFO)");
        assert_eq!(percent_decode("(PLAY+m1+nil)"), "(PLAY m1 nil)");
        assert_eq!(percent_decode("%2"), "%2");
        assert_eq!(percent_decode("%zz%"), "%zz%");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = parse_message(&text);
            let _ = percent_decode(&text);
        }

        #[test]
        fn messages_round_trip(id in "[a-zA-Z0-9.]{1,12}", moves in proptest::collection::vec("[a-z]{1,4}", 0..4)) {
            let m = Message::Play {
                id,
                moves: if moves.is_empty() { None } else { Some(moves.into_iter().map(Term::Atom).collect()) },
            };
            proptest::prop_assert_eq!(parse_message(&m.to_string()).unwrap(), m);
        }
    }
}
