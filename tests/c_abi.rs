//! One source of truth for the C ABI: `include/lazuli.h` (generated from `src/ffi/` by
//! cbindgen) describes the library's own `#[repr(C)]` types, which the Rust tests and fuzz
//! targets use through `lazuli::ffi`.
//!
//! - Layout: the header is parsed for every `typedef struct { ... } name;` and
//!   `typedef enum { ... } name;`; a C program generated from what was parsed prints `sizeof`,
//!   `_Alignof`, every field's `offsetof` and `sizeof`, and every enum constant; compiled with
//!   `cc` against the header, its output must equal the Rust `size_of`, `align_of`,
//!   `offset_of!` and discriminants of [`TABLE`]'s types. A struct, field or constant in the
//!   header that the table lacks fails the test, and the table lists every Rust field and
//!   variant (a missing one does not compile), so it cannot go stale.
//! - Every field and enum constant of the header has a doc comment.
//! - The options listed in `lazuli_engine_set_option`'s comment are the engine's, in order.
//! - The Makefile's `NATIVE_LIBS` (read by the tests that link the static library) is what
//!   rustc prints for the static library (ignored by default: it rebuilds the library).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::mem::offset_of;
use std::path::Path;
use std::process::Command;

use common::c::{C_FLAGS, NATIVE_LIBS, checked_output, native_libs_of};
use lazuli::ffi::{
    LazuliBound, LazuliInfo, LazuliLimits, LazuliOption, LazuliOptionType, LazuliResult,
    LazuliScoreKind,
};

const HEADER: &str = include_str!("../include/lazuli.h");

/// A type of the header as the Rust side sees it: its C name, its members (fields or enum
/// constants, in the header's names) and the values the C program must print for it.
struct RustType {
    c_name: &'static str,
    members: Vec<&'static str>,
    /// `"<type> size"`, `"<type> align"`, `"<type>.<field> offset"`, `"<type>.<field> size"`,
    /// `"<type>.<CONSTANT> value"`.
    values: Vec<(String, i64)>,
}

