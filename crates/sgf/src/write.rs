//! The writer: canonical `FF[4]` text in UTF-8.
//!
//! The output is a pure function of the tree, so writing what was read from written output gives
//! the same bytes: one node per line, each variation opening on a new line, properties in their
//! stored order, values escaped minimally (`\` and `]` always; `:` only where the property's value
//! may be composed, so the separator stays unambiguous). Line breaks inside text are written as
//! they are; no soft line breaks are added. [`format()`] additionally sets `FF[4]` and `CA[UTF-8]` in
//! every root, which makes it the canonical rewrite of a file.

use crate::error::{Diagnostic, SgfError};
use crate::parse::{Collection, ParseOptions, parse};
use crate::props;
use crate::tree::{GameTree, NodeId, NodeRef, Value};

/// `text` as a simple-text property value, escaped as [`escape_into`] does it.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    escape_into(&mut s, text, false);
    s
}

/// Appends `text` escaped for use inside `[...]`.
///
/// Besides `\\`, `]` and (when asked) `:`, the control character ESC is escaped too: escaping any
/// character is valid SGF, and it keeps the output from being mistaken for ISO-2022-JP, so it
/// always reads back as written.
pub fn escape_into(out: &mut String, text: &str, escape_colon: bool) {
    let mut rest = text;
    while let Some(i) = rest.find(|c| matches!(c, '\\' | ']' | '\u{1b}') || (escape_colon && c == ':')) {
        out.push_str(&rest[..i]);
        out.push('\\');
        // The found character is ASCII.
        out.push_str(&rest[i..i + 1]);
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

fn write_value(out: &mut String, v: Value<'_>, composable: bool) {
    out.push('[');
    match v.parts() {
        (a, Some(b)) => {
            escape_into(out, a, true);
            out.push(':');
            escape_into(out, b, true);
        }
        (a, None) => escape_into(out, a, composable),
    }
    out.push(']');
}

fn write_node(out: &mut String, node: NodeRef<'_>) {
    if !(out.is_empty() || out.ends_with('(')) {
        out.push('\n');
    }
    out.push(';');
    for p in node.properties() {
        out.push_str(p.ident());
        let composable = p.info().is_none_or(|i| i.shape.composable());
        if p.values().len() == 0 {
            out.push_str("[]");
        }
        for v in p.values() {
            write_value(out, v, composable);
        }
    }
}

/// Appends one game tree, ending with `)` and a line break. Iterative: depth is unlimited.
pub fn write_tree(tree: &GameTree, out: &mut String) {
    enum Step<'a> {
        Open,
        Node(NodeRef<'a>),
        Close,
    }
    if !(out.is_empty() || out.ends_with('\n')) {
        out.push('\n');
    }
    out.push('(');
    let mut stack = vec![Step::Node(tree.root())];
    while let Some(step) = stack.pop() {
        match step {
            Step::Open => {
                out.push('\n');
                out.push('(');
            }
            Step::Close => out.push(')'),
            Step::Node(node) => {
                write_node(out, node);
                let mut children = node.children();
                match (children.next(), children.next()) {
                    (None, _) => {}
                    (Some(only), None) => stack.push(Step::Node(only)),
                    (Some(a), Some(b)) => {
                        let all: Vec<NodeRef<'_>> = [a, b].into_iter().chain(children).collect();
                        for child in all.into_iter().rev() {
                            stack.push(Step::Close);
                            stack.push(Step::Node(child));
                            stack.push(Step::Open);
                        }
                    }
                }
            }
        }
    }
    out.push_str(")\n");
}

/// Writes every tree of a collection.
pub fn write_collection(games: &[GameTree]) -> String {
    let mut out = String::new();
    for g in games {
        write_tree(g, &mut out);
    }
    out
}

/// Sets `FF[4]` and `CA[UTF-8]` in the root, as the written text will be `FF[4]` UTF-8.
pub fn normalize(tree: &mut GameTree) {
    let root = tree.root();
    if root.first_value("CA").is_none_or(|v| v.text() != "UTF-8") {
        tree.set_property(NodeId::ROOT, "CA", &["UTF-8"]);
    }
    if tree.root().first_value("FF").is_none_or(|v| v.text() != "4") {
        tree.set_property(NodeId::ROOT, "FF", &["4"]);
    }
    debug_assert!(props::lookup(b"CA").is_some());
}

/// The canonical rewrite of an SGF file and the deviations found reading it.
#[derive(Clone, Debug)]
pub struct Formatted {
    /// Canonical `FF[4]` UTF-8 text.
    pub text: String,
    /// Deviations found (and recovered from, in lenient mode).
    pub diagnostics: Vec<Diagnostic>,
    /// Number of game trees.
    pub games: usize,
    /// Places where the text does not hold all of the input: input dropped while reading (see
    /// [`Collection::dropped`]) and game trees whose bytes did not all decode in their encoding.
    /// A rewrite in place must not replace a file when this is not zero.
    pub lost: usize,
}

/// Reads `bytes` and rewrites them canonically (see the module documentation).
pub fn format(bytes: &[u8], options: &ParseOptions) -> Result<Formatted, SgfError> {
    let Collection { mut games, diagnostics, dropped, .. } = parse(bytes, options)?;
    for g in &mut games {
        normalize(g);
    }
    let lost = dropped + games.iter().filter(|g| g.charset.lossy).count();
    Ok(Formatted { text: write_collection(&games), diagnostics, games: games.len(), lost })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        let mut s = String::new();
        escape_into(&mut s, r"a]b\c:d", false);
        assert_eq!(s, r"a\]b\\c:d");
        s.clear();
        escape_into(&mut s, "x:y", true);
        assert_eq!(s, r"x\:y");
    }

    #[test]
    fn layout() {
        let mut t = GameTree::new();
        t.push_property(NodeId::ROOT, "GM", &["1"]);
        let a = t.add_child(NodeId::ROOT).unwrap_or(NodeId::ROOT);
        t.push_property(a, "B", &["aa"]);
        let b = t.add_child(a).unwrap_or(NodeId::ROOT);
        t.push_property(b, "W", &["bb"]);
        let c = t.add_child(a).unwrap_or(NodeId::ROOT);
        t.push_property(c, "W", &["cc"]);
        t.push_property(c, "C", &["x]y"]);
        t.push_property(c, "LB", &["aa:1:2"]);
        let mut out = String::new();
        write_tree(&t, &mut out);
        assert_eq!(out, "(;GM[1]\n;B[aa]\n(;W[bb])\n(;W[cc]C[x\\]y]LB[aa:1\\:2]))\n");
    }
}
