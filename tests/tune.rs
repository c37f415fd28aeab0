//! Tune builds (`cargo test --features tune`, run by `.ci/run`): every tunable search constant
//! is a UCI option that acts on the search, takes its default back exactly, and is listed by
//! the `tune` command in OpenBench's SPSA format. Without the feature this file is empty.
#![cfg(feature = "tune")]

use lazuli::{Engine, Limits, Silent, option_specs};

/// The node count of a one-thread depth-9 search of a middlegame, from a new game.
fn nodes(e: &mut Engine) -> u64 {
    e.new_game();
    e.set_position(
        Some("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8"),
        &[],
    )
    .unwrap();
    e.go(Limits::depth(9), Silent).unwrap();
    e.wait().unwrap().unwrap().nodes
}

/// Tunables are named like the constants they are: capitals with an underscore.
fn is_tunable(name: &str) -> bool {
    name.contains('_') && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// One test, because the tunables are process-wide: tests running side by side would see
/// each other's values.
#[test]
fn each_tunable_is_an_option_that_changes_the_search_and_resets_exactly() {
    let specs = option_specs();
    let tunables: Vec<(&str, i64, i64, i64)> = specs
        .iter()
        .filter(|s| is_tunable(s.name))
        .filter_map(|s| match s.kind {
            lazuli::OptionKind::Spin { default, min, max } => Some((s.name, default, min, max)),
            _ => None,
        })
        .collect();
    assert!(tunables.len() >= 20, "{} tunables", tunables.len());

    let mut e = Engine::new().unwrap();
    let baseline = nodes(&mut e);
    // Out of range is refused like any option.
    let (name, _, _, max) = tunables[0];
    assert!(e.set_option(name, &(max + 1).to_string()).is_err());
    assert_eq!(nodes(&mut e), baseline);

    // Each of these moves the search at depth 9 when set to an end of its range.
    for name in [
        "RFP_MARGIN",
        "LMR_DIVISOR",
        "FUTILITY_MARGIN",
        "HISTORY_BONUS_SCALE",
        "NET_OUTPUT_PERCENT",
    ] {
        let &(_, default, min, _) = tunables.iter().find(|t| t.0 == name).unwrap();
        e.set_option(name, &min.to_string()).unwrap();
        let changed = nodes(&mut e);
        e.set_option(name, &default.to_string()).unwrap();
        assert_ne!(
            changed, baseline,
            "{name} = {min} did not change the search"
        );
        assert_eq!(nodes(&mut e), baseline, "{name} back at {default}");
    }
}

#[test]
fn the_tune_command_lists_every_tunable_in_spsa_format() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lazuli"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"tune\nquit\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let names: Vec<&str> = option_specs()
        .into_iter()
        .map(|s| s.name)
        .filter(|n| is_tunable(n))
        .collect();
    assert_eq!(lines.len(), names.len(), "{text}");
    for (line, name) in lines.iter().zip(&names) {
        let fields: Vec<&str> = line.split(", ").collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[0], *name);
        assert_eq!(fields[1], "int");
        let [value, min, max, c_end]: [i64; 4] =
            std::array::from_fn(|i| fields[2 + i].parse().unwrap());
        assert!(min <= value && value <= max && c_end >= 1, "{line}");
        assert_eq!(fields[6].parse::<f64>().unwrap(), 0.002);
    }
}
