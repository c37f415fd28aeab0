#!/usr/bin/env bash
# The C library's ABI against its committed description, abi/liblazuli.abi (libabigail).
#
# The description is abidw's of the ABI C programs compile against: the public header,
# include/lazuli.h, compiled with debug information into a stub library (each function a
# trap) that carries the real library's SONAME. Describing the header rather than the Rust
# library keeps it the same across rustc versions and machines and free of Rust's internal
# types; the header is tied to the library by tests/c_api.rs (it is cbindgen's output of
# src/ffi/) and tests/c_abi.rs (the same sizes, offsets and constants), and this script checks
# that the library exports exactly the header's functions.
#
#   tools/abi_check.sh [LIB]           check LIB (default: `cargo build --lib`'s)
#   tools/abi_check.sh --update [LIB]  write abi/liblazuli.abi, unless the change is
#                                      incompatible under the same SONAME
#   tools/abi_check.sh --self-test     plants changes into a copy of the header (a field added
#                                      to lazuli_limits, with and without a new SONAME; a new
#                                      function; a new enum constant) and checks each verdict
#
# Verdicts, by `abidiff` of the committed description against the fresh one (exit status 1
# on all but the first):
#   same ABI
#   grown compatibly (functions added, or a change libabigail deems harmless such as an enum
#     constant added at the end): record it with --update
#   incompatible change under the same SONAME: undo it, or raise the major version
#   new SONAME: record the new description with --update
# Needs gcc, nm, readelf and abidw/abidiff (Debian: apt-get install abigail-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=abi/liblazuli.abi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# describe HEADER SONAME OUT: abidw's description of HEADER's functions and types, as a
# library named SONAME.
describe() {
  local header=$1 soname=$2 out=$3 dir
  dir=$(mktemp -d -p "$work")
  cp "$header" "$dir/lazuli.h"
  # Each prototype of the header's extern "C" block becomes a definition that traps.
  python3 - "$dir/lazuli.h" > "$dir/lazuli_abi.c" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
body = text.split('extern "C" {', 1)[1].split('#ifdef __cplusplus', 1)[0]
body = "\n".join(l for l in body.splitlines() if not l.lstrip().startswith("#"))
print('#include "lazuli.h"')
for declaration in body.split(";"):
    if declaration.strip():
        print(declaration.strip() + " { __builtin_trap(); }")
PY
  (cd "$dir" && gcc -std=c11 -g -O0 -fPIC -shared -Wall -Werror -Wno-return-type \
    -Wl,-soname,"$soname" lazuli_abi.c -o stub.so)
  abidw --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed \
    --type-id-style hash "$dir/stub.so" > "$out"
  cp "$dir/stub.so" "$out.so"
}

# exported SO: its defined dynamic symbols, one a line, sorted.
exported() {
  nm -D --defined-only "$1" | awk '{print $NF}' | sort
}

soname_of() {
  readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'
}

# verdict OLD NEW: prints the verdict on the change from description OLD to NEW; returns 0
# for the same ABI, 2 for compatible growth, 3 for an incompatible change under the same
# SONAME, 4 for a new SONAME.
verdict() {
  local old=$1 new=$2 old_soname new_soname
  old_soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$old")
  new_soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$new")
  if abidiff "$old" "$new" > "$work/report" 2>&1; then
    # Changes libabigail deems harmless (an enum constant added at the end) are growth too.
    if abidiff --harmless "$old" "$new" > "$work/report" 2>&1; then
      echo "same ABI ($new_soname)"
      return 0
    fi
    echo "grown compatibly (a harmless change): record it with --update"
    cat "$work/report"
    return 2
  fi
  if [[ $old_soname != "$new_soname" ]]; then
    echo "new SONAME ($old_soname -> $new_soname): record the new description with --update"
    cat "$work/report"
    return 4
  fi
  # Without the added functions, nothing else may have changed.
  if abidiff --no-added-syms "$old" "$new" > "$work/report-changed" 2>&1; then
    echo "grown compatibly (only functions added): record it with --update"
    cat "$work/report"
    return 2
  fi
  echo "incompatible change under the same SONAME ($new_soname): undo it, or raise the major"
  echo "version in Cargo.toml (a new SONAME) and record it with --update"
  cat "$work/report-changed"
  return 3
}

# fresh LIB OUT: the description of include/lazuli.h as LIB's, after checking that LIB
# exports exactly the header's functions.
fresh() {
  local lib=$1 out=$2 soname
  soname=$(soname_of "$lib")
  [[ -n $soname ]] || { echo "$lib has no SONAME" >&2; exit 1; }
  describe include/lazuli.h "$soname" "$out"
  if ! diff <(exported "$out.so") <(exported "$lib") > "$work/symbols"; then
    echo "$lib does not export exactly the functions of include/lazuli.h (< header, > library):" >&2
    cat "$work/symbols" >&2
    exit 1
  fi
}

library() {
  if [[ -n ${1:-} ]]; then
    echo "$1"
  else
    cargo build --lib --quiet >&2
    echo "${CARGO_TARGET_DIR:-target}/debug/liblazuli.so"
  fi
}

self_test() {
  local soname failures=0
  soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$baseline")
  # expect NAME STATUS HEADER SONAME: the verdict on HEADER described as SONAME.
  expect() {
    local name=$1 status=$2 header=$3 as=$4 got=0
    describe "$header" "$as" "$work/$name.abi"
    verdict "$baseline" "$work/$name.abi" > "$work/$name.txt" || got=$?
    echo "--- $name: verdict $got (expected $status)"
    sed 's/^/    /' "$work/$name.txt"
    ((got == status)) || failures=$((failures + 1))
  }
  expect unchanged 0 include/lazuli.h "$soname"
  # A field added to lazuli_limits, which callers allocate and lazuli_limits_default returns.
  sed '/^  bool ponder;$/a\  uint32_t planted;' include/lazuli.h > "$work/field.h"
  grep -q 'uint32_t planted;' "$work/field.h"
  expect field-added 3 "$work/field.h" "$soname"
  expect field-added-new-soname 4 "$work/field.h" "${soname%.*}.$((${soname##*.} + 1))"
  sed 's/^size_t lazuli_engine_last_error(.*/&\nuint32_t lazuli_planted(void);/' include/lazuli.h \
    > "$work/function.h"
  grep -q 'lazuli_planted' "$work/function.h"
  expect function-added 2 "$work/function.h" "$soname"
  sed 's/^  LAZULI_RESULT_FILE_ERROR = 10,$/&\n  LAZULI_RESULT_PLANTED = 11,/' include/lazuli.h \
    > "$work/enum.h"
  grep -q 'LAZULI_RESULT_PLANTED' "$work/enum.h"
  expect enum-constant-added 2 "$work/enum.h" "$soname"
  if ((failures)); then
    echo "abi_check self-test: $failures verdict(s) wrong" >&2
    exit 1
  fi
  echo "abi_check self-test: every verdict as expected"
}

case ${1:-} in
  --self-test)
    self_test
    ;;
  --update)
    lib=$(library "${2:-}")
    fresh "$lib" "$work/fresh.abi"
    status=0
    [[ -e $baseline ]] && { verdict "$baseline" "$work/fresh.abi" || status=$?; }
    if ((status == 3)); then
      echo "refused: $baseline not written" >&2
      exit 1
    fi
    cp "$work/fresh.abi" "$baseline"
    echo "wrote $baseline"
    ;;
  -*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
  *)
    lib=$(library "${1:-}")
    fresh "$lib" "$work/fresh.abi"
    verdict "$baseline" "$work/fresh.abi" || exit 1
    ;;
esac
