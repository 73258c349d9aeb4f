//! The reader: bytes to [`Collection`].
//!
//! Reading is two passes per game tree. The first pass walks the bytes once, iteratively (an
//! explicit stack of open variations, so a 100,000-node main line needs no recursion), builds the
//! node arena and records the raw byte span of every value. Escapes are resolved on bytes, as
//! `FF[4]` requires, so a backslash that is the second byte of a Shift_JIS or GBK character written
//! escaped by a careful writer is understood. The second pass knows the tree's `CA`, chooses the
//! encoding (see [`crate::charset`]), decodes every value into the tree's text, validates values
//! against their property types and applies the lenient fixes.
//!
//! Lenient mode (the default) recovers from the faults found in real files and reports each as a
//! [`Diagnostic`]; strict mode applies no heuristic fixes and fails if anything deviates from `FF[4]`.

use memchr::{memchr, memchr2};

use crate::charset;
use crate::error::{Diagnostic, Issue, SgfError};
use crate::props::{self, Shape, ValueType};
use crate::tree::{Charset, GameTree, Ident, PropData, ValueData};
use crate::types::{Point, parse_number, parse_real};

const NONE: u32 = u32::MAX;

/// How forgiving the reader is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Fail on any deviation from `FF[4]`, listing every one with its line and column.
    Strict,
    /// Recover from known real-world faults and list them as warnings.
    #[default]
    Lenient,
}

/// Options for [`parse`].
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Strict or lenient.
    pub mode: Mode,
    /// At most this many diagnostics are kept; the rest are only counted.
    pub max_diagnostics: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { mode: Mode::Lenient, max_diagnostics: 1000 }
    }
}

impl ParseOptions {
    /// Options for `mode` with the default limits.
    pub fn new(mode: Mode) -> Self {
        ParseOptions { mode, ..Default::default() }
    }
}

/// The game trees of one SGF file.
#[derive(Clone, Debug, Default)]
pub struct Collection {
    /// The game trees, in file order.
    pub games: Vec<GameTree>,
    /// Deviations found (at most `max_diagnostics`).
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics beyond the limit, counted but not kept.
    pub suppressed: usize,
    /// Deviations (kept or not) where input was dropped: bytes that belong to no property
    /// (garbage, a stray `)`, an identifier without a value) or a repeated property's value. A
    /// rewrite from this collection loses them.
    pub dropped: usize,
}

impl Collection {
    /// Total number of deviations found, kept or not.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() + self.suppressed
    }
}

/// Reads an SGF file in lenient mode.
pub fn parse_lenient(bytes: &[u8]) -> Result<Collection, SgfError> {
    parse(bytes, &ParseOptions::default())
}

/// Reads an SGF file in strict mode.
pub fn parse_strict(bytes: &[u8]) -> Result<Collection, SgfError> {
    parse(bytes, &ParseOptions::new(Mode::Strict))
}

/// Reads an SGF file (a collection of one or more game trees).
pub fn parse(bytes: &[u8], options: &ParseOptions) -> Result<Collection, SgfError> {
    let utf16 = charset::detect_utf16(bytes);
    let decoded;
    let src: &[u8] = match utf16 {
        Some((enc, bom)) => {
            decoded = enc.decode_without_bom_handling(&bytes[bom..]).0.into_owned();
            decoded.as_bytes()
        }
        None => match bytes {
            [0xEF, 0xBB, 0xBF, rest @ ..] => rest,
            _ => bytes,
        },
    };
    let mut parser = Parser::new(src, options, utf16.map(|(e, _)| e));
    parser.run(false);
    if parser.games.is_empty() && options.mode == Mode::Lenient {
        // A file without the outer parentheses: read it from its first node.
        parser.run(true);
    }
    if parser.games.is_empty() {
        return Err(SgfError::NoGameTree);
    }
    let Parser { games, diags, suppressed, dropped, .. } = parser;
    if options.mode == Mode::Strict && !diags.is_empty() {
        return Err(SgfError::Strict(diags));
    }
    Ok(Collection { games, diagnostics: diags, suppressed, dropped })
}