fn field_size<T, F>(_field: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// `Type as "c_name" { field, ... }`: every field, in any order.
macro_rules! structs {
    ($($ty:ident as $c:literal { $($field:ident),* $(,)? })*) => {
        vec![$({
            // Exhaustive: a Rust field missing from the list does not compile.
            let _exhaustive = |v: &$ty| {
                let $ty { $($field: _),* } = v;
            };
            let mut values = vec![
                (format!("{} size", $c), size_of::<$ty>() as i64),
                (format!("{} align", $c), align_of::<$ty>() as i64),
            ];
            $(
                values.push((
                    format!("{}.{} offset", $c, stringify!($field)),
                    offset_of!($ty, $field) as i64,
                ));
                values.push((
                    format!("{}.{} size", $c, stringify!($field)),
                    field_size(|v: &$ty| &v.$field) as i64,
                ));
            )*
            RustType { c_name: $c, members: vec![$(stringify!($field)),*], values }
        }),*]
    };
}

/// `Type as "c_name" { Variant = "C_CONSTANT", ... }`: every variant, in any order.
macro_rules! enums {
    ($($ty:ident as $c:literal { $($variant:ident = $constant:literal),* $(,)? })*) => {
        vec![$({
            // Exhaustive: a Rust variant missing from the list does not compile.
            let _exhaustive = |v: $ty| match v {
                $($ty::$variant)|* => (),
            };
            let mut values = vec![
                (format!("{} size", $c), size_of::<$ty>() as i64),
                (format!("{} align", $c), align_of::<$ty>() as i64),
            ];
            $(values.push((format!("{}.{} value", $c, $constant), $ty::$variant as i64));)*
            RustType { c_name: $c, members: vec![$($constant),*], values }
        }),*]
    };
}

/// The Rust side of every struct and enum of the header.
fn table() -> Vec<RustType> {
    let mut types = structs! {
        LazuliLimits as "lazuli_limits" {
            depth, nodes, movetime_ms, wtime_ms, btime_ms, winc_ms, binc_ms, movestogo, mate,
            infinite, ponder,
        }
        LazuliInfo as "lazuli_info" {
            depth, seldepth, multipv, score_kind, score, bound, nodes, nps, time_ms, hashfull,
            tbhits, wdl_win, wdl_draw, wdl_loss, pv,
        }
        LazuliOption as "lazuli_option" {
            name, option_type, default_value, min, max, default_string, vars,
        }
    };
    types.extend(enums! {
        LazuliResult as "lazuli_result" {
            Ok = "LAZULI_RESULT_OK",
            NullArgument = "LAZULI_RESULT_NULL_ARGUMENT",
            InvalidUtf8 = "LAZULI_RESULT_INVALID_UTF8",
            InvalidFen = "LAZULI_RESULT_INVALID_FEN",
            IllegalMove = "LAZULI_RESULT_ILLEGAL_MOVE",
            InvalidOption = "LAZULI_RESULT_INVALID_OPTION",
            Busy = "LAZULI_RESULT_BUSY",
            OutOfMemory = "LAZULI_RESULT_OUT_OF_MEMORY",
            InternalPanic = "LAZULI_RESULT_INTERNAL_PANIC",
            BufferTooSmall = "LAZULI_RESULT_BUFFER_TOO_SMALL",
            FileError = "LAZULI_RESULT_FILE_ERROR",
        }
        LazuliScoreKind as "lazuli_score_kind" {
            Cp = "LAZULI_SCORE_KIND_CP",
            Mate = "LAZULI_SCORE_KIND_MATE",
        }
        LazuliBound as "lazuli_bound" {
            Exact = "LAZULI_BOUND_EXACT",
            Lower = "LAZULI_BOUND_LOWER",
            Upper = "LAZULI_BOUND_UPPER",
        }
        LazuliOptionType as "lazuli_option_type" {
            Spin = "LAZULI_OPTION_TYPE_SPIN",
            Check = "LAZULI_OPTION_TYPE_CHECK",
            Combo = "LAZULI_OPTION_TYPE_COMBO",
            Button = "LAZULI_OPTION_TYPE_BUTTON",
            String = "LAZULI_OPTION_TYPE_STRING",
        }
    });
    types
}

/// The header's opaque types (`typedef struct name name;`): no layout to compare.
const OPAQUE: &[&str] = &["lazuli_engine"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Struct,
    Enum,
}

/// A struct field or enum constant of the header.
#[derive(Debug)]
struct Member {
    name: String,
    /// A doc comment stands right before it.
    documented: bool,
}

/// A `typedef struct { ... } name;` or `typedef enum { ... } name;` of the header.
#[derive(Debug)]
struct CType {
    kind: Kind,
    name: String,
    members: Vec<Member>,
}

/// What the header declares: its structs and enums with their members, and its opaque types.
#[derive(Debug, Default)]
struct Header {
    types: Vec<CType>,
    opaque: Vec<String>,
}

/// Parses cbindgen's C output (style "type"). Fails on any struct, enum or union declaration,
/// or any line inside one, that it does not understand, so that nothing can slip past.
fn parse_header(text: &str) -> Header {
    let mut header = Header::default();
    let mut open: Option<(Kind, Vec<Member>)> = None;
    let mut in_comment = false;
    let mut documented = false;
    for (number, raw) in text.lines().enumerate() {
        let at = || format!("include/lazuli.h:{}: {:?}", number + 1, raw.trim());
        let line = raw.trim();
        if in_comment {
            if line.ends_with("*/") {
                in_comment = false;
            }
            continue;
        }
        if line.starts_with("/*") {
            // `/**` is a doc comment; it documents what follows it.
            documented = line.starts_with("/**");
            in_comment = !line.ends_with("*/");
            continue;
        }
        let line = line.split("//").next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        match open.as_mut() {
            None => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let declares = words
                    .iter()
                    .any(|w| matches!(*w, "struct" | "enum" | "union"));
                match words.as_slice() {
                    ["typedef", "struct", "{"] => open = Some((Kind::Struct, Vec::new())),
                    ["typedef", "enum", "{"] => open = Some((Kind::Enum, Vec::new())),
                    ["typedef", "struct", tag, name] if name.strip_suffix(';') == Some(*tag) => {
                        header.opaque.push((*tag).to_owned());
                    }
                    _ if declares => panic!("{}: a declaration this test cannot read", at()),
                    _ => {}
                }
                documented = false;
            }
            Some((kind, members)) => {
                if let Some(rest) = line.strip_prefix('}') {
                    let name = rest.trim().strip_suffix(';').map(str::trim);
                    let name = name.unwrap_or_else(|| panic!("{}: no type name", at()));
                    header.types.push(CType {
                        kind: *kind,
                        name: name.to_owned(),
                        members: std::mem::take(members),
                    });
                    open = None;
                    continue;
                }
                let name = match kind {
                    Kind::Struct => {
                        let decl = line.strip_suffix(';');
                        let decl = decl
                            .filter(|d| !d.contains(['(', ':', ',', '[', '{']))
                            .unwrap_or_else(|| panic!("{}: not a plain field", at()));
                        decl.rsplit([' ', '*']).next().unwrap()
                    }
                    Kind::Enum => {
                        let decl = line.strip_suffix(',');
                        let decl = decl.unwrap_or_else(|| panic!("{}: not an enum constant", at()));
                        decl.split('=').next().unwrap().trim()
                    }
                };
                assert!(
                    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'),
                    "{}: no member name",
                    at()
                );
                members.push(Member {
                    name: name.to_owned(),
                    documented,
                });
                documented = false;
            }
        }
    }
    assert!(
        open.is_none(),
        "include/lazuli.h: a struct or enum is not closed"
    );
    assert!(!in_comment, "include/lazuli.h: a comment is not closed");
    header
}

