use super::*;
use tabula_core::Rng;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn normal_quantile_matches_known_values_and_inverts_cdf() {
    assert!(close(normal_quantile(0.975), Z95, 1e-12));
    assert!(close(normal_quantile(0.5), 0.0, 1e-14));
    assert!(close(normal_quantile(0.001), -3.090_232_306_167_813, 1e-10));
    assert!(close(normal_quantile(1e-10), -6.361_340_902_404_056, 1e-8));
    assert!(close(normal_cdf(1.0), 0.841_344_746_068_542_9, 1e-13));
    for k in 1..100 {
        let p = k as f64 / 100.0;
        assert!(close(normal_cdf(normal_quantile(p)), p, 1e-13), "{p}");
    }
    assert!(normal_quantile(1.5).is_nan());
    assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
}

#[test]
fn elo_and_score_are_inverse() {
    assert!(close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-9));
    assert!(close(score_from_elo(400.0), 10.0 / 11.0, 1e-12));
    for e in [-600.0, -35.0, 0.0, 12.5, 300.0] {
        assert!(close(elo_from_score(score_from_elo(e)), e, 1e-9));
    }
    assert_eq!(elo_from_score(1.0), f64::INFINITY);
}

#[test]
fn wld_summary_by_hand() {
    // +30 -20 =50: score 0.55; per-game variance
    // (30·0.45² + 50·0.05² + 20·0.55²)/100 = 0.1225, standard error 0.035.
    let r = Wld::new(30, 20, 50);
    assert_eq!(r.games(), 100);
    assert!(close(r.points(), 55.0, 0.0));
    assert!(close(r.score(), 0.55, 1e-15));
    assert!(close(r.draw_ratio(), 0.5, 1e-15));
    assert!(close(r.variance(), 0.1225, 1e-15));
    let s = r.score_estimate(0.95);
    assert!(close(s.std_error, 0.035, 1e-15));
    assert!(close(s.low, 0.55 - Z95 * 0.035, 1e-12));
    let e = r.elo();
    // -400·log10(1/0.55 - 1) and the ends mapped through the same curve.
    assert!(close(e.elo, 34.860_070_287_560_08, 1e-9));
    assert!(close(e.low, -12.929_693_470_337_863, 1e-8));
    assert!(close(e.high, 84.010_762_649_402_47, 1e-8));
    assert!(close(e.margin, 48.470_228_059_870_166, 1e-8));
    // LOS = Φ((30-20)/sqrt(50)).
    assert!(close(r.los(), 0.921_350_396_474_857_4, 1e-12));
    assert_eq!(Wld::new(0, 0, 7).los(), 0.5);
    assert_eq!(r.flipped().flipped(), r);
    assert!(close(r.flipped().elo().elo, -e.elo, 1e-9));
}

#[test]
fn wld_add_classifies_scores() {
    let mut r = Wld::default();
    for s in [1.0, 0.0, 0.5, 0.5, 1.0] {
        r.add(s);
    }
    assert_eq!(r, Wld::new(2, 1, 2));
}

#[test]
fn pentanomial_by_hand() {
    // 10 pairs: 1×LL, 2×LD, 4×(WL or DD), 2×DW, 1×WW. Per-game pair scores 0, .25, .5, .75, 1.
    let p = Penta { counts: [1, 2, 4, 2, 1] };
    assert_eq!(p.pairs(), 10);
    assert!(close(p.score(), 0.5, 1e-15));
    // Variance: (2·0.25² + 4·0.0625² ... ) computed directly: (1·.25 + 2·.0625 + 0 + 2·.0625 + 1·.25)/10.
    assert!(close(p.variance(), 0.075, 1e-15));
    assert!(close(p.elo().elo, 0.0, 1e-9));
    let half = Z95 * (0.075f64 / 10.0).sqrt();
    assert!(close(p.elo().high, elo_from_score(0.5 + half), 1e-9));
    let mut q = Penta::default();
    q.add_pair(1.0, 0.5);
    q.add_pair(0.0, 0.0);
    q.add_pair(0.5, 0.5);
    assert_eq!(q.counts, [1, 0, 1, 1, 0]);
}

