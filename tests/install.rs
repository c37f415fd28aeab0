//! `make install`: the installed tree (the shared library under its versioned names, with its
//! SONAME) serves a C and a C++ program built the two usual ways, with pkg-config and with
//! CMake's `find_package(lazuli)` (the C header compiles as C++, and `lazuli.hpp` wraps it);
//! `make uninstall` removes it.
//!
//! The tests install what `cargo test` has just built (`make install BUILD=no`, no nested
//! cargo). They need `make`, `cc`, `pkg-config` and `cmake`: a test whose tool the machine
//! lacks says so on stderr and is reported as ignored, never as passed (this file has its own
//! harness, `libtest-mimic`, which can decide that at run time). `.ci/run` installs the tools
//! and sets `LAZULI_REQUIRE_TOOLS=1`, under which a missing tool fails its test instead.

mod common;

use common::c::{C_FLAGS, NATIVE_LIBS, checked_output};
use libtest_mimic::{Arguments, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A test: its name, its body and the tools it needs.
type Case = (&'static str, fn(), &'static [&'static str]);

fn main() {
    let tests: [Case; 4] = [
        (
            "a_c_program_builds_with_pkg_config",
            a_c_program_builds_with_pkg_config,
            &["make", "cc", "pkg-config"],
        ),
        (
            "a_cmake_project_finds_the_package",
            a_cmake_project_finds_the_package,
            &["make", "cmake"],
        ),
        (
            "cpp_programs_build_with_pkg_config",
            cpp_programs_build_with_pkg_config,
            &["make", "g++", "pkg-config"],
        ),
        (
            "install_honours_destdir_and_uninstall_removes_every_file",
            install_honours_destdir_and_uninstall_removes_every_file,
            &["make", "readelf"],
        ),
    ];
    let require = std::env::var_os("LAZULI_REQUIRE_TOOLS").is_some();
    let trials = tests
        .into_iter()
        .map(|(name, test, tools)| {
            let missing: Vec<&str> = tools.iter().copied().filter(|t| !runs(t)).collect();
            if !missing.is_empty() && !require {
                eprintln!(
                    "{name}: skipped, {} not found (apt-get install cmake pkg-config make g++; \
                     .ci/run installs them)",
                    missing.join(", ")
                );
            }
            Trial::test(name, move || {
                test();
                Ok(())
            })
            .with_ignored_flag(!missing.is_empty() && !require)
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}

/// Whether `tool --version` runs.
fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The shared library's SONAME, the name programs linked against it load.
const SONAME: &str = concat!("liblazuli.so.", env!("CARGO_PKG_VERSION_MAJOR"));

/// `readelf -d`: the dynamic section of `file`.
fn dynamic_section(file: &Path) -> String {
    checked_output(
        tool("readelf").arg("-d").arg(file),
        &format!("readelf -d {}", file.display()),
    )
}

/// Asserts that the program `exe` needs the library by its SONAME.
fn assert_needs_soname(exe: &Path) {
    let dynamic = dynamic_section(exe);
    assert!(
        dynamic.contains(&format!("Shared library: [{SONAME}]")),
        "{} does not need {SONAME}:\n{dynamic}",
        exe.display()
    );
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory in the system's temporary directory, removed when dropped (also when
/// the test fails).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("lazuli-install-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tool the tests need, with a failure that says how to install it when it is missing.
fn tool(name: &str) -> Command {
    if let Err(e) = Command::new(name).arg("--version").output() {
        panic!(
            "{name} is needed by the install tests and cannot run ({e}): \
             install it with `apt-get install cmake pkg-config make g++` (.ci/run does this in CI)"
        );
    }
    Command::new(name)
}

/// `make TARGET` with `vars` (PREFIX, DESTDIR), installing what `cargo test` has built for
/// this test: the libraries in `target/<profile>/deps`, beside this test binary, and the
/// binary the integration tests run. `BUILD=no`: a nested cargo would rebuild the binary,
/// whose dependencies `cargo build` compiles without the dev-dependencies' features.
fn make(target: &str, vars: &[(&str, &Path)]) {
    let exe = std::env::current_exe().unwrap();
    let mut command = Command::new("make");
    command
        .arg("--no-print-directory")
        .arg("-C")
        .arg(root())
        .arg(target)
        .arg("BUILD=no")
        .arg(format!("ARTIFACTS={}", exe.parent().unwrap().display()))
        .arg(concat!("LAZULI_EXE=", env!("CARGO_BIN_EXE_lazuli")));
    for (name, value) in vars {
        command.arg(format!("{name}={}", value.display()));
    }
    checked_output(&mut command, &format!("make {target}"));
}

/// `make install` into `prefix` in a fresh scratch directory named after `name`.
fn installed(name: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new(name);
    let prefix = scratch.0.join("prefix");
    make("install", &[("PREFIX", &prefix)]);
    (scratch, prefix)
}

/// Runs the installed-against example (`examples/analysis.c`): it reports the library's
/// version and ends with the best move of its search.
fn run_example(command: &mut Command, what: &str) {
    let out = checked_output(command, what);
    let version = format!("lazuli {}", env!("CARGO_PKG_VERSION"));
    assert!(
        out.lines().any(|l| l == version),
        "{what}: no `{version}`:\n{out}"
    );
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("bestmove ")),
        "{what}: no bestmove line at the end:\n{out}"
    );
}

fn a_c_program_builds_with_pkg_config() {
    let (scratch, prefix) = installed("pkg-config");
    let libdir = prefix.join("lib");
    let pkg_config = |args: &[&str]| -> Vec<String> {
        let out = checked_output(
            tool("pkg-config")
                .env("PKG_CONFIG_PATH", libdir.join("pkgconfig"))
                .args(args)
                .arg("lazuli"),
            &format!("pkg-config {}", args.join(" ")),
        );
        out.split_whitespace().map(str::to_owned).collect()
    };

    assert_eq!(pkg_config(&["--modversion"]), [env!("CARGO_PKG_VERSION")]);
    let mut static_libs = vec![format!("-L{}", libdir.display()), "-llazuli".to_owned()];
    static_libs.extend(NATIVE_LIBS.iter().map(|s| (*s).to_owned()));
    assert_eq!(pkg_config(&["--libs", "--static"]), static_libs);

    // cc $(pkg-config --cflags --libs lazuli): the installed header and shared library.
    let exe = scratch.0.join("analysis");
    checked_output(
        Command::new("cc")
            .args(C_FLAGS)
            .arg(root().join("examples/analysis.c"))
            .args(pkg_config(&["--cflags", "--libs"]))
            .arg("-o")
            .arg(&exe),
        "cc $(pkg-config --cflags --libs lazuli)",
    );
    assert_needs_soname(&exe);
    // Only the installed library is on the library path (not cargo's target dirs).
    run_example(
        Command::new(&exe).env("LD_LIBRARY_PATH", &libdir),
        "the example built with pkg-config",
    );
}

fn a_cmake_project_finds_the_package() {
    let (scratch, prefix) = installed("cmake");
    let build = scratch.0.join("build");
    checked_output(
        tool("cmake")
            .arg("-S")
            .arg(root().join("tests/install"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .arg(concat!("-DLAZULI_VERSION=", env!("CARGO_PKG_VERSION"))),
        "cmake (configure tests/install)",
    );
    checked_output(tool("cmake").arg("--build").arg(&build), "cmake --build");
    // No LD_LIBRARY_PATH: CMake gives the program the installed library's directory as
    // its rpath, as it does for any imported shared library.
    for (app, target) in [
        ("app", "lazuli::lazuli"),
        ("app_static", "lazuli::lazuli_static"),
    ] {
        run_example(
            Command::new(build.join(app)).env_remove("LD_LIBRARY_PATH"),
            &format!("the example linked against {target}"),
        );
    }
    assert_needs_soname(&build.join("app"));
    // The C++ layer's test, against lazuli::lazuli.
    let app_cpp = build.join("app_cpp");
    assert_needs_soname(&app_cpp);
    let out = checked_output(
        Command::new(&app_cpp).env_remove("LD_LIBRARY_PATH"),
        "tests/c/engine_check.cpp built by CMake",
    );
    assert!(out.contains("lazuli.hpp checks passed"), "{out}");
}

/// Strict C++17 through `pkg-config --cflags --libs lazuli`, against the installed headers and
/// shared library: `tests/c/header_check.cpp` (the C header as C++, C linkage) and
/// `tests/c/engine_check.cpp` (the C++ layer, `lazuli.hpp`).
fn cpp_programs_build_with_pkg_config() {
    let (scratch, prefix) = installed("cpp");
    let libdir = prefix.join("lib");
    let flags = checked_output(
        tool("pkg-config")
            .env("PKG_CONFIG_PATH", libdir.join("pkgconfig"))
            .args(["--cflags", "--libs", "lazuli"]),
        "pkg-config --cflags --libs lazuli",
    );
    for (source, expected) in [
        ("header_check.cpp", env!("CARGO_PKG_VERSION")),
        ("engine_check.cpp", "lazuli.hpp checks passed"),
    ] {
        let exe = scratch.0.join(source.trim_end_matches(".cpp"));
        checked_output(
            tool("g++")
                .args([
                    "-std=c++17",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-pedantic",
                    "-pthread",
                ])
                .arg(root().join("tests/c").join(source))
                .args(flags.split_whitespace())
                .arg("-o")
                .arg(&exe),
            &format!("g++ tests/c/{source} $(pkg-config --cflags --libs lazuli)"),
        );
        assert_needs_soname(&exe);
        let out = checked_output(
            Command::new(&exe).env("LD_LIBRARY_PATH", &libdir),
            &format!("tests/c/{source}"),
        );
        assert!(out.contains(expected), "{source}: no `{expected}`:\n{out}");
    }
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, files: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, files);
            } else {
                files.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files
}

fn install_honours_destdir_and_uninstall_removes_every_file() {
    let scratch = Scratch::new("destdir");
    let stage = scratch.0.join("stage");
    let prefix = Path::new("/opt/lazuli");
    let vars = [("PREFIX", prefix), ("DESTDIR", stage.as_path())];
    make("install", &vars);

    let tree = stage.join("opt/lazuli");
    let versioned = concat!("liblazuli.so.", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        files_under(&tree),
        [
            "bin/lazuli".to_owned(),
            "include/lazuli.h".to_owned(),
            "include/lazuli.hpp".to_owned(),
            "lib/cmake/lazuli/lazuliConfig.cmake".to_owned(),
            "lib/cmake/lazuli/lazuliConfigVersion.cmake".to_owned(),
            "lib/liblazuli.a".to_owned(),
            "lib/liblazuli.so".to_owned(),
            format!("lib/{SONAME}"),
            format!("lib/{versioned}"),
            "lib/pkgconfig/lazuli.pc".to_owned(),
        ]
    );
    // The library under its full version, with its SONAME; liblazuli.so.0 (the SONAME, what
    // programs load) and liblazuli.so (what -llazuli finds) are relative links to it.
    let lib = tree.join("lib");
    assert!(!lib.join(versioned).is_symlink());
    let dynamic = dynamic_section(&lib.join(versioned));
    assert!(
        dynamic.contains(&format!("Library soname: [{SONAME}]")),
        "{dynamic}"
    );
    assert_eq!(
        std::fs::read_link(lib.join(SONAME)).unwrap(),
        Path::new(versioned)
    );
    assert_eq!(
        std::fs::read_link(lib.join("liblazuli.so")).unwrap(),
        Path::new(SONAME)
    );
    // The paths written into the files are the final ones, without DESTDIR.
    let pc = std::fs::read_to_string(tree.join("lib/pkgconfig/lazuli.pc")).unwrap();
    assert!(pc.contains("\nprefix=/opt/lazuli\n"), "{pc}");
    assert!(!pc.contains(&stage.display().to_string()), "{pc}");
    for header in ["include/lazuli.h", "include/lazuli.hpp"] {
        assert_eq!(
            std::fs::read(tree.join(header)).unwrap(),
            std::fs::read(root().join(header)).unwrap()
        );
    }

    make("uninstall", &vars);
    assert_eq!(files_under(&tree), Vec::<String>::new());
}
