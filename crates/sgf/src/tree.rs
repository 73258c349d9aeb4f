//! The in-memory game tree: a flat arena of nodes, properties and values.
//!
//! A record of a few hundred moves is read thousands of times per second by the game database and
//! the `check` command, so the tree avoids one allocation per node: nodes, properties and value
//! spans live in three `Vec`s and all decoded text in one `String`. Nodes link to their parent,
//! first/last child and next sibling by index. Properties of a node (and values of a property) are
//! contiguous ranges; editing a node that is not the last one relocates its range to the end, which
//! keeps appends cheap and the layout simple.
//!
//! Values are stored decoded (UTF-8, escapes removed, soft line breaks removed). For properties whose
//! value may be composed (`AR[aa:bb]`, `LB[aa:text]`, compressed point lists, unknown properties),
//! the position of the separating `:` is kept, so an escaped `\:` and a separator stay distinct.

use crate::props::{self, PropIndex, PropInfo};

const NONE: u32 = u32::MAX;

/// Index of a node inside its [`GameTree`]. The root is always `NodeId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root node of every tree.
    pub const ROOT: NodeId = NodeId(0);
}

#[derive(Clone, Debug)]
pub(crate) struct NodeData {
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) last_child: u32,
    pub(crate) next_sibling: u32,
    pub(crate) props_start: u32,
    pub(crate) props_len: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Ident {
    Known(PropIndex),
    /// Range of the identifier in the tree's text.
    Other(u32, u32),
}

#[derive(Clone, Debug)]
pub(crate) struct PropData {
    pub(crate) ident: Ident,
    pub(crate) values_start: u32,
    pub(crate) values_len: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ValueData {
    pub(crate) start: u32,
    pub(crate) end: u32,
    /// Offset of the composition separator from `start`, or `NONE`.
    pub(crate) colon: u32,
}

/// How the text encoding of a game tree was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharsetSource {
    /// The `CA` property named it and the bytes agree.
    Declared,
    /// `CA` was missing, unknown or contradicted by the bytes; the encoding was detected.
    Detected,
    /// The tree has no text outside ASCII, or it was built in memory: UTF-8 is assumed.
    Assumed,
}

/// The text encoding a game tree was decoded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charset {
    /// The encoding used to decode every value of the tree.
    pub encoding: &'static encoding_rs::Encoding,
    /// Why this encoding was chosen.
    pub source: CharsetSource,
    /// Whether some bytes could not be decoded and were replaced by U+FFFD.
    pub lossy: bool,
    /// The original `CA` label, if the file had one. The tree's own `CA` property is rewritten to
    /// `UTF-8` on reading, since the tree holds decoded Unicode text.
    pub declared: Option<String>,
}

impl Default for Charset {
    fn default() -> Self {
        Charset { encoding: encoding_rs::UTF_8, source: CharsetSource::Assumed, lossy: false, declared: None }
    }
}

/// One game tree of a collection: the arena of its nodes.
#[derive(Clone, Debug)]
pub struct GameTree {
    pub(crate) nodes: Vec<NodeData>,
    pub(crate) props: Vec<PropData>,
    pub(crate) values: Vec<ValueData>,
    pub(crate) text: String,
    /// The encoding the tree's text was decoded from.
    pub charset: Charset,
}

impl Default for GameTree {
    fn default() -> Self {
        Self::new()
    }
}

/// One value of a property, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value<'a> {
    text: &'a str,
    colon: Option<usize>,
}

impl<'a> Value<'a> {
    /// A plain (not composed) value.
    pub fn new(text: &'a str) -> Self {
        Value { text, colon: None }
    }

    /// The whole decoded text; a composed value reads `first:second`.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The two parts of a composed value, or the whole text and `None`.
    pub fn parts(&self) -> (&'a str, Option<&'a str>) {
        match self.colon {
            Some(c) => (&self.text[..c], Some(&self.text[c + 1..])),
            None => (self.text, None),
        }
    }

    /// Whether the value is composed (has an unescaped `:` separator).
    pub fn is_composed(&self) -> bool {
        self.colon.is_some()
    }
}

/// A read-only view of one node.
#[derive(Clone, Copy, Debug)]
pub struct NodeRef<'a> {
    tree: &'a GameTree,
    id: NodeId,
}