#[test]
fn sprt_rejects_bad_parameters_and_has_wald_bounds() {
    assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
    assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
    assert!(Sprt::new(0.0, f64::NAN, 0.05, 0.05).is_err());
    let t = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("valid");
    let (lo, hi) = t.bounds();
    assert!(close(lo, -(19f64.ln()), 1e-12));
    assert!(close(hi, 19f64.ln(), 1e-12));
    let t = Sprt::new(0.0, 5.0, 0.05, 0.1).expect("valid");
    assert!(close(t.bounds().0, (0.1f64 / 0.95).ln(), 1e-12));
    assert!(close(t.bounds().1, (0.9f64 / 0.05).ln(), 1e-12));
    assert_eq!(t.status(3.0).decision, SprtDecision::AcceptH1);
    assert_eq!(t.status(-2.3).decision, SprtDecision::AcceptH0);
    assert_eq!(t.status(0.1).decision, SprtDecision::Continue);
}

#[test]
fn gsprt_without_draws_is_the_binomial_llr() {
    // With only wins and losses the constrained maximum is the binomial with p = s, so
    // LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0)); the 1e-3 pseudo-draw moves it very little.
    let t = Sprt::new(-10.0, 30.0, 0.05, 0.05).expect("valid");
    let (s0, s1) = (score_from_elo(-10.0), score_from_elo(30.0));
    for (w, l) in [(120u64, 100u64), (50, 80), (400, 380)] {
        let expect = w as f64 * (s1 / s0).ln() + l as f64 * ((1.0 - s1) / (1.0 - s0)).ln();
        let got = t.llr_trinomial(&Wld::new(w, l, 0));
        assert!(close(got, expect, 2e-3), "{w}-{l}: {got} vs {expect}");
    }
}

/// The constrained maximum likelihood of a trinomial sample with mean score `s`, found by
/// ternary search over p_win (p_draw = 2(s - p_win), p_loss = 1 - 2s + p_win).
fn brute_force_loglik(w: f64, l: f64, d: f64, s: f64) -> f64 {
    let ll = |pw: f64| {
        let pd = 2.0 * (s - pw);
        let pl = 1.0 - 2.0 * s + pw;
        w * pw.ln() + d * pd.ln() + l * pl.ln()
    };
    let (mut lo, mut hi) = ((2.0 * s - 1.0).max(0.0), s);
    for _ in 0..300 {
        let a = lo + (hi - lo) / 3.0;
        let b = hi - (hi - lo) / 3.0;
        if ll(a) < ll(b) {
            lo = a;
        } else {
            hi = b;
        }
    }
    ll(0.5 * (lo + hi))
}

#[test]
fn gsprt_with_draws_matches_brute_force_maximum() {
    let t = Sprt::new(0.0, 10.0, 0.05, 0.05).expect("valid");
    let (s0, s1) = (score_from_elo(0.0), score_from_elo(10.0));
    for (w, l, d) in [(300u64, 270u64, 430u64), (40, 60, 100), (1000, 900, 3100)] {
        let (wf, lf, df) = (w as f64, l as f64, d as f64);
        let expect = brute_force_loglik(wf, lf, df, s1) - brute_force_loglik(wf, lf, df, s0);
        let got = t.llr_trinomial(&Wld::new(w, l, d));
        assert!(close(got, expect, 1e-6), "{w}-{l}-{d}: {got} vs {expect}");
    }
}

#[test]
fn gsprt_agrees_with_normal_approximation_for_large_samples() {
    // For many games and nearby hypotheses, LLR ≈ N (s1-s0)(2μ - s0 - s1) / (2σ²)
    // (fishtest's quick approximation).
    let t = Sprt::new(0.0, 2.0, 0.05, 0.05).expect("valid");
    let r = Wld::new(24_400, 23_600, 52_000);
    let (s0, s1) = (score_from_elo(0.0), score_from_elo(2.0));
    let n = r.games() as f64;
    let approx = n * (s1 - s0) * (2.0 * r.score() - s0 - s1) / (2.0 * r.variance());
    let got = t.llr_trinomial(&r);
    assert!(close(got, approx, 0.02 * approx.abs()), "{got} vs {approx}");
    // Pentanomial: the same with the pair variance and pair count (scores per game).
    let p = Penta { counts: [400, 5_000, 14_000, 5_400, 450] };
    let pairs = p.pairs() as f64;
    let approx = pairs * (s1 - s0) * (2.0 * p.score() - s0 - s1) / (2.0 * p.variance());
    let got = t.llr_pentanomial(&p);
    assert!(close(got, approx, 0.02 * approx.abs()), "{got} vs {approx}");
}

