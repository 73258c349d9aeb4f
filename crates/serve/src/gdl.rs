//! GDL games for the browser, named and never located by it.
//!
//! The registry loads a GDL game from a rules file (`gdl(file=...)`), and nothing the
//! browser sends may name a path. So the page names a game (`gdl(game=ticTacToe)`) among
//! those the server offers: the games bundled in the binary and the `.kif` files of the
//! directory the server's operator configured ([`crate::Config::gdl_dir`]). Or it pastes a
//! rules text, which the server writes, capped in size and in number, to a private
//! temporary directory under a name of its own (`pasted-` and the text's hash), after which
//! it is one more game offered by name. The spec the page sees says `game=NAME`; the file's
//! path stays inside the server.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tabula_core::Spec;

use crate::live::ApiError;

/// Most bytes of a pasted rules text.
pub const MAX_KIF: usize = 256 * 1024;

/// Most pasted rules texts kept at once (each is a file in the server's temporary directory).
const MAX_PASTED: usize = 64;

/// Most games listed from the configured directory.
const MAX_DIR_GAMES: usize = 10_000;

/// The games bundled in the binary: the project's own GDL games (`testdata/gdl`, and the
/// board-dialect game of `crates/gdl/games`), three-player Nim and a simultaneous race among them.
const BUNDLED: &[(&str, &str)] = &[
    ("ticTacToe", include_str!("../../../testdata/gdl/ticTacToe.kif")),
    ("threePlayerNim", include_str!("../../../testdata/gdl/threePlayerNim.kif")),
    ("simultaneousRace", include_str!("../../../testdata/gdl/simultaneousRace.kif")),
    ("connectFour", include_str!("../../../testdata/gdl/connectFour.kif")),
    ("chainRace", include_str!("../../../testdata/gdl/chainRace.kif")),
    ("krk4x4", include_str!("../../gdl/games/krk4x4.kif")),
];

/// Spec keys of `gdl` the page may give (besides `game`).
const KEYS: &[&str] = &["max_plies", "reasoner"];

/// A name the page may use: letters, digits, `_` and `-`, at most 100 of them.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 100 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// FNV-1a, 64 bits: the name of a pasted text.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The GDL games on offer and where their rules are.
pub struct Library {
    /// The configured directory.
    dir: Option<PathBuf>,
    /// The configured directory's games, by file stem.
    dir_games: BTreeMap<String, PathBuf>,
    /// The server's own temporary directory, made when first needed, and the files written
    /// there (bundled games and pasted texts), by name.
    scratch: Mutex<(Option<PathBuf>, HashMap<String, PathBuf>)>,
}

static SCRATCH_SEQ: AtomicU64 = AtomicU64::new(0);

impl Library {
    /// The bundled games, and the `.kif` files of `dir` (if given and readable).
    pub fn new(dir: Option<&Path>) -> Library {
        let mut dir_games = BTreeMap::new();
        if let Some(entries) = dir.and_then(|d| std::fs::read_dir(d).ok()) {
            for entry in entries.flatten().take(MAX_DIR_GAMES) {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "kif")
                    && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                    && valid_name(stem)
                    && !stem.starts_with("pasted-")
                    && path_in_spec(&path)
                {
                    dir_games.insert(stem.to_string(), path);
                }
            }
        }
        Library { dir: dir.map(Path::to_path_buf), dir_games, scratch: Mutex::new((None, HashMap::new())) }
    }

    /// `text` (an error from loading or playing a game) with the server's directories left
    /// out, so that a message about a rules file names the file only.
    pub fn hide(&self, text: &str) -> String {
        let scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner()).0.clone();
        let mut out = text.to_string();
        for dir in [scratch, self.dir.clone()].into_iter().flatten() {
            out = out.replace(&format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR), "");
        }
        out
    }

    /// The names on offer, the bundled games first.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = BUNDLED.iter().map(|(n, _)| n.to_string()).collect();
        names.extend(self.dir_games.keys().filter(|n| !BUNDLED.iter().any(|(b, _)| b == n)).cloned());
        names
    }

    /// Writes `text` to the temporary directory as `name.kif` (once), returning its path.
    fn write(&self, name: &str, text: &str, pasted: bool) -> Result<PathBuf, ApiError> {
        let mut scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(path) = scratch.1.get(name) {
            return Ok(path.clone());
        }
        if pasted && scratch.1.keys().filter(|n| n.starts_with("pasted-")).count() >= MAX_PASTED {
            return Err(ApiError {
                status: 429,
                message: format!("the server keeps at most {MAX_PASTED} pasted GDL games"),
            });
        }
        let failed = |e: std::io::Error| ApiError { status: 500, message: format!("cannot keep the GDL rules: {e}") };
        let dir = match &scratch.0 {
            Some(dir) => dir.clone(),
            None => {
                let dir = make_scratch().map_err(failed)?;
                scratch.0 = Some(dir.clone());
                dir
            }
        };
        let path = dir.join(format!("{name}.kif"));
        std::fs::write(&path, text).map_err(failed)?;
        scratch.1.insert(name.to_string(), path.clone());
        Ok(path)
    }

    /// Keeps a pasted rules text, returning the name it is offered by.
    pub fn paste(&self, text: &str) -> Result<String, ApiError> {
        if text.len() > MAX_KIF {
            return Err(ApiError { status: 413, message: format!("the GDL rules are over {MAX_KIF} bytes") });
        }
        if text.trim().is_empty() {
            return Err(ApiError::bad("the pasted GDL rules are empty"));
        }
        let name = format!("pasted-{:016x}", fnv(text));
        self.write(&name, text, true)?;
        Ok(name)
    }

    /// The rules file of the game `name`.
    fn path(&self, name: &str) -> Result<PathBuf, ApiError> {
        if let Some((_, text)) = BUNDLED.iter().find(|(n, _)| *n == name) {
            return self.write(name, text, false);
        }
        if let Some(path) = self.dir_games.get(name) {
            return Ok(path.clone());
        }
        if name.starts_with("pasted-")
            && let Some(path) = self.scratch.lock().unwrap_or_else(|e| e.into_inner()).1.get(name)
        {
            return Ok(path.clone());
        }
        Err(ApiError::bad(format!("game: no GDL game named {name:?}; on offer: {}", self.names().join(", "))))
    }

    /// A `gdl(game=NAME,...)` spec from the page as the spec the registry loads
    /// (`gdl(file=PATH,...)`), and the spec to show, with `game=NAME` in the file's place.
    pub fn resolve(&self, spec: &Spec, pasted: Option<&str>) -> Result<(String, String), ApiError> {
        let name = match pasted {
            Some(text) => self.paste(text)?,
            None => match spec.get("game") {
                Some(name) if valid_name(name.trim()) => name.trim().to_string(),
                Some(name) => return Err(ApiError::bad(format!("game: {name:?} is not the name of a GDL game"))),
                None => {
                    return Err(ApiError::bad(format!(
                        "game: gdl needs game=NAME (one of {}) or pasted rules",
                        self.names().join(", ")
                    )));
                }
            },
        };
        let mut rest = String::new();
        for (key, _) in &spec.params {
            if key == "game" {
                continue;
            }
            if !KEYS.contains(&key.as_str()) {
                return Err(ApiError::bad(format!("game: gdl takes game, max_plies and reasoner, not {key}")));
            }
            rest.push_str(&format!(",{key}={}", spec.get(key).unwrap_or_default()));
        }
        let path = self.path(&name)?;
        Ok((format!("gdl(file={}{rest})", path.display()), format!("gdl(game={name}{rest})")))
    }
}

