//! Reader behaviour on hand-written inputs: the `FF[4]` features, the lenient recoveries, strict
//! diagnostics and bad input.

use tabula_core::Rng;
use tabula_sgf::{Color, GameTree, GoMove, Issue, Point, SgfError, parse_lenient, parse_strict, write_collection};

fn one(src: &str) -> (GameTree, Vec<Issue>) {
    let c = parse_lenient(src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e}"));
    assert_eq!(c.games.len(), 1, "{src}");
    let issues = c.diagnostics.iter().map(|d| d.issue).collect();
    (c.games.into_iter().next().expect("game"), issues)
}

fn moves(tree: &GameTree) -> Vec<(Color, GoMove)> {
    tree.main_line().filter_map(|n| n.go_move(tree.board_size())).collect()
}

fn round_trips(tree: &GameTree) {
    let written = write_collection(std::slice::from_ref(tree));
    let again = parse_lenient(written.as_bytes()).expect("reread");
    assert!(again.games.len() == 1 && again.games[0] == *tree, "{written}");
    assert_eq!(write_collection(&again.games), written);
}

#[test]
fn clean_file_has_no_diagnostics_in_either_mode() {
    let src = "(;FF[4]GM[1]SZ[9]CA[UTF-8]KM[6.5]PB[Black]PW[White];B[ee];W[cc](;B[gg])(;B[]))";
    let strict = parse_strict(src.as_bytes()).expect("strict");
    assert!(strict.diagnostics.is_empty());
    let (tree, issues) = one(src);
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(tree.len(), 5);
    assert_eq!(moves(&tree).len(), 3);
    assert_eq!(tree.root().game_info().komi, Some(6.5));
    round_trips(&tree);
}

#[test]
fn passes_depend_on_board_size() {
    let (t, _) = one("(;SZ[19];B[tt];W[])");
    assert_eq!(moves(&t), vec![(Color::Black, GoMove::Pass), (Color::White, GoMove::Pass)]);
    let (t, _) = one("(;SZ[21];B[tt])");
    assert_eq!(moves(&t), vec![(Color::Black, GoMove::Play(Point { x: 19, y: 19 }))]);
}

#[test]
fn escapes_and_soft_line_breaks() {
    let (t, _) = one("(;C[a\\]b\\\\c\\\nd\\\r\ne\\x]N[line\none])");
    let root = t.root();
    assert_eq!(root.comment(), Some("a]b\\cdex"));
    assert_eq!(root.simple_text("N").as_deref(), Some("line one"));
    assert_eq!(root.text("N"), Some("line\none"));
    round_trips(&t);
}

#[test]
fn composed_values_keep_escaped_colons() {
    let (t, _) = one("(;LB[aa:x\\:y][bb:z]AP[My\\:App:1.0]C[time: 5:00])");
    let root = t.root();
    let lb: Vec<_> = root.get("LB").expect("LB").values().map(|v| v.parts()).collect();
    assert_eq!(lb, vec![("aa", Some("x:y")), ("bb", Some("z"))]);
    assert_eq!(root.first_value("AP").map(|v| v.parts()), Some(("My:App", Some("1.0"))));
    assert_eq!(root.comment(), Some("time: 5:00"));
    round_trips(&t);
    let (t, _) = one("(;GM[1];LB[aa:one][bad][cc:three]AR[aa:bb]LN[cc:dd][ee])");
    let node = t.main_line().nth(1).expect("node");
    let p = |s| Point::parse(s).expect("point");
    assert_eq!(node.labels(), vec![(p("aa"), "one"), (p("cc"), "three")]);
    assert_eq!(node.point_pairs("AR"), vec![(p("aa"), p("bb"))]);
    assert_eq!(node.point_pairs("LN"), vec![(p("cc"), p("dd"))]);
}