struct Parser<'s> {
    src: &'s [u8],
    pos: usize,
    mode: Mode,
    max_diags: usize,
    diags: Vec<Diagnostic>,
    suppressed: usize,
    dropped: usize,
    lines: Option<Vec<usize>>,
    games: Vec<GameTree>,
    /// Raw spans (source offsets) of the current tree's values, indexed like `tree.values`.
    raw: Vec<(u32, u32)>,
    /// Source offset of each node of the current tree (its `;`).
    node_offsets: Vec<u32>,
    scratch: Vec<u8>,
    ident_buf: Vec<u8>,
    /// Every `]` at or after this offset is known to have no plausible closing `]` after it.
    no_close_from: usize,
    forced: Option<&'static encoding_rs::Encoding>,
}

fn is_blank(b: u8) -> bool {
    b <= b' '
}

impl<'s> Parser<'s> {
    fn new(src: &'s [u8], options: &ParseOptions, forced: Option<&'static encoding_rs::Encoding>) -> Self {
        Parser {
            src,
            pos: 0,
            mode: options.mode,
            max_diags: options.max_diagnostics,
            diags: Vec::new(),
            suppressed: 0,
            dropped: 0,
            lines: None,
            games: Vec::new(),
            raw: Vec::new(),
            node_offsets: Vec::new(),
            scratch: Vec::new(),
            ident_buf: Vec::new(),
            no_close_from: usize::MAX,
            forced,
        }
    }

    fn diag(&mut self, offset: usize, issue: Issue, message: impl FnOnce() -> String) {
        if matches!(issue, Issue::Garbage | Issue::ExtraParen | Issue::MissingValue) {
            self.dropped += 1;
        }
        if self.diags.len() >= self.max_diags {
            self.suppressed += 1;
            return;
        }
        let src = self.src;
        let lines = self.lines.get_or_insert_with(|| memchr::memchr_iter(b'\n', src).collect());
        let line = lines.partition_point(|&nl| nl < offset);
        let line_start = if line == 0 { 0 } else { lines[line - 1] + 1 };
        self.diags.push(Diagnostic {
            line: (line + 1) as u32,
            column: (offset.saturating_sub(line_start) + 1) as u32,
            issue,
            message: message(),
        });
    }

    fn skip_blanks(&mut self) {
        while self.pos < self.src.len() && is_blank(self.src[self.pos]) {
            self.pos += 1;
        }
    }

    fn peek_after_blanks(&self, mut i: usize) -> Option<u8> {
        while i < self.src.len() && is_blank(self.src[i]) {
            i += 1;
        }
        self.src.get(i).copied()
    }

    /// Whether the `]` at `close` plausibly ends a value: what follows is blank, a structural
    /// character, or an identifier followed by `[`.
    fn plausible_close(&self, close: usize) -> bool {
        let s = self.src;
        let mut i = close + 1;
        while i < s.len() && is_blank(s[i]) {
            i += 1;
        }
        match s.get(i) {
            None | Some(b'[' | b';' | b'(' | b')') => true,
            Some(c) if c.is_ascii_alphabetic() => {
                while i < s.len() && s[i].is_ascii_alphabetic() {
                    i += 1;
                }
                self.peek_after_blanks(i) == Some(b'[')
            }
            _ => false,
        }
    }

    /// Whether blanks, an identifier, blanks and `[` follow `i` (a node missing its `;`).
    fn ident_then_value(&self, mut i: usize) -> bool {
        let s = self.src;
        while i < s.len() && is_blank(s[i]) {
            i += 1;
        }
        let start = i;
        while i < s.len() && s[i].is_ascii_alphabetic() {
            i += 1;
        }
        i > start && self.peek_after_blanks(i) == Some(b'[')
    }

