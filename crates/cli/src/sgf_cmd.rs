//! `tabula sgf check` and `tabula sgf fmt`: validate and rewrite SGF game records.

use std::io::Write;
use std::path::{Path, PathBuf};

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
        /// Report every deviation from `FF[4]` as an error instead of recovering.
        #[arg(long)]
        strict: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Rewrite a file as canonical `FF[4]` UTF-8 SGF (to standard output, or in place).
    Fmt {
        /// The file.
        file: PathBuf,
        /// Replace the file instead of printing. Refused when reading dropped any of its
        /// content (garbage, undecodable bytes), unless `--backup` keeps the original.
        #[arg(long)]
        in_place: bool,
        /// With `--in-place`: keep the original as FILE.bak (which must not exist yet), and
        /// replace the file even if reading dropped some of its content.
        #[arg(long, requires = "in_place")]
        backup: bool,
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
        SgfCommand::Fmt { file, in_place, backup } => {
            let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let f = tabula_sgf::format(&bytes, &ParseOptions::default())
                .with_context(|| format!("cannot read {}", file.display()))?;
            for d in &f.diagnostics {
                eprintln!("{}: {d}", file.display());
            }
            if in_place {
                replace_file(&file, &bytes, &f, backup)?;
            } else {
                print!("{}", f.text);
            }
            Ok(())
        }
    }
}

/// Replaces `file` (whose content is `original`) by the formatted text: refused when reading
/// dropped content unless a backup is kept; the backup is written first, and the new text goes
/// to a temporary file in the same folder that is then renamed over the file, so the file is
/// at every moment either the old one or the new one.
fn replace_file(file: &Path, original: &[u8], f: &tabula_sgf::Formatted, backup: bool) -> Result<()> {
    if f.lost > 0 && !backup {
        bail!(
            "{} not rewritten: reading it dropped content in {} place(s) (see the warnings); \
             rewrite it with --backup to keep the original as {}",
            file.display(),
            f.lost,
            backup_path(file).display()
        );
    }
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if backup {
        let bak = backup_path(file);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&bak)
            .with_context(|| format!("cannot create the backup {}", bak.display()))?;
        out.write_all(original)
            .and_then(|_| out.sync_all())
            .with_context(|| format!("cannot write the backup {}", bak.display()))?;
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".tabula-fmt-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        // Keep the file's permissions (best effort).
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.write_all(f.text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    tmp.persist(file).map_err(|e| e.error).with_context(|| format!("cannot replace {}", file.display()))?;
    Ok(())
}

/// Where `--backup` keeps the original: `FILE.bak`.
fn backup_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}
