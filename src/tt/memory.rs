//! The table's memory: zeroed values in an anonymous mapping of their own, in 2 MiB huge pages
//! where they are asked for and the kernel gives them. With `src/ffi/`, the only `unsafe` of
//! the crate (each block with its `// SAFETY:` argument).
//!
//! `memmap2` maps the memory (private, anonymous: the system hands out zero pages as they are
//! first touched, so a mapping of any size costs no write), advises it and unmaps it on drop,
//! all through its safe API. What it cannot give safely is a view of the mapped bytes as `[T]`
//! ([`Zeroed::as_slice`]) and the advice that drops the pages' contents
//! ([`Zeroed::discard`]): those are the two blocks below.
//!
//! Under loom (`--cfg loom`) the values are loom's atomics, which cannot live in zeroed
//! memory: the loom build keeps them in a `Box` and has no `unsafe`.

#[cfg(not(loom))]
pub(super) use mapped::Zeroed;

#[cfg(loom)]
pub(super) use boxed::Zeroed;

/// The huge page size a huge mapping is aligned to (x86-64's, and arm64's with 4 KiB pages).
pub(super) const HUGE_PAGE: usize = 2 << 20;

/// Which pages to ask the system for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pages {
    /// 2 MiB pages where the kernel gives them (`madvise(MADV_HUGEPAGE)` on a mapping aligned
    /// to 2 MiB, Linux only), silently the ordinary ones where it does not.
    Huge,
    /// No advice: the system's policy (on Linux, transparent huge pages if its mode is
    /// `always`, none if `madvise` or `never`).
    System,
    /// The ordinary base pages only (`MADV_NOHUGEPAGE` on Linux): the off switch.
    Base,
}

#[cfg(not(loom))]
mod mapped {
    use std::marker::PhantomData;

    use bytemuck::Zeroable;
    use memmap2::{MmapMut, MmapOptions};

    use super::{HUGE_PAGE, Pages};

    /// `len` values of `T`, every bit zero at first, in a private anonymous mapping of their
    /// own, which goes back to the system when this is dropped.
    ///
    /// `Send` and `Sync` as `T` is (the `PhantomData`): the values are shared by `&[T]`.
    pub(in crate::tt) struct Zeroed<T> {
        map: MmapMut,
        /// Bytes from the mapping's start to the first value (0, or up to the next 2 MiB
        /// boundary for huge pages).
        offset: usize,
        len: usize,
        values: PhantomData<T>,
    }

    impl<T: Zeroable> Zeroed<T> {
        /// What [`Zeroed::as_slice`] relies on: any page-aligned address (alignments are powers
        /// of two, so a 2 MiB boundary too) suits `T`.
        const FITS_A_PAGE: () = assert!(align_of::<T>() <= 4096 && size_of::<T>() > 0);

        /// `len` zeroed values (at least one) in pages of the kind asked for; `None` when the
        /// system refuses the memory. Nothing is written and nothing becomes resident.
        pub(in crate::tt) fn new(len: usize, pages: Pages) -> Option<Zeroed<T>> {
            let () = Self::FITS_A_PAGE;
            let len = len.max(1);
            let bytes = len.checked_mul(size_of::<T>())?;
            let huge = pages == Pages::Huge && cfg!(target_os = "linux");
            // A huge mapping starts at the first 2 MiB boundary of one 2 MiB longer, and ends
            // on one, so that each of its huge pages lies wholly inside it (the kernel backs
            // only those with a huge page). The slack is address space, never touched.
            let map_len = if huge {
                bytes
                    .checked_next_multiple_of(HUGE_PAGE)?
                    .checked_add(HUGE_PAGE)?
            } else {
                bytes
            };
            let map = MmapOptions::new().len(map_len).map_anon().ok()?;
            let offset = if huge {
                map.as_ptr().addr().next_multiple_of(HUGE_PAGE) - map.as_ptr().addr()
            } else {
                0
            };
            // Silently the base pages where the kernel refuses the advice.
            advise(&map, pages);
            Some(Zeroed {
                map,
                offset,
                len,
                values: PhantomData,
            })
        }

