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

/// The shared library's SONAME: the name a program linked against it looks for at run time.
const SONAME: &str = concat!("liblazuli.so.", env!("CARGO_PKG_VERSION_MAJOR"));

/// A directory holding `liblazuli.so.0`, a link to the shared library cargo built (cargo
/// creates no file of that name): the run-time path of the programs the tests link.
fn runtime_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runtime");
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join(SONAME);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(library_dir().join("liblazuli.so"), &link).unwrap();
        dir
    })
}

fn shared_link() -> Vec<String> {
    let dir = library_dir().display().to_string();
    vec![
        format!("-L{dir}"),
        format!("-Wl,-rpath,{}", runtime_dir().display()),
        "-llazuli".to_owned(),
        "-pthread".to_owned(),
    ]
}

/// `readelf -d`: the dynamic section of `file`.
fn dynamic_section(file: &Path) -> String {
    checked_output(
        Command::new("readelf").arg("-d").arg(file),
        &format!("readelf -d {}", file.display()),
    )
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
    // The program needs the library by its SONAME, not by the name it was linked with.
    let needed = dynamic_section(&exe);
    assert!(
        needed.contains(&format!("Shared library: [{SONAME}]")),
        "{needed}"
    );
    assert!(
        !needed.contains("Shared library: [liblazuli.so]"),
        "{needed}"
    );
    assert!(run(&exe).contains("all C API checks passed"));
}

#[test]
fn the_shared_library_has_its_soname() {
    let dynamic = dynamic_section(&library_dir().join("liblazuli.so"));
    assert!(
        dynamic.contains(&format!("Library soname: [{SONAME}]")),
        "{dynamic}"
    );
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

/// Whether a name carries the library's prefix.
fn prefixed(name: &str) -> bool {
    name.starts_with("lazuli_") || name.starts_with("LAZULI_")
}

/// C and C++ source as tokens: identifiers, numbers and string literals whole, every other
/// character alone; comments dropped. Preprocessor lines (with their continuations) come
/// separately, as whole lines.
fn tokenize(source: &str) -> (Vec<String>, Vec<String>) {
    // Comments first, keeping string literals intact.
    let mut text = String::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                text.push(' ');
            }
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ('"', _) => {
                text.push('"');
                while let Some(c) = chars.next() {
                    text.push(c);
                    match c {
                        '\\' => text.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            _ => text.push(c),
        }
    }
    let mut directives = Vec::new();
    let mut code = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with('#') {
            let mut directive = line.to_owned();
            while directive.ends_with('\\') {
                directive.pop();
                directive.push_str(lines.next().unwrap_or_default());
            }
            directives.push(directive);
        } else {
            code.push_str(line);
            code.push('\n');
        }
    }
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut token = c.to_string();
        if c.is_alphanumeric() || c == '_' {
            while let Some(&c) = chars.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
                token.push(c);
                chars.next();
            }
        } else if c == '"' {
            while let Some(c) = chars.next() {
                token.push(c);
                match c {
                    '\\' => token.extend(chars.next()),
                    '"' => break,
                    _ => {}
                }
            }
        }
        tokens.push(token);
    }
    (directives, tokens)
}

