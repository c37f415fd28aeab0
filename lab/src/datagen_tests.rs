//! datagen's flags, chunks, manifest and errors.

use super::*;

fn config(dir: &Path, threads: usize) -> DatagenConfig {
    DatagenConfig {
        out: dir.to_path_buf(),
        games: 4,
        chunk_games: 2,
        threads,
        seed: 7,
        nodes: 300,
        soft_nodes: None,
        random_plies: 8,
        book: None,
        hash_mb: 1,
        options: vec![("Move Overhead".into(), "0".into())],
        manifest: None,
        commit: "unknown".into(),
    }
}

/// The flags: defaults, clamped values, the last of a repeated flag, repeated `--option`s.
#[test]
fn flags() {
    use clap::Parser;
    let parse = |args: &[&str]| {
        DatagenConfig::try_parse_from(std::iter::once("datagen").chain(args.iter().copied()))
    };
    let c = parse(&["--out", "d"]).unwrap();
    assert_eq!(
        (c.games, c.chunk_games, c.seed, c.nodes),
        (1000, 100, 1, 5000)
    );
    assert_eq!(
        (c.random_plies, c.hash_mb, c.book, c.options, c.soft_nodes),
        (8, 8, None, vec![], None)
    );
    let c = parse(&["--out", "d", "--soft-nodes", "0", "--nodes", "900"]).unwrap();
    assert_eq!((c.soft_nodes, c.nodes), (Some(1), 900));
    let c = parse(&[
        "--out",
        "d",
        "--games",
        "5",
        "--games",
        "0",
        "--threads",
        "5000",
        "--random-plies",
        "99",
        "--hash",
        "0",
        "--option",
        "Hash=1",
        "--option",
        "UseNNUE=false",
    ])
    .unwrap();
    assert_eq!(
        (c.games, c.threads, c.random_plies, c.hash_mb),
        (1, 1024, 40, 1)
    );
    let options = [("Hash", "1"), ("UseNNUE", "false")].map(|(n, v)| (n.into(), v.into()));
    assert_eq!(c.options, options);
    for bad in [
        &[][..],
        &["--out", "d", "--option", "Hash"],
        &["--out", "d", "--games", "-1"],
        &["--out", "d", "--soft-nodes", "x"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn chunks_are_deterministic_resumable_and_well_formed() {
    let base = std::env::temp_dir().join(format!("lazuli-datagen-{}", std::process::id()));
    let (one, two) = (base.join("one"), base.join("two"));
    let _ = std::fs::remove_dir_all(&base);
    let tally = generate(&config(&one, 1)).unwrap();
    generate(&config(&two, 2)).unwrap();
    // Every searched move is written, once.
    let searched = tally.searched.load(Ordering::SeqCst);
    let written = tally.positions.load(Ordering::SeqCst);
    assert!(
        0 < written && written == searched,
        "{written} of {searched}"
    );
    let a = fingerprint(&config(&one, 1)).unwrap();
    assert_eq!(
        a,
        fingerprint(&config(&two, 2)).unwrap(),
        "threads change nothing"
    );
    assert!(a.1 > 20, "{} positions", a.1);
    assert!(a.2 < 6 * a.1, "{} bytes for {} positions", a.2, a.1);
    // A removed chunk is made again, the same; the other is skipped.
    std::fs::remove_file(config(&one, 1).chunk_path(1)).unwrap();
    let again = generate(&config(&one, 1)).unwrap();
    assert_eq!(again.chunks_skipped.load(Ordering::SeqCst), 1);
    assert_eq!(fingerprint(&config(&one, 1)).unwrap(), a);
    // Every game's positions follow each other, each with its legal move played, and the
    // trainer keeps some of them, not all.
    let (mut entries, mut kept) = (0, 0);
    for chunk in 0..2 {
        let bytes = std::fs::read(config(&one, 1).chunk_path(chunk)).unwrap();
        let decoded = binpack::decode(&bytes).unwrap();
        for pair in decoded.windows(2) {
            if pair[1].ply == pair[0].ply + 1 {
                let mut after = pair[0].chess.clone();
                after.play_unchecked(pair[0].played);
                assert_eq!(after, pair[1].chess);
            }
        }
        entries += decoded.len();
        kept += decoded
            .iter()
            .filter(|e| binpack::training(e, 10_000).is_some())
            .count();
    }
    assert_eq!(entries as u64, a.1);
    assert!(0 < kept && kept < entries, "{kept} of {entries}");
    let _ = std::fs::remove_dir_all(&base);
}

/// A soft budget: the searches end on completed iterations, so they search more nodes a
/// move than the soft budget and fewer than the hard cap, and the data are as deterministic.
/// A soft budget above the hard cap is refused.
#[test]
fn soft_nodes_end_on_completed_iterations_under_the_cap() {
    let base = std::env::temp_dir().join(format!("lazuli-datagen-soft-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let soft = |dir: &str, threads| DatagenConfig {
        soft_nodes: Some(200),
        nodes: 2000,
        ..config(&base.join(dir), threads)
    };
    let tally = generate(&soft("one", 1)).unwrap();
    let per_move = tally.per_move().0;
    assert!(
        200.0 < per_move && per_move <= 2000.0,
        "{per_move} nodes a move"
    );
    generate(&soft("two", 2)).unwrap();
    assert_eq!(
        fingerprint(&soft("one", 1)).unwrap(),
        fingerprint(&soft("two", 2)).unwrap()
    );
    let bad = DatagenConfig {
        soft_nodes: Some(301),
        ..config(&base.join("bad"), 1)
    };
    assert!(matches!(generate(&bad), Err(Error::InvalidCommand(m)) if m.contains("--soft-nodes")));
    let _ = std::fs::remove_dir_all(&base);
}

/// The manifest: its header once, then a line a completed chunk whose figures are the
/// file's (bytes, SHA-256, positions) and the build's `Bench`.
#[test]
fn manifest_lines_describe_their_chunks() {
    let base = std::env::temp_dir().join(format!("lazuli-datagen-mf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let path = base.join("manifest.tsv");
    std::fs::create_dir_all(&base).unwrap();
    let run = DatagenConfig {
        manifest: Some(path.clone()),
        commit: "abc1234".into(),
        ..config(&base.join("set1"), 2)
    };
    generate(&run).unwrap();
    generate(&run).unwrap(); // every chunk skipped: no new line
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(MANIFEST_COLUMNS));
    let mut rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    rows.sort_by_key(|r| r[1]);
    assert_eq!(rows.len(), 2);
    let bench = BenchConfig::default()
        .run_on(player_engine(&run).unwrap(), |_, _| {})
        .unwrap()
        .nodes;
    for (chunk, row) in rows.iter().enumerate() {
        let bytes = std::fs::read(run.chunk_path(chunk as u64)).unwrap();
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let positions = binpack::count(&bytes).unwrap().to_string();
        let expected = [
            "set1",
            &format!("seed7-chunk{chunk:06}.binpack"),
            "abc1234",
            &bench.to_string(),
            "7",
            "2",
            &positions,
            &bytes.len().to_string(),
            &sha,
        ];
        assert_eq!(row[..9], expected);
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// A refused option ends the run before any chunk (each worker fails as it sets up its
/// engine); a worker that fails mid-run (its chunk cannot be written) ends it with the
/// error. Both hung before (the progress line waited for every chunk), so each run is
/// given a minute on another thread.
#[test]
fn errors_end_the_run() {
    let base = std::env::temp_dir().join(format!("lazuli-datagen-err-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let within_a_minute = |config: DatagenConfig| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(generate(&config).err()));
        rx.recv_timeout(Duration::from_secs(60))
            .expect("the run ends")
            .expect("with an error")
    };
    let mut refused = config(&base.join("refused"), 2);
    refused.options.push((
        "EvalFile".into(),
        base.join("missing.lznn").display().to_string(),
    ));
    let e = within_a_minute(refused);
    assert!(e.to_string().contains("missing.lznn"), "{e}");
    assert!(
        std::fs::read_dir(base.join("refused"))
            .unwrap()
            .next()
            .is_none()
    );
    // The temporary name of chunk 0 taken by a directory: its write fails.
    let blocked = config(&base.join("blocked"), 1);
    std::fs::create_dir_all(blocked.chunk_path(0).with_extension("tmp")).unwrap();
    let e = within_a_minute(blocked);
    assert!(e.to_string().contains("chunk0"), "{e}");
    let _ = std::fs::remove_dir_all(&base);
}
