//! The record files `tabula match --records DIR` writes, byte for byte: short deterministic
//! matches of Go, Othello, Amazons (SGF) and Connect Four (the arena's text format), ended
//! by the rules, by the ply limit and by an illegal move, compared with the files kept in
//! `testdata/records/`.

use std::path::Path;

use common::tabula;

mod common;

/// A fake GTP engine whose every `genmove` answers an Amazons move that is never legal.
fn illegal_engine(dir: &Path) -> String {
    let script = dir.join("illegal.sh");
    let body = "#!/bin/sh\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    genmove) printf '= A1-A1-A1\\n\\n' ;;\n    quit) printf '= \\n\\n'; exit 0 ;;\n    *) printf '= \\n\\n' ;;\n  esac\ndone\n";
    std::fs::write(&script, body).unwrap();
    format!("gtp(cmd=\"sh {}\",timeout_ms=5000)", script.display())
}

/// The record text with what differs between runs but not between writers (the version
/// the program reports, the temporary folder) replaced by fixed words.
fn normalise(text: &str, dir: &Path) -> String {
    text.replace(&format!("AP[tabula:{}]", env!("CARGO_PKG_VERSION")), "AP[tabula:VERSION]")
        .replace(&dir.display().to_string(), "DIR")
}

#[test]
fn match_records_are_the_files_kept_in_testdata() {
    let dir = tempfile::tempdir().unwrap();
    let illegal = illegal_engine(dir.path());
    let cases: &[(&str, &[&str])] = &[
        ("go9", &["go(size=9,komi=7)", "random(seed=1)", "random(seed=2)"]),
        ("go9-plies", &["go(size=9,komi=6.5,handicap=2)", "random(seed=3)", "random(seed=4)", "--max-plies", "12"]),
        ("othello", &["othello", "random(seed=1)", "random(seed=2)"]),
        ("othello6-plies", &["othello(size=6)", "random(seed=5)", "random(seed=6)", "--max-plies", "9"]),
        ("amazons6", &["amazons(size=6)", "random(seed=1)", "random(seed=2)"]),
        ("amazons6-illegal", &["amazons(size=6)", "random(seed=1)", &illegal]),
        ("connect4", &["connect4", "random(seed=1)", "random(seed=2)"]),
    ];
    let mut failures = Vec::new();
    for (label, args) in cases {
        let out_dir = dir.path().join(label);
        let mut argv = vec!["match"];
        argv.extend_from_slice(args);
        argv.extend_from_slice(&["--games", "2", "--jobs", "1", "--quiet", "--records", out_dir.to_str().unwrap()]);
        let (ok, out, err) = tabula(&argv);
        assert!(ok, "{label}: {out}\n{err}");
        let expected_dir = tabula_core::testing::fixture(format!("records/{label}"));
        let mut names: Vec<String> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut expected_names: Vec<String> = std::fs::read_dir(&expected_dir)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        expected_names.sort();
        assert_eq!(names, expected_names, "{label}: the files written");
        for name in &names {
            let got = normalise(&std::fs::read_to_string(out_dir.join(name)).unwrap(), dir.path());
            let want = std::fs::read_to_string(expected_dir.join(name)).unwrap();
            if got != want {
                failures.push(format!("{label}/{name}:\n--- expected\n{want}\n--- written\n{got}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
