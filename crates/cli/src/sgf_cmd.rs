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
                for r in &s.problems {
                    if let Some(e) = &r.error {
                        println!("  {}: error: {e}", r.name);
                    }
                    for w in &r.warnings {
                        println!("  {}: {w}", r.name);
                    }
                }
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
