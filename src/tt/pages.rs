//! Which pages a table gets and how it is emptied (the measurement switches), and how many of
//! its pages the kernel made huge (`/proc/self/smaps`).
//!
//! Two environment variables, read once per process, switch the table's memory for
//! measurement; they are not UCI options because a user has nothing to choose there (the
//! defaults are the fast ones, and the kernel has the last word anyway):
//! - `LAZULI_HUGE_PAGES`: `0` (or `off`): base pages only, even where the system would give
//!   huge ones; `1` (or `on`): huge pages at every size; unset or anything else: huge pages
//!   for tables of at least [`HUGE_PAGES_MIN_MB`], the system's choice below.
//! - `LAZULI_TT_CLEAR`: `discard`: `ucinewgame` and `Clear Hash` give the table's pages back
//!   to the system instead of writing zeroes over it on all cores (the default: measured in
//!   docs/measurements.md, giving a full 16 GB table's pages back answered `readyok` in 0.06 s
//!   instead of 1.0 s, but the next search ran at 2% of its speed while the kernel zeroed the
//!   pages again as it touched them).

use std::ops::Range;
use std::sync::OnceLock;

use super::memory::Pages;

/// The smallest table (MB) that asks for huge pages by default. Each huge page costs a 2 MiB
/// zeroing on its first touch where a base page costs 4 KiB: a table this large is for long
/// searches, which touch all of it and gain from the fewer TLB misses, while a small one is a
/// short game's, a test's or a fuzz input's (the C API fuzz target makes an engine per input,
/// at `Hash` 1 or 2), which touch a few pages of it.
pub(super) const HUGE_PAGES_MIN_MB: usize = 64;

/// The process's switches (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Policy {
    /// `Some(true)`: huge pages at every size; `Some(false)`: never; `None`: by size.
    huge: Option<bool>,
    /// Whether emptying a table gives its pages back (rather than writing zeroes, the
    /// default).
    discard: bool,
}

impl Policy {
    /// The switches of this process, read from the environment on first use.
    pub(super) fn get() -> Policy {
        static POLICY: OnceLock<Policy> = OnceLock::new();
        *POLICY.get_or_init(|| {
            let var = |name| std::env::var(name).ok();
            Policy::parse(
                var("LAZULI_HUGE_PAGES").as_deref(),
                var("LAZULI_TT_CLEAR").as_deref(),
            )
        })
    }

    /// The switches from the variables' values (`None`: unset).
    pub(super) fn parse(huge_pages: Option<&str>, clear: Option<&str>) -> Policy {
        let huge = match huge_pages.map(str::trim) {
            Some("0" | "off") => Some(false),
            Some("1" | "on") => Some(true),
            _ => None,
        };
        Policy {
            huge,
            discard: clear.map(str::trim) == Some("discard"),
        }
    }

    /// The pages for a table of `mb` MB.
    pub(super) fn pages(self, mb: usize) -> Pages {
        match self.huge {
            Some(true) => Pages::Huge,
            Some(false) => Pages::Base,
            None if mb >= HUGE_PAGES_MIN_MB => Pages::Huge,
            None => Pages::System,
        }
    }

    /// Whether emptying a table gives its pages back to the system.
    pub(super) fn discard(self) -> bool {
        self.discard
    }
}

/// Bytes of the mappings that overlap `ranges` (address ranges) which the kernel backs with
/// huge pages: their `AnonHugePages` in `/proc/self/smaps`. `None` where that file cannot be
/// read (a system other than Linux).
pub(super) fn huge_page_bytes(ranges: &[Range<usize>]) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    Some(huge_page_bytes_in(&smaps, ranges))
}

/// [`huge_page_bytes`] of the text of an `smaps` file. A mapping's lines follow its header
/// (`start-end perms offset device inode path`, hexadecimal addresses); a mapping the kernel
/// merged with a neighbour counts whole.
pub(super) fn huge_page_bytes_in(smaps: &str, ranges: &[Range<usize>]) -> u64 {
    let mut total = 0;
    let mut ours = false;
    for line in smaps.lines() {
        let header = line
            .split_once(' ')
            .and_then(|(span, _)| span.split_once('-'))
            .and_then(|(start, end)| {
                let hex = |s| usize::from_str_radix(s, 16).ok();
                Some(hex(start)?..hex(end)?)
            });
        if let Some(span) = header {
            ours = ranges
                .iter()
                .any(|r| r.start < span.end && span.start < r.end);
        } else if ours && let Some(rest) = line.strip_prefix("AnonHugePages:") {
            let kb = rest.trim().trim_end_matches("kB").trim();
            total += kb.parse::<u64>().unwrap_or(0) * 1024;
        }
    }
    total
}
