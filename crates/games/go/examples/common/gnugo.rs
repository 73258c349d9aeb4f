//! What the GNU Go examples share: GNU Go's own count of a finished 9x9 game.

use std::time::Duration;

use tabula_gtp::GtpClient;

/// The GNU Go command the examples play against: level 10, Chinese rules (`TABULA_GNUGO`
/// may name the binary).
pub fn gnugo_command() -> String {
    let gnugo = std::env::var("TABULA_GNUGO").unwrap_or_else(|_| "/usr/games/gnugo".to_string());
    format!("{gnugo} --mode gtp --level 10 --chinese-rules")
}

/// GNU Go's `final_score` (dead stones removed) for the 9x9, komi 7 game of `moves` (Black
/// first), or why it failed.
pub fn gnugo_score(cmd: &str, moves: &[String]) -> String {
    let mut client = match GtpClient::spawn(cmd, Duration::from_secs(120)) {
        Ok(c) => c,
        Err(e) => return format!("(GNU Go failed: {e})"),
    };
    let mut commands = vec!["boardsize 9".to_string(), "clear_board".into(), "komi 7".into()];
    for (i, m) in moves.iter().enumerate() {
        commands.push(format!("play {} {m}", if i % 2 == 0 { "b" } else { "w" }));
    }
    commands.push("final_score".into());
    let mut answer = String::new();
    for c in &commands {
        match client.send(c) {
            Ok(a) => answer = a,
            Err(e) => return format!("(GNU Go failed on {c}: {e})"),
        }
    }
    client.quit();
    answer
}

/// tabula's result (`W`, `L`, `D`) from a `final_score` answer, `?` when there is none.
pub fn outcome(score: &str, tabula_black: bool) -> char {
    match score.trim().chars().next() {
        Some('B') if tabula_black => 'W',
        Some('W') if !tabula_black => 'W',
        Some('B' | 'W') => 'L',
        Some('0') => 'D',
        _ => '?',
    }
}
