//! The library side of `tabula sgf check` and `tabula sgf fmt`.

use tabula_core::testing::{corpus, fixture};
use tabula_sgf::check::{CheckError, check_path};
use tabula_sgf::{Mode, ParseOptions, format, parse_lenient};

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn check_a_directory_of_conformance_files() {
    let Some(dir) = corpus("sgf-conformance") else { return };
    let lenient = check_path(&dir, Mode::Lenient, true).expect("check");
    let sgf_files = walk_count(&dir);
    assert_eq!(lenient.files, sgf_files);
    assert_eq!(lenient.failed, 0);
    assert!(lenient.games > lenient.files, "collections hold several games");
    assert!(lenient.warnings > 0);
    assert!(lenient.problems.iter().all(|p| p.error.is_none()));
    assert!(lenient.charsets.keys().any(|(enc, _)| enc == "Shift_JIS"));
    let strict = check_path(&dir, Mode::Strict, false).expect("check");
    assert_eq!(strict.files, sgf_files);
    assert!(strict.failed > 0 && strict.failed < sgf_files);
}

fn walk_count(dir: &std::path::Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            n += walk_count(&p);
        } else if p.extension().is_some_and(|e| e == "sgf") {
            n += 1;
        }
    }
    n
}

#[test]
fn check_an_archive() {
    let path = fixture("sgf/kgs-sample.tar.gz");
    let s = check_path(&path, Mode::Lenient, false).expect("check");
    assert_eq!(s.files, 500);
    assert_eq!(s.games, s.files);
    assert_eq!(s.failed, 0);
    assert_eq!(s.moves, s.main_line_moves);
    assert!(s.moves > 100 * s.games as u64);
    assert!(s.problems.iter().all(|p| p.name.contains(".tar.gz:")));
}

#[test]
fn check_a_missing_path_is_an_io_error() {
    let err = check_path(std::path::Path::new("/nonexistent/sgf"), Mode::Lenient, false);
    assert!(matches!(err, Err(CheckError::Io { .. })));
}

#[test]
fn format_writes_canonical_utf8_and_is_idempotent() {
    let path = fixture("sgf/cases/shift-jis.sgf");
    let raw = std::fs::read(path).expect("read");
    let opts = ParseOptions::default();
    let f = format(&raw, &opts).expect("format");
    assert_eq!(f.games, 1);
    assert!(
        f.text.starts_with("(;FF[4]PB[井山 裕太]CA[UTF-8]PW[山下 敬吾]\n;B[pd]\n;W[dp]C[囲碁 is fun])"),
        "{}",
        f.text
    );
    let again = format(f.text.as_bytes(), &opts).expect("format");
    assert_eq!(again.text, f.text);
    assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
    // The canonical text reads strictly.
    assert!(tabula_sgf::parse_strict(f.text.as_bytes()).is_ok());
    let tree = &parse_lenient(f.text.as_bytes()).expect("read").games[0];
    assert_eq!(tree.charset.declared.as_deref(), Some("UTF-8"));
}