/// A C program that prints, for every type of `header`, the values [`RustType::values`]
/// names, one `key value` per line.
fn layout_program(header: &Header) -> String {
    let mut c = String::from("#include <stdio.h>\n#include \"lazuli.h\"\n\nint main(void) {\n");
    let mut print = |key: String, expr: String| {
        writeln!(
            c,
            "  printf(\"%s %lld\\n\", \"{key}\", (long long)({expr}));"
        )
        .unwrap();
    };
    for ty in &header.types {
        let t = &ty.name;
        print(format!("{t} size"), format!("sizeof({t})"));
        print(format!("{t} align"), format!("_Alignof({t})"));
        for m in &ty.members {
            let m = &m.name;
            match ty.kind {
                Kind::Struct => {
                    print(format!("{t}.{m} offset"), format!("offsetof({t}, {m})"));
                    print(format!("{t}.{m} size"), format!("sizeof((({t} *)0)->{m})"));
                }
                Kind::Enum => print(format!("{t}.{m} value"), m.clone()),
            }
        }
    }
    c.push_str("  return 0;\n}\n");
    c
}

/// Compiles and runs `source` against the header; its output as key-value pairs.
fn run_c(source: &str) -> BTreeMap<String, i64> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let c_file = dir.join("c_abi_layout.c");
    let exe = dir.join("c_abi_layout");
    std::fs::write(&c_file, source).unwrap();
    let include = concat!(env!("CARGO_MANIFEST_DIR"), "/include");
    checked_output(
        Command::new("cc")
            .args(C_FLAGS)
            .arg(format!("-I{include}"))
            .arg(&c_file)
            .arg("-o")
            .arg(&exe),
        &format!("cc on {} (the generated layout program)", c_file.display()),
    );
    let out = checked_output(&mut Command::new(&exe), "the layout program");
    out.lines()
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').unwrap();
            (key.to_owned(), value.parse().unwrap())
        })
        .collect()
}

