//! The synchronisation primitives of the four shared-state protocols: the table's entries
//! ([`crate::tt`]), the search phase ([`crate::state`]), the pondering clock
//! ([`crate::timeman`]) and the lobby where the helper threads join a search
//! ([`crate::lobby`]).
//!
//! A normal build re-exports `std`'s atomics and `parking_lot`'s `Mutex` and `Condvar`, so the
//! code is exactly what it would be with those imported directly. Built with
//! `RUSTFLAGS="--cfg loom"` (the `.ci/loom` script), the same names are loom's model-checked
//! types, and the `loom_tests` modules of those four explore every interleaving of their
//! protocol's real code. Loom's `Mutex` and `Condvar` follow `std`'s API; the thin wrappers
//! below give them `parking_lot`'s (a `lock` that returns the guard, a `wait` that takes it by
//! `&mut`), so no call site differs between the two builds.
//!
//! Loom's types only work inside `loom::model`: a loom build runs the loom tests and nothing
//! else.

pub(crate) use std::sync::atomic::Ordering;

#[cfg(not(loom))]
pub(crate) use parking_lot::{Condvar, Mutex};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
#[cfg(loom)]
pub(crate) use model::{Condvar, Mutex};

#[cfg(loom)]
mod model {
    use std::ops::{Deref, DerefMut};
    use std::sync::PoisonError;

    /// Loom's mutex with `parking_lot`'s API (no poisoning).
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

    /// Holds loom's guard; `None` only inside [`Condvar::wait`].
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Mutex<T> {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap_or_else(PoisonError::into_inner)))
        }
    }

    impl<T> Deref for MutexGuard<'_, T> {
        type Target = T;

        fn deref(&self) -> &T {
            self.0
                .as_ref()
                .expect("a guard is only empty inside Condvar::wait")
        }
    }

    impl<T> DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0
                .as_mut()
                .expect("a guard is only empty inside Condvar::wait")
        }
    }

    /// Loom's condition variable with `parking_lot`'s API.
    pub(crate) struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Condvar {
            Condvar(loom::sync::Condvar::new())
        }

        /// Releases the lock, blocks until notified, takes the lock again.
        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            let inner = guard.0.take().expect("a guard is only empty inside wait");
            guard.0 = Some(self.0.wait(inner).unwrap_or_else(PoisonError::into_inner));
        }

        pub(crate) fn notify_all(&self) {
            self.0.notify_all();
        }
    }
}