/// A read-only view of one property.
#[derive(Clone, Copy, Debug)]
pub struct PropRef<'a> {
    tree: &'a GameTree,
    data: &'a PropData,
}

impl GameTree {
    /// A tree holding only an empty root node.
    pub fn new() -> Self {
        let mut tree = GameTree {
            nodes: Vec::new(),
            props: Vec::new(),
            values: Vec::new(),
            text: String::new(),
            charset: Charset::default(),
        };
        tree.push_node(NONE);
        tree
    }

    /// An empty arena (no root yet) for the reader.
    pub(crate) fn with_capacity(nodes: usize, text: usize) -> Self {
        GameTree {
            nodes: Vec::with_capacity(nodes),
            props: Vec::with_capacity(nodes + 16),
            values: Vec::with_capacity(nodes + 16),
            text: String::with_capacity(text),
            charset: Charset::default(),
        }
    }

    pub(crate) fn push_node(&mut self, parent: u32) -> NodeId {
        let id = self.nodes.len() as u32;
        self.nodes.push(NodeData {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            props_start: self.props.len() as u32,
            props_len: 0,
        });
        if parent != NONE {
            let p = &mut self.nodes[parent as usize];
            let last = p.last_child;
            p.last_child = id;
            if last == NONE {
                p.first_child = id;
            } else {
                self.nodes[last as usize].next_sibling = id;
            }
        }
        NodeId(id)
    }