#[test]
fn gsprt_sign_follows_the_evidence() {
    let t = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("valid");
    assert!(t.llr_trinomial(&Wld::new(600, 400, 1000)) > 0.0);
    assert!(t.llr_trinomial(&Wld::new(400, 600, 1000)) < 0.0);
    assert_eq!(t.llr_trinomial(&Wld::default()), 0.0);
    assert_eq!(t.status(t.llr_trinomial(&Wld::new(2600, 2000, 5000))).decision, SprtDecision::AcceptH1);
}

#[test]
fn bayeselo_sprt_by_hand() {
    // +30 -20 =50: w = .3, l = .2, drawelo = 200 log10((.8/.2)(.7/.3)) = 194.007...
    let t = Sprt::new(0.0, 10.0, 0.05, 0.05).expect("valid").with_model(SprtModel::BayesElo);
    let r = Wld::new(30, 20, 50);
    let drawelo = 200.0 * (4.0f64 * 7.0 / 3.0).log10();
    assert!(close(drawelo, 194.007_355_324_511_37, 1e-9));
    let (w0, l0, d0) = bayeselo_probabilities(0.0, drawelo);
    assert!(close(w0, l0, 1e-15));
    assert!(close(w0 + l0 + d0, 1.0, 1e-15));
    // At elo 0 with the sample's own draw Elo, the model reproduces... p_win = 1/(1+10^(drawelo/400)).
    assert!(close(w0, 1.0 / (1.0 + 10f64.powf(drawelo / 400.0)), 1e-15));
    assert!(close(t.llr_trinomial(&r), 0.387_485_843_379_406_6, 1e-9));
    // No draws: undefined, reported as 0.
    assert_eq!(t.llr_trinomial(&Wld::new(5, 3, 0)), 0.0);
}

/// Runs SPRTs on simulated games with true Elo `elo` and draw probability 0.4; returns how
/// many of `runs` accepted H1.
fn simulate(t: &Sprt, elo: f64, runs: usize, seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let s = score_from_elo(elo);
    let (pd, pw) = (0.4, s - 0.2);
    let mut h1 = 0;
    for _ in 0..runs {
        let mut r = Wld::default();
        loop {
            for _ in 0..8 {
                let u = rng.unit();
                r.add(if u < pw {
                    1.0
                } else if u < pw + pd {
                    0.5
                } else {
                    0.0
                });
            }
            match t.status(t.llr_trinomial(&r)).decision {
                SprtDecision::Continue if r.games() < 200_000 => {}
                SprtDecision::AcceptH1 => {
                    h1 += 1;
                    break;
                }
                _ => break,
            }
        }
    }
    h1
}

#[test]
fn sprt_error_rates_hold_in_simulation() {
    let t = Sprt::new(0.0, 40.0, 0.05, 0.05).expect("valid");
    let runs = 300;
    let false_positives = simulate(&t, 0.0, runs, 1);
    let true_positives = simulate(&t, 40.0, runs, 2);
    // Nominal rates are 5% each; allow for sampling noise (sd ≈ 3.8 runs).
    assert!(false_positives <= 30, "{false_positives} of {runs}");
    assert!(true_positives >= runs - 30, "{true_positives} of {runs}");
    // Between the hypotheses the test splits.
    let mid = simulate(&t, 20.0, runs, 3);
    assert!(mid > 60 && mid < 240, "{mid}");
}

#[test]
fn two_player_rating_is_the_logistic_difference() {
    // 100 games, 75 points: diff = 400 log10(3); Fisher variance of the difference
    // 1 / (k² n p (1-p)) with k = ln10/400, p = 0.75.
    let mut t = PairTable::new(2);
    t.add(0, 1, 100.0, 75.0);
    let r = fit_ratings(&t, &RatingOptions::default()).expect("fit");
    let diff = 400.0 * 3f64.log10();
    assert!(close(r.elo[0], diff / 2.0, 1e-7), "{:?}", r.elo);
    assert!(close(r.elo[1], -diff / 2.0, 1e-7));
    let k = std::f64::consts::LN_10 / 400.0;
    let sd_diff = 1.0 / (k * (100.0f64 * 0.75 * 0.25).sqrt());
    assert!(close(r.error95[0], Z95 * sd_diff / 2.0, 1e-6), "{:?}", r.error95);
    let anchored =
        fit_ratings(&t, &RatingOptions { anchor: Anchor::Player(0), prior_draws: 0.0, ..RatingOptions::default() })
            .expect("fit");
    assert!(close(anchored.elo[0], 0.0, 1e-12));
    assert!(close(anchored.elo[1], -diff, 1e-7));
    assert_eq!(anchored.error95[0], 0.0);
    assert!(close(anchored.error95[1], Z95 * sd_diff, 1e-6));
    // Agrees with the match formula's Elo interval (binomial, no draws) to first order.
    let m = Wld::new(75, 25, 0);
    assert!(close(m.elo().elo, diff, 1e-9));
}

