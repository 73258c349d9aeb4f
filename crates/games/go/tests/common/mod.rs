//! What the GNU Go tests share: where the `gnugo` binary is.

use std::path::PathBuf;

/// The GNU Go binary: `TABULA_GNUGO`, else `gnugo` on the `PATH`, else `/usr/games/gnugo`
/// (where Debian's package and `scripts/install-test-tools.sh` put it). Panics when there is
/// none: the tests that call this need it.
pub fn gnugo_path() -> PathBuf {
    if let Some(p) = std::env::var_os("TABULA_GNUGO") {
        return PathBuf::from(p);
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("gnugo")).find(|p| p.is_file()));
    if let Some(p) = on_path {
        return p;
    }
    let games = PathBuf::from("/usr/games/gnugo");
    if games.is_file() {
        return games;
    }
    panic!(
        "GNU Go is not installed: this test needs it. Run scripts/install-test-tools.sh \
         (or set TABULA_GNUGO to the gnugo binary)."
    );
}
