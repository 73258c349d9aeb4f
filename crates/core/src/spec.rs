//! Spec strings: `name` or `name(key=value, ...)`, the one way games and agents are named.
//!
//! Values are numbers, words, `a+b` lists, or double-quoted strings with `\"` and `\\`
//! escapes (`gtp(cmd="gnugo --mode gtp")`). A value may itself be a spec with parentheses
//! (`match(agent=mcts(playouts=100))`). Each game and agent declares its parameters once as
//! a table of [`ParamInfo`]; [`Params`] checks a spec against that table, so every unknown
//! key or bad value gets an error naming what is valid.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// An error in a spec string or one of its values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The text is not of the form `name(key=value,...)`.
    #[error("malformed spec '{text}': {reason}")]
    Syntax {
        /// The spec as given.
        text: String,
        /// What is wrong, with the position.
        reason: String,
    },
    /// No game or agent has this name.
    #[error("unknown {kind} '{name}'; valid: {valid}")]
    UnknownName {
        /// "game" or "agent".
        kind: String,
        /// The name as given.
        name: String,
        /// Comma-separated valid names.
        valid: String,
    },
    /// A known name that cannot be used with this game (`gtp` for Connect Four).
    #[error("{kind} '{name}' is not available for this game: {reason}")]
    NotAvailable {
        /// "agent".
        kind: String,
        /// The name as given.
        name: String,
        /// Why, and where it is available.
        reason: String,
    },
    /// A key the game or agent does not have.
    #[error("{owner} has no parameter '{key}'; valid: {valid}")]
    UnknownParam {
        /// The game or agent name.
        owner: String,
        /// The key as given.
        key: String,
        /// Comma-separated valid keys.
        valid: String,
    },
    /// A key given twice.
    #[error("{owner}: parameter '{key}' given twice")]
    DuplicateParam {
        /// The game or agent name.
        owner: String,
        /// The repeated key.
        key: String,
    },
    /// A value that does not parse or is out of range.
    #[error("{owner}: bad value '{value}' for '{key}': {reason}")]
    BadValue {
        /// The game or agent name.
        owner: String,
        /// The key.
        key: String,
        /// The value as given.
        value: String,
        /// What is valid.
        reason: String,
    },
    /// The spec is well formed but what it names cannot be made (a GDL game whose propnet
    /// does not build, say).
    #[error("{owner}: {reason}")]
    CannotBuild {
        /// The game or agent name.
        owner: String,
        /// Why.
        reason: String,
    },
}

/// A parameter value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value(pub String);

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = !self.0.is_empty()
            && self.0.chars().all(|c| !c.is_whitespace() && !matches!(c, ',' | '"' | '\\'))
            && balanced(&self.0);
        if plain {
            f.write_str(&self.0)
        } else {
            f.write_str("\"")?;
            for c in self.0.chars() {
                if c == '"' || c == '\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str("\"")
        }
    }
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// A parsed spec: a name and its parameters in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The game or agent name, lower-case as written.
    pub name: String,
    /// `key=value` pairs in order.
    pub params: Vec<(String, Value)>,
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.params.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in self.params.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl FromStr for Spec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Spec, SpecError> {
        Spec::parse(s)
    }
}

impl Spec {
    /// A spec with no parameters.
    pub fn named(name: &str) -> Spec {
        Spec { name: name.to_string(), params: Vec::new() }
    }

    /// Adds a parameter (builder style).
    pub fn with(mut self, key: &str, value: impl fmt::Display) -> Spec {
        self.params.push((key.to_string(), Value(value.to_string())));
        self
    }