#[test]
fn three_player_ratings_are_recovered_from_expected_scores() {
    let truth = [120.0, 0.0, -200.0];
    let mut t = PairTable::new(3);
    for i in 0..3 {
        for j in i + 1..3 {
            let n = 1000.0;
            t.add(i, j, n, n * score_from_elo(truth[i] - truth[j]));
        }
    }
    let r = fit_ratings(&t, &RatingOptions { anchor: Anchor::Player(1), prior_draws: 0.0, ..RatingOptions::default() })
        .expect("fit");
    for i in 0..3 {
        assert!(close(r.elo[i], truth[i], 1e-6), "{:?}", r.elo);
    }
    let m = fit_ratings(&t, &RatingOptions::default()).expect("fit");
    let mean = truth.iter().sum::<f64>() / 3.0;
    for i in 0..3 {
        assert!(close(m.elo[i], truth[i] - mean, 1e-6));
        assert!(m.error95[i] > 0.0 && m.error95[i] < 20.0);
    }
    // Points follow the fit: each player's expected score equals its actual score.
    for i in 0..3 {
        let expect: f64 = (0..3).filter(|&j| j != i).map(|j| t.games(i, j) * score_from_elo(m.elo[i] - m.elo[j])).sum();
        assert!(close(expect, t.total_points(i), 1e-6));
    }
}

#[test]
fn rating_fit_detects_unbounded_and_disconnected_tables() {
    let mut t = PairTable::new(2);
    t.add(0, 1, 10.0, 10.0);
    assert_eq!(fit_ratings(&t, &RatingOptions::default()), Err(StatsError::Unbounded(0)));
    // One virtual draw: 10.5 of 11 points, diff = 400 log10(21).
    let r = fit_ratings(&t, &RatingOptions { anchor: Anchor::Player(1), prior_draws: 1.0, ..RatingOptions::default() })
        .expect("fit");
    assert!(close(r.elo[0], 400.0 * 21f64.log10(), 1e-6));
    let mut t = PairTable::new(4);
    t.add(0, 1, 4.0, 2.0);
    t.add(2, 3, 4.0, 2.0);
    assert!(matches!(fit_ratings(&t, &RatingOptions::default()), Err(StatsError::Disconnected(0, _))));
    assert!(
        fit_ratings(&t, &RatingOptions { anchor: Anchor::Player(9), prior_draws: 0.0, ..RatingOptions::default() })
            .is_err()
    );
    // Self-games and out-of-range players are ignored.
    t.add(1, 1, 5.0, 5.0);
    t.add(7, 1, 5.0, 5.0);
    assert_eq!(t.games(1, 1), 0.0);
}

#[test]
fn rating_fit_converges_for_a_wide_spread() {
    // A chain where each player scores 90% against the next: gaps of 400 log10 9 ≈ 382.
    let n = 6;
    let mut t = PairTable::new(n);
    for i in 0..n - 1 {
        t.add(i, i + 1, 100.0, 90.0);
    }
    let r = fit_ratings(&t, &RatingOptions::default()).expect("fit");
    for i in 0..n - 1 {
        assert!(close(r.elo[i] - r.elo[i + 1], 400.0 * 9f64.log10(), 1e-6));
    }
    assert!(close(r.elo.iter().sum::<f64>(), 0.0, 1e-6));
    // Ends of the chain are less certain than the middle.
    assert!(r.error95[0] > r.error95[2]);
}