    /// Scans a value starting after its `[`; returns the end of its content and leaves `pos`
    /// after the closing `]`.
    fn scan_value(&mut self) -> usize {
        let start = self.pos;
        let s = self.src;
        let mut i = start;
        let mut fallback: Option<usize> = None;
        loop {
            match memchr2(b']', b'\\', &s[i..]) {
                None => break,
                Some(off) => {
                    let j = i + off;
                    if s[j] == b'\\' {
                        i = j + 2;
                        if i >= s.len() {
                            break;
                        }
                        continue;
                    }
                    if j >= self.no_close_from || self.plausible_close(j) {
                        if let Some(f) = fallback {
                            self.diag(f, Issue::UnescapedBracket, || "unescaped ']' inside a value".into());
                        }
                        self.pos = j + 1;
                        return j;
                    }
                    if fallback.is_none() {
                        fallback = Some(j);
                    }
                    i = j + 1;
                }
            }
        }
        if let Some(f) = fallback {
            // No plausible end: the first `]` ends the value after all.
            self.no_close_from = self.no_close_from.min(f);
            self.pos = f + 1;
            return f;
        }
        self.diag(start, Issue::Truncated, || "value not closed before the end of the file".into());
        self.pos = s.len();
        s.len()
    }

    /// Reads every game tree. With `implicit`, a file lacking `(` is read from its first `;`.
    fn run(&mut self, implicit: bool) {
        let s = self.src;
        self.pos = 0;
        let mut seen_tree = false;
        if implicit {
            let Some(first) = memchr(b';', s) else { return };
            if s[..first].iter().any(|&b| !is_blank(b)) {
                self.diag(0, Issue::Garbage, || "data before the first game tree".into());
            }
            self.diag(first, Issue::MissingSemicolon, || "game tree without '('".into());
            self.pos = first;
            self.read_tree(first, true);
            seen_tree = true;
        }
        while self.pos < s.len() {
            let Some(off) = memchr(b'(', &s[self.pos..]) else {
                let rest = &s[self.pos..];
                if seen_tree && rest.iter().any(|&b| !is_blank(b) && b != b')') {
                    self.diag(self.pos, Issue::Garbage, || "data after the last game tree".into());
                } else if seen_tree && rest.contains(&b')') {
                    self.diag(self.pos, Issue::ExtraParen, || "')' without an open game tree".into());
                }
                return;
            };
            let open = self.pos + off;
            if seen_tree && s[self.pos..open].iter().any(|&b| !is_blank(b) && b != b')') {
                self.diag(self.pos, Issue::Garbage, || "data between game trees".into());
            }
            if seen_tree && s[self.pos..open].contains(&b')') {
                self.diag(self.pos, Issue::ExtraParen, || "')' without an open game tree".into());
            }
            match self.peek_after_blanks(open + 1) {
                Some(b';') => {}
                Some(c) if c.is_ascii_alphabetic() && self.ident_then_value(open + 1) => {
                    self.diag(open, Issue::MissingSemicolon, || "game tree without initial ';'".into());
                }
                _ => {
                    self.pos = open + 1;
                    continue;
                }
            }
            if !seen_tree && s[..open].iter().any(|&b| !is_blank(b)) {
                self.diag(0, Issue::Garbage, || "data before the first game tree".into());
            }
            self.pos = open + 1;
            self.read_tree(open, false);
            seen_tree = true;
        }
    }

