//! The `lazuli` command line: help, version, usage errors, the subcommands and the words run
//! as one UCI command, each run as a process of the built binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// Which stream a case expects its text on.
#[derive(Clone, Copy, Debug)]
enum Stream {
    Stdout,
    Stderr,
}

/// One run: arguments and standard input, the exit code, and a text expected on a stream.
struct Case {
    args: &'static [&'static str],
    stdin: &'static str,
    code: i32,
    stream: Stream,
    text: &'static str,
}

const fn case(
    args: &'static [&'static str],
    code: i32,
    stream: Stream,
    text: &'static str,
) -> Case {
    Case {
        args,
        stdin: "",
        code,
        stream,
        text,
    }
}

use Stream::{Stderr, Stdout};

/// Help and version: exit 0, text on stdout.
const HELP: &[Case] = &[
    case(&["--help"], 0, Stdout, "lazuli [UCI COMMAND...]"),
    case(
        &["--help"],
        0,
        Stdout,
        "speaks UCI on standard input and output",
    ),
    case(&["-h"], 0, Stdout, "study"),
    case(&["help"], 0, Stdout, "bench"),
    case(
        &["--version"],
        0,
        Stdout,
        concat!("lazuli ", env!("CARGO_PKG_VERSION"), "\n"),
    ),
    case(
        &["-V"],
        0,
        Stdout,
        concat!("lazuli ", env!("CARGO_PKG_VERSION")),
    ),
    case(
        &["help", "bench"],
        0,
        Stdout,
        "Usage: lazuli bench [HASH] [THREADS] [DEPTH]",
    ),
    case(&["bench", "--help"], 0, Stdout, "[default: 16]"),
    case(&["bench", "-h"], 0, Stdout, "scaling"),
    case(
        &["bench", "scaling", "--help"],
        0,
        Stdout,
        "--stop-trials <K>",
    ),
    case(&["help", "bench", "scaling"], 0, Stdout, "--svg <FILE>"),
    case(&["study", "--help"], 0, Stdout, "nullmove"),
    case(
        &["study", "nullmove", "--help"],
        0,
        Stdout,
        "--suite <FILE>",
    ),
    case(
        &["study", "nullmove", "--help"],
        0,
        Stdout,
        "[default: std2,std3,paper3,verified3]",
    ),
];

/// Flags and values that are not understood: clap's usage on stderr, exit 2.
const USAGE_ERRORS: &[Case] = &[
    case(
        &["--frobnicate"],
        2,
        Stderr,
        "unexpected argument '--frobnicate'",
    ),
    case(&["--frobnicate"], 2, Stderr, "Usage: lazuli"),
    case(&["bench", "--frobnicate"], 2, Stderr, "Usage: lazuli bench"),
    case(&["bench", "1", "1", "2", "3"], 2, Stderr, "'3'"),
    case(
        &["bench", "scaling", "--frobnicate"],
        2,
        Stderr,
        "Usage: lazuli bench scaling",
    ),
    case(
        &["bench", "scaling", "--depth", "0"],
        2,
        Stderr,
        "--depth <D>",
    ),
    case(
        &["bench", "scaling", "--threads", "1,x"],
        2,
        Stderr,
        "invalid value 'x'",
    ),
    case(
        &["bench", "scaling", "--max", "2", "--threads", "1,2"],
        2,
        Stderr,
        "cannot be used with",
    ),
    case(&["study"], 2, Stderr, "Usage: lazuli study <COMMAND>"),
    case(&["study", "nullmove"], 2, Stderr, "--suite <FILE>"),
    case(
        &["study", "nullmove", "--suite", "x.epd", "--modes", "std9"],
        2,
        Stderr,
        "std9",
    ),
    case(
        &["study", "nullmove", "--suite", "x.epd", "--lmr", "maybe"],
        2,
        Stderr,
        "[possible values: on, off]",
    ),
];

/// What runs: the UCI loop without arguments, the bench, other words as one UCI command.
const RUNS: &[Case] = &[
    Case {
        args: &[],
        stdin: "uci\nisready\nquit\n",
        code: 0,
        stream: Stdout,
        text: "uciok\nreadyok\n",
    },
    case(&["bench", "1", "1", "2"], 0, Stdout, "Nodes searched  : "),
    // The positional numbers are checked as the UCI `bench` command checks them.
    case(
        &["bench", "0"],
        1,
        Stderr,
        "usage: bench [hash MB] [threads] [depth]",
    ),
    case(&["go", "perft", "2"], 0, Stdout, "Nodes searched: 400\n"),
    case(&["isready"], 0, Stdout, "readyok"),
    case(
        &["frobnicate"],
        0,
        Stdout,
        "info string error: unknown command 'frobnicate'",
    ),
    // The lab's commands are not the product's: `datagen` is one (unknown) UCI command.
    case(
        &["datagen"],
        0,
        Stdout,
        "info string error: unknown command 'datagen'",
    ),
];

/// Runs every case; fails listing each case whose exit code or text differs.
fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lazuli"))
            .args(c.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(c.stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let text = match c.stream {
            Stdout => &stdout,
            Stderr => &stderr,
        };
        if out.status.code() != Some(c.code) || !text.contains(c.text) {
            failures.push(format!(
                "{:?}: expected exit {} and {:?} on {:?}, got {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
                c.args,
                c.code,
                c.text,
                c.stream,
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn help_and_version() {
    check(HELP);
}

#[test]
fn usage_errors() {
    check(USAGE_ERRORS);
}

#[test]
fn runs() {
    check(RUNS);
}
