//! Resource limits: memory a request would take is checked against what the machine can
//! give before anything is allocated.
//!
//! Every size a user can ask for has a fixed range in its parameter table; requests that
//! cost memory (a transposition table, an MCTS tree's node cap, several of them in parallel
//! games) are also checked here against the memory available now: the smallest of
//! `MemAvailable` in `/proc/meminfo`, the limit of the process's cgroup less what it uses,
//! and `TABULA_MEMORY_MB` when that variable is set (a cap a user or a test can impose).
//! Where none of them can be read (another operating system) only the fixed ranges apply,
//! and the allocations themselves are fallible (`try_reserve`), so a refusal by the
//! allocator is still an error, not an abort. The whole policy is written down in
//! `docs/ARCHITECTURE.md`, "Resource limits".

use std::fmt;

/// The environment variable that caps the memory tabula counts as available, in MiB.
pub const MEMORY_ENV: &str = "TABULA_MEMORY_MB";

/// How much memory may be asked for now, and where that figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes available.
    pub bytes: u64,
    /// Where the figure was read, e.g. `MemAvailable in /proc/meminfo`.
    pub source: String,
}

/// Bytes as a short human figure: `512 KiB`, `16.0 MiB`, `64.0 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB * KIB {
        format!("{:.0} KiB", (b / KIB).ceil())
    } else if b < KIB * KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    }
}

impl fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", format_bytes(self.bytes), self.source)
    }
}

/// The memory the machine can give now (see the module documentation); `None` when no
/// figure can be read.
pub fn memory_limit() -> Option<MemoryLimit> {
    let mut best: Option<MemoryLimit> = None;
    let mut offer = |bytes: u64, source: String| {
        if best.as_ref().is_none_or(|b| bytes < b.bytes) {
            best = Some(MemoryLimit { bytes, source });
        }
    };
    if let Some(kib) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| meminfo_available_kib(&t)) {
        offer(kib.saturating_mul(1024), "MemAvailable in /proc/meminfo".into());
    }
    if let Some((bytes, source)) = cgroup_room() {
        offer(bytes, source);
    }
    if let Ok(text) = std::env::var(MEMORY_ENV)
        && let Ok(mb) = text.trim().parse::<u64>()
    {
        offer(mb.saturating_mul(1 << 20), format!("{MEMORY_ENV}={mb}"));
    }
    best
}

/// Checks that `bytes` more can be allocated: `Err` with a one-line reason naming the
/// request and the limit when it is more than [`memory_limit`] allows.
pub fn check_memory(bytes: u64) -> Result<(), String> {
    match memory_limit() {
        Some(limit) if bytes > limit.bytes => Err(format!(
            "{} needed, more than the {} of memory available ({})",
            format_bytes(bytes),
            format_bytes(limit.bytes),
            limit.source
        )),
        _ => Ok(()),
    }
}

/// Longest time a search may be given per move, a day in milliseconds (`time_ms`,
/// `--time-ms`, an external engine's `timeout_ms`).
pub const MAX_TIME_MS: u64 = 86_400_000;

/// Most nodes or playouts a search may be given per move (counts cost time, not memory).
pub const MAX_NODES: u64 = 1_000_000_000_000_000;

/// Deepest iteration an alpha-beta search may be given, in plies.
pub const MAX_DEPTH: u32 = 500;

/// The longest file read whole as an input (rules, move models, weights, opening lists,
/// endgame problems): 64 MiB.
pub const MAX_INPUT_FILE: u64 = 64 << 20;

/// Reads at most `max` bytes from `reader` (a file, an archive's entry); more (or a stream
/// that never ends) is an error naming the limit, not an unbounded allocation.
pub fn read_capped(reader: impl std::io::Read, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let mut bytes = Vec::new();
    reader.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(Error::new(ErrorKind::InvalidData, format!("longer than the {} read at most", format_bytes(max))));
    }
    Ok(bytes)
}

/// Reads a text file of at most `max` bytes; a longer one (or a device that never ends) is
/// an error naming the limit, not an unbounded allocation.
pub fn read_text_capped(path: impl AsRef<std::path::Path>, max: u64) -> std::io::Result<String> {
    let bytes = read_capped(std::fs::File::open(path)?, max)?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// `MemAvailable` of a `/proc/meminfo` text, in KiB.
fn meminfo_available_kib(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Room left under the cgroup memory limit (v2 `memory.max`, or v1 `limit_in_bytes`).
fn cgroup_room() -> Option<(u64, String)> {
    let read = |path: &str| std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse::<u64>().ok());
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // cgroup v2: the line `0::/path`.
    if let Some(rel) = own.lines().find_map(|l| l.strip_prefix("0::")) {
        let dir = format!("/sys/fs/cgroup{}", rel.trim_end_matches('/'));
        if let Some(max) = read(&format!("{dir}/memory.max")) {
            let used = read(&format!("{dir}/memory.current")).unwrap_or(0);
            return Some((max.saturating_sub(used), format!("cgroup limit in {dir}/memory.max")));
        }
    }
    // cgroup v1; a limit near 2^63 means none.
    let max = read("/sys/fs/cgroup/memory/memory.limit_in_bytes").filter(|&m| m < 1 << 60)?;
    let used = read("/sys/fs/cgroup/memory/memory.usage_in_bytes").unwrap_or(0);
    Some((max.saturating_sub(used), "cgroup limit in /sys/fs/cgroup/memory/memory.limit_in_bytes".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available_from_meminfo() {
        let text = "MemTotal:       24684096 kB\nMemFree:        17723380 kB\nMemAvailable:   21838448 kB\n";
        assert_eq!(meminfo_available_kib(text), Some(21_838_448));
        assert_eq!(meminfo_available_kib("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn bytes_are_formatted_with_their_unit() {
        assert_eq!(format_bytes(1000), "1 KiB");
        assert_eq!(format_bytes(16 << 20), "16.0 MiB");
        assert_eq!(format_bytes(64 << 30), "64.0 GiB");
    }

    #[test]
    fn capped_reads_refuse_longer_files() {
        let dir = std::env::temp_dir().join(format!("tabula-capped-{}", std::process::id()));
        std::fs::write(&dir, "0123456789").unwrap();
        assert_eq!(read_text_capped(&dir, 10).unwrap(), "0123456789");
        let e = read_text_capped(&dir, 9).unwrap_err().to_string();
        assert!(e.contains("longer than the 1 KiB read at most"), "{e}");
        std::fs::remove_file(&dir).unwrap();
        #[cfg(unix)]
        assert!(read_text_capped("/dev/zero", 1 << 20).is_err());
        assert_eq!(read_capped(&b"0123456789"[..], 10).unwrap(), b"0123456789");
        let e = read_capped(&b"0123456789"[..], 9).unwrap_err().to_string();
        assert!(e.contains("longer than the 1 KiB read at most"), "{e}");
    }

    #[test]
    fn an_impossible_request_is_refused_with_the_limit() {
        // Where a figure can be read, no machine has 2^63 bytes available.
        if memory_limit().is_some() {
            let e = check_memory(1 << 63).unwrap_err();
            assert!(e.contains("8589934592.0 GiB needed") && e.contains("available"), "{e}");
        }
        assert!(check_memory(0).is_ok());
    }
}
