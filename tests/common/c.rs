//! Building and running C programs against the library, for the C API and install tests.

use std::process::Command;
use std::sync::LazyLock;

/// The libraries the Rust static library needs besides itself (`--print native-static-libs`),
/// as the Makefile's `NATIVE_LIBS` line gives them: the one place they are written, which
/// `make install` also writes into lazuli.pc and the CMake package.
pub static NATIVE_LIBS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Makefile");
    let makefile = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let libs = native_libs_of(&makefile).unwrap_or_else(|| panic!("{path}: no NATIVE_LIBS line"));
    assert!(!libs.is_empty(), "{path}: NATIVE_LIBS is empty");
    libs
});

/// The words of a Makefile's `NATIVE_LIBS = ...` line (`=`, `:=` or `?=`, no continuation).
pub fn native_libs_of(makefile: &str) -> Option<Vec<String>> {
    makefile.lines().find_map(|line| {
        let rest = line.strip_prefix("NATIVE_LIBS")?.trim_start();
        let value = ["=", ":=", "?="]
            .iter()
            .find_map(|op| rest.strip_prefix(op))?;
        assert!(
            !value.trim_end().ends_with('\\'),
            "the Makefile's NATIVE_LIBS must fit on one line"
        );
        Some(value.split_whitespace().map(str::to_owned).collect())
    })
}

/// Strict C11: every warning is an error.
pub const C_FLAGS: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
    "-O1",
    "-pthread",
];

/// Runs `command` and returns its standard output; panics, with both outputs, unless it
/// succeeds. `what` names it in the messages.
pub fn checked_output(command: &mut Command, what: &str) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
