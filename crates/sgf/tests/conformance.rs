//! The conformance files of `$TABULA_DATA/sgf-conformance` (corpus tests): expected trees and
//! decoded text. The repository's own cases are read by the `cases` tests.

use std::collections::HashMap;

use std::path::PathBuf;

use tabula_core::testing::{corpus, data_dir};
use tabula_sgf::{
    CharsetSource, Collection, GameTree, GoMove, Issue, Mode, ParseOptions, Point, parse, parse_lenient, parse_strict,
    write_collection,
};

/// The conformance corpus for the calling test, or `None` when it is absent.
#[track_caller]
fn conformance() -> Option<PathBuf> {
    corpus("sgf-conformance")
}

fn bytes(rel: &str) -> Vec<u8> {
    let path = data_dir().join("sgf-conformance").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(rel: &str) -> Collection {
    parse_lenient(&bytes(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn comments(tree: &GameTree) -> Vec<String> {
    tree.main_line().filter_map(|n| n.comment().map(str::to_owned)).collect()
}

/// Language -> comment, from the UTF-8 reference file.
fn reference_texts() -> HashMap<String, String> {
    let c = read("libsgfcplusplus/encoding-utf8-nobom.sgf");
    language_texts(&comments(&c.games[0]))
}

fn language_texts(comments: &[String]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in comments.windows(2) {
        if let Some(lang) = pair[0].strip_prefix("The comment in the following node is in ") {
            out.insert(lang.trim_end_matches('.').to_string(), pair[1].clone());
        }
    }
    out
}

const CJK_FILES: &[(&str, &str, &str)] = &[
    ("encoding-chinese-gb18030.sgf", "gb18030", "Simplified Chinese"),
    ("encoding-chinese-gbk.sgf", "GBK", "Simplified Chinese"),
    ("encoding-simplifiedchinese-gb2312.sgf", "GBK", "Simplified Chinese"),
    ("encoding-simplifiedchinese-macos.sgf", "GBK", "Simplified Chinese"),
    ("encoding-traditionalchinese-big5.sgf", "Big5", "Traditional Chinese"),
    ("encoding-traditionalchinese-macos.sgf", "Big5", "Traditional Chinese"),
    ("encoding-japanese-shiftjis.sgf", "Shift_JIS", "Japanese"),
    ("encoding-japanese-macos.sgf", "Shift_JIS", "Japanese"),
    ("encoding-japanese-iso2022jp.sgf", "ISO-2022-JP", "Japanese"),
    ("encoding-korean-macos.sgf", "EUC-KR", "Korean"),
    ("encoding-cyrillic-windows.sgf", "windows-1251", "Cyrillic"),
];

#[test]
fn declared_legacy_encodings_decode_to_the_reference_text() {
    let Some(_) = conformance() else { return };
    let reference = reference_texts();
    for (file, encoding, lang) in CJK_FILES {
        let c = read(&format!("libsgfcplusplus/{file}"));
        let tree = &c.games[0];
        assert_eq!(tree.charset.encoding.name(), *encoding, "{file}");
        assert_eq!(tree.charset.source, CharsetSource::Declared, "{file}");
        let texts = language_texts(&comments(tree));
        assert_eq!(texts.get(*lang), reference.get(*lang), "{file}");
        assert!(reference.contains_key(*lang));
    }
}

#[test]
fn unicode_files_decode_to_the_reference_text() {
    let Some(_) = conformance() else { return };
    let reference = reference_texts();
    assert_eq!(reference.len(), 10);
    for file in ["encoding-utf8-withbom.sgf", "encoding-utf16-withbom.sgf", "encoding-utf16-nobom.sgf"] {
        let c = read(&format!("libsgfcplusplus/{file}"));
        let texts = language_texts(&comments(&c.games[0]));
        assert_eq!(texts, reference, "{file}");
    }
}

#[test]
fn western_encodings() {
    let Some(_) = conformance() else { return };
    let common = "Ää Àà Ââ Åå Ææ Çç Èè Éé Êê Ëë Îî Ïï Ññ Öö Ôô Øø ß Üü Ùù Ûû ÿ ¿¡ «»";
    let cases: &[(&str, &[&str])] = &[
        ("encoding-western-isolatin1.sgf", &[common]),
        ("encoding-western-isolatin9.sgf", &[common, "Ÿ Œœ €", "Šš Žž"]),
        ("encoding-western-windowslatin1.sgf", &[common, "Ÿ Œœ €", "Šš Žž", "ƒ ‰ ™"]),
        ("encoding-western-macosroman.sgf", &[common, "Ÿ Œœ €", "ƒ ‰ ™"]),
    ];
    for (file, expected) in cases {
        let c = read(&format!("libsgfcplusplus/{file}"));
        let got: Vec<String> =
            comments(&c.games[0]).into_iter().filter(|t| !t.starts_with("BBEdit") && !t.starts_with("The ")).collect();
        assert_eq!(&got, expected, "{file}");
    }
}

/// Without `CA`, detection finds the encoding of the longer CJK and Cyrillic samples.
#[test]
fn undeclared_legacy_encodings_are_detected() {
    let Some(_) = conformance() else { return };
    let reference = reference_texts();
    for (file, _, lang) in CJK_FILES {
        let raw = bytes(&format!("libsgfcplusplus/{file}"));
        let start = raw.windows(3).position(|w| w == b"CA[").expect("CA");
        let end = start + raw[start..].iter().position(|&b| b == b']').expect("]") + 1;
        let stripped = [&raw[..start], &raw[end..]].concat();
        let c = parse_lenient(&stripped).expect(file);
        let tree = &c.games[0];
        if tree.charset.encoding != encoding_rs::ISO_2022_JP {
            assert_eq!(tree.charset.source, CharsetSource::Detected, "{file}");
        }
        let texts = language_texts(&comments(tree));
        assert_eq!(texts.get(*lang), reference.get(*lang), "{file}: detected {}", tree.charset.encoding.name());
    }
}

#[test]
fn sabaki_encodings() {
    let Some(_) = conformance() else { return };
    let cases = [
        ("sabaki/japanese.sgf", "井山 裕太", "山下 敬吾", "囲碁 is fun"),
        ("sabaki/chinese.sgf", "古力", "柯洁", "围棋 is fun"),
        ("sabaki/korean.sgf", "이세돌", "박정환", "바둑 is fun"),
    ];
    for (file, pb, pw, c) in cases {
        let col = read(file);
        let root = col.games[0].root();
        assert_eq!(root.text("PB"), Some(pb), "{file}");
        assert_eq!(root.text("PW"), Some(pw), "{file}");
        assert_eq!(comments(&col.games[0]), vec![c.to_string()], "{file}");
    }
    // UTF-8 bytes (with replacement characters) behind a wrong CA[MS_KANJI].
    let bad = read("sabaki/japanese_bad.sgf");
    assert_eq!(bad.games[0].charset.encoding, encoding_rs::UTF_8);
    assert!(bad.games[0].root().text("PB").is_some_and(|t| t.contains('\u{FFFD}')));
    assert!(comments(&bad.games[0])[0].ends_with(" is fun"));
    assert!(bad.diagnostics.iter().any(|d| d.issue == Issue::Charset));
    // No CA at all: GB text is detected.
    let noca = read("sabaki/no-ca.sgf");
    let c = noca.games[0].root().comment().expect("comment");
    assert!(c.starts_with("【第三型】 黑先"), "{c:?}");
    assert_eq!(noca.games[0].charset.source, CharsetSource::Detected);
    // UTF-16 LE with BOM and UTF-8 with BOM.
    for file in ["sabaki/utf16le.sgf", "sabaki/utf8bom.sgf"] {
        let col = read(file);
        let tree = &col.games[0];
        assert_eq!(tree.root().text("PW"), Some("Go Seigen"), "{file}");
        assert_eq!(tree.root().text("PB"), Some("Kitani Minoru"), "{file}");
        assert!(tree.main_line().filter(|n| n.go_move((19, 19)).is_some()).count() > 100, "{file}");
    }
}

/// Compares every node's properties of two trees, ignoring the properties `skip` of the roots.
fn same_tree_except_root(a: &GameTree, b: &GameTree, skip: &[&str]) -> Result<(), String> {
    let na: Vec<_> = a.nodes().collect();
    let nb: Vec<_> = b.nodes().collect();
    if na.len() != nb.len() {
        return Err(format!("{} vs {} nodes", na.len(), nb.len()));
    }
    for (i, (x, y)) in na.iter().zip(&nb).enumerate() {
        let props = |n: &tabula_sgf::NodeRef<'_>| -> Vec<(String, Vec<String>)> {
            n.properties()
                .filter(|p| i > 0 || !skip.contains(&p.ident()))
                .map(|p| {
                    let vals = p
                        .values()
                        // SGFC drops the escapes of `:` it deems unnecessary, so compare the text.
                        .map(|v| v.text().to_string())
                        .collect();
                    (p.ident().to_string(), vals)
                })
                .collect()
        };
        if props(x) != props(y) {
            return Err(format!("node {i}: {:?} vs {:?}", props(x), props(y)));
        }
    }
    Ok(())
}

#[test]
fn sgfc_escaping_matches_its_result() {
    let Some(_) = conformance() else { return };
    let src = read("sgfc/escaping.sgf");
    let expected = read("sgfc/escaping-result.sgf");
    assert_eq!(src.games.len(), 1);
    same_tree_except_root(&src.games[0], &expected.games[0], &["AP"]).expect("escaping");
    let ar = src.games[0].nodes().find_map(|n| n.first_value("AR")).expect("AR");
    let (first, second) = ar.parts();
    assert!(first.starts_with("First : Point : value"), "{first}");
    assert!(second.is_some_and(|s| s.starts_with("中Second : Point : value [ in")), "{second:?}");
}

#[test]
fn sgfc_mixed_encodings_match_their_result() {
    let Some(_) = conformance() else { return };
    let src = read("sgfc/mixed-encoding.sgf");
    let expected = read("sgfc/mixed-encoding-result.sgf");
    assert_eq!(src.games.len(), 5);
    for (i, (a, b)) in src.games.iter().zip(&expected.games).enumerate() {
        assert_eq!(a.root().comment(), b.root().comment(), "tree {i}");
    }
    assert_eq!(src.games[0].root().comment(), Some("hallö! DÜ! ßüper dich zu s€h€n-"));
    assert_eq!(src.games[4].root().comment(), Some("Yen: ¥"));
}

#[test]
fn sgfc_test_files_read_leniently_and_fail_strictly() {
    let Some(_) = conformance() else { return };
    for file in ["sgfc/test.sgf", "sgfc/strict.sgf", "sgfc/reorder.sgf"] {
        let raw = bytes(file);
        let lenient = parse_lenient(&raw).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!lenient.games.is_empty());
        match parse_strict(&raw) {
            Err(tabula_sgf::SgfError::Strict(d)) => assert!(!d.is_empty()),
            other => panic!("{file}: strict mode accepted: {:?}", other.map(|c| c.games.len())),
        }
    }
    // The many errors of test.sgf are reported with positions.
    let c = parse_lenient(&bytes("sgfc/test.sgf")).expect("test.sgf");
    assert!(c.warning_count() >= 20, "{}", c.warning_count());
    assert!(c.diagnostics.iter().all(|d| d.line >= 1 && d.column >= 1));
}

#[test]
fn sgfc_results_are_strict_fixed_points_of_the_writer() {
    let Some(_) = conformance() else { return };
    for file in ["sgfc/test-result.sgf", "sgfc/reorder-result.sgf", "sgfc/strict-result.sgf"] {
        let c = read(file);
        let written = write_collection(&c.games);
        let again = parse_lenient(written.as_bytes()).expect(file);
        assert!(again.games == c.games, "{file}");
        assert_eq!(write_collection(&again.games), written, "{file}");
    }
}

#[test]
fn compressed_point_lists() {
    let Some(_) = conformance() else { return };
    let c = read("libsgfcplusplus/compressed-point-list.sgf");
    assert_eq!(c.games.len(), 2);
    let nodes: Vec<_> = c.games[0].main_line().collect();
    assert_eq!(nodes[1].points("MA").len(), 4);
    let ab = nodes[2].setup().black;
    assert_eq!(ab, vec![Point { x: 2, y: 2 }, Point { x: 3, y: 2 }, Point { x: 2, y: 3 }, Point { x: 3, y: 3 }]);
    // Not Go: the value keeps its two corners as a composed value.
    let other: Vec<_> = c.games[1].main_line().collect();
    assert_eq!(other[1].first_value("MA").map(|v| v.parts()), Some(("ee", Some("ff"))));
}

#[test]
fn deep_game_trees() {
    let Some(_) = conformance() else { return };
    let c = read("libsgfcplusplus/deep-game-tree.sgf");
    let lens: Vec<usize> = c.games.iter().map(|g| g.main_line().count()).collect();
    // An introduction, then trees of 1000, 2000 and 5000 nodes after their root and comment,
    // and a game of 1394 moves.
    assert_eq!(lens, vec![6, 1000, 2000, 5000, 1397]);
    assert_eq!(c.games[4].main_line().filter(|n| n.raw_move().is_some()).count(), 1394);
}

#[test]
fn ff3_long_property_names() {
    let Some(_) = conformance() else { return };
    let c = read("gogui/verbose-property-names.sgf");
    let root = c.games[0].root();
    assert_eq!(root.text("PB"), Some("Robin Upton"));
    assert_eq!(root.text("PW"), Some("J. Chin"));
    assert_eq!(root.number("SZ"), Some(19));
    assert_eq!(root.real("KM"), Some(6.0));
    assert!(c.diagnostics.iter().any(|d| d.issue == Issue::LowercaseIdent));
    assert!(c.games[0].main_line().filter(|n| n.go_move((19, 19)).is_some()).count() > 10);
    assert!(parse(&bytes("gogui/verbose-property-names.sgf"), &ParseOptions::new(Mode::Strict)).is_err());
}

#[test]
fn ff4_example_file() {
    let Some(_) = conformance() else { return };
    for file in ["gogui/ff4_ex.sgf", "sgf-parse/ff4_ex.sgf"] {
        let c = read(file);
        assert_eq!(c.games.len(), 2, "{file}");
        let g = &c.games[0];
        assert_eq!(g.board_size(), (19, 19));
        assert!(g.root().child_count() >= 1);
        // The FF[4] example's first tree has several variations.
        let branching = g.nodes().filter(|n| n.child_count() > 1).count();
        assert!(branching >= 3, "{file}: {branching}");
        let written = write_collection(&c.games);
        assert!(parse_lenient(written.as_bytes()).expect(file).games == c.games);
    }
}

#[test]
fn fox_server_komi() {
    let Some(_) = conformance() else { return };
    let komi = |file: &str| read(&format!("sabaki-pr16-fox/{file}")).games[0].root().real("KM");
    assert_eq!(komi("fox_go_server_japanese.sgf"), Some(6.5));
    assert_eq!(komi("fox_go_server_komi.sgf"), Some(3.75));
    assert_eq!(komi("fox_go_server.sgf"), Some(0.0));
    assert_eq!(komi("non_fox_game.sgf"), Some(11.0));
    let c = read("sabaki-pr16-fox/fox_go_server_japanese.sgf");
    assert!(c.diagnostics.iter().any(|d| d.issue == Issue::FoxKomi));
    // Strict mode does not apply the fix.
    let strict = parse(&bytes("sabaki-pr16-fox/fox_go_server_japanese.sgf"), &ParseOptions::new(Mode::Strict));
    if let Ok(s) = strict {
        assert_eq!(s.games[0].root().real("KM"), Some(650.0));
    }
    let h = read("sabaki-pr16-fox/fox_go_server_handicap.sgf");
    let first = h.games[0].main_line().nth(1).expect("node");
    assert_eq!(first.setup().black.len(), 2);
}

#[test]
fn kombilo_collections() {
    let Some(_) = conformance() else { return };
    let c = read("kombilo/contlist.sgf");
    assert_eq!(c.games.len(), 7);
    for file in ["kombilo/1600JSTP06.sgf", "kombilo/under-the-stones.sgf"] {
        let c = read(file);
        assert!(!c.games.is_empty(), "{file}");
    }
}

#[test]
fn gogui_oddities() {
    let Some(_) = conformance() else { return };
    for file in [
        "gogui/invalidmove.sgf",
        "gogui/size-after-invalid-points.sgf",
        "gogui/size-after-valid-points.sgf",
        "gogui/time-settings-unknown-ot.sgf",
        "gogui/human-readable.sgf",
        "gogui/ff4_ex.1.sgf",
        "gogui/ff4_ex.2.sgf",
    ] {
        let raw = bytes(file);
        let c = parse_lenient(&raw).unwrap_or_else(|e| panic!("{file}: {e}"));
        let written = write_collection(&c.games);
        let again = parse_lenient(written.as_bytes()).expect(file);
        assert!(again.games == c.games, "{file}");
    }
    let c = read("gogui/invalidmove.sgf");
    let moves: Vec<_> = c.games[0].main_line().filter_map(|n| n.raw_move()).collect();
    assert!(!moves.is_empty());
    let _ = GoMove::Pass;
}

/// Every conformance file reads leniently and survives a round trip.
#[test]
fn every_conformance_file_round_trips() {
    let Some(root) = conformance() else { return };
    let mut count = 0;
    for dir in std::fs::read_dir(&root).expect("dir") {
        let dir = dir.expect("entry").path();
        for f in std::fs::read_dir(&dir).expect("dir") {
            let f = f.expect("entry").path();
            if f.extension().is_none_or(|e| e != "sgf") {
                continue;
            }
            let raw = std::fs::read(&f).expect("read");
            let c = parse_lenient(&raw).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let written = write_collection(&c.games);
            let again = parse_lenient(written.as_bytes()).expect("reread");
            assert!(again.games == c.games, "{}", f.display());
            assert_eq!(write_collection(&again.games), written, "{}", f.display());
            count += 1;
        }
    }
    assert!(count >= 60, "{count}");
}
