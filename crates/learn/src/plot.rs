//! The learning curve as files: CSV for tools, SVG for a look.
//!
//! The SVG is written by hand (a few polylines and labels) so that the crate needs no
//! plotting library; it opens in any browser.

use std::fmt::Write as _;

use std::path::Path;

use crate::{Checkpoint, CurvePoint, TrainError};

/// Writes a run's results into its folder `dir`, as `tabula train` leaves them:
/// `weights.json` (game, evaluator `evaluator`, feature names, weights), the learning curve
/// `curve.csv` / `curve.svg` and the weight snapshots `weights.csv` / `weights.svg`, each
/// replaced whole.
pub fn write_results(dir: &Path, evaluator: &str, run: &Checkpoint) -> Result<(), TrainError> {
    let cfg = &run.config;
    let weights = serde_json::json!({
        "game": cfg.game, "evaluator": evaluator, "features": run.names, "weights": run.weights
    });
    // Each file is written beside its old version and renamed over it, so that a reader
    // (the browser's `trained:` player, a match) never sees half a file.
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        let tmp = dir.join(format!("{name}.tmp"));
        let io = |e: std::io::Error| TrainError::Io(path.display().to_string(), e.to_string());
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)
    };
    let json =
        serde_json::to_string_pretty(&weights).map_err(|e| TrainError::Io(dir.display().to_string(), e.to_string()))?;
    write("weights.json", json)?;
    write("curve.csv", curve_csv(&run.names, &run.curve))?;
    write("weights.csv", snapshots_csv(&run.names, &run.snapshots))?;
    let title = format!("{} {:?} from {:?} vs {:?}", cfg.game, cfg.algorithm, cfg.init, cfg.opponent);
    write("curve.svg", curve_svg(&title, run))?;
    write("weights.svg", weights_svg(&title, run))
}

/// `step,games,score,<weight names...>`, one row per evaluation.
pub fn curve_csv(names: &[String], curve: &[CurvePoint]) -> String {
    let mut s = String::from("step,games,score");
    for n in names {
        let _ = write!(s, ",{n}");
    }
    s.push('\n');
    for p in curve {
        let _ = write!(s, "{},{},{:.4}", p.step, p.games, p.score);
        for w in &p.weights {
            let _ = write!(s, ",{w:.6}");
        }
        s.push('\n');
    }
    s
}

/// `step,<weight names...>`, one row per snapshot.
pub fn snapshots_csv(names: &[String], snapshots: &[(u64, Vec<f64>)]) -> String {
    let mut s = String::from("step");
    for n in names {
        let _ = write!(s, ",{n}");
    }
    s.push('\n');
    for (step, ws) in snapshots {
        let _ = write!(s, "{step}");
        for w in ws {
            let _ = write!(s, ",{w:.6}");
        }
        s.push('\n');
    }
    s
}

/// Points per line in the weight plots.
pub const MAX_PLOT_POINTS: usize = 250;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// An SVG line plot of `series` (name, points) with axis labels.
pub fn line_plot(title: &str, x_label: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 420.0, 70.0, 170.0, 40.0, 50.0);
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        if x.is_finite() && y.is_finite() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1e-12 {
        x1 = x0 + 1.0;
    }
    if y1 - y0 < 1e-12 {
        (y0, y1) = (y0 - 0.5, y1 + 0.5);
    }
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom);
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#, w / 2.0, escape(title));
    let (bx, by) = (px(x0), py(y0));
    let _ = writeln!(s, r#"<line x1="{bx}" y1="{by}" x2="{}" y2="{by}" stroke="black"/>"#, px(x1));
    let _ = writeln!(s, r#"<line x1="{bx}" y1="{by}" x2="{bx}" y2="{}" stroke="black"/>"#, py(y1));
    for i in 0..=4 {
        let (fx, fy) = (x0 + (x1 - x0) * i as f64 / 4.0, y0 + (y1 - y0) * i as f64 / 4.0);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{:.0}</text>"#, px(fx), by + 18.0, fx);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{:.2}</text>"#, bx - 6.0, py(fy) + 4.0, fy);
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
        (bx + px(x1)) / 2.0,
        h - 10.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"#,
        (by + py(y1)) / 2.0,
        (by + py(y1)) / 2.0,
        escape(y_label)
    );
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = colours[i % colours.len()];
        let path: Vec<String> = points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ =
            writeln!(s, r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#, path.join(" "));
        let ly = top + 16.0 * i as f64;
        let _ =
            writeln!(s, r#"<rect x="{}" y="{}" width="12" height="3" fill="{colour}"/>"#, w - right + 10.0, ly + 4.0);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, w - right + 28.0, ly + 9.0, escape(name));
    }
    s.push_str("</svg>\n");
    s
}

/// The evaluation score over the moves of a run.
pub fn curve_svg(title: &str, run: &Checkpoint) -> String {
    let pts = run.curve.iter().map(|p| (p.step as f64, p.score)).collect();
    line_plot(title, "learner moves", "evaluation score", &[("score".to_string(), pts)])
}

/// Every weight over the moves of a run (from the snapshots, thinned to at most
/// [`MAX_PLOT_POINTS`] per line; the CSV keeps them all).
pub fn weights_svg(title: &str, run: &Checkpoint) -> String {
    let stride = run.snapshots.len().div_ceil(MAX_PLOT_POINTS).max(1);
    let series: Vec<(String, Vec<(f64, f64)>)> = run
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let points = run.snapshots.iter().step_by(stride);
            (n.clone(), points.map(|(s, w)| (*s as f64, w.get(i).copied().unwrap_or(f64::NAN))).collect())
        })
        .collect();
    line_plot(title, "learner moves", "weight", &series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_svg_hold_the_numbers() {
        let names = vec!["a".to_string(), "b<c".to_string()];
        let curve = vec![
            CurvePoint { step: 0, games: 0, score: 0.25, weights: vec![0.0, 1.0] },
            CurvePoint { step: 100, games: 4, score: 0.75, weights: vec![0.5, -1.0] },
        ];
        let csv = curve_csv(&names, &curve);
        assert_eq!(csv.lines().next(), Some("step,games,score,a,b<c"));
        assert!(csv.contains("100,4,0.7500,0.500000,-1.000000"), "{csv}");
        let svg = line_plot("t", "x", "y", &[("b<c".into(), vec![(0.0, 0.25), (100.0, 0.75)])]);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("b&lt;c") && svg.contains("<polyline"));
        // Degenerate ranges do not divide by zero.
        let flat = line_plot("t", "x", "y", &[("s".into(), vec![(5.0, 1.0)])]);
        assert!(!flat.contains("NaN"), "{flat}");
    }
}
