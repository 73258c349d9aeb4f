//! Property tests: generated trees survive write -> read unchanged, and writing is stable.

use proptest::prelude::*;
use tabula_sgf::{GameTree, NodeId, parse_lenient, write_collection};

/// Identifiers the generator uses: standard ones of every value shape and unknown ones. `CA` and
/// `KM` are left out: the reader rewrites `CA` to UTF-8 and fixes Fox-style komi by design.
const IDENTS: &[&str] =
    &["B", "W", "C", "N", "GM", "SZ", "AB", "AW", "LB", "AR", "AP", "PB", "TR", "XX", "MYPROP", "FG"];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(vec!['a', 'b', 'z', 'A', '1', ' ', '.']),
            2 => prop::sample::select(vec![']', '[', '\\', ':', ';', '(', ')', '\n', '\r', '\t', '\0', '\u{1b}', '$', 'B']),
            1 => prop::sample::select(vec!['é', '中', '碁', 'Ж', '€', '\u{1F600}']),
        ],
        0..12,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

#[derive(Clone, Debug)]
struct Prop {
    ident: &'static str,
    values: Vec<(String, Option<String>)>,
}

fn prop_strategy() -> impl Strategy<Value = Prop> {
    (prop::sample::select(IDENTS), prop::collection::vec((text(), prop::option::of(text())), 1..4)).prop_map(
        |(ident, mut values)| {
            let composable = tabula_sgf::props::lookup(ident.as_bytes())
                .is_none_or(|i| tabula_sgf::props::info(i).shape.composable());
            if !composable {
                for v in &mut values {
                    v.1 = None;
                }
            }
            Prop { ident, values }
        },
    )
}

fn tree_strategy() -> impl Strategy<Value = GameTree> {
    // Node i > 0 hangs from a node chosen among 0..i; each node has distinct identifiers.
    prop::collection::vec((any::<prop::sample::Index>(), prop::collection::vec(prop_strategy(), 0..4)), 1..40).prop_map(
        |nodes| {
            let mut tree = GameTree::new();
            let mut ids = vec![NodeId::ROOT];
            for (i, (parent, props)) in nodes.into_iter().enumerate() {
                let id = if i == 0 {
                    NodeId::ROOT
                } else {
                    let p = ids[parent.index(ids.len())];
                    tree.add_child(p).unwrap_or(NodeId::ROOT)
                };
                if i > 0 {
                    ids.push(id);
                }
                let mut seen = Vec::new();
                for p in props {
                    if seen.contains(&p.ident) {
                        continue;
                    }
                    seen.push(p.ident);
                    let vals: Vec<(&str, Option<&str>)> =
                        p.values.iter().map(|(a, b)| (a.as_str(), b.as_deref())).collect();
                    tree.push_property_parts(id, p.ident, &vals);
                }
            }
            tree
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn write_read_gives_the_same_tree(trees in prop::collection::vec(tree_strategy(), 1..3)) {
        let written = write_collection(&trees);
        let read = parse_lenient(written.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(read.games == trees, "{}", written);
        // Write -> read -> write gives the same bytes.
        prop_assert_eq!(write_collection(&read.games), written);
    }
}
