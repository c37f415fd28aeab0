//! The study's tables: total nodes and solved positions per mode and depth (the paper's
//! Tables 1 to 6), and the rows as CSV.

use super::{Mode, NullModeKey, StudyReport};

impl StudyReport {
    /// Total nodes of `mode` at `depth` over every studied position.
    pub fn total_nodes(&self, mode: Mode, depth: u32) -> u64 {
        let name = mode.name();
        self.rows
            .iter()
            .filter(|r| r.mode == name && r.depth == depth)
            .map(|r| r.nodes)
            .sum()
    }

    /// Positions solved by `mode` at `depth`, and how many could be.
    pub fn solved(&self, mode: Mode, depth: u32) -> (usize, usize) {
        let name = mode.name();
        let rows = self
            .rows
            .iter()
            .filter(|r| r.mode == name && r.depth == depth && r.solved.is_some());
        rows.fold((0, 0), |(s, n), r| {
            (s + usize::from(r.solved == Some(true)), n + 1)
        })
    }

    /// The mode the percentages are taken against: the paper's verified R = 3 (its tables'
    /// reference), else lazuli's verified R = 3.
    fn reference(&self) -> Option<Mode> {
        [NullModeKey::Paper, NullModeKey::Verified]
            .into_iter()
            .map(|null_move| Mode { null_move, r: 3 })
            .find(|m| self.modes.contains(m))
    }

    /// The summary tables in Markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "{} positions in the suite, {} left out as king and pawns only, {} studied{}.\n\n",
            self.suite_positions,
            self.skipped_kp,
            self.studied,
            if self.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        );
        let header = |s: &mut String, first: &str| {
            s.push_str(&format!("| {first} |"));
            for m in &self.modes {
                s.push_str(&format!(" {} |", m.name()));
            }
            s.push_str("\n|---|");
            for _ in &self.modes {
                s.push_str("---:|");
            }
            s.push('\n');
        };
        s.push_str("Total nodes");
        if let Some(r) = self.reference() {
            s.push_str(&format!(" (percentage against {})", r.name()));
        }
        s.push_str(":\n\n");
        header(&mut s, "depth");
        for &d in &self.depths {
            s.push_str(&format!("| {d} |"));
            let reference = self.reference().map(|r| self.total_nodes(r, d));
            for &m in &self.modes {
                let n = self.total_nodes(m, d);
                let pct = match reference {
                    Some(base) if base > 0 && Some(m) != self.reference() => {
                        format!(" ({:+.1}%)", (n as f64 / base as f64 - 1.0) * 100.0)
                    }
                    _ => String::new(),
                };
                s.push_str(&format!(" {}{pct} |", thousands(n)));
            }
            s.push('\n');
        }
        if self.rows.iter().any(|r| r.solved.is_some()) {
            s.push_str("\nSolved positions:\n\n");
            header(&mut s, "depth");
            for &d in &self.depths {
                s.push_str(&format!("| {d} |"));
                for &m in &self.modes {
                    let (solved, of) = self.solved(m, d);
                    s.push_str(&format!(" {solved} / {of} |"));
                }
                s.push('\n');
            }
        }
        s
    }

    /// The rows as CSV.
    pub fn csv(&self) -> String {
        let mut s = String::from("position,id,mode,depth,nodes,time_ms,best,score,solved\n");
        for r in &self.rows {
            let solved = r.solved.map_or(String::new(), |b| b.to_string());
            s.push_str(&format!(
                "{},\"{}\",{},{},{},{},{},{},{}\n",
                r.position,
                r.id.replace('"', "'"),
                r.mode,
                r.depth,
                r.nodes,
                r.time_ms,
                r.best,
                r.score,
                solved
            ));
        }
        s
    }
}

/// 1,234,567.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
