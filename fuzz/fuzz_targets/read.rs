//! Fuzzes the SGF reader: no input may panic, and whatever reads leniently must survive a
//! write -> read round trip unchanged, with stable bytes.
//!
//! Run (stable toolchain): `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run read`
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_sgf::{parse_lenient, parse_strict, write_collection};

fuzz_target!(|data: &[u8]| {
    let _ = parse_strict(data);
    if let Ok(c) = parse_lenient(data) {
        let written = write_collection(&c.games);
        let again = parse_lenient(written.as_bytes()).expect("written output must read");
        assert!(again.games == c.games, "round trip changed the tree");
        assert_eq!(write_collection(&again.games), written, "writing is not stable");
    }
});
