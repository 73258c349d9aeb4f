//! Long work off the Python thread: released GIL, Ctrl-C honoured, progress reported.
//!
//! A self-play batch or a match can run for minutes. Python only handles signals on its
//! main thread, between bytecodes, so a Rust call that simply blocked would make Ctrl-C
//! wait for the end. [`run`] does the work on a thread of its own and keeps the calling
//! thread free to wake every tenth of a second, ask Python whether a signal arrived (then
//! sets the work's stop flag and raises once the work has stopped) and call a progress
//! function.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread looks for signals and reports progress.
const TICK: Duration = Duration::from_millis(100);

/// Runs `work` on another thread with the GIL released. Meanwhile, every [`TICK`] (and once
/// at the end) this thread checks for signals and calls `tick`; a signal or an error from
/// `tick` sets `stop`, waits for `work` to return and is raised (whatever `work` returned).
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    tick: impl FnMut(Python<'_>) -> PyResult<()> + Send,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    run_stopping(py, || stop.store(true, Ordering::Relaxed), tick, work)
}

/// [`run`] for work that is stopped by a call (`stop`, made at most once) rather than by a
/// flag: a database search, stopped through its database's stopper.
pub(crate) fn run_stopping<T: Send>(
    py: Python<'_>,
    stop: impl Fn() + Send + Sync,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()> + Send,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let waiter = std::thread::current();
    let done = AtomicBool::new(false);
    let mut pending: Option<PyErr> = None;
    let joined = py.detach(|| {
        std::thread::scope(|scope| {
            let handle = scope.spawn(|| {
                let out = work();
                done.store(true, Ordering::Release);
                waiter.unpark();
                out
            });
            loop {
                let finished = done.load(Ordering::Acquire) || handle.is_finished();
                if pending.is_none() {
                    Python::attach(|py| {
                        if let Err(e) = py.check_signals().and_then(|()| tick(py)) {
                            stop();
                            pending = Some(e);
                        }
                    });
                }
                if finished {
                    break;
                }
                std::thread::park_timeout(TICK);
            }
            handle.join()
        })
    });
    if let Some(e) = pending {
        return Err(e);
    }
    joined.map_err(|_| PyRuntimeError::new_err("the work stopped on an internal error"))
}