    /// First pass over one game tree; `pos` is after its `(` (or at its `;` when `implicit`).
    fn read_tree(&mut self, tree_start: usize, implicit: bool) {
        let s = self.src;
        let mut tree = GameTree::with_capacity(256, 0);
        self.raw.clear();
        self.node_offsets.clear();
        // Node each open variation hangs from (NONE before the root).
        let mut stack: Vec<u32> = vec![NONE];
        let mut cur = NONE;
        let mut in_node = false;
        let mut nodes_in_variation = 0usize;
        let mut garbage_at: Option<usize> = None;
        let mut end = s.len();
        while self.pos < s.len() {
            let c = s[self.pos];
            if is_blank(c) {
                self.pos += 1;
                continue;
            }
            match c {
                b'(' => {
                    stack.push(cur);
                    in_node = false;
                    nodes_in_variation = 0;
                    self.pos += 1;
                }
                b')' => {
                    if nodes_in_variation == 0 && !(implicit && stack.len() == 1) {
                        self.diag(self.pos, Issue::EmptyVariation, || "empty variation".into());
                    }
                    self.pos += 1;
                    in_node = false;
                    nodes_in_variation = 1;
                    match stack.pop() {
                        Some(parent) if !stack.is_empty() => cur = parent,
                        _ => {
                            end = self.pos;
                            break;
                        }
                    }
                    if stack.is_empty() {
                        end = self.pos;
                        break;
                    }
                }
                b';' => {
                    cur = self.new_node(&mut tree, cur);
                    in_node = true;
                    nodes_in_variation += 1;
                    self.pos += 1;
                }
                c if c.is_ascii_alphabetic() => {
                    if !in_node {
                        self.diag(self.pos, Issue::MissingSemicolon, || "node without ';'".into());
                        cur = self.new_node(&mut tree, cur);
                        in_node = true;
                        nodes_in_variation += 1;
                    }
                    self.read_property(&mut tree, cur);
                }
                _ => {
                    if garbage_at.is_none() {
                        garbage_at = Some(self.pos);
                    }
                    self.pos += 1;
                    continue;
                }
            }
            if let Some(g) = garbage_at.take() {
                self.diag(g, Issue::Garbage, || "illegal characters inside a game tree".into());
            }
        }
        if let Some(g) = garbage_at.take() {
            self.diag(g, Issue::Garbage, || "illegal characters inside a game tree".into());
        }
        if !(stack.is_empty() || implicit && stack.len() == 1) {
            self.diag(s.len(), Issue::Truncated, || "game tree not closed before the end of the file".into());
        }
        if tree.nodes.is_empty() {
            self.diag(tree_start, Issue::Structure, || "game tree without nodes".into());
            return;
        }
        self.finish_tree(tree, tree_start, end);
    }

    fn new_node(&mut self, tree: &mut GameTree, cur: u32) -> u32 {
        self.node_offsets.push(self.pos as u32);
        if cur == NONE && !tree.nodes.is_empty() {
            self.diag(self.pos, Issue::Structure, || "variation without a root node; attached to the root".into());
            return tree.push_node(0).0;
        }
        tree.push_node(cur).0
    }

