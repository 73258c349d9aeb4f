//! `tabula train` end to end: a short run writes its weights, curve and checkpoint with the
//! schedule it was given, a second run resumes instead of starting over, and bad settings
//! are refused with a clear message.

mod common;

use common::tabula;

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn train_writes_weights_with_the_schedule_given_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = [
        "train",
        "amazons(size=6)",
        "--eval",
        "territory",
        "--preset",
        "td-leaf",
        "--init",
        "hand",
        "--opponent",
        "self",
        "--moves",
        "300",
        "--halve-every",
        "100",
        "--eval-every",
        "150",
        "--eval-games",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    let (ok, stdout, err) = tabula(&args);
    assert!(ok, "{stdout}\n{err}");
    assert!(stdout.starts_with("done after"), "{stdout}");
    let checkpoint = json(&out.join("checkpoint.json"));
    let schedule = &checkpoint["config"]["schedule"];
    assert_eq!(schedule["halve_every"], 100, "{schedule}");
    assert_eq!(schedule["lambda"], 0.7, "{schedule}");
    assert!(checkpoint["step"].as_u64().unwrap() >= 300);
    let weights = json(&out.join("weights.json"));
    assert_eq!(weights["evaluator"], "territory");
    let w = weights["weights"].as_array().unwrap();
    assert_eq!(w.len(), 10);
    // Learning moved the hand-tuned weights.
    assert_ne!(w[5].as_f64().unwrap(), 1.0, "{weights}");
    let curve = std::fs::read_to_string(out.join("curve.csv")).unwrap();
    assert!(curve.lines().count() >= 3, "{curve}");

    // The same command again finds the finished run and does not train further.
    let (ok, again, err) = tabula(&args);
    assert!(ok, "{again}\n{err}");
    assert_eq!(json(&out.join("checkpoint.json"))["step"], checkpoint["step"], "{again}");
    // The learned weights play.
    let learned = format!("learned(weights={},depth=1)", out.join("weights.json").display());
    let (ok, report, err) = tabula(&["match", "amazons(size=6)", &learned, "random", "--games", "2", "--quiet"]);
    assert!(ok && report.contains("2 of 2 games"), "{report}\n{err}");
}

#[test]
fn train_refuses_bad_settings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    for (extra, words) in [
        (&["--alpha=-1"][..], "alpha"),
        (&["--lambda", "2"][..], "lambda"),
        (&["--opponent", "alphabeta:99"][..], "opponent"),
        (&["--halve-every", "soon"][..], "halve-every"),
    ] {
        let mut args = vec!["train", "amazons(size=6)", "--moves", "10", "--out", out, "--quiet"];
        args.extend_from_slice(extra);
        let (ok, stdout, err) = tabula(&args);
        assert!(!ok, "{extra:?} accepted: {stdout}");
        assert!(err.contains(words), "{extra:?}: {err}");
    }
    let (ok, _, err) = tabula(&["train", "connect4", "--out", out, "--quiet"]);
    assert!(!ok && err.contains("amazons"), "{err}");
    // The models are the game's own: an unknown one is refused with the list.
    let (ok, _, err) = tabula(&["train", "amazons(size=6)", "--eval", "material", "--out", out, "--quiet"]);
    assert!(!ok && err.contains("'material'") && err.contains("document, territory"), "{err}");
}
