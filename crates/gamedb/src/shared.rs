//! One database shared by callers that take it in turn — a server's requests, the threads of
//! one Python object — each with a stop and progress figures of its own.
//!
//! Why: a [`Database`]'s [`Stopper`] and [`SearchProgress`] belong to the database, not to a
//! search. A caller that stops "its" search must reach the stopper only while its search is
//! the one running (else it stops the next caller's), a stop sent while it waits must keep
//! it from starting, a stop left by the search before must not stop it, and the figures it
//! reads must be its own. [`Shared::run`] records which [`Turn`] holds the database under a
//! lock that [`Turn::stop`] and [`Turn::progress`] take too, and clears the stop and the
//! figures only once the turn holds the database.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::{Database, SearchProgress, Stopper};

/// A database that callers take in turn (cheap to clone: every clone is the same database).
#[derive(Clone)]
pub struct Shared(Arc<Inner>);

struct Inner {
    db: Mutex<Database>,
    stopper: Stopper,
    progress: SearchProgress,
    /// The turn holding the database.
    holder: Mutex<Option<Arc<TurnState>>>,
}

/// One caller's turn at a [`Shared`] database: stopped and watched from any thread.
#[derive(Clone)]
pub struct Turn {
    state: Arc<TurnState>,
    shared: Shared,
}

#[derive(Default)]
struct TurnState {
    stopped: AtomicBool,
    /// The figures when the turn's work ended.
    finished: Mutex<Option<(u64, u64)>>,
}

/// Where a [`Turn`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnProgress {
    /// Not yet holding the database (or never run).
    Waiting,
    /// Holding it: the games its search has read and has to read (both 0 until it has
    /// counted them, and for a search that reads no games).
    Running {
        /// Games read.
        read: u64,
        /// Games to read.
        total: u64,
    },
    /// Its work has ended (or it was stopped before it began), with the last figures.
    Finished {
        /// Games read.
        read: u64,
        /// Games to read.
        total: u64,
    },
}

/// A lock, taken even from a thread that panicked while holding it (the data are plain).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Shares `db`.
    pub fn new(db: Database) -> Shared {
        Shared(Arc::new(Inner {
            stopper: db.stopper(),
            progress: db.progress(),
            db: Mutex::new(db),
            holder: Mutex::new(None),
        }))
    }

    /// A new turn, not yet waiting: pass it to [`Shared::run`].
    pub fn turn(&self) -> Turn {
        Turn { state: Arc::default(), shared: self.clone() }
    }

    /// Waits for the database, then runs `work` on it as `turn` — unless `turn` was stopped
    /// before that, when it answers `None` without running it. A stop left by an earlier turn
    /// does not reach this one, and the progress figures start from `(0, 0)`.
    pub fn run<R>(&self, turn: &Turn, work: impl FnOnce(&Database) -> R) -> Option<R> {
        let inner = &self.0;
        let db = lock(&inner.db);
        {
            let mut holder = lock(&inner.holder);
            inner.stopper.clear();
            inner.progress.reset();
            *holder = Some(turn.state.clone());
        }
        let out = if turn.is_stopped() { None } else { Some(work(&db)) };
        // Let go before the database is, so that a late stop cannot reach the next turn.
        let mut holder = lock(&inner.holder);
        *lock(&turn.state.finished) = Some(inner.progress.get());
        *holder = None;
        out
    }

    fn holds(&self, turn: &Turn, holder: &Option<Arc<TurnState>>) -> bool {
        debug_assert!(Arc::ptr_eq(&self.0, &turn.shared.0));
        holder.as_ref().is_some_and(|h| Arc::ptr_eq(h, &turn.state))
    }
}

impl Turn {
    /// Stops the turn: its work will not start, or the database gives up on it (its search
    /// returns [`crate::Error::Stopped`]).
    pub fn stop(&self) {
        self.state.stopped.store(true, Ordering::SeqCst);
        let shared = &self.shared;
        let holder = lock(&shared.0.holder);
        if shared.holds(self, &holder) {
            shared.0.stopper.stop();
        }
    }

