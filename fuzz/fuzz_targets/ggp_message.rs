//! Fuzzes the GGP message reader: any bytes must give a message or a typed error, never a
//! panic; messages it reads print back to text it reads as the same message, and terms
//! round-trip through their printed form.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_ggp::message::{CaseMap, parse_message, parse_terms, percent_decode};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(msg) = parse_message(&text) {
        let printed = msg.to_string();
        let again = parse_message(&printed).expect("a printed message reads back");
        assert_eq!(again.to_string(), printed);
        assert_eq!(again.keyword(), msg.keyword());
    }
    if let Ok(terms) = parse_terms(&text) {
        let printed: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        let again = parse_terms(&printed.join(" ")).expect("printed terms read back");
        assert_eq!(again, terms);
        let map = CaseMap::new(&terms);
        for p in &printed {
            let _ = map.restore(&p.to_lowercase());
        }
    }
    let _ = parse_message(&percent_decode(&text));
});