    fn read_property(&mut self, tree: &mut GameTree, node: u32) {
        let s = self.src;
        let start = self.pos;
        while self.pos < s.len() && s[self.pos].is_ascii_alphabetic() {
            self.pos += 1;
        }
        let raw_ident = &s[start..self.pos];
        self.ident_buf.clear();
        self.ident_buf.extend(raw_ident.iter().filter(|b| b.is_ascii_uppercase()));
        if self.ident_buf.len() != raw_ident.len() {
            self.diag(start, Issue::LowercaseIdent, || {
                format!("identifier '{}' has lower-case letters (FF[3])", String::from_utf8_lossy(raw_ident))
            });
            if self.ident_buf.is_empty() {
                self.ident_buf.extend(raw_ident.iter().map(u8::to_ascii_uppercase));
            }
        }
        self.skip_blanks();
        if self.src.get(self.pos) != Some(&b'[') {
            self.diag(start, Issue::MissingValue, || {
                format!("property '{}' without a value", String::from_utf8_lossy(raw_ident))
            });
            return;
        }
        let ident = match props::lookup(&self.ident_buf) {
            Some(i) => Ident::Known(i),
            None => {
                let start = tree.text.len() as u32;
                // Upper-case ASCII letters only: valid UTF-8.
                tree.text.push_str(std::str::from_utf8(&self.ident_buf).unwrap_or("X"));
                Ident::Other(start, self.ident_buf.len() as u32)
            }
        };
        let values_start = tree.values.len() as u32;
        while self.src.get(self.pos) == Some(&b'[') {
            self.pos += 1;
            let vstart = self.pos;
            let vend = self.scan_value();
            tree.values.push(ValueData { start: 0, end: 0, colon: NONE });
            self.raw.push((vstart as u32, vend as u32));
            self.skip_blanks();
        }
        let values_len = tree.values.len() as u32 - values_start;
        // Duplicate property in the same node?
        let nd = &tree.nodes[node as usize];
        let range = nd.props_start as usize..(nd.props_start + nd.props_len) as usize;
        let dup = range.clone().find(|&i| same_ident(tree, &tree.props[i].ident, &ident));
        if let Some(d) = dup {
            let list = match ident {
                Ident::Known(i) => props::info(i).shape.is_list(),
                Ident::Other(..) => true,
            };
            let name = String::from_utf8_lossy(&self.ident_buf).into_owned();
            if list {
                self.diag(start, Issue::DuplicateProperty, || format!("property {name} repeated; values merged"));
                let old = tree.props[d].clone();
                let old_end = old.values_start + old.values_len;
                if old_end != values_start {
                    // Move the earlier values next to the new ones.
                    let ns = tree.values.len() as u32;
                    let os = old.values_start as usize..old_end as usize;
                    tree.values.extend_from_within(os.clone());
                    self.raw.extend_from_within(os);
                    let new_range = values_start as usize..(values_start + values_len) as usize;
                    tree.values.extend_from_within(new_range.clone());
                    self.raw.extend_from_within(new_range);
                    tree.props[d].values_start = ns;
                }
                tree.props[d].values_len += values_len;
            } else {
                self.dropped += 1;
                self.diag(start, Issue::DuplicateProperty, || format!("property {name} repeated; later value dropped"));
            }
            return;
        }
        tree.props.push(PropData { ident, values_start, values_len });
        tree.nodes[node as usize].props_len += 1;
    }

    /// Removes escapes and soft line breaks from a raw value into `scratch`; returns the offset of
    /// the first unescaped `:` when `composable`.
    fn unescape(&mut self, raw: &[u8], composable: bool) -> Option<usize> {
        self.scratch.clear();
        let mut colon = None;
        let mut i = 0;
        while i < raw.len() {
            let b = raw[i];
            if b == b'\\' {
                match raw.get(i + 1) {
                    Some(b'\n') => i += if raw.get(i + 2) == Some(&b'\r') { 3 } else { 2 },
                    Some(b'\r') => i += if raw.get(i + 2) == Some(&b'\n') { 3 } else { 2 },
                    Some(&n) => {
                        self.scratch.push(n);
                        i += 2;
                    }
                    None => i += 1,
                }
                continue;
            }
            if b == b':' && composable && colon.is_none() {
                colon = Some(self.scratch.len());
            }
            self.scratch.push(b);
            i += 1;
        }
        colon
    }

