//! `tabula gdl prolog`: the printed program runs under SWI-Prolog and answers a query about
//! tic-tac-toe's first position (SWI-Prolog is installed by `scripts/install-test-tools.sh`).

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_program_answers_queries_in_swi_prolog() {
    let kif = tabula_core::testing::fixture("gdl/ticTacToe.kif");
    let file = std::env::temp_dir().join(format!("tabula-cli-prolog-{}.pl", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["gdl", "prolog"])
        .arg(&kif)
        .arg("--out")
        .arg(&file)
        .output()
        .expect("tabula runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut swipl = Command::new("swipl")
        .args(["-q", "-g", "gdl_main", "-t", "halt"])
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("SWI-Prolog is installed (scripts/install-test-tools.sh)");
    let cells: Vec<String> = (1..=3).flat_map(|x| (1..=3).map(move |y| format!("'cell'('{x}','{y}','b')"))).collect();
    let query = format!(
        "step([{}, 'control'('xplayer')], [does('xplayer', 'mark'('2','2')), does('oplayer', 'noop')]).\n",
        cells.join(", ")
    );
    swipl.stdin.take().unwrap().write_all(query.as_bytes()).unwrap();
    let answer = swipl.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&answer.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.iter().filter(|l| l.starts_with("legal xplayer (mark")).count(), 9, "{text}");
    assert!(lines.contains(&"legal oplayer noop"), "{text}");
    assert!(lines.contains(&"next (cell 2 2 x)"), "{text}");
    assert!(lines.contains(&"next (control oplayer)"), "{text}");
    assert!(!lines.contains(&"terminal"), "{text}");
    assert_eq!(lines.last(), Some(&"end"), "{text}");

    let missing = Command::new(env!("CARGO_BIN_EXE_tabula")).args(["gdl", "prolog", "/no/such.kif"]).output().unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}
