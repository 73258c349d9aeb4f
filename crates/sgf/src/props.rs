//! The table of standard `FF[4]` properties and their value types.
//!
//! The reader consults this table to know whether a value may be composed (`AR[aa:bb]`), whether a
//! point list may be compressed, and how to validate a value; the typed accessors use it to decode.
//! Properties that are not in the table (private ones, `FF[1]`–`FF[3]` leftovers, other applications'
//! extensions) are kept generically, with their values untouched.

/// Type of a single (non-composed) SGF value, as defined by `FF[4]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Empty value `[]`.
    None,
    /// Integer `[+-]?[0-9]+`.
    Number,
    /// Real number `Number ("." [0-9]+)?`.
    Real,
    /// `1` (normal) or `2` (emphasized).
    Double,
    /// `B` or `W`.
    Color,
    /// One-line text: line breaks become spaces.
    SimpleText,
    /// Formatted text: line breaks are kept, soft line breaks removed.
    Text,
    /// A board point (game specific; two letters in Go).
    Point,
    /// A move (game specific; a point or empty for a pass in Go).
    Move,
    /// A stone (game specific; a point in Go).
    Stone,
}

/// The full shape of a property's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Exactly one value of the type.
    Single(ValueType),
    /// One or more values (`list of`).
    List(ValueType),
    /// Zero or more values (`elist of`, written `[]` when empty).
    EList(ValueType),
    /// One composed value `a:b`.
    Composed(ValueType, ValueType),
    /// A list of composed values.
    ComposedList(ValueType, ValueType),
    /// Either a single value of the first type or a composed value (`SZ`, `FG`).
    SingleOrComposed(ValueType, ValueType),
}

impl Shape {
    /// Whether the value may be composed (a `:` splits it into two parts).
    pub fn composable(self) -> bool {
        match self {
            Shape::Composed(..) | Shape::ComposedList(..) | Shape::SingleOrComposed(..) => true,
            // Point lists may be compressed as `aa:cc` rectangles.
            Shape::List(t) | Shape::EList(t) => matches!(t, ValueType::Point | ValueType::Stone),
            Shape::Single(_) => false,
        }
    }

    /// Whether more than one value is allowed.
    pub fn is_list(self) -> bool {
        matches!(self, Shape::List(_) | Shape::EList(_) | Shape::ComposedList(..))
    }
}

/// Where a property may appear (`FF[4]` property type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Move properties (`B`, `W`, `KO`, `MN`).
    Move,
    /// Set-up properties (`AB`, `AW`, `AE`, `PL`).
    Setup,
    /// Root properties (`FF`, `GM`, `SZ`, `CA`, `AP`, `ST`).
    Root,
    /// Game-info properties (players, result, komi, ...).
    GameInfo,
    /// Node annotation and markup, timing and miscellaneous properties.
    Other,
}

/// Description of a standard property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropInfo {
    /// Canonical `FF[4]` identifier.
    pub ident: &'static str,
    /// Value shape.
    pub shape: Shape,
    /// Property category.
    pub category: Category,
}

use Category as C;
use Shape::*;
use ValueType as T;

const fn p(ident: &'static str, shape: Shape, category: Category) -> PropInfo {
    PropInfo { ident, shape, category }
}