    /// Parses `name` or `name(key=value,...)`.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let err = |pos: usize, reason: &str| SpecError::Syntax {
            text: text.to_string(),
            reason: format!("{reason} at column {}", pos + 1),
        };
        let t = text.trim();
        let offset = text.len() - text.trim_start().len();
        let name_end = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(t.len());
        if name_end == 0 {
            return Err(err(offset, "expected a name"));
        }
        let name = t[..name_end].to_string();
        let rest = &t[name_end..];
        let mut spec = Spec { name, params: Vec::new() };
        if rest.is_empty() {
            return Ok(spec);
        }
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        let base = offset + name_end;
        if chars[0].1 != '(' {
            return Err(err(base, "expected '(' after the name"));
        }
        let mut i = 1;
        let skip_ws = |i: &mut usize| {
            while *i < chars.len() && chars[*i].1.is_whitespace() {
                *i += 1;
            }
        };
        let pos = |i: usize| base + chars.get(i).map(|c| c.0).unwrap_or(rest.len());
        skip_ws(&mut i);
        if i < chars.len() && chars[i].1 == ')' {
            i += 1;
        } else {
            loop {
                skip_ws(&mut i);
                let key_start = i;
                while i < chars.len() && (chars[i].1.is_ascii_alphanumeric() || chars[i].1 == '_' || chars[i].1 == '-')
                {
                    i += 1;
                }
                if i == key_start {
                    return Err(err(pos(i), "expected a parameter name"));
                }
                let key: String = chars[key_start..i].iter().map(|c| c.1).collect();
                skip_ws(&mut i);
                if i >= chars.len() || chars[i].1 != '=' {
                    return Err(err(pos(i), &format!("expected '=' after '{key}'")));
                }
                i += 1;
                skip_ws(&mut i);
                let mut value = String::new();
                if i < chars.len() && chars[i].1 == '"' {
                    i += 1;
                    loop {
                        if i >= chars.len() {
                            return Err(err(pos(i), "unterminated string"));
                        }
                        match chars[i].1 {
                            '"' => {
                                i += 1;
                                break;
                            }
                            '\\' if i + 1 < chars.len() => {
                                value.push(chars[i + 1].1);
                                i += 2;
                            }
                            c => {
                                value.push(c);
                                i += 1;
                            }
                        }
                    }
                } else {
                    let mut depth = 0;
                    while i < chars.len() {
                        let c = chars[i].1;
                        if depth == 0 && (c == ',' || c == ')') {
                            break;
                        }
                        if c == '(' {
                            depth += 1;
                        } else if c == ')' {
                            depth -= 1;
                        }
                        value.push(c);
                        i += 1;
                    }
                    let trimmed = value.trim_end().to_string();
                    value = trimmed;
                    if value.is_empty() {
                        return Err(err(pos(i), &format!("missing value for '{key}'")));
                    }
                }
                if spec.params.iter().any(|(k, _)| *k == key) {
                    return Err(SpecError::DuplicateParam { owner: spec.name.clone(), key });
                }
                spec.params.push((key, Value(value)));
                skip_ws(&mut i);
                if i >= chars.len() {
                    return Err(err(pos(i), "missing ')'"));
                }
                match chars[i].1 {
                    ',' => i += 1,
                    ')' => {
                        i += 1;
                        break;
                    }
                    _ => return Err(err(pos(i), "expected ',' or ')'")),
                }
            }
        }
        if i != chars.len() {
            return Err(err(pos(i), "unexpected text after ')'"));
        }
        Ok(spec)
    }

    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.0.as_str())
    }
}

/// One declared parameter of a game or agent.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// The key.
    pub name: &'static str,
    /// The default, as it would be written in a spec.
    pub default: &'static str,
    /// A one-line description, including the valid range.
    pub help: &'static str,
}

impl ParamInfo {
    /// Declares a parameter.
    pub const fn new(name: &'static str, default: &'static str, help: &'static str) -> ParamInfo {
        ParamInfo { name, default, help }
    }
}

/// A spec checked against a parameter table, with typed access to its values.
#[derive(Clone, Debug)]
pub struct Params<'a> {
    owner: String,
    spec: &'a Spec,
    table: &'static [ParamInfo],
}

