//! Validating files, directories and archives of game records (`tabula sgf check`).
//!
//! A game database imports thousands of records at once, so checking must be fast and must never
//! stop at a bad file: every file is read, problems are counted and the first ones kept for the
//! report. Directories are walked iteratively in sorted order; `.tar.gz`/`.tgz` and `.tar`
//! archives are read entry by entry without unpacking them to disk.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};

use crate::parse::{Mode, ParseOptions, parse};

/// Files with problems whose details are kept in [`CheckSummary::problems`].
pub const MAX_PROBLEM_REPORTS: usize = 1000;

/// Result of checking one file (or archive entry) that had warnings or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// Path of the file, `archive.tar.gz:entry` for archive members.
    pub name: String,
    /// Why reading failed, if it did.
    pub error: Option<String>,
    /// The first warnings (`line:column: message`), at most 20.
    pub warnings: Vec<String>,
    /// Total warning count of the file.
    pub warning_count: usize,
}

/// Totals of a check run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckSummary {
    /// SGF files (or archive entries) read.
    pub files: usize,
    /// Files that could not be read at all (or, in strict mode, deviated from `FF[4]`).
    pub failed: usize,
    /// Game trees read.
    pub games: usize,
    /// Move properties (`B`/`W`) in all nodes of all games.
    pub moves: u64,
    /// Move properties on the main lines.
    pub main_line_moves: u64,
    /// Nodes in all games.
    pub nodes: u64,
    /// Warnings (deviations recovered from) in all files.
    pub warnings: usize,
    /// Bytes of SGF read (uncompressed).
    pub bytes: u64,
    /// Games per text encoding, as `(encoding, how it was chosen)`, sorted.
    pub charsets: std::collections::BTreeMap<(String, String), usize>,
    /// Details of the first [`MAX_PROBLEM_REPORTS`] files with warnings or errors.
    pub problems: Vec<FileReport>,
    /// Files with warnings or errors, including those beyond [`CheckSummary::problems`].
    pub problem_files: usize,
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// Reading a file or directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CheckError + '_ {
    move |source| CheckError::Io { path: path.to_path_buf(), source }
}

/// The kind of input a path names: what `sgf check` and `db import` read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An SGF file.
    Sgf,
    /// A gzip-compressed tar archive of SGF files (`.tar.gz`, `.tgz`).
    TarGz,
    /// A tar archive of SGF files.
    Tar,
}

/// The kind of input a file name says it is (case-insensitive), or `None` for other files.
pub fn kind_of(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(Kind::TarGz)
    } else if name.ends_with(".tar") {
        Some(Kind::Tar)
    } else if name.ends_with(".sgf") {
        Some(Kind::Sgf)
    } else {
        None
    }
}

impl CheckSummary {
    /// Reads one SGF file's bytes and adds its figures to the summary.
    pub fn add_bytes(&mut self, name: &str, bytes: &[u8], options: &ParseOptions) {
        self.files += 1;
        self.bytes += bytes.len() as u64;
        match parse(bytes, options) {
            Ok(c) => {
                self.games += c.games.len();
                for g in &c.games {
                    let key = (g.charset.encoding.name().to_string(), format!("{:?}", g.charset.source));
                    *self.charsets.entry(key).or_default() += 1;
                    self.nodes += g.len() as u64;
                    self.moves += g.nodes().filter(|n| n.raw_move().is_some()).count() as u64;
                    self.main_line_moves += g.main_line().filter(|n| n.raw_move().is_some()).count() as u64;
                }
                let count = c.warning_count();
                self.warnings += count;
                self.problem_files += usize::from(count > 0);
                if count > 0 && self.problems.len() < MAX_PROBLEM_REPORTS {
                    self.problems.push(FileReport {
                        name: name.to_string(),
                        error: None,
                        warnings: c.diagnostics.iter().take(20).map(|d| d.to_string()).collect(),
                        warning_count: count,
                    });
                }
            }
            Err(e) => {
                self.failed += 1;
                self.problem_files += 1;
                if self.problems.len() < MAX_PROBLEM_REPORTS {
                    let warnings = match &e {
                        crate::SgfError::Strict(d) => d.iter().take(20).map(|d| d.to_string()).collect(),
                        _ => Vec::new(),
                    };
                    let warning_count = warnings.len();
                    self.problems.push(FileReport {
                        name: name.to_string(),
                        error: Some(e.to_string()),
                        warnings,
                        warning_count,
                    });
                }
            }
        }
    }