#[test]
fn normalized_elo_by_hand() {
    // +30 -20 =50: σ = sqrt(0.1225) = 0.35, t = 0.05 / 0.35, nElo = t · 800/ln10.
    let r = Wld::new(30, 20, 50);
    let e = r.normalized_elo();
    assert!(close(NELO_PER_T, 347.435_585_522_005_4, 1e-9));
    assert!(close(e.elo, 0.05 / 0.35 * NELO_PER_T, 1e-9));
    assert!(close(e.high - e.elo, Z95 * 0.035 / 0.35 * NELO_PER_T, 1e-9));
    // Pairs: σ per game is sqrt(2 · pair variance).
    let p = Penta { counts: [0, 2, 4, 3, 1] };
    let mean = (2.0 * 0.25 + 4.0 * 0.5 + 3.0 * 0.75 + 1.0) / 10.0;
    let var = (2.0 * (0.25f64 - mean).powi(2)
        + 4.0 * (0.5f64 - mean).powi(2)
        + 3.0 * (0.75f64 - mean).powi(2)
        + (1.0f64 - mean).powi(2))
        / 10.0;
    assert!(close(p.normalized_elo().elo, (mean - 0.5) / (2.0 * var).sqrt() * NELO_PER_T, 1e-9));
    // No decisive spread at all: a perfect score has an infinite margin, no games a NaN one.
    assert_eq!(Wld::new(5, 0, 0).elo().margin, f64::INFINITY);
    assert!(Wld::default().elo().margin.is_nan());
}

#[test]
fn normalized_sprt_matches_the_logistic_test_with_converted_bounds() {
    // Convert logistic bounds to normalized Elo with the sample's σ; the two LLRs then agree
    // to first order for a large sample.
    let r = Wld::new(25_300, 24_700, 50_000);
    let sigma = r.variance().sqrt();
    let to_nelo = |e: f64| (score_from_elo(e) - 0.5) / sigma * NELO_PER_T;
    let logistic = Sprt::new(0.0, 3.0, 0.05, 0.05).expect("valid");
    let normalized =
        Sprt::new(to_nelo(0.0), to_nelo(3.0), 0.05, 0.05).expect("valid").with_model(SprtModel::Normalized);
    let (a, b) = (logistic.llr_trinomial(&r), normalized.llr_trinomial(&r));
    assert!(close(a, b, 0.02 * a.abs()), "{a} vs {b}");
    // Hand formula: N (t1 - t0)(2t̂ - t0 - t1)/2.
    let t_hat = (r.score() - 0.5) / sigma;
    let (t0, t1) = (to_nelo(0.0) / NELO_PER_T, to_nelo(3.0) / NELO_PER_T);
    assert!(close(b, 100_000.0 * (t1 - t0) * (2.0 * t_hat - t0 - t1) / 2.0, 1e-6 * b.abs()));
    // Pairs use twice the pair count as games.
    let p = Penta { counts: [300, 4_000, 11_000, 4_300, 400] };
    let var = p.variance();
    let t_hat = (p.score() - 0.5) / (2.0 * var).sqrt();
    let n = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("valid").with_model(SprtModel::Normalized);
    let (t0, t1) = (0.0, 5.0 / NELO_PER_T);
    let expect = 2.0 * p.pairs() as f64 * (t1 - t0) * (2.0 * t_hat - t0 - t1) / 2.0;
    assert!(close(n.llr_pentanomial(&p), expect, 1e-6 * expect.abs()));
    // Every game won: the regularised variance keeps the LLR finite and positive.
    assert!(n.llr_trinomial(&Wld::new(50, 0, 0)) > 0.0);
}

#[test]
fn sprt_from_spec() {
    let parse = |t: &str| Sprt::from_spec(&Spec::parse(t).expect("spec"));
    let t = parse("sprt").expect("defaults");
    assert_eq!(
        (t.elo0, t.elo1, t.alpha, t.beta, t.model, t.pentanomial),
        (0.0, 5.0, 0.05, 0.05, SprtModel::Logistic, false)
    );
    let t = parse("sprt(elo0=-1.5,elo1=3,alpha=0.01,beta=0.1,model=normalized,pairs=true)").expect("spec");
    assert_eq!(
        (t.elo0, t.elo1, t.alpha, t.beta, t.model, t.pentanomial),
        (-1.5, 3.0, 0.01, 0.1, SprtModel::Normalized, true)
    );
    assert!(matches!(parse("sprt(elo0=5,elo1=1)"), Err(SpecError::BadValue { ref key, .. }) if key == "elo1"));
    assert!(matches!(parse("sprt(alpha=0.7)"), Err(SpecError::BadValue { ref key, .. }) if key == "alpha"));
    assert!(
        matches!(parse("sprt(model=bayeselo,pairs=yes)"), Err(SpecError::BadValue { ref key, .. }) if key == "pairs")
    );
    assert!(matches!(parse("sprt(model=other)"), Err(SpecError::BadValue { .. })));
    assert!(matches!(parse("sprt(gamma=1)"), Err(SpecError::UnknownParam { .. })));
    assert!(matches!(parse("sptr"), Err(SpecError::UnknownName { .. })));
}

