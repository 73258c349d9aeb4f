//! What the CLI's end-to-end tests share.

use std::process::Command;

/// Runs the `tabula` binary with `args`: whether it succeeded, its stdout and its stderr.
pub fn tabula(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().expect("tabula runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Runs the `tabula` binary with `args` and `input` on its standard input: whether it
/// succeeded, its stdout and its stderr.
#[allow(dead_code)]
pub fn tabula_with_input(args: &[&str], input: impl AsRef<[u8]>) -> (bool, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula runs");
    child.stdin.take().expect("stdin").write_all(input.as_ref()).expect("write stdin");
    let out = child.wait_with_output().expect("tabula ends");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}
