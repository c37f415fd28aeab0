//! The C library: the committed header matches cbindgen's output, and C programs built with
//! strict warnings against it and linked against both the static and the shared library pass.
//!
//! Regenerate the header after changing `src/ffi/`: `LAZULI_BLESS=1 cargo test --test c_api header`.

mod common;

use common::c::{C_FLAGS, NATIVE_LIBS, checked_output};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn generate_header() -> String {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).unwrap();
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root())
        .with_config(config)
        .generate()
        .expect("cbindgen parses src/ffi/")
        .write(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn header_matches_cbindgen() {
    let fresh = generate_header();
    let path = root().join("include/lazuli.h");
    if std::env::var_os("LAZULI_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/lazuli.h is stale: run LAZULI_BLESS=1 cargo test --test c_api header"
    );
}

/// `target/<profile>/deps`, where `cargo test` puts the liblazuli.a and liblazuli.so built
/// from this very source (only `cargo build` copies them up to `target/<profile>`).
fn library_dir() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

fn compile(compiler: &str, source: &str, output: &Path, flags: &[&str], link: &[String]) {
    let status = Command::new(compiler)
        .args(flags)
        .arg(format!("-I{}", root().join("include").display()))
        .arg(root().join(source))
        .arg("-o")
        .arg(output)
        .args(link)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(status.success(), "{compiler} failed on {source}");
}

fn run(program: &Path) -> String {
    run_with(program, &[])
}

fn run_with(program: &Path, args: &[&str]) -> String {
    // cargo's LD_LIBRARY_PATH for tests lists target/<profile> (where an older liblazuli.so
    // may lie) and would win over the program's rpath.
    checked_output(
        Command::new(program)
            .args(args)
            .env_remove("LD_LIBRARY_PATH"),
        &program.display().to_string(),
    )
}

fn static_link() -> Vec<String> {
    let mut link = vec![library_dir().join("liblazuli.a").display().to_string()];
    link.extend(NATIVE_LIBS.iter().map(|s| (*s).to_owned()));
    link
}

fn shared_link() -> Vec<String> {
    let dir = library_dir().display().to_string();
    vec![
        format!("-L{dir}"),
        format!("-Wl,-rpath,{dir}"),
        "-llazuli".to_owned(),
        "-pthread".to_owned(),
    ]
}

#[test]
fn c_tests_pass_against_the_static_library() {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("test_api_static");
    compile("gcc", "tests/c/test_api.c", &exe, C_FLAGS, &static_link());
    assert!(run(&exe).contains("all C API checks passed"));
}

/// The C tests' wall-clock bounds (`stop` answered within 100 ms, `ponderhit` within 300 ms).
#[test]
#[ignore = "wall-clock bounds, for an idle machine: cargo test --release -- --ignored timing_"]
fn timing_c_tests_keep_their_bounds() {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("test_api_timing");
    compile("gcc", "tests/c/test_api.c", &exe, C_FLAGS, &static_link());
    let out = checked_output(
        Command::new(&exe)
            .env("LAZULI_TIMING", "1")
            .env_remove("LD_LIBRARY_PATH"),
        "test_api with LAZULI_TIMING",
    );
    assert!(out.contains("all C API checks passed"), "{out}");
}

#[test]
fn c_tests_pass_against_the_shared_library() {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("test_api_shared");
    compile("gcc", "tests/c/test_api.c", &exe, C_FLAGS, &shared_link());
    assert!(run(&exe).contains("all C API checks passed"));
}

#[test]
fn the_example_builds_and_runs() {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analysis_example");
    compile("gcc", "examples/analysis.c", &exe, C_FLAGS, &static_link());
    let out = run(&exe);
    assert!(out.contains("bestmove "), "{out}");
    assert!(out.contains(" wdl "), "{out}");
    // With the tables: the rook ending is a proven win (20000 cp less the plies to it,
    // certain chances) found with tablebase hits.
    let out = run_with(
        &exe,
        &[concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy")],
    );
    let last_info = out.lines().rev().find(|l| l.starts_with("depth")).unwrap();
    assert!(last_info.contains("wdl 1000    0    0"), "{out}");
    let tbhits = last_info
        .split_whitespace()
        .skip_while(|t| *t != "tbhits")
        .nth(1);
    assert!(tbhits.unwrap().parse::<u64>().unwrap() > 0, "{out}");
    assert_eq!(out.matches("bestmove ").count(), 2, "{out}");
}