#[test]
fn pentanomial_gsprt_on_even_pairs_matches_the_trinomial_maximum() {
    // Pairs scoring only 0, 1 or 2 points are games with outcomes 0, ½ and 1 (per game); the
    // pentanomial constrained maximum then equals the trinomial one up to the 1e-3 pseudo-counts.
    let t = Sprt::new(0.0, 10.0, 0.05, 0.05).expect("valid");
    let (s0, s1) = (score_from_elo(0.0), score_from_elo(10.0));
    let (w, l, d) = (310.0, 280.0, 410.0);
    let expect = brute_force_loglik(w, l, d, s1) - brute_force_loglik(w, l, d, s0);
    let got = t.llr_pentanomial(&Penta { counts: [280, 0, 410, 0, 310] });
    assert!(close(got, expect, 1e-3 * expect.abs()), "{got} vs {expect}");
}

#[test]
fn bootstrap_errors_agree_with_fisher_without_draws_and_shrink_with_draws() {
    let k = std::f64::consts::LN_10 / 400.0;
    // 400 decisive games at 50%: Fisher half width of each rating (mean anchor) is
    // Z95 · (1 / (k sqrt(400 · 0.25))) / 2.
    let fisher = Z95 / (k * (400.0f64 * 0.25).sqrt()) / 2.0;
    let decisive = [(0, 1, Wld::new(200, 200, 0))];
    let b = bootstrap_errors(&decisive, 2, &RatingOptions::default(), 400, 7).expect("bootstrap");
    assert!((b[0] / fisher - 1.0).abs() < 0.12, "{} vs {fisher}", b[0]);
    assert!(close(b[0], b[1], 1e-9), "symmetric around the mean");
    // Half the games drawn: the per-game variance halves, so the bars shrink by sqrt(1/2).
    let drawish = [(0, 1, Wld::new(100, 100, 200))];
    let d = bootstrap_errors(&drawish, 2, &RatingOptions::default(), 400, 7).expect("bootstrap");
    let ratio = d[0] / fisher;
    assert!((ratio - 0.5f64.sqrt()).abs() < 0.1, "{ratio}");
    // Seeded: the same seed gives the same bars.
    assert_eq!(d, bootstrap_errors(&drawish, 2, &RatingOptions::default(), 400, 7).expect("bootstrap"));
    // A table without finite ratings is reported, not resampled.
    let perfect = [(0, 1, Wld::new(10, 0, 0))];
    assert_eq!(bootstrap_errors(&perfect, 2, &RatingOptions::default(), 10, 1), Err(StatsError::Unbounded(0)));
}

#[test]
fn score_intervals_stay_inside_zero_one_and_sweeps_are_not_certain() {
    let sweep = Wld::new(40, 0, 0).score_estimate(0.95);
    assert_eq!(sweep.score, 1.0);
    assert!(close(sweep.low, 1.0 / (1.0 + Z95 * Z95 / 40.0), 1e-12), "{}", sweep.low);
    assert_eq!(sweep.high, 1.0);
    let near = Wld::new(39, 1, 0).score_estimate(0.95);
    assert!(near.low > 0.85 && near.low < 0.975 && near.high <= 1.0, "{near:?}");
    let lost = Wld::new(0, 10, 0).score_estimate(0.95);
    assert!(lost.low == 0.0 && lost.high > 0.2 && lost.high < 0.35, "{lost:?}");
    // Away from the edges the interval is the usual normal one.
    let mid = Wld::new(30, 20, 10).score_estimate(0.95);
    assert!(close(mid.high - mid.score, mid.score - mid.low, 1e-12));
    assert!(Wld::new(40, 0, 0).elo().low.is_finite());
}