#[test]
fn unknown_and_private_properties_are_kept_in_order() {
    let (t, _) = one("(;ZZ[1]GM[1]MULTIGOGM[a:b][c]XY[];B[aa]KGSDE[x]W[bb])");
    let idents: Vec<_> = t.root().properties().map(|p| p.ident()).collect();
    assert_eq!(idents, ["ZZ", "GM", "MULTIGOGM", "XY"]);
    let vals: Vec<_> = t.root().get("MULTIGOGM").expect("prop").values().map(|v| v.text()).collect();
    assert_eq!(vals, ["a:b", "c"]);
    round_trips(&t);
}

#[test]
fn ff3_lowercase_identifiers() {
    let (t, issues) = one("(;GaMe[1]PlayerBlack[Honinbo]SiZe[9];Black[ee])");
    assert_eq!(t.root().text("PB"), Some("Honinbo"));
    assert_eq!(t.board_size(), (9, 9));
    assert_eq!(moves(&t).len(), 1);
    assert!(issues.contains(&Issue::LowercaseIdent));
}

#[test]
fn lenient_recoveries() {
    let (t, issues) = one("(B[aa];W[bb])");
    assert_eq!(moves(&t).len(), 2);
    assert!(issues.contains(&Issue::MissingSemicolon));

    let (t, issues) = one("(;B[aa];W[bb]) trailing junk");
    assert_eq!(moves(&t).len(), 2);
    assert_eq!(issues, vec![Issue::Garbage]);

    let (t, issues) = one("(;B[aa];W[bb]))");
    assert_eq!(moves(&t).len(), 2);
    assert_eq!(issues, vec![Issue::ExtraParen]);

    let (t, issues) = one("(;C[see [3] here];B[aa])");
    assert_eq!(t.root().comment(), Some("see [3] here"));
    assert_eq!(moves(&t).len(), 1);
    assert_eq!(issues, vec![Issue::UnescapedBracket]);

    let (t, issues) = one("(;AB[aa]AB[bb]B[cc]B[dd])");
    assert_eq!(t.root().setup().black.len(), 2);
    assert_eq!(t.root().first_value("B").map(|v| v.text()), Some("cc"));
    assert!(issues.iter().filter(|&&i| i == Issue::DuplicateProperty).count() == 2);

    let (t, issues) = one("(;GM[1]KM[750]RU[Japanese];B[aa])");
    assert_eq!(t.root().real("KM"), Some(7.5));
    assert_eq!(issues, vec![Issue::FoxKomi]);

    let (t, issues) = one("(;B[aa];W[bb];B[cc");
    assert_eq!(t.len(), 3);
    assert!(issues.contains(&Issue::Truncated));

    let (t, _) = one("header text (not a tree) ;B[aa]\n(;B[aa];W[bb])");
    assert_eq!(moves(&t).len(), 2);
}

#[test]
fn file_without_parentheses_reads_leniently() {
    let c = parse_lenient(b";FF[4]GM[1];B[aa];W[bb]").expect("lenient");
    assert_eq!(c.games[0].main_line().count(), 3);
    assert!(parse_strict(b";FF[4]GM[1];B[aa];W[bb]").is_err());
}

#[test]
fn strict_mode_reports_positions() {
    let src = "(;FF[4]GM[1]SZ[9]\n;B[zz]\n;W[aa]KO[]AB[bb])";
    match parse_strict(src.as_bytes()) {
        Err(SgfError::Strict(d)) => {
            let bad = d.iter().find(|d| d.issue == Issue::InvalidValue).expect("invalid value");
            assert_eq!((bad.line, bad.column), (2, 4));
            assert!(d.iter().any(|d| d.issue == Issue::Structure && d.line == 3));
        }
        other => panic!("{:?}", other.map(|c| c.diagnostics)),
    }
    // The same file reads leniently; the bad move is kept as raw text.
    let (t, issues) = one(src);
    assert!(issues.contains(&Issue::InvalidValue));
    assert_eq!(t.main_line().nth(1).and_then(|n| n.raw_move()).map(|(_, v)| v.text()), Some("zz"));
}

