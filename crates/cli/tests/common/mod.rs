//! What the CLI's end-to-end tests share.

use std::process::Command;

/// Runs the `tabula` binary with `args`: whether it succeeded, its stdout and its stderr.
pub fn tabula(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().expect("tabula runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}
