//! The data store (lab/data): every data file is in the manifest, and every manifest line
//! matches its file (bytes, SHA-256, positions) and names the columns' kinds of values.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use lazuli_lab::binpack;
use lazuli_lab::datagen::MANIFEST_COLUMNS;
use sha2::{Digest, Sha256};

fn store() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The data files under the store, as `set/file`.
fn files_on_disk(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for set in std::fs::read_dir(dir).unwrap() {
        let set = set.unwrap().path();
        if !set.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&set).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "tmp") {
                continue; // a chunk being written: never committed (lab/data/.gitignore)
            }
            let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
            out.insert(format!("{}/{}", name(&set), name(&file)));
        }
    }
    out
}

/// Checks the manifest against the files; the list of what is wrong.
fn check(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap_or_default();
    let mut lines = text.lines();
    let mut wrong = Vec::new();
    if lines.next() != Some(MANIFEST_COLUMNS) {
        wrong.push("the manifest's first line is not its header".to_owned());
    }
    let mut listed = BTreeSet::new();
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        let [
            set,
            file,
            _commit,
            bench,
            seed,
            games,
            positions,
            bytes,
            sha,
            _command,
        ] = cols[..]
        else {
            wrong.push(format!("not 10 columns: {line}"));
            continue;
        };
        let key = format!("{set}/{file}");
        if !listed.insert(key.clone()) {
            wrong.push(format!("{key} listed twice"));
        }
        for (name, value) in [("bench", bench), ("seed", seed), ("games", games)] {
            if value.parse::<u64>().is_err() {
                wrong.push(format!("{key}: {name} '{value}'"));
            }
        }
        let Ok(data) = std::fs::read(dir.join(set).join(file)) else {
            wrong.push(format!("{key}: listed, not there"));
            continue;
        };
        if data.len().to_string() != bytes {
            wrong.push(format!(
                "{key}: {} bytes, the manifest says {bytes}",
                data.len()
            ));
        }
        let digest: String = Sha256::digest(&data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if digest != sha {
            wrong.push(format!("{key}: SHA-256 {digest}, the manifest says {sha}"));
        }
        match binpack::count(&data) {
            Ok(n) if n.to_string() == positions => {}
            Ok(n) => wrong.push(format!(
                "{key}: {n} positions, the manifest says {positions}"
            )),
            Err(e) => wrong.push(format!("{key}: {e}")),
        }
    }
    for key in files_on_disk(dir).difference(&listed) {
        wrong.push(format!("{key}: not in the manifest"));
    }
    wrong
}

#[test]
fn every_file_matches_the_manifest() {
    let wrong = check(&store());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The check itself catches a changed byte, a file not listed and a listed file missing.
#[test]
fn the_check_catches_damage() {
    let dir = std::env::temp_dir().join(format!("lazuli-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("t1")).unwrap();
    let config = lazuli_lab::datagen::DatagenConfig {
        out: dir.join("t1"),
        games: 2,
        chunk_games: 1,
        threads: 1,
        seed: 3,
        nodes: 200,
        soft_nodes: None,
        random_plies: 8,
        book: None,
        hash_mb: 1,
        options: vec![],
        manifest: Some(dir.join("manifest.tsv")),
        commit: "test".into(),
    };
    lazuli_lab::datagen::run_cli(&config).unwrap();
    assert_eq!(check(&dir), Vec::<String>::new());
    let chunk = dir.join("t1/seed3-chunk000000.binpack");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[20] ^= 1;
    std::fs::write(&chunk, &bytes).unwrap();
    std::fs::write(dir.join("t1/stray.binpack"), b"").unwrap();
    std::fs::remove_file(dir.join("t1/seed3-chunk000001.binpack")).unwrap();
    let wrong = check(&dir).join("\n");
    assert!(
        wrong.contains("seed3-chunk000000.binpack: SHA-256"),
        "{wrong}"
    );
    assert!(
        wrong.contains("t1/stray.binpack: not in the manifest"),
        "{wrong}"
    );
    assert!(
        wrong.contains("seed3-chunk000001.binpack: listed, not there"),
        "{wrong}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
