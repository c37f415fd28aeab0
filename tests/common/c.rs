//! Building and running C programs against the library, for the C API and install tests.

use std::process::Command;

/// The libraries the Rust static library needs (`--print native-static-libs`); the Makefile's
/// NATIVE_LIBS, which `make install` writes into lazuli.pc and the CMake package.
pub const NATIVE_LIBS: &[&str] = &[
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

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