#[test]
fn header_layouts_and_constants_match_the_rust_types() {
    let header = parse_header(HEADER);
    let rust = table();
    let mut problems = Vec::new();

    // The same types and members on both sides.
    let opaque: BTreeSet<&str> = header.opaque.iter().map(String::as_str).collect();
    if opaque != OPAQUE.iter().copied().collect() {
        problems.push(format!(
            "opaque types: the header has {opaque:?}, OPAQUE in tests/c_abi.rs lists {OPAQUE:?}"
        ));
    }
    for c in &header.types {
        let Some(r) = rust.iter().find(|r| r.c_name == c.name) else {
            problems.push(format!(
                "the header's {} `{}` is not in tests/c_abi.rs's table: add it",
                match c.kind {
                    Kind::Struct => "struct",
                    Kind::Enum => "enum",
                },
                c.name
            ));
            continue;
        };
        for m in &c.members {
            if !r.members.contains(&m.name.as_str()) {
                problems.push(format!(
                    "the header's `{}.{}` is not in tests/c_abi.rs's table: add it",
                    c.name, m.name
                ));
            }
        }
        for m in &r.members {
            if !c.members.iter().any(|c| c.name == *m) {
                problems.push(format!(
                    "tests/c_abi.rs's table lists `{}.{m}`, which the header lacks",
                    c.name
                ));
            }
        }
    }
    for r in &rust {
        if !header.types.iter().any(|c| c.name == r.c_name) {
            problems.push(format!(
                "tests/c_abi.rs's table lists `{}`, which the header lacks",
                r.c_name
            ));
        }
    }

    // The same values where both have them.
    let c_values = run_c(&layout_program(&header));
    for (key, rust_value) in rust.iter().flat_map(|r| &r.values) {
        if let Some(c_value) = c_values.get(key)
            && c_value != rust_value
        {
            problems.push(format!("{key}: C {c_value}, Rust {rust_value}"));
        }
    }
    let compared = rust
        .iter()
        .flat_map(|r| &r.values)
        .filter(|(k, _)| c_values.contains_key(k))
        .count();
    assert!(
        problems.is_empty(),
        "include/lazuli.h and the Rust types disagree:\n  {}",
        problems.join("\n  ")
    );
    // Sanity: the parse found what is known to be there.
    assert!(compared >= 80, "only {compared} values compared");
}

#[test]
fn every_field_and_constant_of_the_header_is_documented() {
    let undocumented: Vec<String> = parse_header(HEADER)
        .types
        .iter()
        .flat_map(|t| {
            t.members
                .iter()
                .filter(|m| !m.documented)
                .map(move |m| format!("{}.{}", t.name, m.name))
        })
        .collect();
    assert!(
        undocumented.is_empty(),
        "members of include/lazuli.h without a doc comment (document them in src/ffi/ and \
         regenerate the header): {undocumented:?}"
    );
}

/// The comment right before `declaration` in the header, its lines joined by single spaces.
fn doc_before(declaration: &str) -> String {
    let lines: Vec<&str> = HEADER.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(declaration))
        .unwrap_or_else(|| panic!("include/lazuli.h declares no {declaration}"));
    assert_eq!(lines[at - 1], "*/", "no comment before {declaration}");
    let start = lines[..at].iter().rposition(|l| *l == "/**").unwrap();
    let text: Vec<&str> = lines[start + 1..at - 1]
        .iter()
        .map(|l| l.trim_start_matches('*').trim())
        .collect();
    text.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
#[cfg_attr(
    feature = "tune",
    ignore = "a tune build adds its search constants as options, which the header does not list"
)]
fn set_option_lists_every_option_in_order() {
    let names: Vec<String> = lazuli::option_specs()
        .iter()
        .map(|s| format!("{:?}", s.name))
        .collect();
    let list = format!("{} ", names.join(", "));
    let doc = doc_before("lazuli_result lazuli_engine_set_option(");
    assert!(
        doc.contains(&format!(": {list}")),
        "lazuli_engine_set_option's comment (src/ffi/exports.rs) must list the options as \
         option_specs() gives them, after a colon:\n  {list}\nIt says:\n  {doc}"
    );
}

#[test]
fn native_libs_come_from_the_makefile() {
    assert_eq!(
        native_libs_of("CC ?= cc\nNATIVE_LIBS := -lm -lc\nLIB = x\n"),
        Some(vec!["-lm".to_owned(), "-lc".to_owned()])
    );
    assert_eq!(native_libs_of("NATIVE_LIBS_X = -lm\n"), None);
    assert!(
        NATIVE_LIBS.iter().all(|l| l.starts_with("-l")),
        "{NATIVE_LIBS:?}"
    );
}

/// Builds the release static library once more in a target directory of its own (minutes)
/// to read rustc's list: `cargo test --test c_abi -- --ignored native_libs`.
#[test]
#[ignore = "rebuilds the library and its dependencies in release (minutes)"]
fn native_libs_are_what_rustc_prints() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("native-libs");
    let out = Command::new(env!("CARGO"))
        .args(["rustc", "--release", "--lib", "--crate-type", "staticlib"])
        .args(["--", "--print", "native-static-libs"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let printed: Vec<String> = stderr
        .lines()
        .find_map(|l| l.split_once("native-static-libs: "))
        .unwrap_or_else(|| panic!("rustc printed no native-static-libs:\n{stderr}"))
        .1
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(printed, *NATIVE_LIBS, "update the Makefile's NATIVE_LIBS");
}