#[test]
fn other_games_are_kept_generically() {
    // Othello uses Go-style points; Amazons moves are three points; game 99 is unknown.
    let src = "(;GM[2]SZ[8];B[dc];W[ec])(;GM[18]SZ[10];W[adad:ahjd])(;GM[99];B[whatever])";
    let c = parse_lenient(src.as_bytes()).expect("parse");
    assert_eq!(c.games.len(), 3);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(c.games[0].game_type(), 2);
    assert_eq!(c.games[0].main_line().nth(1).and_then(|n| n.go_move((8, 8))).map(|m| m.0), Some(Color::Black));
    assert_eq!(c.games[1].main_line().nth(1).and_then(|n| n.raw_move()).map(|m| m.1.text()), Some("adad:ahjd"));
    assert_eq!(c.games[2].main_line().nth(1).and_then(|n| n.raw_move()).map(|m| m.1.text()), Some("whatever"));
    assert_eq!(parse_lenient(write_collection(&c.games).as_bytes()).expect("reread").games, c.games);
}

#[test]
fn very_deep_trees_need_no_recursion() {
    let n = 100_000;
    let mut line = String::from("(;GM[1]SZ[19]");
    for i in 0..n {
        line.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[]" });
    }
    line.push(')');
    let (t, issues) = one(&line);
    assert!(issues.is_empty());
    assert_eq!(moves(&t).len(), n);
    round_trips(&t);

    // 100,000 nested variations, each with a sibling.
    let mut nested = String::from("(;GM[1]");
    for _ in 0..n {
        nested.push_str("(;B[aa]");
    }
    for _ in 0..n {
        nested.push_str(")(;W[bb])");
    }
    nested.push(')');
    let (t, _) = one(&nested);
    assert_eq!(t.main_line().count(), n + 1);
    assert_eq!(t.len(), 2 * n + 1);
    round_trips(&t);
}

#[test]
fn bad_input_gives_errors_or_warnings() {
    assert!(matches!(parse_lenient(b""), Err(SgfError::NoGameTree)));
    assert!(matches!(parse_lenient(b"hello world"), Err(SgfError::NoGameTree)));
    assert!(matches!(parse_lenient(b"()"), Err(SgfError::NoGameTree)));
    // Binary garbage: never a panic.
    let mut rng = Rng::new(7);
    for len in [1usize, 2, 7, 100, 10_000, 1 << 20] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let _ = parse_lenient(&bytes);
        let _ = parse_strict(&bytes);
    }
    // A 10 MB comment reads, with its text kept whole.
    let mut big = b"(;GM[1]C[".to_vec();
    big.extend(std::iter::repeat_n(b'x', 10 << 20));
    big.extend_from_slice(b"];B[aa])");
    let (t, _) = one(std::str::from_utf8(&big).expect("ascii"));
    assert_eq!(t.root().comment().map(str::len), Some(10 << 20));
    // A 10 MB comment that never closes: a warning, not a hang or a panic.
    let open = &big[..big.len() - 8];
    let c = parse_lenient(open).expect("truncated");
    assert!(c.diagnostics.iter().any(|d| d.issue == Issue::Truncated));
    // Many stray `]` in a huge value: linear, not quadratic, and bounded diagnostics.
    let mut brackets = b"(;C[".to_vec();
    for _ in 0..200_000 {
        brackets.extend_from_slice(b"a]!A[");
    }
    let c = parse_lenient(&brackets).expect("brackets");
    assert!(c.diagnostics.len() <= 1000);
    assert!(c.warning_count() > 1000);
}