fn is_identifier(token: &str) -> bool {
    token.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The names of the macros `directives` define.
fn macro_names(directives: &[String]) -> Vec<String> {
    directives
        .iter()
        .filter_map(|d| {
            let rest = d.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("define")?;
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect()
}

/// Every name a C header declares at file scope, where it can clash with the including
/// program's names: macros, typedef names, struct, union and enum tags, enum constants,
/// functions and variables (not struct fields or parameters, which live in their own
/// scopes). Reads the declarations cbindgen writes; `extern "C" { }` is looked through.
fn file_scope_names(header: &str) -> Vec<String> {
    let (directives, tokens) = tokenize(header);
    let mut names = macro_names(&directives);
    // Split into the declarations at file scope, each ending with `;` outside braces.
    let mut declarations: Vec<&[String]> = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    let mut transparent = Vec::new(); // depths of the `extern "C" {` blocks
    while i < tokens.len() {
        let t = tokens[i].as_str();
        if depth == transparent.len()
            && t == "extern"
            && tokens.get(i + 1).is_some_and(|s| s.starts_with('"'))
            && tokens.get(i + 2).is_some_and(|s| s == "{")
        {
            transparent.push(depth + 1);
            depth += 1;
            i += 3;
            start = i;
            continue;
        }
        match t {
            "{" => depth += 1,
            "}" if transparent.last() == Some(&depth) => {
                transparent.pop();
                depth -= 1;
                start = i + 1;
            }
            "}" => depth -= 1,
            ";" if depth == transparent.len() => {
                declarations.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    for declaration in declarations {
        // Tags, wherever they stand, and the constants of enum bodies.
        let mut outer = Vec::new(); // the tokens outside braces
        let mut depth = 0;
        let mut in_enum = Vec::new();
        for (i, t) in declaration.iter().enumerate() {
            let previous = i.checked_sub(1).map(|p| declaration[p].as_str());
            if matches!(previous, Some("struct" | "union" | "enum")) && is_identifier(t) {
                names.push(t.clone());
            }
            match t.as_str() {
                "{" => {
                    depth += 1;
                    let enum_body = declaration[..i].iter().rev().take(2).any(|t| t == "enum");
                    in_enum.push(enum_body);
                }
                "}" => {
                    depth -= 1;
                    in_enum.pop();
                }
                _ if depth == 0 => outer.push(t.as_str()),
                _ => {}
            }
            if in_enum.last() == Some(&true)
                && matches!(previous, Some("{" | ","))
                && is_identifier(t)
            {
                names.push(t.clone());
            }
        }
        // The declarator's name: `(*name)` of a function pointer, the name before a
        // function's parameters, or else the last name (before an initialiser or array).
        let outer: Vec<&str> = outer
            .iter()
            .copied()
            .take_while(|t| !matches!(*t, "=" | "["))
            .collect();
        let name = match outer.iter().position(|t| *t == "(") {
            Some(paren) if outer.get(paren + 1) == Some(&"*") => outer.get(paren + 2).copied(),
            Some(paren) => paren.checked_sub(1).map(|p| outer[p]),
            None => outer.last().copied(),
        };
        if let Some(name) = name.filter(|n| is_identifier(n)) {
            names.push(name.to_owned());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// What a C++ header declares outside its one `namespace lazuli { }`, and its macros without
/// the prefix.
fn cpp_foreign_names(header: &str) -> Vec<String> {
    let (directives, tokens) = tokenize(header);
    let mut foreign: Vec<String> = macro_names(&directives)
        .into_iter()
        .filter(|n| !prefixed(n))
        .collect();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        if depth == 0
            && tokens[i] == "namespace"
            && tokens.get(i + 1).is_some_and(|t| t == "lazuli")
        {
            i += 2;
            continue;
        }
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            t if depth == 0 => foreign.push(t.to_owned()),
            _ => {}
        }
        i += 1;
    }
    foreign
}

/// The installed headers name nothing outside the library's namespace: in `lazuli.h` every
/// macro, type, tag, enum constant and function starts with `lazuli_` or `LAZULI_`;
/// `lazuli.hpp` declares everything inside `namespace lazuli`, its macros prefixed.
#[test]
fn the_headers_declare_only_prefixed_names() {
    let header = std::fs::read_to_string(root().join("include/lazuli.h")).unwrap();
    let names = file_scope_names(&header);
    // The reader sees the header's declarations (the check is not vacuous).
    for expected in [
        "LAZULI_H",
        "LAZULI_VERSION_MAJOR",
        "LAZULI_RESULT_OK",
        "lazuli_engine",
        "lazuli_limits",
        "lazuli_info_callback",
        "lazuli_limits_default",
        "lazuli_engine_go",
        "lazuli_engine_last_error",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not found in {names:?}"
        );
    }
    let foreign: Vec<&String> = names.iter().filter(|n| !prefixed(n)).collect();
    assert!(
        foreign.is_empty(),
        "include/lazuli.h declares names without the lazuli_/LAZULI_ prefix: {foreign:?} \
         (make them private in Rust, or exclude or rename them in cbindgen.toml)"
    );

    let cpp = std::fs::read_to_string(root().join("include/lazuli.hpp")).unwrap();
    let foreign = cpp_foreign_names(&cpp);
    assert!(
        foreign.is_empty(),
        "include/lazuli.hpp declares outside namespace lazuli: {foreign:?}"
    );
}

/// The name checks find an unprefixed name of every kind planted in a sample header, and
/// nothing else (fields and parameters are not file-scope names).
#[test]
fn the_name_checks_catch_unprefixed_names() {
    let sample = r#"
#ifndef LAZULI_H
#define LAZULI_H
#define LAZULI_VERSION_MAJOR 0
#define HEADER_BYTES 64 /* a planted constant */
#define SPLIT_MACRO(x) \
  (x)
typedef enum {
  LAZULI_RESULT_OK = 0,
  STRAY_RESULT = 1,
} lazuli_result;
typedef struct lazuli_engine lazuli_engine;
typedef struct { uint32_t depth; const char *pv; } limits;
typedef void (*callback)(void *userdata, const char *text);
struct tag { int field; };
enum colour { WHITE, BLACK };
#ifdef __cplusplus
extern "C" {
#endif // __cplusplus
lazuli_result lazuli_engine_go(lazuli_engine *engine,
                               const limits *limits_arg);
void helper(const char *s);
extern int counter;
static const char greeting[] = "x; y";
#ifdef __cplusplus
}  // extern "C"
#endif // __cplusplus
#endif
"#;
    let foreign: Vec<String> = file_scope_names(sample)
        .into_iter()
        .filter(|n| !prefixed(n))
        .collect();
    assert_eq!(
        foreign,
        [
            "BLACK",
            "HEADER_BYTES",
            "SPLIT_MACRO",
            "STRAY_RESULT",
            "WHITE",
            "callback",
            "colour",
            "counter",
            "greeting",
            "helper",
            "limits",
            "tag",
        ]
    );

    let cpp = r#"
#ifndef LAZULI_HPP
#define LAZULI_HPP
#define CHECK(x) x
#include "lazuli.h"
#include <string>
inline int helper() { return 1; }
namespace lazuli {
class engine { void go() {} };
}  // namespace lazuli
using namespace std;
#endif
"#;
    let foreign = cpp_foreign_names(cpp);
    assert_eq!(
        foreign,
        [
            "CHECK",
            "inline",
            "int",
            "helper",
            "(",
            ")",
            "using",
            "namespace",
            "std",
            ";"
        ]
    );
}