    /// Reads every `.sgf` member of a tar archive (optionally gzip-compressed).
    pub fn add_archive<R: Read>(
        &mut self,
        name: &str,
        reader: R,
        gzip: bool,
        options: &ParseOptions,
    ) -> io::Result<()> {
        let reader: Box<dyn Read + '_> =
            if gzip { Box::new(flate2::read::GzDecoder::new(reader)) } else { Box::new(reader) };
        let mut archive = tar::Archive::new(reader);
        let mut buf = Vec::new();
        for entry in archive.entries()? {
            let mut entry = entry?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path()?.into_owned();
            if kind_of(&path) != Some(Kind::Sgf) {
                continue;
            }
            buf.clear();
            entry.read_to_end(&mut buf)?;
            let member = format!("{name}:{}", path.display());
            self.add_bytes(&member, &buf, options);
        }
        Ok(())
    }
}

/// Counts bytes read into a progress bar.
struct Progress<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

/// Lists the inputs under `path` (itself if it is a file), sorted, without following symbolic
/// links to directories.
fn collect_inputs(path: &Path) -> Result<Vec<(PathBuf, Kind, u64)>, CheckError> {
    let meta = std::fs::metadata(path).map_err(io_err(path))?;
    if meta.is_file() {
        return Ok(vec![(path.to_path_buf(), kind_of(path).unwrap_or(Kind::Sgf), meta.len())]);
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> =
            std::fs::read_dir(&dir).map_err(io_err(&dir))?.collect::<Result<Vec<_>, _>>().map_err(io_err(&dir))?;
        entries.sort_by_key(|e| e.file_name());
        let mut subdirs = Vec::new();
        for e in entries {
            let p = e.path();
            let ft = e.file_type().map_err(io_err(&p))?;
            if ft.is_dir() {
                subdirs.push(p);
            } else if let Some(kind) = kind_of(&p) {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                out.push((p, kind, len));
            }
        }
        dirs.extend(subdirs.into_iter().rev());
    }
    out.sort();
    Ok(out)
}

/// Checks an SGF file, a `.tar.gz` / `.tgz` / `.tar` archive, or every such file under a directory.
///
/// With `progress`, a progress bar (bytes of input read) is drawn on standard error. A file that
/// cannot be parsed is counted in [`CheckSummary::failed`]; only I/O errors on the inputs stop the
/// check.
pub fn check_path(path: &Path, mode: Mode, progress: bool) -> Result<CheckSummary, CheckError> {
    let inputs = collect_inputs(path)?;
    let total: u64 = inputs.iter().map(|i| i.2).sum();
    let bar = if progress { ProgressBar::new(total) } else { ProgressBar::hidden() };
    if progress
        && let Ok(style) =
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} {msg}")
    {
        bar.set_style(style);
    }
    let options = ParseOptions::new(mode);
    let mut summary = CheckSummary::default();
    for (p, kind, _) in &inputs {
        let name = p.display().to_string();
        let file = File::open(p).map_err(io_err(p))?;
        let reader = Progress { inner: BufReader::with_capacity(1 << 16, file), bar: bar.clone() };
        match kind {
            Kind::Sgf => {
                let mut bytes = Vec::new();
                let mut reader = reader;
                reader.read_to_end(&mut bytes).map_err(io_err(p))?;
                summary.add_bytes(&name, &bytes, &options);
            }
            Kind::TarGz | Kind::Tar => {
                summary.add_archive(&name, reader, *kind == Kind::TarGz, &options).map_err(io_err(p))?;
            }
        }
        bar.set_message(format!("{} games, {} warnings", summary.games, summary.warnings));
    }
    bar.finish_and_clear();
    Ok(summary)
}