/// Random byte edits of real records: no panics, and whatever reads survives a round trip.
#[test]
fn mutated_records_never_panic_and_round_trip() {
    let base = [
        &b"(;FF[4]GM[1]SZ[19]CA[UTF-8]KM[6.5]PB[A\\]b]C[x:y];B[pd]LB[pd:1][dd:a\\:b];W[dp](;B[pp]AR[aa:bb])(;B[];W[tt]))"[..],
        &b"(;GM[1]AB[aa:cc]AW[dd]C[\xe4\xb8\xad\\\n\xe6\x96\x87];B[ee]TR[ff:gg])"[..],
        &b"(;CA[GB2312]PB[\xb9\xc5\xc1\xa6]FF[3]PlayerWhite[\xbf\xc2\xbd\xe0];B[aa])"[..],
    ];
    let mut rng = Rng::new(2024);
    let specials = b"()[];\\:\n ABCWabc\x80\xe4";
    for case in 0..20_000 {
        let mut bytes = base[case % base.len()].to_vec();
        for _ in 0..1 + rng.below(4) {
            let pos = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 if pos < bytes.len() => {
                    bytes.remove(pos);
                }
                1 => bytes.insert(pos, specials[rng.below(specials.len())]),
                _ if pos < bytes.len() => bytes[pos] = specials[rng.below(specials.len())],
                _ => {}
            }
        }
        let _ = parse_strict(&bytes);
        if let Ok(c) = parse_lenient(&bytes) {
            let written = write_collection(&c.games);
            let again = parse_lenient(written.as_bytes()).unwrap_or_else(|e| panic!("{written:?}: {e}"));
            assert!(again.games == c.games, "{:?}\n{written}", String::from_utf8_lossy(&bytes));
            assert_eq!(write_collection(&again.games), written);
        }
    }
}

#[test]
fn tree_equality_sees_every_difference() {
    let base = one("(;GM[1];B[aa](;W[bb])(;W[cc]))").0;
    for other in [
        "(;GM[1];B[aa](;W[bb])(;W[cd]))",
        "(;GM[1];B[aa](;W[bb]))",
        "(;GM[1];B[aa](;W[cc])(;W[bb]))",
        "(;GM[1];B[aa](;W[bb])(;W[cc];B[dd]))",
        "(;GM[2];B[aa](;W[bb])(;W[cc]))",
        "(;GM[1]C[x];B[aa](;W[bb])(;W[cc]))",
        "(;GM[1];B[aa][bb](;W[bb])(;W[cc]))",
    ] {
        assert!(one(other).0 != base, "{other}");
    }
    assert!(one("(;GM[1]\n;B[aa]\n(;W[bb])(;W[cc]))").0 == base);
    // A composed value differs from the same text with an escaped colon.
    assert!(one("(;XX[a:b])").0 != one("(;XX[a\\:b])").0);
}

#[test]
fn replay_yields_setup_then_moves() {
    let (t, _) = one("(;GM[1]SZ[9]HA[2]AB[cc][gg]PL[W];W[ee];B[zz];W[];AW[aa:ab]AE[cc])");
    let steps: Vec<_> = t.replay().collect();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[0].setup.black.len(), 2);
    assert_eq!(steps[0].setup.to_play, Some(Color::White));
    assert_eq!(steps[0].play, None);
    assert_eq!(steps[1].play, Some((Color::White, Some(GoMove::Play(Point { x: 4, y: 4 })))));
    assert_eq!(steps[2].play, Some((Color::Black, None)));
    assert_eq!(steps[3].play, Some((Color::White, Some(GoMove::Pass))));
    assert_eq!(steps[4].setup.white, vec![Point { x: 0, y: 0 }, Point { x: 0, y: 1 }]);
    assert_eq!(steps[4].setup.empty, vec![Point { x: 2, y: 2 }]);
}

/// Inputs the fuzzer found: each must read and survive a round trip.
#[test]
fn fuzz_regressions_round_trip() {
    let mut nuls = b"(;FF[".to_vec();
    nuls.extend([0u8; 105]);
    nuls.extend_from_slice(b"(;4A[l");
    let cases: [&[u8]; 4] = [
        // A value of NULs running to the end of the file.
        &nuls,
        // ISO-2022-JP escape sequences in a tree decoded as windows-1252.
        b"(;FFding of this e is in Japanese.\xdd\n;C[Go\x1b$B$O8EBG=i$K*l%\"%8%\"$NB>$NCO\x1b(B]\n)B]\n)\n",
        // Alternating NULs that would look like UTF-16.
        b"(;C[a\0b\0c\0d\0e\0f\0g\0h\0i\0j\0k\0l\0m\0n\0o\0p\0q\0r\0s\0t\0u\0v\0w\0x\0y\0z\0])",
        b"(;C[\x1b$Bx\xe9])",
    ];
    for bytes in cases {
        let c = parse_lenient(bytes).expect("reads");
        let written = write_collection(&c.games);
        let again = parse_lenient(written.as_bytes()).expect("rereads");
        assert!(again.games == c.games, "{written:?}");
        assert_eq!(write_collection(&again.games), written);
    }
}

