//! Checks every game in a folder and prints one line per game (development aid).
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).map_or_else(|| tabula_core::testing::data_dir().join("gdl"), Into::into);
    let mut entries: Vec<_> =
        std::fs::read_dir(&dir).expect("folder").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let t = Instant::now();
        let r = tabula_gdl::check_file(&path, 1);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        match r {
            Ok(r) if !r.problems.is_empty() => println!("{name}: INVALID {}", r.problems[0]),
            Ok(r) => println!(
                "{name}: ok roles={} {:?} stuck={} {:.2}s",
                r.roles.len(),
                r.playout,
                r.stuck,
                t.elapsed().as_secs_f64()
            ),
            Err(e) => println!("{name}: ERROR {e}"),
        }
    }
}