    /// Whether [`Turn::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.state.stopped.load(Ordering::SeqCst)
    }

    /// Where the turn is, with its own figures only.
    pub fn progress(&self) -> TurnProgress {
        let shared = &self.shared;
        let holder = lock(&shared.0.holder);
        if shared.holds(self, &holder) {
            let (read, total) = shared.0.progress.get();
            return TurnProgress::Running { read, total };
        }
        match *lock(&self.state.finished) {
            Some((read, total)) => TurnProgress::Finished { read, total },
            None => TurnProgress::Waiting,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::channel;

    use super::*;
    use crate::{Anchor, Filter, ImportOptions, Pattern, PatternQuery, import};

    /// The search fixtures in a temporary database.
    fn fixtures() -> (tempfile::TempDir, Shared) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let options = ImportOptions { progress: false, ..ImportOptions::default() };
        import(&[tabula_core::testing::fixture("sgf/search")], &path, &options).unwrap();
        let db = Database::open_read_only(&path).unwrap();
        (dir, Shared::new(db))
    }

    /// A pattern search for a stone on a 3-3 point of 9x9 boards: it reads
    /// every 9x9 game.
    fn read_all(db: &Database) -> Result<usize, crate::Error> {
        let pattern = Pattern::parse("???\n???\n??X").unwrap();
        let query = PatternQuery { pattern, anchor: Anchor::Corner, swap_colors: true, size: 9 };
        Ok(db.search_pattern(&query, &Filter::default())?.hits.len())
    }

    #[test]
    fn a_stop_reaches_the_database_only_while_its_turn_holds_it() {
        let (_dir, shared) = fixtures();
        let (mine, other) = (shared.turn(), shared.turn());
        let (held, is_held) = channel();
        let (release, released) = channel::<()>();
        std::thread::scope(|s| {
            let (shared, other) = (&shared, &other);
            let running = s.spawn(move || {
                shared.run(other, |db| {
                    held.send(()).unwrap();
                    released.recv().unwrap();
                    db.stop_requested()
                })
            });
            is_held.recv().unwrap();
            // Stopped while another turn holds the database: that turn goes on unstopped.
            mine.stop();
            assert!(mine.is_stopped());
            release.send(()).unwrap();
            assert_eq!(running.join().unwrap(), Some(false));
        });
        assert_eq!(other.progress(), TurnProgress::Finished { read: 0, total: 0 });
        // The stopped turn never runs, and its stop did not reach the database.
        assert_eq!(shared.run(&mine, |db| db.stop_requested()), None);
        let third = shared.turn();
        assert_eq!(shared.run(&third, |db| db.stop_requested()), Some(false));
        // A stop while holding the database stops the search running, and not the next turn.
        let fourth = shared.turn();
        let stopped = shared.run(&fourth, |db| {
            fourth.stop();
            read_all(db)
        });
        assert!(matches!(stopped, Some(Err(crate::Error::Stopped))), "{stopped:?}");
        let fifth = shared.turn();
        assert!(shared.run(&fifth, read_all).unwrap().unwrap() > 0);
    }

    #[test]
    fn a_turn_sees_its_own_figures_from_waiting_to_finished() {
        let (_dir, shared) = fixtures();
        let first = shared.turn();
        assert!(shared.run(&first, read_all).unwrap().unwrap() > 0);
        let TurnProgress::Finished { read: nine, total } = first.progress() else { panic!("{:?}", first.progress()) };
        assert!(nine >= 2 && nine == total, "{nine} of {total}");

        let second = shared.turn();
        assert_eq!(second.progress(), TurnProgress::Waiting);
        let (step, steps) = channel::<TurnProgress>();
        let (go_on, go) = channel::<()>();
        std::thread::scope(|s| {
            let (shared, second) = (&shared, &second);
            s.spawn(move || {
                shared.run(second, |db| {
                    step.send(second.progress()).unwrap();
                    go.recv().unwrap();
                    read_all(db).unwrap();
                    step.send(second.progress()).unwrap();
                    go.recv().unwrap();
                })
            });
            // The first turn's figures were reset as this one began.
            assert_eq!(steps.recv().unwrap(), TurnProgress::Running { read: 0, total: 0 });
            // Another turn, waiting meanwhile, sees none of them.
            assert_eq!(shared.turn().progress(), TurnProgress::Waiting);
            go_on.send(()).unwrap();
            assert_eq!(steps.recv().unwrap(), TurnProgress::Running { read: nine, total: nine });
            go_on.send(()).unwrap();
        });
        assert_eq!(second.progress(), TurnProgress::Finished { read: nine, total: nine });
    }
}
