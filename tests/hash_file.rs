//! The persistent hash over UCI (`Hash File`, `Save Hash to File`, `Load Hash from File`,
//! `Never Clear Hash`): round trips into tables of the same and other sizes, every kind of bad
//! file refused with the table kept, saving during a search refused, `ucinewgame` with and
//! without `Never Clear Hash`. A table is compared through the file it saves: a load that
//! changed nothing saves the same bytes again. The file format itself is tested in
//! `src/tt/file_tests.rs`.

mod common;

use std::path::{Path, PathBuf};

use common::{UciProcess, last_field};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// A scratch folder of this test's own, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-hash-file-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn engine(hash_mb: usize) -> UciProcess {
    let mut e = UciProcess::start();
    e.send(&format!("setoption name Hash value {hash_mb}"));
    e
}

/// Searches kiwipete to `depth` from a new game and returns the nodes of the last info line.
fn search(e: &mut UciProcess, depth: u32) -> u64 {
    e.send(&format!("position fen {KIWIPETE}"));
    e.send(&format!("go depth {depth}"));
    let lines = e.search_lines();
    last_field(&lines, "nodes").unwrap().parse().unwrap()
}

/// Sets `Hash File` to `path`, presses `button` and returns the `info string` it answered.
fn press(e: &mut UciProcess, button: &str, path: &Path) -> String {
    e.send(&format!(
        "setoption name Hash File value {}",
        path.display()
    ));
    e.send(&format!("setoption name {button}"));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines[0].clone()
}

fn save(e: &mut UciProcess, path: &Path) -> Vec<u8> {
    let answer = press(e, "Save Hash to File", path);
    assert!(
        answer.starts_with("info string hash saved to '"),
        "{answer}"
    );
    std::fs::read(path).unwrap()
}

/// Entries in use, from a file's header (bytes 32 to 39).
fn entries_in(file: &[u8]) -> u64 {
    u64::from_le_bytes(file[32..40].try_into().unwrap())
}

