//! Fuzzes the GTP command reader and the engine loop: any bytes must be answered with
//! well-formed responses and never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_gtp::protocol::{self, MAX_LINE, RawLine};
use tabula_gtp::{Command, Ctx, Engine, GtpError};

fn engine() -> Engine<Vec<String>> {
    let mut e = Engine::new(Vec::new(), "fuzz", "0");
    e.register("echo", |log: &mut Vec<String>, cmd: &Command, _: &mut Ctx<'_>| {
        log.push(cmd.to_string());
        Ok(cmd.args.join(" "))
    });
    e.register("colour", |_: &mut Vec<String>, cmd: &Command, _: &mut Ctx<'_>| {
        cmd.expect_args(1)?;
        protocol::parse_color(&cmd.args[0]).map(|c| c.to_string())
    });
    e.register("stream", |_: &mut Vec<String>, cmd: &Command, ctx: &mut Ctx<'_>| {
        for a in &cmd.args {
            ctx.stream_line(a);
        }
        if cmd.args.len() % 2 == 0 { Ok(cmd.args.concat()) } else { Err(GtpError::new("odd")) }
    });
    e
}

fuzz_target!(|data: &[u8]| {
    // Line splitting with a small cap, so overlong lines are exercised too.
    let mut input = data;
    let mut lines = Vec::new();
    loop {
        match protocol::read_line_capped(&mut input, 64) {
            Ok(RawLine::Eof) | Err(_) => break,
            Ok(RawLine::Line(l)) | Ok(RawLine::Overlong(l)) => {
                assert!(l.len() <= 64);
                lines.push(l);
            }
        }
    }
    for line in &lines {
        if let Ok(Some(cmd)) = protocol::parse_line(line) {
            assert!(!cmd.name.is_empty());
            assert_eq!(protocol::parse_line(cmd.to_string().as_bytes()), Ok(Some(cmd.clone())));
        }
        let text = String::from_utf8_lossy(line);
        let _ = protocol::parse_vertex(&text, 19);
        let _ = protocol::parse_response_head(&text);
        let _ = protocol::id_of_prefix(line);
    }
    // The engine answers every non-empty line with one response ending in an empty line.
    let mut e = engine();
    let mut out = Vec::new();
    let mut input = data;
    loop {
        let raw = match protocol::read_line_capped(&mut input, MAX_LINE) {
            Ok(RawLine::Line(l)) => l,
            Ok(RawLine::Overlong(_)) => Vec::new(),
            Ok(RawLine::Eof) | Err(_) => break,
        };
        let before = out.len();
        match e.handle_line(&raw, &mut out) {
            Ok(tabula_gtp::Flow::Quit) => break,
            Ok(tabula_gtp::Flow::Continue) => {}
            Err(_) => break,
        }
        let response = &out[before..];
        if !response.is_empty() {
            assert!(response.ends_with(b"\n\n"));
            assert!(!response[..response.len() - 2].windows(2).any(|w| w == b"\n\n"));
            assert!(matches!(response[0], b'=' | b'?'));
        }
    }
});
