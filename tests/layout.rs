//! The repository's shape, kept by a test rather than by review: no source file (Rust, C, C++,
//! Python) over 700 lines, so that a module too big to read whole gets split (its tests beside
//! it in a file of their own, as `src/tt/` and `lab/src/train/` do).

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 700;
const FOLDERS: &[&str] = &[
    "src",
    "tests",
    "benches",
    "examples",
    "tools",
    "fuzz/fuzz_targets",
    "lab/src",
    "lab/tests",
];
const EXTENSIONS: &[&str] = &["rs", "c", "cpp", "h", "py"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_700_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in FOLDERS {
        sources(&root.join(folder), &mut files);
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}
