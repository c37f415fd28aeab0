//! The lab's Python tools' own tests, run by `cargo test -p lazuli-lab`. `lab/tools/sprt_pool.py --self-test` checks the
//! pooling of match.py runs into one SPRT (pairing, colours, the LLR's formula, the verdict).
//! `lab/tools/calibrate.py --self-test` checks the
//! calibration's statistics (pentanomial counts, the level -> Elo fit recovering known Elo from
//! synthetic games of a fixed seed, the bootstrap's intervals, the anchors written into a copy
//! of `src/params.rs`, the chart) and its resume logic, with the standard library only: no
//! engine, no python-chess. `lab/tools/spsa.py --self-test` checks SPSA's update (a synthetic match
//! whose optimum it must approach, the same result resumed from its state file, the clamping),
//! the adjudication of its fixed-node games and its openings' draw, likewise. Without `python3` the test says so on stderr and is reported as
//! ignored, never as passed (this file has its own harness, `libtest-mimic`); under
//! `LAZULI_REQUIRE_TOOLS=1` (`.ci/run`) a missing `python3` fails it instead. `lab/tools/mates.py`
//! given an engine that cannot start stops before any search with one line naming it; those two
//! tests run the product's `lazuli` binary from the same target directory (built by `cargo
//! build` or the product's `cargo test`), and are ignored when it is not there (failed under
//! `LAZULI_REQUIRE_TOOLS=1`).

use libtest_mimic::{Arguments, Trial};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn main() {
    let require = std::env::var_os("LAZULI_REQUIRE_TOOLS").is_some();
    let missing = !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if missing && !require {
        eprintln!("tools self-tests: skipped, python3 not found (apt-get install python3)");
    }
    let no_engine = lazuli_binary().is_none() && !require;
    if no_engine {
        eprintln!(
            "mates.py tests: skipped, no lazuli binary in the target directory (cargo build)"
        );
    }
    let trials = vec![
        Trial::test("calibrate_self_test", || {
            self_test("tools/calibrate.py", 12)
        })
        .with_ignored_flag(missing && !require),
        Trial::test("sprt_pool_self_test", || {
            self_test("tools/sprt_pool.py", 11)
        })
        .with_ignored_flag(missing && !require),
        Trial::test("spsa_self_test", || self_test("tools/spsa.py", 22))
            .with_ignored_flag(missing && !require),
        Trial::test(
            "mates_refuses_an_engine_that_cannot_start",
            mates_missing_engine,
        )
        .with_ignored_flag(missing && !require || no_engine),
        Trial::test(
            "mates_refuses_an_option_the_engine_refuses",
            mates_refused_option,
        )
        .with_ignored_flag(missing && !require || no_engine),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}

/// The product's `lazuli` binary beside this test's own in the target directory
/// (`target/<profile>/deps/tools-<hash>` → `target/<profile>/lazuli`), if built.
fn lazuli_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe
        .parent()?
        .parent()?
        .join(format!("lazuli{}", std::env::consts::EXE_SUFFIX));
    path.is_file().then_some(path)
}

/// `python3 TOOL ARGS...` from the repository's tools, run in the temporary directory (the tools
/// find their own modules and take absolute paths), without writing bytecode into the tree.
fn python3<I, S>(tool: &str, args: I) -> Result<Output, libtest_mimic::Failed>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(tool))
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(std::env::temp_dir())
        .output()
        .map_err(|e| format!("python3 cannot run: {e}").into())
}

/// `python3 TOOL --self-test`: every check passes and the closing line counts them, at least
/// `min_checks` (so that a self-test that ran nothing cannot pass).
fn self_test(tool: &str, min_checks: usize) -> Result<(), libtest_mimic::Failed> {
    let out = python3(tool, ["--self-test"])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or_default();
    let counts: Vec<usize> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    if !out.status.success() || counts.len() != 2 || counts[1] != 0 || counts[0] < min_checks {
        return Err(format!("self-test failed ({}):\n{stdout}\n{stderr}", out.status).into());
    }
    Ok(())
}

/// `lab/tools/mates.py` with a lazuli that works and an engine path that does not exist: exit status
/// 1, one line naming the missing engine, no traceback and no position searched (the progress
/// counter, written after `\r`, never printed).
fn mates_missing_engine() -> Result<(), libtest_mimic::Failed> {
    let missing = std::env::temp_dir().join("lazuli-no-such-engine");
    let args = [OsStr::new("--engine"), missing.as_os_str()];
    mates_stops_before_searching(&args, &["engine 1", "no-such-engine"])
}

/// `lab/tools/mates.py` with an `EvalFile` the engine cannot read (a relative path from another
/// folder: the engine answers `info string error` and would go on with its built-in net): the
/// same, the line naming the engine and quoting its error.
fn mates_refused_option() -> Result<(), libtest_mimic::Failed> {
    let args = [
        OsStr::new("--opt"),
        OsStr::new("EvalFile=nets/no-such-net.lznn"),
    ];
    mates_stops_before_searching(&args, &["engine 0", "no-such-net.lznn"])
}

/// Runs `lab/tools/mates.py` on lazuli plus `extra` arguments and checks that it ends at once: exit
/// status 1, every text of `named` on stderr, no traceback and no position searched.
fn mates_stops_before_searching(
    extra: &[&OsStr],
    named: &[&str],
) -> Result<(), libtest_mimic::Failed> {
    let epd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/mates_2to5_dev.epd");
    let lazuli = lazuli_binary().ok_or("no lazuli binary in the target directory (cargo build)")?;
    let mut args = vec![
        OsStr::new("--epd"),
        epd.as_os_str(),
        OsStr::new("--nodes"),
        OsStr::new("1000"),
        OsStr::new("--engine"),
        lazuli.as_os_str(),
    ];
    args.extend_from_slice(extra);
    let out = python3("tools/mates.py", args)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all_named = named.iter().all(|text| stderr.contains(text));
    let searched = stderr.contains('\r');
    if out.status.code() != Some(1) || !all_named || stderr.contains("Traceback") || searched {
        return Err(format!("mates.py ({}):\n{stderr}", out.status).into());
    }
    Ok(())
}