/// Whether a path can stand as a spec value (no character the spec syntax uses).
fn path_in_spec(path: &Path) -> bool {
    path.to_str().is_some_and(|p| !p.contains([',', '(', ')', '=', '"']))
}

/// A fresh directory of this server's own under the system's temporary directory.
fn make_scratch() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    for _ in 0..100 {
        let n = SCRATCH_SEQ.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("tabula-serve-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) if path_in_spec(&dir) => return Ok(dir),
            Ok(()) => {
                let _ = std::fs::remove_dir(&dir);
                return Err(std::io::Error::other("the temporary directory's path has a character specs use"));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for a temporary directory"))
}

impl Drop for Library {
    fn drop(&mut self) {
        let scratch = self.scratch.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = &scratch.0 {
            for path in scratch.1.values() {
                let _ = std::fs::remove_file(path);
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_files_and_paths_are_refused() {
        let lib = Library::new(None);
        assert!(lib.names().contains(&"ticTacToe".to_string()));
        let spec = Spec::parse("gdl(game=ticTacToe,max_plies=50)").unwrap();
        let (inner, shown) = lib.resolve(&spec, None).unwrap();
        assert_eq!(shown, "gdl(game=ticTacToe,max_plies=50)");
        assert!(inner.starts_with("gdl(file=") && inner.ends_with("ticTacToe.kif,max_plies=50)"), "{inner}");
        for bad in ["gdl(game=../etc/passwd)", "gdl(game=nosuch)", "gdl", "gdl(game=ticTacToe,file=x)"] {
            let spec = Spec::parse(bad).unwrap();
            assert_eq!(lib.resolve(&spec, None).unwrap_err().status, 400, "{bad}");
        }
    }

    #[test]
    fn pasted_rules_are_capped_and_named_by_their_hash() {
        let lib = Library::new(None);
        let big = "x".repeat(MAX_KIF + 1);
        assert_eq!(lib.paste(&big).unwrap_err().status, 413);
        assert_eq!(lib.paste("  \n").unwrap_err().status, 400);
        let a = lib.paste(BUNDLED[0].1).unwrap();
        assert_eq!(a, lib.paste(BUNDLED[0].1).unwrap());
        assert!(a.starts_with("pasted-"));
        let (_, shown) = lib.resolve(&Spec::parse(&format!("gdl(game={a})")).unwrap(), None).unwrap();
        assert_eq!(shown, format!("gdl(game={a})"));
        let dir = lib.scratch.lock().unwrap().0.clone().unwrap();
        assert!(dir.exists());
        let message = format!("cannot evaluate the rules of {}: bad", dir.join(format!("{a}.kif")).display());
        assert_eq!(lib.hide(&message), format!("cannot evaluate the rules of {a}.kif: bad"));
        drop(lib);
        assert!(!dir.exists(), "the temporary directory is removed with the library");
    }
}