#[test]
fn a_saved_table_loads_into_the_same_size_and_resumes_the_search() {
    let dir = scratch("same");
    let mut a = engine(2);
    let empty_nodes = search(&mut a, 9);
    let file = save(&mut a, &dir.join("a.lzh"));
    assert!(entries_in(&file) > 1000);
    assert_eq!(file.len(), 64 + 2 * 1024 * 1024);

    // A fresh engine of the same size: the load keeps every byte, and the search to the same
    // depth is shorter than from an empty table, by the same count in every engine.
    let mut resumed = Vec::new();
    for _ in 0..2 {
        let mut b = engine(2);
        let answer = press(&mut b, "Load Hash from File", &dir.join("a.lzh"));
        assert!(
            answer.starts_with("info string hash loaded from '"),
            "{answer}"
        );
        assert!(!answer.contains("rehashed"), "{answer}");
        assert!(save(&mut b, &dir.join("b.lzh")) == file);
        resumed.push(search(&mut b, 9));
    }
    assert_eq!(resumed[0], resumed[1]);
    // One thread searches deterministically, so without the load it would take empty_nodes
    // exactly. Three quarters leaves room for the search and the net to move the count: with
    // s6f-h32m it was under half, with s8b8-all-h32m (batch 5b) 16,694 of 29,780.
    assert!(
        resumed[0] < empty_nodes * 3 / 4,
        "{resumed:?} against {empty_nodes}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_of_another_size_is_rehashed_into_the_table() {
    let dir = scratch("other");
    let mut a = engine(2);
    let empty_nodes = search(&mut a, 9);
    let file = save(&mut a, &dir.join("a.lzh"));
    let n = entries_in(&file);
    // (Hash, what the answer says): into twice the size nothing is lost (each new bucket
    // takes the keys of half an old one); into half, the deeper entries of full buckets, or
    // all of them when no bucket overflows (batch 6's search leaves 5,840 entries here, which
    // fit; the unit test `a_file_of_another_size_is_rehashed_by_key` fills a table until some
    // are lost).
    for (mb, buckets) in [(4, 65_536), (1, 16_384)] {
        let mut b = engine(mb);
        let answer = press(&mut b, "Load Hash from File", &dir.join("a.lzh"));
        let prefix = format!("entries, 32768 buckets (rehashed into {buckets} buckets, ");
        assert!(answer.contains(&format!(": {n} {prefix}")), "{answer}");
        let kept: u64 = answer
            .rsplit_once(", ")
            .unwrap()
            .1
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if mb == 4 {
            assert_eq!(kept, n, "{answer}");
        } else {
            assert!(kept <= n && kept > n / 2, "{answer}");
        }
        let saved = save(&mut b, &dir.join("b.lzh"));
        assert_eq!(entries_in(&saved), kept);
        let nodes = search(&mut b, 9);
        assert!(
            nodes < empty_nodes * 3 / 4,
            "{mb} MB: {nodes} against {empty_nodes}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every bad file (and a missing or empty path) gets `info string error` with its reason, and
/// the table stays as it was: it saves the same bytes as before the attempt.
#[test]
fn bad_files_are_refused_and_the_table_is_kept() {
    let dir = scratch("bad");
    let mut a = engine(1);
    search(&mut a, 7);
    let good = save(&mut a, &dir.join("good.lzh"));

    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 4;
    let mut magic = good.clone();
    magic[0] = b'X';
    let mut version = good.clone();
    version[8] = 9;
    let noise: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let cases: [(&str, Option<&[u8]>, &str); 7] = [
        ("flipped.lzh", Some(&flipped), "damaged: the checksum"),
        (
            "truncated.lzh",
            Some(&good[..good.len() - 100]),
            "truncated",
        ),
        (
            "short.lzh",
            Some(&good[..10]),
            "shorter than the 64-byte header",
        ),
        ("noise.lzh", Some(&noise), "not a lazuli hash file"),
        ("magic.lzh", Some(&magic), "not a lazuli hash file"),
        ("version.lzh", Some(&version), "format version 9"),
        ("missing.lzh", None, "cannot read"),
    ];
    // A second engine whose table differs from the files: a refused load must keep it.
    let mut b = engine(1);
    search(&mut b, 5);
    let before = save(&mut b, &dir.join("before.lzh"));
    for (name, bytes, reason) in cases {
        let path = dir.join(name);
        if let Some(bytes) = bytes {
            std::fs::write(&path, bytes).unwrap();
        }
        let answer = press(&mut b, "Load Hash from File", &path);
        assert!(
            answer.starts_with("info string error: hash file: ") && answer.contains(reason),
            "{name}: {answer}"
        );
        assert!(answer.ends_with("the table is unchanged"), "{answer}");
        assert!(save(&mut b, &dir.join("after.lzh")) == before, "{name}");
    }
    // No file named: both buttons refuse.
    b.send("setoption name Hash File value <empty>");
    for button in ["Save Hash to File", "Load Hash from File"] {
        b.send(&format!("setoption name {button}"));
        let lines = b.sync();
        assert_eq!(
            lines,
            [
                "info string error: hash file: no file named: set the option Hash File to a path first"
            ],
            "{button}"
        );
    }
    // A folder that does not exist: the save is refused and leaves nothing.
    let answer = press(&mut b, "Save Hash to File", &dir.join("no/such.lzh"));
    assert!(answer.contains("error: hash file: cannot save"), "{answer}");
    assert!(!dir.join("no").exists());
    // The engine still searches, from the table it had.
    assert!(save(&mut b, &dir.join("after.lzh")) == before);
    b.send("position startpos");
    b.send("go depth 3");
    b.bestmove();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn saving_or_loading_during_a_search_is_refused() {
    let dir = scratch("busy");
    let path = dir.join("busy.lzh");
    let mut e = engine(1);
    search(&mut e, 5);
    let before = save(&mut e, &path);
    e.send(&format!("position fen {KIWIPETE}"));
    e.send("go infinite");
    for button in ["Save Hash to File", "Load Hash from File"] {
        e.send(&format!("setoption name {button}"));
        let errors: Vec<String> = e
            .sync()
            .into_iter()
            .filter(|l| !l.starts_with("info depth") && !l.starts_with("info currmove"))
            .collect();
        assert_eq!(
            errors,
            ["info string error: a search is running"],
            "{button}"
        );
    }
    assert!(
        std::fs::read(&path).unwrap() == before,
        "the refused save wrote nothing"
    );
    e.send("stop");
    e.bestmove();
    // After the search both work again.
    let after = save(&mut e, &path);
    assert!(entries_in(&after) >= entries_in(&before));
    let answer = press(&mut e, "Load Hash from File", &path);
    assert!(answer.starts_with("info string hash loaded"), "{answer}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn never_clear_hash_keeps_the_table_across_ucinewgame_and_clear_hash_still_clears() {
    let dir = scratch("never");
    let mut e = engine(1);
    e.send("uci");
    let options = e.until(|l| l == "uciok");
    for line in [
        "option name Hash File type string default <empty>",
        "option name Save Hash to File type button",
        "option name Load Hash from File type button",
        "option name Never Clear Hash type check default false",
    ] {
        assert!(options.iter().any(|l| l == line), "missing: {line}");
    }
    e.send("setoption name Never Clear Hash value true");
    search(&mut e, 7);
    let searched = save(&mut e, &dir.join("1.lzh"));
    assert!(entries_in(&searched) > 100);
    e.send("ucinewgame");
    assert!(
        save(&mut e, &dir.join("2.lzh")) == searched,
        "ucinewgame kept the table"
    );
    e.send("setoption name Clear Hash");
    assert_eq!(entries_in(&save(&mut e, &dir.join("3.lzh"))), 0);

    // Without the option, ucinewgame clears.
    e.send("setoption name Never Clear Hash value false");
    search(&mut e, 7);
    assert!(entries_in(&save(&mut e, &dir.join("4.lzh"))) > 100);
    e.send("ucinewgame");
    assert_eq!(entries_in(&save(&mut e, &dir.join("5.lzh"))), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
