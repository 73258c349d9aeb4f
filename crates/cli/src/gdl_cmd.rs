//! `tabula gdl check`: parse, validate and play a random game of GDL files; `tabula gdl expand`:
//! turn a game written in the board-game dialect into standard GDL for any GGP player;
//! `tabula gdl prolog`: the game as a Prolog program for SWI-Prolog.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

/// Arguments of `tabula gdl`.
#[derive(Args, Debug)]
pub struct GdlArgs {
    #[command(subcommand)]
    command: GdlCommand,
}

#[derive(Subcommand, Debug)]
enum GdlCommand {
    /// Check .kif files (or every .kif file in a folder): one line per game.
    Check {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Seed of the random playout.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Plies within which the random game must reach a terminal state.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        max_plies: u32,
        /// Do not build the fast reasoner (the propnet).
        #[arg(long)]
        no_propnet: bool,
    },
    /// Expand the board-game dialect (board, succ, succlimit, sum, minus, different_cells)
    /// into standard GDL and print it (or write it to --out).
    Expand {
        /// The .kif file.
        file: PathBuf,
        /// Where to write the standard description (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Translate a game into a Prolog program for SWI-Prolog, with a driver that answers
    /// `step(State, Joint).` queries on standard input (`swipl -q -g gdl_main -t halt FILE`).
    Prolog {
        /// The .kif file.
        file: PathBuf,
        /// Where to write the program (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Reads, expands and validates a description.
fn read_valid(file: &Path) -> Result<Vec<tabula_gdl::kif::Sexpr>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let exprs = tabula_gdl::parse_gdl(&text).with_context(|| file.display().to_string())?;
    let desc = tabula_gdl::syntax::read_description(&exprs).with_context(|| file.display().to_string())?;
    if let Some(p) = tabula_gdl::validate(&desc).first() {
        bail!("{}: not valid GDL: {p}", file.display());
    }
    Ok(exprs)
}

fn write_out(out: Option<PathBuf>, text: &str) -> Result<()> {
    match out {
        Some(path) => std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display())),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x.eq_ignore_ascii_case("kif")))
                .collect();
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or folder", p.display());
        }
    }
    Ok(files)
}

fn name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| p.display().to_string())
}

/// Runs `tabula gdl`.
pub fn run(args: GdlArgs) -> Result<()> {
    match args.command {
        GdlCommand::Check { paths, seed, max_plies, no_propnet } => {
            let files = collect(&paths)?;
            let mut bad = 0;
            let opts = tabula_gdl::CheckOptions { seed, max_plies, propnet: !no_propnet };
            for f in &files {
                match tabula_gdl::check(f, &opts) {
                    Ok(r) if !r.problems.is_empty() => {
                        bad += 1;
                        let more = match r.problems.len() {
                            1 => String::new(),
                            n => format!(" (and {} more)", n - 1),
                        };
                        println!("{}: invalid: {}{more}", name(f), r.problems[0]);
                    }
                    Ok(r) => {
                        let (plies, goals) = r.playout.unwrap_or_default();
                        let demand = if r.on_demand.is_empty() {
                            String::new()
                        } else {
                            format!("; evaluated on demand: {}", r.on_demand.join(" "))
                        };
                        let propnet = match &r.propnet {
                            None => String::new(),
                            Some(Ok(((base, inputs, gates), time))) => format!(
                                "; propnet: {base} base, {inputs} input propositions, {gates} gates, built in {:.3} s",
                                time.as_secs_f64()
                            ),
                            Some(Err(e)) => format!("; propnet: not built ({e}), the reference reasoner plays it"),
                        };
                        let warnings: String = r.warnings.iter().map(|w| format!("; warning: {w}")).collect();
                        println!(
                            "{}: ok, {} role(s) {}, random game of {plies} plies, goals {goals:?}{demand}{propnet}{warnings}",
                            name(f),
                            r.roles.len(),
                            r.roles.join(" ")
                        );
                    }
                    Err(e) => {
                        bad += 1;
                        println!("{}: error: {e}", name(f));
                    }
                }
            }
            if bad > 0 {
                bail!("{bad} of {} game(s) failed the check", files.len());
            }
            Ok(())
        }
        GdlCommand::Expand { file, out } => {
            let exprs = read_valid(&file)?;
            write_out(out, &tabula_gdl::dialect::to_kif(&exprs))
        }
        GdlCommand::Prolog { file, out } => {
            let exprs = read_valid(&file)?;
            let program = tabula_gdl::prolog::translate(&exprs).with_context(|| file.display().to_string())?;
            write_out(out, &(program + tabula_gdl::prolog::DRIVER))
        }
    }
}