/// A record cut at every byte: never a panic; lenient reading keeps every move that was
/// complete before the cut and reports the truncation.
#[test]
fn truncated_records_keep_their_complete_moves() {
    let full = b"(;FF[4]GM[1]SZ[9]KM[7]C[a comment];B[ee];W[cc]C[x];B[gg](;W[cg];B[gc])(;W[tt]))";
    for cut in 0..full.len() {
        let prefix = &full[..cut];
        let _ = parse_strict(prefix);
        let Ok(c) = parse_lenient(prefix) else {
            // Only a prefix without a node can fail.
            assert!(!prefix.contains(&b';'), "{:?}", String::from_utf8_lossy(prefix));
            continue;
        };
        let tree = &c.games[0];
        // Moves whose value is closed before the cut (the values here have no escapes).
        let complete = (0..prefix.len().saturating_sub(2))
            .filter(|&i| matches!(&prefix[i..i + 3], b";B[" | b";W[") && prefix[i + 3..].contains(&b']'))
            .count();
        let read = tree.nodes().filter(|n| n.raw_move().is_some()).count();
        assert!(read >= complete, "cut {cut}: {read} < {complete}");
        if cut < full.len() - 1 {
            assert!(c.diagnostics.iter().any(|d| d.issue == Issue::Truncated), "cut {cut}");
        }
    }
}

/// `SZ` must name a board: at least 1, and at most 52 in Go; strict mode refuses anything else,
/// lenient mode reports it, and `checked_board_size` says why instead of guessing 19x19.
#[test]
fn board_sizes_outside_1_to_52_are_invalid() {
    for bad in ["0", "-5", "99", "53", "19:0", "0:19"] {
        let src = format!("(;FF[4]GM[1]SZ[{bad}];B[aa])");
        match parse_strict(src.as_bytes()) {
            Err(SgfError::Strict(d)) => assert!(d.iter().any(|d| d.issue == Issue::InvalidValue), "SZ[{bad}]: {d:?}"),
            other => panic!("strict mode accepted SZ[{bad}]: {:?}", other.map(|c| c.diagnostics)),
        }
        let (t, issues) = one(&src);
        assert!(issues.contains(&Issue::InvalidValue), "SZ[{bad}]: {issues:?}");
        let why = t.checked_board_size().expect_err(bad);
        assert!(why.contains(&format!("SZ[{bad}]")), "{why}");
    }
    for good in ["1", "9", "19", "52", "19:13"] {
        let src = format!("(;FF[4]GM[1]SZ[{good}])");
        assert!(parse_strict(src.as_bytes()).is_ok(), "SZ[{good}]");
        assert!(parse_lenient(src.as_bytes()).expect("lenient").games[0].checked_board_size().is_ok());
    }
    // Other games may have larger boards, never empty ones.
    assert!(parse_strict(b"(;FF[4]GM[99]SZ[99])").is_ok());
    assert!(parse_strict(b"(;FF[4]GM[99]SZ[0])").is_err());
    // Without SZ a Go board is 19x19.
    assert_eq!(parse_strict(b"(;FF[4]GM[1])").expect("strict").games[0].checked_board_size(), Ok((19, 19)));
}

/// A collection of several game trees is valid FF[4]: strict mode reads every game.
#[test]
fn strict_mode_reads_collections() {
    let src = "(;FF[4]GM[1]SZ[9];B[ee];W[cc])\n(;FF[4]GM[1]SZ[19];B[pd];W[dp])\n";
    let c = parse_strict(src.as_bytes()).expect("a two-game collection is valid");
    assert_eq!(c.games.len(), 2);
    assert_eq!(c.games[1].board_size(), (19, 19));
}