    /// Second pass: choose the encoding, decode and validate every value.
    fn finish_tree(&mut self, mut tree: GameTree, tree_start: usize, tree_end: usize) {
        let src = self.src;
        let tree_bytes = &src[tree_start..tree_end.min(src.len())];
        let root_raw = |ident: &str| -> Option<&'s [u8]> {
            let root = &tree.nodes[0];
            let r = root.props_start as usize..(root.props_start + root.props_len) as usize;
            tree.props[r].iter().find(|p| tree.ident_str(&p.ident) == ident).and_then(|p| {
                let (a, b) = *self.raw.get(p.values_start as usize)?;
                Some(&src[a as usize..b as usize])
            })
        };
        let ca = root_raw("CA");
        let gm = root_raw("GM").and_then(|g| parse_number(std::str::from_utf8(g).ok()?)).unwrap_or(1);
        let charset = match self.forced {
            Some(e) => Charset { encoding: e, source: crate::tree::CharsetSource::Detected, ..Default::default() },
            None => {
                let choice = charset::choose(ca, tree_bytes);
                if let Some(note) = choice.note {
                    self.diag(tree_start, Issue::Charset, || note);
                }
                choice.charset
            }
        };
        let charset_encoding = charset.encoding;
        // Text in the arena is UTF-8 after decoding; a forced (UTF-16) file is already UTF-8.
        let decode_as = if self.forced.is_some() { encoding_rs::UTF_8 } else { charset_encoding };
        let mut lossy = false;
        tree.text.reserve(tree_bytes.len());
        for pi in 0..tree.props.len() {
            let p = tree.props[pi].clone();
            let shape = match p.ident {
                Ident::Known(i) => Some(props::info(i).shape),
                Ident::Other(..) => None,
            };
            let composable = shape.is_none_or(|s| s.composable());
            for vi in p.values_start..p.values_start + p.values_len {
                let (a, b) = self.raw[vi as usize];
                let raw = &src[a as usize..b as usize];
                let start = tree.text.len() as u32;
                let colon = if memchr2(b'\\', b':', raw).is_none() {
                    lossy |= push_decoded(&mut tree.text, raw, decode_as);
                    None
                } else {
                    let colon = self.unescape(raw, composable);
                    match colon {
                        Some(c) => {
                            lossy |= push_decoded(&mut tree.text, &self.scratch[..c], decode_as);
                            let c_text = tree.text.len() as u32 - start;
                            tree.text.push(':');
                            lossy |= push_decoded(&mut tree.text, &self.scratch[c + 1..], decode_as);
                            Some(c_text)
                        }
                        None => {
                            lossy |= push_decoded(&mut tree.text, &self.scratch, decode_as);
                            None
                        }
                    }
                };
                tree.values[vi as usize] =
                    ValueData { start, end: tree.text.len() as u32, colon: colon.unwrap_or(NONE) };
            }
        }
        tree.charset = Charset { lossy: charset.lossy || lossy, ..charset };
        // The tree now holds Unicode text: its CA says so, the original label is in the report.
        if let Some(ca) = ca {
            tree.charset.declared = Some(String::from_utf8_lossy(ca.trim_ascii()).into_owned());
            if tree.root().first_value("CA").is_none_or(|v| v.text() != "UTF-8") {
                tree.set_property(crate::tree::NodeId::ROOT, "CA", &["UTF-8"]);
            }
        }
        self.validate(&tree, gm);
        if self.mode == Mode::Strict {
            self.strict_checks(&tree, tree_start);
        }
        if self.mode == Mode::Lenient {
            self.fix_fox_komi(&mut tree, tree_start);
        }
        self.games.push(tree);
    }

    /// Checks every standard property's values against its type.
    fn validate(&mut self, tree: &GameTree, gm: i64) {
        let size = tree.board_size();
        let go_points = gm == 1 || gm == 2;
        for (ni, node) in tree.nodes.iter().enumerate() {
            let r = node.props_start as usize..(node.props_start + node.props_len) as usize;
            let category = |c| {
                tree.props[r.clone()].iter().any(|p| matches!(p.ident, Ident::Known(i) if props::info(i).category == c))
            };
            if ni > 0 && category(props::Category::Root) {
                let at = self.node_offsets.get(ni).map_or(0, |&o| o as usize);
                self.diag(at, Issue::Structure, || format!("root property outside the root, in node {ni}"));
            }
            if category(props::Category::Move) && category(props::Category::Setup) {
                let offset = self.raw.get(tree.props[r.start].values_start as usize).map_or(0, |r| r.0 as usize);
                self.diag(offset, Issue::Structure, || format!("move and set-up properties mixed in node {ni}"));
            }
            for p in &tree.props[r] {
                let Ident::Known(i) = p.ident else { continue };
                let info = props::info(i);
                let values = &tree.values[p.values_start as usize..(p.values_start + p.values_len) as usize];
                let count_ok = match info.shape {
                    Shape::List(_) | Shape::ComposedList(..) => !values.is_empty(),
                    Shape::EList(_) => true,
                    _ => values.len() == 1,
                };
                let mut bad: Option<usize> = None;
                if !count_ok {
                    bad = Some(p.values_start as usize);
                }
                for (k, v) in values.iter().enumerate() {
                    let text = &tree.text[v.start as usize..v.end as usize];
                    let parts = if v.colon == NONE {
                        (text, None)
                    } else {
                        (&text[..v.colon as usize], Some(&text[v.colon as usize + 1..]))
                    };
                    if !value_ok(info.shape, parts, go_points, size, values.len())
                        || info.ident == "SZ" && !size_ok(parts, go_points)
                    {
                        bad.get_or_insert(p.values_start as usize + k);
                    }
                }
                if let Some(vi) = bad {
                    let offset = self.raw.get(vi).map_or(0, |r| r.0 as usize);
                    let shown: String = tree
                        .values
                        .get(vi)
                        .map_or("", |v| &tree.text[v.start as usize..v.end as usize])
                        .chars()
                        .take(40)
                        .collect();
                    self.diag(offset, Issue::InvalidValue, || {
                        format!("invalid value {}[{}] in node {}", info.ident, shown, ni)
                    });
                }
            }
        }
    }

    fn node_offset(&self, node: crate::tree::NodeId) -> usize {
        self.node_offsets.get(node.0 as usize).map_or(0, |&o| o as usize)
    }

    /// Checks of game semantics that strict mode reports (as SGFC's strict mode does): a handicap
    /// that differs from the number of set-up black stones, set-up stones on the main line after the
    /// root, a move in the root node, and two successive moves of the same colour. A collection of several game trees is
    /// valid `FF[4]` and is not reported.
    fn strict_checks(&mut self, tree: &GameTree, tree_start: usize) {
        if tree.game_type() != 1 {
            return;
        }
        let root = tree.root();
        if root.raw_move().is_some() {
            self.diag(tree_start, Issue::Suspicious, || "move in the root node".into());
        }
        if let Some(ha) = root.number("HA") {
            let stones = root.setup().black.len() as i64;
            if ha >= 2 && stones != ha || ha < 2 && stones > 0 && ha != 0 {
                self.diag(tree_start, Issue::Suspicious, || format!("HA[{ha}] but {stones} set-up black stone(s)"));
            }
        }
        for node in tree.main_line().skip(1) {
            if node.has("AB") || node.has("AW") || node.has("AE") {
                let at = self.node_offset(node.id());
                self.diag(at, Issue::Suspicious, || format!("set-up stones in main-line node {}", node.id().0));
            }
        }
        for node in tree.nodes().skip(1) {
            let (Some((c, _)), Some(parent)) = (node.raw_move(), node.parent()) else { continue };
            if parent.raw_move().is_some_and(|(pc, _)| pc == c) {
                let at = self.node_offset(node.id());
                self.diag(at, Issue::Suspicious, || {
                    format!("two successive {} moves at node {}", c.ident(), node.id().0)
                });
            }
        }
    }

    /// Fox server files write komi times 100 (`KM[750]` for 7.5). An integer komi of at least 100
    /// in absolute value, or any non-zero integer komi in a file whose `AP` names `foxwq`, is
    /// divided by 100.
    fn fix_fox_komi(&mut self, tree: &mut GameTree, tree_start: usize) {
        let root = tree.root();
        let fox = root
            .properties()
            .filter(|p| p.ident() == "AP")
            .any(|p| p.values().any(|v| v.text().to_ascii_lowercase().contains("foxwq")));
        let Some(km) = root.first_value("KM").and_then(|v| parse_number(v.text())) else { return };
        if km != 0 && (km.abs() >= 100 || fox) {
            let fixed = (km as f64 / 100.0).to_string();
            self.diag(tree_start, Issue::FoxKomi, || {
                format!("komi KM[{km}] read as {fixed} (Fox server writes komi x100)")
            });
            tree.set_property(crate::tree::NodeId::ROOT, "KM", &[&fixed]);
        }
    }
}