    /// Number of nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root node.
    pub fn root(&self) -> NodeRef<'_> {
        NodeRef { tree: self, id: NodeId::ROOT }
    }

    /// The node `id`, if it exists.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_>> {
        ((id.0 as usize) < self.nodes.len()).then_some(NodeRef { tree: self, id })
    }

    /// Every node in creation order (document order for a tree that was read).
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        (0..self.nodes.len() as u32).map(move |i| NodeRef { tree: self, id: NodeId(i) })
    }

    /// The main line: the root, then each node's first child, down to a leaf.
    pub fn main_line(&self) -> MainLine<'_> {
        MainLine { tree: self, next: 0 }
    }

    /// Adds a new last child under `parent` and returns it.
    ///
    /// Returns `None` if `parent` does not exist.
    pub fn add_child(&mut self, parent: NodeId) -> Option<NodeId> {
        ((parent.0 as usize) < self.nodes.len()).then(|| self.push_node(parent.0))
    }

    fn ensure_props_at_end(&mut self, node: u32) {
        let n = &self.nodes[node as usize];
        let (start, len) = (n.props_start as usize, n.props_len as usize);
        if start + len != self.props.len() {
            let new_start = self.props.len();
            self.props.extend_from_within(start..start + len);
            self.nodes[node as usize].props_start = new_start as u32;
        }
    }

    pub(crate) fn intern_ident(&mut self, ident: &str) -> Ident {
        match props::lookup(ident.as_bytes()) {
            Some(i) => Ident::Known(i),
            None => {
                let start = self.text.len() as u32;
                self.text.push_str(ident);
                Ident::Other(start, ident.len() as u32)
            }
        }
    }

    pub(crate) fn push_value_text(&mut self, first: &str, second: Option<&str>) {
        let start = self.text.len() as u32;
        self.text.push_str(first);
        let colon = match second {
            Some(s) => {
                let c = first.len() as u32;
                self.text.push(':');
                self.text.push_str(s);
                c
            }
            None => NONE,
        };
        self.values.push(ValueData { start, end: self.text.len() as u32, colon });
    }

    /// Appends a property to `node`. Each value is `(first, second)`: `Some(second)` makes a
    /// composed value such as the `aa` and `label` of `LB[aa:label]`. Values are plain text; the
    /// writer escapes them. Returns `false` if the node does not exist.
    ///
    /// The identifier is stored as given (use upper-case `FF[4]` identifiers).
    pub fn push_property_parts(&mut self, node: NodeId, ident: &str, values: &[(&str, Option<&str>)]) -> bool {
        if node.0 as usize >= self.nodes.len() {
            return false;
        }
        self.ensure_props_at_end(node.0);
        let ident = self.intern_ident(ident);
        let values_start = self.values.len() as u32;
        for (first, second) in values {
            self.push_value_text(first, *second);
        }
        self.props.push(PropData { ident, values_start, values_len: values.len() as u32 });
        self.nodes[node.0 as usize].props_len += 1;
        true
    }

    /// Appends a property with plain values. For properties whose values may be composed (see
    /// [`PropInfo`]; unknown properties included) the first `:` of a value separates its parts.
    pub fn push_property(&mut self, node: NodeId, ident: &str, values: &[&str]) -> bool {
        let composable = props::lookup(ident.as_bytes()).is_none_or(|i| props::info(i).shape.composable());
        let parts: Vec<(&str, Option<&str>)> = values
            .iter()
            .map(|v| match v.find(':') {
                Some(c) if composable => (&v[..c], Some(&v[c + 1..])),
                _ => (*v, None),
            })
            .collect();
        self.push_property_parts(node, ident, &parts)
    }

    /// Removes every property `ident` from `node`; returns how many were removed.
    pub fn remove_property(&mut self, node: NodeId, ident: &str) -> usize {
        let Some(n) = self.nodes.get(node.0 as usize) else { return 0 };
        let (start, len) = (n.props_start as usize, n.props_len as usize);
        let mut kept = start;
        for i in start..start + len {
            if self.ident_str(&self.props[i].ident) != ident {
                self.props.swap(kept, i);
                kept += 1;
            }
        }
        let removed = start + len - kept;
        self.nodes[node.0 as usize].props_len -= removed as u32;
        removed
    }

    /// Replaces the values of the first property `ident` of `node`, keeping its position, or
    /// inserts the property first in the node if it is missing.
    pub fn set_property(&mut self, node: NodeId, ident: &str, values: &[&str]) -> bool {
        let Some(n) = self.nodes.get(node.0 as usize) else { return false };
        let (start, len) = (n.props_start as usize, n.props_len as usize);
        let pos = (start..start + len).find(|&i| self.ident_str(&self.props[i].ident) == ident);
        let values_start = self.values.len() as u32;
        for v in values {
            self.push_value_text(v, None);
        }
        match pos {
            Some(i) => {
                self.props[i].values_start = values_start;
                self.props[i].values_len = values.len() as u32;
            }
            None => {
                self.ensure_props_at_end(node.0);
                let ident = self.intern_ident(ident);
                let start = self.nodes[node.0 as usize].props_start as usize;
                self.props.insert(start, PropData { ident, values_start, values_len: values.len() as u32 });
                self.nodes[node.0 as usize].props_len += 1;
            }
        }
        true
    }

    pub(crate) fn ident_str<'s>(&'s self, ident: &Ident) -> &'s str {
        match *ident {
            Ident::Known(i) => props::info(i).ident,
            Ident::Other(s, l) => &self.text[s as usize..(s + l) as usize],
        }
    }

    fn value(&self, v: &ValueData) -> Value<'_> {
        Value {
            text: &self.text[v.start as usize..v.end as usize],
            colon: (v.colon != NONE).then_some(v.colon as usize),
        }
    }

    /// The game type (`GM`), 1 (Go) when missing or invalid.
    pub fn game_type(&self) -> u32 {
        self.root().number("GM").and_then(|n| u32::try_from(n).ok()).unwrap_or(1)
    }

    /// The board size (`SZ`) as (columns, rows); 19x19 when missing or invalid.
    ///
    /// Readers that must not guess (a database, an engine loading a record) use
    /// [`checked_board_size`](GameTree::checked_board_size) instead.
    pub fn board_size(&self) -> (u8, u8) {
        self.checked_board_size().unwrap_or((19, 19))
    }

    /// The board size (`SZ`) as (columns, rows): 19x19 when `SZ` is missing, an error naming
    /// the value when it is not a size of 1 to 52 (the largest board SGF coordinates reach).
    pub fn checked_board_size(&self) -> Result<(u8, u8), String> {
        let Some(v) = self.root().first_value("SZ") else { return Ok((19, 19)) };
        let parse = |s: &str| s.trim().parse::<u8>().ok().filter(|n| (1..=52).contains(n));
        let size = match v.parts() {
            (a, None) => parse(a).map(|n| (n, n)),
            (a, Some(b)) => parse(a).zip(parse(b)),
        };
        size.ok_or_else(|| {
            let shown: String = v.text().chars().take(20).collect();
            format!("SZ[{shown}] is not a board size (1 to 52)")
        })
    }
}

