//! The repository's SGF cases (`testdata/sgf/cases`, written for the project): encodings
//! declared and undeclared, escaping, compressed point lists, FF[3] property names, Fox
//! server komi, passes and variations, a long game. Every clone runs these; the wider
//! conformance corpus is read by the `conformance` tests.

use tabula_core::testing::fixture;
use tabula_sgf::check::check_path;
use tabula_sgf::{Collection, Issue, Mode, ParseOptions, Point, parse, parse_lenient, write_collection};

fn bytes(name: &str) -> Vec<u8> {
    let path = fixture("sgf/cases").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(name: &str) -> Collection {
    parse_lenient(&bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn declared_and_undeclared_encodings_decode() {
    let c = read("shift-jis.sgf");
    assert_eq!(c.games[0].root().text("PB"), Some("井山 裕太"));
    let c = read("latin-1.sgf");
    assert_eq!(c.games[0].root().text("PW"), Some("Señor Ørsted"));
    assert_eq!(c.games[0].root().text("C"), Some("Ça déjà"));
    let c = read("undeclared-gb18030.sgf");
    assert_eq!(c.games[0].root().text("PB"), Some("古力"));
    let c = read("utf-16le-bom.sgf");
    assert_eq!(c.games[0].root().text("C"), Some("Привет, мир"));
    assert_eq!(c.games[0].main_line().filter(|n| n.raw_move().is_some()).count(), 2);
}

#[test]
fn escapes_and_soft_line_breaks() {
    let c = read("escaping.sgf");
    let root = c.games[0].root();
    assert_eq!(root.text("C"), Some("a ] b \\ c : d"));
    assert_eq!(root.text("GN"), Some("softbreak"));
    let nodes: Vec<_> = c.games[0].main_line().collect();
    assert_eq!(nodes[1].text("C"), Some("colon: here"));
}

#[test]
fn compressed_point_lists_expand() {
    let c = read("compressed-points.sgf");
    let nodes: Vec<_> = c.games[0].main_line().collect();
    let setup = nodes[1].setup();
    assert_eq!(setup.black.len(), 5, "{:?}", setup.black);
    assert!(setup.black.contains(&Point { x: 1, y: 1 }) && setup.black.contains(&Point { x: 3, y: 3 }));
    assert_eq!(setup.white, vec![Point { x: 4, y: 4 }, Point { x: 4, y: 5 }]);
    assert_eq!(nodes[2].points("MA").len(), 4);
}

#[test]
fn ff3_long_property_names_read_leniently_only() {
    let c = read("ff3-long-names.sgf");
    let root = c.games[0].root();
    assert_eq!(root.text("PB"), Some("Black one"));
    assert_eq!(root.number("SZ"), Some(9));
    assert_eq!(root.real("KM"), Some(5.5));
    assert!(c.diagnostics.iter().any(|d| d.issue == Issue::LowercaseIdent));
    assert!(parse(&bytes("ff3-long-names.sgf"), &ParseOptions::new(Mode::Strict)).is_err());
}

#[test]
fn fox_server_komi_is_divided() {
    let c = read("fox-komi.sgf");
    assert_eq!(c.games[0].root().real("KM"), Some(6.5));
    assert!(c.diagnostics.iter().any(|d| d.issue == Issue::FoxKomi));
}

#[test]
fn passes_variations_and_collections() {
    let c = read("passes-and-variations.sgf");
    assert_eq!(c.games.len(), 2);
    let g = &c.games[0];
    assert_eq!(g.root().setup().black.len(), 2);
    assert_eq!(g.nodes().filter(|n| n.child_count() > 1).count(), 1);
    assert_eq!(g.main_line().filter(|n| n.raw_move().is_some()).count(), 5);
    assert_eq!(c.games[1].main_line().filter(|n| n.raw_move().is_some()).count(), 3);
}

#[test]
fn a_long_game_reads() {
    let c = read("long-game.sgf");
    assert_eq!(c.games[0].main_line().filter(|n| n.raw_move().is_some()).count(), 3000);
}

/// Every case reads leniently, survives a round trip, and the writer's text is a fixed point.
#[test]
fn every_case_round_trips() {
    let dir = fixture("sgf/cases");
    let mut count = 0;
    for f in std::fs::read_dir(&dir).expect("dir") {
        let f = f.expect("entry").path();
        if f.extension().is_none_or(|e| e != "sgf") {
            continue;
        }
        let c = parse_lenient(&std::fs::read(&f).expect("read")).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let written = write_collection(&c.games);
        let again = parse_lenient(written.as_bytes()).expect("reread");
        assert!(again.games == c.games, "{}", f.display());
        assert_eq!(write_collection(&again.games), written, "{}", f.display());
        count += 1;
    }
    assert_eq!(count, 10);
    let s = check_path(&dir, Mode::Lenient, true).expect("check");
    assert_eq!((s.files, s.failed), (10, 0));
    assert!(s.charsets.keys().any(|(enc, _)| enc == "Shift_JIS"), "{:?}", s.charsets);
}
