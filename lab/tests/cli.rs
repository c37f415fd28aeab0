//! The `lazuli-lab` command line, run as a process of the built binary: help, usage errors
//! (clap's, exit 2) and the commands' own errors (exit 1).

use std::process::Command;

/// Runs `lazuli-lab` with `args`: its exit code, stdout and stderr.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lazuli-lab"))
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// `args` exit with `code` and `text` on stdout (`on_stdout`) or stderr.
fn expect(args: &[&str], code: i32, on_stdout: bool, text: &str) {
    let (got, stdout, stderr) = run(args);
    let stream = if on_stdout { &stdout } else { &stderr };
    assert!(
        got == Some(code) && stream.contains(text),
        "{args:?}: expected exit {code} and {text:?}, got {got:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn help() {
    expect(&["--help"], 0, true, "datagen");
    expect(&["--version"], 0, true, "lazuli-lab ");
    expect(&["datagen", "--help"], 0, true, "--option <NAME=VALUE>");
    expect(&["datagen", "--help"], 0, true, "--manifest <FILE>");
    expect(&["train", "--help"], 0, true, "--synthetic <N>");
    expect(&["train", "--help"], 0, true, "--no-calibrate");
    expect(&["train", "--help"], 0, true, "--resume <FILE>");
    expect(&["loss", "--help"], 0, true, "<NET>...");
}

#[test]
fn usage_errors() {
    expect(&[], 2, false, "Usage: lazuli-lab <COMMAND>");
    expect(&["datagen"], 2, false, "--out <DIR>");
    expect(
        &["datagen", "--out", "x", "--option", "Hash"],
        2,
        false,
        "expected NAME=VALUE",
    );
    expect(
        &["train", "--out", "net.lznn"],
        2,
        false,
        "--data <PATH>|--synthetic <N>",
    );
    expect(&["train", "--synthetic", "10"], 2, false, "--out <FILE>");
    expect(&["loss", "--data", "d"], 2, false, "<NET>...");
}

/// The commands' own refusals, after parsing: exit 1 and the reason.
#[test]
fn errors() {
    expect(
        &[
            "train",
            "--synthetic",
            "10",
            "--out",
            "unused.lznn",
            "--hidden",
            "12",
        ],
        1,
        false,
        "lazuli-lab: hidden size",
    );
    expect(
        &[
            "train",
            "--synthetic",
            "10",
            "--out",
            "unused.lznn",
            "--resume",
            "no-such.ckpt",
        ],
        1,
        false,
        "lazuli-lab: no-such.ckpt: ",
    );
    expect(
        &["loss", "--data", "no-such-dir", "net.lznn"],
        1,
        false,
        "lazuli-lab: reading no-such-dir",
    );
    expect(
        &[
            "datagen",
            "--out",
            "unused",
            "--soft-nodes",
            "9",
            "--nodes",
            "8",
        ],
        1,
        false,
        "--soft-nodes must not exceed --nodes",
    );
}

/// datagen's binpack chunks, then `unpack`: the trainer's positions as 32-byte records, as
/// many as it says, fewer than datagen wrote (checks, captures and mates are not learnt from).
#[test]
fn datagen_then_unpack() {
    let dir = std::env::temp_dir().join(format!("lazuli-lab-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("d");
    let data_arg = data.to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "datagen",
        "--out",
        data_arg,
        "--games",
        "2",
        "--chunk-games",
        "1",
        "--threads",
        "1",
        "--nodes",
        "300",
        "--seed",
        "5",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let written: usize = stdout
        .split(" positions in ")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {stdout}"));
    let out = dir.join("all.bin");
    let (code, stdout, stderr) =
        run(&["unpack", "--data", data_arg, "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let bytes = std::fs::metadata(&out).unwrap().len() as usize;
    assert_eq!(
        stdout,
        format!("{} positions to {}\n", bytes / 32, out.display())
    );
    assert!(
        bytes.is_multiple_of(32) && 0 < bytes / 32 && bytes / 32 < written,
        "{bytes} bytes, {written}"
    );
    expect(
        &[
            "unpack",
            "--data",
            dir.join("none").to_str().unwrap(),
            "--out",
            "x",
        ],
        1,
        false,
        "reading",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