fn same_ident(tree: &GameTree, a: &Ident, b: &Ident) -> bool {
    match (a, b) {
        (Ident::Known(x), Ident::Known(y)) => x == y,
        (Ident::Other(..), Ident::Other(..)) => tree.ident_str(a) == tree.ident_str(b),
        _ => false,
    }
}

/// Decodes `bytes` and appends them; returns whether replacement characters were needed.
fn push_decoded(out: &mut String, bytes: &[u8], enc: &'static encoding_rs::Encoding) -> bool {
    if enc == encoding_rs::UTF_8 {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                false
            }
            Err(_) => {
                out.push_str(&String::from_utf8_lossy(bytes));
                true
            }
        }
    } else if bytes.is_ascii()
        && enc.is_ascii_compatible()
        && enc != encoding_rs::ISO_2022_JP
        && !(enc == encoding_rs::SHIFT_JIS && bytes.contains(&b'\\'))
    {
        // ASCII bytes are valid UTF-8.
        out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        false
    } else if (enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE) && !bytes.contains(&0) {
        // `CA[UTF-16]` in an 8-bit file: only some values (those with NULs) are really UTF-16.
        push_decoded(out, bytes, encoding_rs::UTF_8)
    } else {
        let (text, had_errors) = enc.decode_without_bom_handling(bytes);
        if enc == encoding_rs::SHIFT_JIS && text.contains('\\') {
            // JIS X 0201: a single byte 0x5C is the yen sign in Japanese text.
            out.push_str(&text.replace('\\', "\u{a5}"));
        } else {
            out.push_str(&text);
        }
        had_errors
    }
}