impl<'a> Params<'a> {
    /// Checks that every key of `spec` is declared in `table`.
    pub fn new(spec: &'a Spec, table: &'static [ParamInfo]) -> Result<Params<'a>, SpecError> {
        for (k, _) in &spec.params {
            if !table.iter().any(|p| p.name == k) {
                let valid = if table.is_empty() {
                    "(none)".to_string()
                } else {
                    table.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                };
                return Err(SpecError::UnknownParam { owner: spec.name.clone(), key: k.clone(), valid });
            }
        }
        Ok(Params { owner: spec.name.clone(), spec, table })
    }

    /// The raw text of a declared parameter: as given, or its default.
    pub fn raw(&self, key: &str) -> &str {
        match self.spec.get(key) {
            Some(v) => v,
            None => self.info(key).default,
        }
    }

    /// Whether the spec gives this key explicitly.
    pub fn given(&self, key: &str) -> bool {
        self.spec.get(key).is_some()
    }

    fn info(&self, key: &str) -> &'static ParamInfo {
        self.table
            .iter()
            .find(|p| p.name == key)
            .unwrap_or_else(|| panic!("parameter '{key}' of '{}' is not declared in its table", self.owner))
    }

    fn bad(&self, key: &str, reason: impl Into<String>) -> SpecError {
        SpecError::BadValue {
            owner: self.owner.clone(),
            key: key.to_string(),
            value: self.raw(key).to_string(),
            reason: reason.into(),
        }
    }

    /// A value parsed as `T`.
    pub fn get<T: FromStr>(&self, key: &str) -> Result<T, SpecError> {
        self.raw(key).trim().parse::<T>().map_err(|_| self.bad(key, format!("expected {}", short_type::<T>())))
    }

    /// A value parsed as `T` and checked against a range.
    pub fn get_in<T>(&self, key: &str, range: RangeInclusive<T>) -> Result<T, SpecError>
    where
        T: FromStr + PartialOrd + fmt::Display,
    {
        let v: T = self.get(key)?;
        if range.contains(&v) {
            Ok(v)
        } else {
            Err(self.bad(key, format!("must be in {}..={}", range.start(), range.end())))
        }
    }

    /// A boolean: `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`.
    pub fn get_bool(&self, key: &str) -> Result<bool, SpecError> {
        match self.raw(key).trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(self.bad(key, "expected true or false")),
        }
    }

    /// One of a fixed set of words.
    pub fn get_choice(&self, key: &str, choices: &[&'static str]) -> Result<&'static str, SpecError> {
        let v = self.raw(key).trim().to_ascii_lowercase();
        choices
            .iter()
            .find(|c| **c == v)
            .copied()
            .ok_or_else(|| self.bad(key, format!("expected one of {}", choices.join(", "))))
    }

    /// An optional value: `None` when neither given nor defaulted (empty default).
    pub fn get_opt<T: FromStr>(&self, key: &str) -> Result<Option<T>, SpecError> {
        if self.raw(key).trim().is_empty() { Ok(None) } else { self.get(key).map(Some) }
    }
}

fn short_type<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    match full {
        "f64" | "f32" => "a number",
        "bool" => "true or false",
        "alloc::string::String" => "text",
        t if t.starts_with('u') => "a non-negative whole number",
        t if t.starts_with('i') => "a whole number",
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_parameterised() {
        let s = Spec::parse("tictactoe").unwrap();
        assert_eq!(s.name, "tictactoe");
        assert!(s.params.is_empty());
        let s = Spec::parse(" connect4( width = 7 ,height=6) ").unwrap();
        assert_eq!(s.get("width"), Some("7"));
        assert_eq!(s.get("height"), Some("6"));
        assert_eq!(s.to_string(), "connect4(width=7,height=6)");
    }

    #[test]
    fn quoted_and_nested_values() {
        let s = Spec::parse(r#"gtp(cmd="gnugo --mode gtp --level 10", x=mcts(playouts=5,c=0.7))"#).unwrap();
        assert_eq!(s.get("cmd"), Some("gnugo --mode gtp --level 10"));
        assert_eq!(s.get("x"), Some("mcts(playouts=5,c=0.7)"));
        let again = Spec::parse(&s.to_string()).unwrap();
        assert_eq!(again, s);
        let s = Spec::parse(r#"a(v="say \"hi\" \\ ok")"#).unwrap();
        assert_eq!(s.get("v"), Some(r#"say "hi" \ ok"#));
        assert_eq!(Spec::parse(&s.to_string()).unwrap(), s);
        let s = Spec::parse("gdl(file=../shared/data/gdl/breakthrough.kif)").unwrap();
        assert_eq!(s.get("file"), Some("../shared/data/gdl/breakthrough.kif"));
    }

    #[test]
    fn syntax_errors_are_reported() {
        for bad in ["", "(", "a(", "a(b)", "a(b=)", "a(b=1", "a(b=1))", "a(b=1,b=2)", "a x", "a(=1)", "a(b=\"x)"] {
            assert!(Spec::parse(bad).is_err(), "{bad:?} should not parse");
        }
        let e = Spec::parse("a(b=1").unwrap_err().to_string();
        assert!(e.contains("missing ')'"), "{e}");
    }

    const TABLE: &[ParamInfo] = &[
        ParamInfo::new("width", "7", "columns, 4..=9"),
        ParamInfo::new("rave", "true", "use RAVE"),
        ParamInfo::new("mode", "fast", "fast or slow"),
    ];

    #[test]
    fn params_are_checked() {
        let s = Spec::parse("x(width=9)").unwrap();
        let p = Params::new(&s, TABLE).unwrap();
        assert_eq!(p.get_in::<u32>("width", 4..=9).unwrap(), 9);
        assert!(p.get_bool("rave").unwrap());
        assert_eq!(p.get_choice("mode", &["fast", "slow"]).unwrap(), "fast");

        let s = Spec::parse("x(width=12)").unwrap();
        let e = Params::new(&s, TABLE).unwrap().get_in::<u32>("width", 4..=9).unwrap_err().to_string();
        assert!(e.contains("4..=9"), "{e}");
        let s = Spec::parse("x(width=-1)").unwrap();
        assert!(Params::new(&s, TABLE).unwrap().get::<u32>("width").is_err());

        let s = Spec::parse("x(depth=3)").unwrap();
        let e = Params::new(&s, TABLE).unwrap_err().to_string();
        assert!(e.contains("width, rave, mode"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn display_round_trips(name in "[a-z][a-z0-9_]{0,8}", vals in proptest::collection::vec(("[a-z]{1,5}", "[ -~]{1,12}"), 0..4)) {
            let mut s = Spec::named(&name);
            for (k, v) in &vals {
                if s.get(k).is_none() {
                    s = s.with(k, v.trim());
                }
            }
            s.params.retain(|(_, v)| !v.0.is_empty());
            let again = Spec::parse(&s.to_string());
            proptest::prop_assert_eq!(again, Ok(s));
        }

        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            let _ = Spec::parse(&text);
        }
    }
}
