//! Where the pool's helper threads wait between searches, and how they join one.
//!
//! # Concurrency contract
//!
//! One mutex holds the [`Room`]; one condition variable signals every change, always with
//! `notify_all` while or right after the lock is held, and every waiter re-checks its
//! condition in a loop (so no wakeup is lost and a spurious one is harmless).
//!
//! - [`Lobby::open`] (the facade's `go`, when no search runs and no helper is `active`) puts
//!   the job in the room and bumps `search`: the search is open.
//! - A helper ([`Lobby::next_errand`]) joins the open search at most once per `search` value,
//!   counting itself in `active` under the lock, and [`Lobby::leave`]s it after its search,
//!   having dropped its share of the job.
//! - The main search thread, once its own search is over and the stop flag set, calls
//!   [`Lobby::close`]: the job is taken out (no helper joins after that); then, having reported
//!   the best move, [`Lobby::wait_empty`]: it waits until `active` is zero. A helper that was
//!   not scheduled in time never joins: the end of a search waits only for helpers that
//!   searched it, and `go` woke them all with one call.
//! - [`Lobby::new_game`] bumps `new_game`; each helper clears its history once per value, before
//!   joining any later search. [`Lobby::shut`] ends every helper's loop.
//!
//! `loom_tests` below checks these rules under every interleaving loom explores
//! (`.ci/loom`).

use std::sync::Arc;

use crate::sync::{Condvar, Mutex};

/// The helpers' meeting point for jobs of type `J` (the search's `Job`). See the module's
/// contract.
pub(crate) struct Lobby<J> {
    room: Mutex<Room<J>>,
    changed: Condvar,
}

struct Room<J> {
    /// The search helpers may join; `None` once closed.
    job: Option<Arc<J>>,
    /// Bumped by every search.
    search: u64,
    /// Bumped by every new game.
    new_game: u64,
    /// Helpers searching the current job.
    active: usize,
    /// The pool is being dropped.
    shutdown: bool,
}

/// What a helper is told to do when it wakes.
pub(crate) enum Errand<J> {
    Search(Arc<J>),
    ClearHistory,
    Exit,
}

/// The `search` and `new_game` values a helper has seen last.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Seen {
    search: u64,
    new_game: u64,
}

impl<J> Lobby<J> {
    pub(crate) fn new() -> Lobby<J> {
        Lobby {
            room: Mutex::new(Room {
                job: None,
                search: 0,
                new_game: 0,
                active: 0,
                shutdown: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// Opens a search of `job` and wakes every helper. No search may be open or running.
    pub(crate) fn open(&self, job: Arc<J>) {
        let mut room = self.room.lock();
        debug_assert_eq!(room.active, 0);
        room.job = Some(job);
        room.search += 1;
        self.changed.notify_all();
    }

    /// A new game: every helper clears its history before its next search.
    pub(crate) fn new_game(&self) {
        self.room.lock().new_game += 1;
        self.changed.notify_all();
    }

    /// Ends every helper's loop.
    pub(crate) fn shut(&self) {
        self.room.lock().shutdown = true;
        self.changed.notify_all();
    }

    /// A helper blocks here until there is something to do.
    pub(crate) fn next_errand(&self, seen: &mut Seen) -> Errand<J> {
        let mut room = self.room.lock();
        loop {
            if room.shutdown {
                return Errand::Exit;
            }
            if room.new_game != seen.new_game {
                seen.new_game = room.new_game;
                return Errand::ClearHistory;
            }
            if room.search != seen.search {
                seen.search = room.search;
                if let Some(job) = room.job.clone() {
                    room.active += 1;
                    return Errand::Search(job);
                }
            }
            self.changed.wait(&mut room);
        }
    }

    /// A helper has finished its search and dropped its job.
    pub(crate) fn leave(&self) {
        let mut room = self.room.lock();
        room.active -= 1;
        if room.active == 0 {
            self.changed.notify_all();
        }
    }

    /// The main search thread: no helper joins the search any more.
    pub(crate) fn close(&self) {
        self.room.lock().job = None;
    }

    /// The main search thread, after [`Lobby::close`]: returns once every helper that joined
    /// has left.
    pub(crate) fn wait_empty(&self) {
        let mut room = self.room.lock();
        debug_assert!(room.job.is_none(), "wait_empty before close");
        while room.active > 0 {
            self.changed.wait(&mut room);
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use std::sync::Arc;

    use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    use super::*;

    /// A helper's loop as the pool runs it: counts the searches it joined (the job is the
    /// search's number) and checks, while it "searches", that the search is not over yet.
    fn helper(lobby: Arc<Lobby<u64>>, over: Arc<AtomicUsize>, joined: Arc<AtomicUsize>) {
        let mut seen = Seen::default();
        loop {
            match lobby.next_errand(&mut seen) {
                Errand::Exit => return,
                Errand::ClearHistory => {}
                Errand::Search(job) => {
                    assert!(
                        over.load(SeqCst) < *job as usize,
                        "a helper searched search {job} after its main thread had finished"
                    );
                    joined.fetch_add(1, SeqCst);
                    drop(job);
                    lobby.leave();
                }
            }
        }
    }

    /// Runs `searches` searches in a row with `helpers` helpers: `wait_empty` returns only
    /// when every helper that joined has left (a helper never searches a finished search), no
    /// helper joins a search twice, and `shut` ends every helper (a lost wakeup or a missed
    /// `leave` is a loom deadlock). Preemptions bounded to 3 (loom's advice for models of
    /// this size; unbounded, two helpers and two searches ran for over ten minutes).
    fn searches_in_a_row(helpers: usize, searches: u64) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(move || {
            let lobby = Arc::new(Lobby::<u64>::new());
            let over = Arc::new(AtomicUsize::new(0));
            let joined = Arc::new(AtomicUsize::new(0));
            let threads: Vec<_> = (0..helpers)
                .map(|_| {
                    let (l, o, j) = (Arc::clone(&lobby), Arc::clone(&over), Arc::clone(&joined));
                    loom::thread::spawn(move || helper(l, o, j))
                })
                .collect();
            for search in 1..=searches {
                lobby.open(Arc::new(search));
                // The main thread's own search, then the end of the search (the pool reports
                // the best move between the two calls).
                lobby.close();
                lobby.wait_empty();
                over.store(search as usize, SeqCst);
            }
            lobby.shut();
            for t in threads {
                t.join().unwrap();
            }
            assert!(
                joined.load(SeqCst) <= helpers * searches as usize,
                "a helper joined a search twice"
            );
        });
    }

    #[test]
    fn two_helpers_one_search() {
        searches_in_a_row(2, 1);
    }

    #[test]
    fn one_helper_two_searches() {
        searches_in_a_row(1, 2);
    }

    /// A new game before a search: a helper that joins the search has cleared its history
    /// first (it sees `ClearHistory` before `Search`).
    #[test]
    fn a_new_game_is_seen_before_the_next_search() {
        loom::model(|| {
            let lobby = Arc::new(Lobby::<u64>::new());
            let l = Arc::clone(&lobby);
            let helper = loom::thread::spawn(move || {
                let mut seen = Seen::default();
                let mut cleared = false;
                loop {
                    match l.next_errand(&mut seen) {
                        Errand::Exit => return,
                        Errand::ClearHistory => cleared = true,
                        Errand::Search(_) => {
                            assert!(cleared, "searched before clearing for the new game");
                            l.leave();
                        }
                    }
                }
            });
            lobby.new_game();
            lobby.open(Arc::new(1));
            lobby.close();
            lobby.wait_empty();
            lobby.shut();
            helper.join().unwrap();
        });
    }
}
