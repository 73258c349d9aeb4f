//! `tabula sgf fmt --in-place` never loses what it could not read: a file whose reading
//! dropped content is left untouched unless a backup is asked for.

mod common;

use common::tabula;

/// 100 KB of pseudo-random bytes (a fixed xorshift stream) with some `(;` in them, as a file
/// that is not SGF at all looks to a lenient reader.
fn random_bytes() -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out: Vec<u8> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    for at in [1000, 40_000, 70_000] {
        out[at..at + 6].copy_from_slice(b"(;B[a]");
    }
    out
}

#[test]
fn in_place_refuses_a_file_it_cannot_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("noise.sgf");
    let bytes = random_bytes();
    std::fs::write(&file, &bytes).unwrap();
    let (ok, out, err) = tabula(&["sgf", "fmt", file.to_str().unwrap(), "--in-place"]);
    assert!(!ok, "{out}{err}");
    assert!(err.contains("not rewritten"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "the file is untouched");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "no temporary file is left behind: {names:?}");

    // With --backup the original is kept beside the rewritten file.
    let (ok, out, err) = tabula(&["sgf", "fmt", file.to_str().unwrap(), "--in-place", "--backup"]);
    assert!(ok, "{out}{err}");
    let bak = dir.path().join("noise.sgf.bak");
    assert_eq!(std::fs::read(&bak).unwrap(), bytes, "the backup holds the original");
    assert_ne!(std::fs::read(&file).unwrap(), bytes);
    // A second run does not overwrite the backup.
    let (ok, _, err) = tabula(&["sgf", "fmt", file.to_str().unwrap(), "--in-place", "--backup"]);
    assert!(!ok && err.contains("backup"), "{err}");
    assert_eq!(std::fs::read(&bak).unwrap(), bytes);
}

#[test]
fn in_place_rewrites_a_file_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.sgf");
    // Recoverable faults that lose nothing: a lower-case FF[3] identifier and a missing ')'.
    std::fs::write(&file, "(;GM[1]FF[3]SZ[9]PlayerBlack[Ann];B[ee];W[cc]").unwrap();
    let (ok, out, err) = tabula(&["sgf", "fmt", file.to_str().unwrap(), "--in-place"]);
    assert!(ok, "{out}{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("PB[Ann]") && text.contains(";B[ee]") && text.contains(";W[cc]"), "{text}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Data after the game is dropped by the reader: refused.
    std::fs::write(&file, "(;GM[1]SZ[9];B[ee])\nnotes the reader cannot place\n").unwrap();
    let (ok, _, err) = tabula(&["sgf", "fmt", file.to_str().unwrap(), "--in-place"]);
    assert!(!ok && err.contains("not rewritten"), "{err}");
    assert!(std::fs::read_to_string(&file).unwrap().contains("notes the reader"));
}