/// Every standard `FF[4]` property (plus the Go-specific ones), sorted by identifier.
pub static PROPERTIES: &[PropInfo] = &[
    p("AB", List(T::Stone), C::Setup),
    p("AE", List(T::Point), C::Setup),
    p("AN", Single(T::SimpleText), C::GameInfo),
    p("AP", Composed(T::SimpleText, T::SimpleText), C::Root),
    p("AR", ComposedList(T::Point, T::Point), C::Other),
    p("AW", List(T::Stone), C::Setup),
    p("B", Single(T::Move), C::Move),
    p("BL", Single(T::Real), C::Other),
    p("BM", Single(T::Double), C::Other),
    p("BR", Single(T::SimpleText), C::GameInfo),
    p("BT", Single(T::SimpleText), C::GameInfo),
    p("C", Single(T::Text), C::Other),
    p("CA", Single(T::SimpleText), C::Root),
    p("CP", Single(T::SimpleText), C::GameInfo),
    p("CR", List(T::Point), C::Other),
    p("DD", EList(T::Point), C::Other),
    p("DM", Single(T::Double), C::Other),
    p("DO", Single(T::None), C::Other),
    p("DT", Single(T::SimpleText), C::GameInfo),
    p("EV", Single(T::SimpleText), C::GameInfo),
    p("FF", Single(T::Number), C::Root),
    p("FG", SingleOrComposed(T::None, T::SimpleText), C::Other),
    p("GB", Single(T::Double), C::Other),
    p("GC", Single(T::Text), C::GameInfo),
    p("GM", Single(T::Number), C::Root),
    p("GN", Single(T::SimpleText), C::GameInfo),
    p("GW", Single(T::Double), C::Other),
    p("HA", Single(T::Number), C::GameInfo),
    p("HO", Single(T::Double), C::Other),
    p("IT", Single(T::None), C::Other),
    p("KM", Single(T::Real), C::GameInfo),
    p("KO", Single(T::None), C::Move),
    p("LB", ComposedList(T::Point, T::SimpleText), C::Other),
    p("LN", ComposedList(T::Point, T::Point), C::Other),
    p("MA", List(T::Point), C::Other),
    p("MN", Single(T::Number), C::Move),
    p("N", Single(T::SimpleText), C::Other),
    p("OB", Single(T::Number), C::Other),
    p("ON", Single(T::SimpleText), C::GameInfo),
    p("OT", Single(T::SimpleText), C::GameInfo),
    p("OW", Single(T::Number), C::Other),
    p("PB", Single(T::SimpleText), C::GameInfo),
    p("PC", Single(T::SimpleText), C::GameInfo),
    p("PL", Single(T::Color), C::Setup),
    p("PM", Single(T::Number), C::Other),
    p("PW", Single(T::SimpleText), C::GameInfo),
    p("RE", Single(T::SimpleText), C::GameInfo),
    p("RO", Single(T::SimpleText), C::GameInfo),
    p("RU", Single(T::SimpleText), C::GameInfo),
    p("SL", List(T::Point), C::Other),
    p("SO", Single(T::SimpleText), C::GameInfo),
    p("SQ", List(T::Point), C::Other),
    p("ST", Single(T::Number), C::Root),
    p("SZ", SingleOrComposed(T::Number, T::Number), C::Root),
    p("TB", EList(T::Point), C::Other),
    p("TE", Single(T::Double), C::Other),
    p("TM", Single(T::Real), C::GameInfo),
    p("TR", List(T::Point), C::Other),
    p("TW", EList(T::Point), C::Other),
    p("UC", Single(T::Double), C::Other),
    p("US", Single(T::SimpleText), C::GameInfo),
    p("V", Single(T::Real), C::Other),
    p("VW", EList(T::Point), C::Other),
    p("W", Single(T::Move), C::Move),
    p("WL", Single(T::Real), C::Other),
    p("WR", Single(T::SimpleText), C::GameInfo),
    p("WT", Single(T::SimpleText), C::GameInfo),
];

/// Index of a standard property in [`PROPERTIES`].
pub type PropIndex = u8;

/// Looks up a canonical (upper-case) identifier in the standard table.
pub fn lookup(ident: &[u8]) -> Option<PropIndex> {
    // The table is small and sorted; a binary search on bytes keeps this allocation-free.
    PROPERTIES.binary_search_by(|info| info.ident.as_bytes().cmp(ident)).ok().map(|i| i as PropIndex)
}

/// Information about the standard property at `index`.
pub fn info(index: PropIndex) -> &'static PropInfo {
    &PROPERTIES[index as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for pair in PROPERTIES.windows(2) {
            assert!(pair[0].ident < pair[1].ident, "{} before {}", pair[0].ident, pair[1].ident);
        }
    }

    #[test]
    fn lookup_finds_every_entry() {
        for (i, info) in PROPERTIES.iter().enumerate() {
            assert_eq!(lookup(info.ident.as_bytes()), Some(i as PropIndex));
        }
        assert_eq!(lookup(b"ZZ"), None);
        assert_eq!(lookup(b""), None);
    }
}
