#!/usr/bin/env bash
# Runs one fuzz target for SECONDS seconds on one core, on stable Rust (libFuzzer through
# cargo-fuzz, without a sanitizer: `--sanitizer none` needs no nightly).
#
#   fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#   TARGET: uci_line | position | epd | c_api | hash_file
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and a C++ compiler (libfuzzer-sys
# builds libFuzzer). The corpus that grows goes to fuzz/corpus-run/TARGET (not committed);
# the committed seeds in fuzz/corpus/TARGET are read, never written. A crash is saved under
# fuzz/artifacts/TARGET/; replay it with `cargo fuzz run --sanitizer none -a TARGET FILE`.
# The build uses one job unless CARGO_BUILD_JOBS says otherwise.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

cd "$(dirname "$0")"
if [[ ! -f "fuzz_targets/$target.rs" ]]; then
    echo "no fuzz target '$target' (see fuzz/fuzz_targets/)" >&2
    exit 2
fi
mkdir -p "corpus-run/$target" "artifacts/$target"
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}

# -a: debug assertions and overflow checks (the engine then checks every incremental hash
# key against a full recomputation). No -jobs/-workers: libFuzzer then runs in this one
# process (with -jobs it forks workers and writes their output to fuzz-N.log), so one core.
exec cargo fuzz run --sanitizer none -a "$target" "corpus-run/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="artifacts/$target/" "$@"