fn single_ok(t: ValueType, s: &str, go_points: bool, size: (u8, u8)) -> bool {
    match t {
        ValueType::None => s.trim().is_empty(),
        ValueType::Number => parse_number(s).is_some(),
        ValueType::Real => parse_real(s).is_some(),
        ValueType::Double => matches!(s.trim(), "1" | "2"),
        ValueType::Color => matches!(s.trim(), "B" | "W"),
        ValueType::SimpleText | ValueType::Text => true,
        ValueType::Point | ValueType::Stone => !go_points || Point::parse(s.trim()).is_some_and(|p| p.on_board(size)),
        ValueType::Move => !go_points || crate::types::parse_go_move(s, size).is_some(),
    }
}

/// Whether an `SZ` value is a board size: at least 1, and at most 52 in Go (the largest
/// board its point letters reach).
fn size_ok((a, b): (&str, Option<&str>), go_points: bool) -> bool {
    let ok = |t: &str| parse_number(t).is_some_and(|n| n >= 1 && (!go_points || n <= 52));
    ok(a) && b.is_none_or(ok)
}

fn value_ok(shape: Shape, (a, b): (&str, Option<&str>), go_points: bool, size: (u8, u8), count: usize) -> bool {
    match shape {
        Shape::Single(t) => {
            // A lone `:` in a non-composable value is plain text; here `b` is always None.
            b.is_none() && single_ok(t, a, go_points, size)
        }
        Shape::List(t) | Shape::EList(t) => {
            if count == 1 && a.is_empty() && b.is_none() {
                // `[]` is the empty elist.
                return matches!(shape, Shape::EList(_));
            }
            single_ok(t, a, go_points, size) && b.is_none_or(|b| single_ok(t, b, go_points, size))
        }
        Shape::Composed(x, y) | Shape::ComposedList(x, y) => {
            b.is_some_and(|b| single_ok(x, a, go_points, size) && single_ok(y, b, go_points, size))
        }
        Shape::SingleOrComposed(x, y) => match b {
            None => single_ok(x, a, go_points, size),
            Some(b) => single_ok(y, a, go_points, size) && single_ok(y, b, go_points, size),
        },
    }
}
