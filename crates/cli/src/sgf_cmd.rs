//! `tabula sgf check` and `tabula sgf fmt`: validate and rewrite SGF game records.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use tabula_sgf::{Mode, ParseOptions};

/// Arguments of `tabula sgf`.
#[derive(Args, Debug)]
pub struct SgfArgs {
    #[command(subcommand)]
    command: SgfCommand,
}

#[derive(Subcommand, Debug)]
enum SgfCommand {
    /// Read SGF files, folders or .tar.gz archives; count games, moves and warnings.
    Check {
        /// Files, folders or archives.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Report every deviation from FF[4] as an error instead of recovering.
        #[arg(long)]
        strict: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Rewrite a file as canonical FF[4] UTF-8 SGF (to standard output, or in place).
    Fmt {
        /// The file.
        file: PathBuf,
        /// Replace the file instead of printing.
        #[arg(long)]
        in_place: bool,
    },
}

/// Files whose problems are listed by `sgf check` (failed files first).
const LISTED_FILES: usize = 50;
/// Warnings listed per file.
const LISTED_WARNINGS: usize = 5;

/// The problems of a check, capped: at most [`LISTED_FILES`] files (those that could not be
/// read first) with at most [`LISTED_WARNINGS`] warnings each, and `… and N more` for the rest.
fn problem_listing(s: &tabula_sgf::check::CheckSummary) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut files: Vec<_> = s.problems.iter().collect();
    files.sort_by_key(|r| r.error.is_none());
    for r in files.iter().take(LISTED_FILES) {
        if let Some(e) = &r.error {
            let _ = writeln!(out, "  {}: error: {e}", r.name);
        }
        for w in r.warnings.iter().take(LISTED_WARNINGS) {
            let _ = writeln!(out, "  {}: {w}", r.name);
        }
        let shown = r.warnings.len().min(LISTED_WARNINGS);
        let total = r.warning_count.max(r.warnings.len());
        if total > shown {
            let _ = writeln!(out, "  {}: … and {} more warning(s)", r.name, total - shown);
        }
    }
    let listed = files.len().min(LISTED_FILES);
    let total = s.problem_files.max(s.problems.len());
    if total > listed {
        let _ = writeln!(out, "  … and {} more file(s) with warnings or errors", total - listed);
    }
    out
}

/// Runs `tabula sgf`.
pub fn run(args: SgfArgs) -> Result<()> {
    match args.command {
        SgfCommand::Check { paths, strict, quiet } => {
            let mode = if strict { Mode::Strict } else { Mode::Lenient };
            let mut failed = 0;
            for p in &paths {
                let s = tabula_sgf::check::check_path(p, mode, !quiet)
                    .with_context(|| format!("cannot check {}", p.display()))?;
                println!(
                    "{}: {} file(s), {} game(s), {} move(s) ({} on main lines), {} node(s), {} warning(s), {} failed",
                    p.display(),
                    s.files,
                    s.games,
                    s.moves,
                    s.main_line_moves,
                    s.nodes,
                    s.warnings,
                    s.failed
                );
                for ((charset, how), n) in &s.charsets {
                    println!("  {n} game(s) in {charset} ({how})");
                }
                print!("{}", problem_listing(&s));
                failed += s.failed;
            }
            if failed > 0 {
                bail!("{failed} file(s) could not be read");
            }
            Ok(())
        }
        SgfCommand::Fmt { file, in_place } => {
            let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let f = tabula_sgf::format(&bytes, &ParseOptions::default())
                .with_context(|| format!("cannot read {}", file.display()))?;
            for d in &f.diagnostics {
                eprintln!("{}: {d}", file.display());
            }
            if in_place {
                let tmp = file.with_extension("sgf.tmp");
                std::fs::write(&tmp, &f.text).with_context(|| format!("cannot write {}", tmp.display()))?;
                std::fs::rename(&tmp, &file).with_context(|| format!("cannot replace {}", file.display()))?;
            } else {
                print!("{}", f.text);
            }
            Ok(())
        }
    }
}
