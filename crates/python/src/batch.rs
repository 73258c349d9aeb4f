//! `tabula.self_play`: many games played in Rust threads, returned as NumPy arrays.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tabula_registry::batch::SelfPlay;

use crate::{Game, background, game_of, move_limits, py_err};

/// Plays `games` games of `game` (a `Game` or a spec) in `threads` threads and returns
/// every step as arrays: uniformly random moves (seeded by `seed` and each game's number,
/// so the same whatever `threads`), or moves chosen by `agents` (one agent spec for every
/// seat, or a list with one per seat) within `time_ms` / `nodes` per move.
///
/// A step is one player's decision. The dict holds `observations` (steps × planes ×
/// height × width, seen by the player deciding: the planes of `State.observation_tensor`,
/// as uint8 0/1 to take a quarter of the memory; left out with `observations=False`),
/// `players`, `actions`,
/// `legal_actions` with `legal_offsets` (step `s`'s legal actions are
/// `legal_actions[legal_offsets[s]:legal_offsets[s+1]]`), `game_offsets` (game `g`'s steps
/// are `game_offsets[g]:game_offsets[g+1]`), `returns` (games × players, 0..1) and
/// `truncated` (games cut at `max_plies`, scored 0.5 each). With `action_masks=True` it
/// also holds `action_masks` (steps × `num_distinct_actions()`, int8). The arrays may take
/// at most `max_bytes`; past it the run stops with `ValueError`. `progress(done, total)`
/// is called as games finish; Ctrl-C stops the run.
#[pyfunction]
#[pyo3(signature = (game, games, agents=None, threads=1, seed=0, max_plies=None, time_ms=None, nodes=None,
                    observations=true, action_masks=false, max_bytes=2usize << 30, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn self_play<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    games: usize,
    agents: Option<&Bound<'py, PyAny>>,
    threads: usize,
    seed: u64,
    max_plies: Option<u32>,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    observations: bool,
    action_masks: bool,
    max_bytes: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let game: Game = game_of(py, game)?;
    let agents: Vec<String> = match agents {
        None => Vec::new(),
        Some(a) => match a.extract::<String>() {
            Ok(one) => vec![one],
            Err(_) => {
                a.extract::<Vec<String>>().map_err(|_| PyValueError::new_err("agents: a spec or a list of specs"))?
            }
        },
    };
    let limits = move_limits(time_ms, nodes, None)?;
    let stop = Arc::new(AtomicBool::new(false));
    let config =
        SelfPlay { games, agents, limits, threads, seed, max_plies, max_bytes, observations, stop: Some(stop.clone()) };
    let done = AtomicUsize::new(0);
    let mut reported = usize::MAX;
    let start = game.start.clone();
    let tick = |py: Python<'_>| -> PyResult<()> {
        let now = done.load(Ordering::Relaxed);
        if let Some(f) = &progress
            && now != reported
        {
            reported = now;
            f.call1(py, (now, games))?;
        }
        Ok(())
    };
    let t = background::run(py, &stop, tick, || start.self_play(&config, &done))?.map_err(py_err)?;

    let out = PyDict::new(py);
    let steps = t.steps();
    let [planes, height, width] = t.shape;
    if action_masks {
        let bound = game.start.action_bound();
        let bytes = steps.saturating_mul(bound);
        if bytes > max_bytes {
            return Err(PyValueError::new_err(format!(
                "action masks of {steps} steps × {bound} actions take {bytes} bytes, more than max_bytes={max_bytes}; \
                 use legal_actions and legal_offsets"
            )));
        }
        let mut masks = vec![0i8; bytes];
        for s in 0..steps {
            for &a in &t.legal[t.legal_offsets[s] as usize..t.legal_offsets[s + 1] as usize] {
                let a = a as usize;
                if a >= bound {
                    return Err(PyValueError::new_err(format!(
                        "step {s} has action {a}, past num_distinct_actions() = {bound}: no mask can hold it; \
                         use legal_actions and legal_offsets"
                    )));
                }
                masks[s * bound + a] = 1;
            }
        }
        out.set_item("action_masks", PyArray1::from_vec(py, masks).reshape([steps, bound])?)?;
    }
    let n = t.num_players;
    let games_played = t.truncated.len();
    if observations {
        out.set_item("observations", PyArray1::from_vec(py, t.observations).reshape([steps, planes, height, width])?)?;
    }
    out.set_item("players", PyArray1::from_vec(py, t.players))?;
    out.set_item("actions", PyArray1::from_vec(py, t.actions))?;
    out.set_item("legal_actions", PyArray1::from_vec(py, t.legal))?;
    out.set_item("legal_offsets", PyArray1::from_vec(py, t.legal_offsets))?;
    out.set_item("game_offsets", PyArray1::from_vec(py, t.game_offsets))?;
    out.set_item("returns", PyArray1::from_vec(py, t.returns).reshape([games_played, n])?)?;
    out.set_item("truncated", PyArray1::from_vec(py, t.truncated))?;
    Ok(out)
}