impl PartialEq for GameTree {
    /// Two trees are equal when they have the same shape and the same properties in the same
    /// order with the same values. Node numbering and the source encoding do not matter.
    fn eq(&self, other: &Self) -> bool {
        let mut stack = vec![(self.root(), other.root())];
        while let Some((a, b)) = stack.pop() {
            if !a.same_properties(&b) {
                return false;
            }
            let mut ca = a.children();
            let mut cb = b.children();
            loop {
                match (ca.next(), cb.next()) {
                    (Some(x), Some(y)) => stack.push((x, y)),
                    (None, None) => break,
                    _ => return false,
                }
            }
        }
        true
    }
}

/// Iterator over the main line of a tree (see [`GameTree::main_line`]).
#[derive(Clone, Debug)]
pub struct MainLine<'a> {
    tree: &'a GameTree,
    next: u32,
}

impl<'a> Iterator for MainLine<'a> {
    type Item = NodeRef<'a>;
    fn next(&mut self) -> Option<NodeRef<'a>> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.tree.nodes[id as usize].first_child;
        Some(NodeRef { tree: self.tree, id: NodeId(id) })
    }
}

/// Iterator over the children of a node, first (main line) child first.
#[derive(Clone, Debug)]
pub struct Children<'a> {
    tree: &'a GameTree,
    next: u32,
}

impl<'a> Iterator for Children<'a> {
    type Item = NodeRef<'a>;
    fn next(&mut self) -> Option<NodeRef<'a>> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.tree.nodes[id as usize].next_sibling;
        Some(NodeRef { tree: self.tree, id: NodeId(id) })
    }
}

impl<'a> NodeRef<'a> {
    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The tree this node belongs to.
    pub fn tree(&self) -> &'a GameTree {
        self.tree
    }

    fn data(&self) -> &'a NodeData {
        &self.tree.nodes[self.id.0 as usize]
    }

    /// The parent node (`None` for the root).
    pub fn parent(&self) -> Option<NodeRef<'a>> {
        let p = self.data().parent;
        (p != NONE).then_some(NodeRef { tree: self.tree, id: NodeId(p) })
    }

    /// The children, main-line child first.
    pub fn children(&self) -> Children<'a> {
        Children { tree: self.tree, next: self.data().first_child }
    }

    /// The first (main-line) child.
    pub fn first_child(&self) -> Option<NodeRef<'a>> {
        self.children().next()
    }

    /// Number of children.
    pub fn child_count(&self) -> usize {
        self.children().count()
    }

    /// The properties of this node, in order.
    pub fn properties(&self) -> impl ExactSizeIterator<Item = PropRef<'a>> + 'a {
        let d = self.data();
        let tree = self.tree;
        tree.props[d.props_start as usize..(d.props_start + d.props_len) as usize]
            .iter()
            .map(move |data| PropRef { tree, data })
    }

    /// The first property with identifier `ident` (canonical upper case).
    pub fn get(&self, ident: &str) -> Option<PropRef<'a>> {
        self.properties().find(|p| p.ident() == ident)
    }

    /// Whether the node has property `ident`.
    pub fn has(&self, ident: &str) -> bool {
        self.get(ident).is_some()
    }

    /// The first value of property `ident`.
    pub fn first_value(&self, ident: &str) -> Option<Value<'a>> {
        self.get(ident).and_then(|p| p.values().next())
    }

    fn same_properties(&self, other: &NodeRef<'_>) -> bool {
        let a = self.properties();
        let b = other.properties();
        a.len() == b.len() && a.zip(b).all(|(x, y)| x.ident() == y.ident() && x.values().eq(y.values()))
    }
}

impl<'a> PropRef<'a> {
    /// The canonical identifier (upper-case letters only).
    pub fn ident(&self) -> &'a str {
        self.tree.ident_str(&self.data.ident)
    }

    /// The table entry of a standard property.
    pub fn info(&self) -> Option<&'static PropInfo> {
        match self.data.ident {
            Ident::Known(i) => Some(props::info(i)),
            Ident::Other(..) => None,
        }
    }

    /// The values, decoded.
    pub fn values(&self) -> impl ExactSizeIterator<Item = Value<'a>> + 'a {
        let tree = self.tree;
        let s = self.data.values_start as usize;
        tree.values[s..s + self.data.values_len as usize].iter().map(move |v| tree.value(v))
    }

    /// The first value (every property read from a file has at least one).
    pub fn value(&self) -> Option<Value<'a>> {
        self.values().next()
    }
}