        /// The values. Every access to them is through this shared slice.
        pub(in crate::tt) fn as_slice(&self) -> &[T] {
            // SAFETY: the pointer is the mapping's start plus `offset`, which `new` chose so
            // that `offset + len * size_of::<T>()` bytes lie inside the mapping (`map_len`), so
            // both `add` and the slice stay in one live allocation, and `len * size_of::<T>()`
            // is at most `isize::MAX` since the system mapped that many bytes.
            // Alignment: the mapping is page-aligned and `offset` is 0 or makes the start a
            // 2 MiB boundary; `FITS_A_PAGE` checks both suit `align_of::<T>()`.
            // Validity: the bytes are zero when the mapping is made and when the pages are
            // dropped (`discard`); otherwise they change only through `T`'s own methods on
            // this slice. `T: Zeroable` promises that all-zero bytes are a valid `T`.
            // Lifetime and aliasing: the slice borrows `self`, which owns the mapping and
            // unmaps it only on drop; no `&mut` to the bytes is ever made (`MmapMut`'s
            // `DerefMut` is never called), and `discard` takes `&mut self`, so no slice lives
            // while the pages are dropped. Writes through `&[T]` are sound only for `T` with
            // interior mutability, which the table's atomics are: for any other `T` the slice
            // is read-only as usual.
            unsafe {
                std::slice::from_raw_parts(self.map.as_ptr().add(self.offset).cast::<T>(), self.len)
            }
        }

        /// Gives the pages back to the system: every value reads zero again, and a page
        /// becomes resident when next touched (Linux's `MADV_DONTNEED` on a private anonymous
        /// mapping). `false` where that is not available or failed; then some values may
        /// still hold what they held, and the caller writes zeroes.
        pub(in crate::tt) fn discard(&mut self) -> bool {
            #[cfg(target_os = "linux")]
            {
                use memmap2::UncheckedAdvice;
                // SAFETY: memmap2 marks this advice unsafe because it changes the bytes of a
                // private mapping to zero behind any borrow of them. `&mut self` rules out a
                // live borrow: every view of the bytes is a slice borrowed from `self`
                // (`as_slice`). Zero bytes are a valid `T` (`T: Zeroable`), the state `new`
                // starts from. The range is the whole mapping, owned by `self` alone.
                unsafe { self.map.unchecked_advise(UncheckedAdvice::DontNeed) }.is_ok()
            }
            #[cfg(not(target_os = "linux"))]
            false
        }
    }

    /// Gives the advice for `pages` (none for [`Pages::System`]). A kernel without
    /// transparent huge pages refuses it, and other systems have none: nothing to do then.
    fn advise(map: &MmapMut, pages: Pages) {
        #[cfg(target_os = "linux")]
        {
            use memmap2::Advice;
            let advice = match pages {
                Pages::Huge => Advice::HugePage,
                Pages::Base => Advice::NoHugePage,
                Pages::System => return,
            };
            let _refused = map.advise(advice);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (map, pages);
    }
}

#[cfg(loom)]
mod boxed {
    use super::Pages;

    /// Loom's build: `len` default values in a `Box` (see the module documentation).
    pub(in crate::tt) struct Zeroed<T>(Box<[T]>);

    impl<T: Default> Zeroed<T> {
        pub(in crate::tt) fn new(len: usize, _: Pages) -> Option<Zeroed<T>> {
            Some(Zeroed((0..len.max(1)).map(|_| T::default()).collect()))
        }

        pub(in crate::tt) fn as_slice(&self) -> &[T] {
            &self.0
        }

        pub(in crate::tt) fn discard(&mut self) -> bool {
            false
        }
    }
}
