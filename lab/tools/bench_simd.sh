#!/usr/bin/env bash
# Compares the search speed of two lazuli binaries: runs `A bench` and `B bench` alternately
# ROUNDS times each (default 7; the bench's default arguments: 16 MB, 1 thread, its depth),
# parses "Nodes/second" from each run, and prints both medians and the ratio B/A (of the
# medians, and the median of the per-round ratios). Checks that both searched the same nodes.
# Run it on an otherwise idle machine.
#
#   lab/tools/bench_simd.sh A B [ROUNDS]
#   lab/tools/bench_simd.sh /tmp/lazuli-03a597d /tmp/lazuli-dispatch
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 A B [ROUNDS]   (two lazuli binaries; ROUNDS defaults to 7)" >&2
    exit 2
fi
a=$1 b=$2 rounds=${3:-7}
for bin in "$a" "$b"; do
    [[ -x $bin ]] || { echo "$bin: not an executable" >&2; exit 2; }
done

# One bench: prints "NODES NPS" from the summary on stdout (progress goes to stderr).
run() {
    local out
    out=$("$1" bench 2>/dev/null)
    local nodes nps
    nodes=$(awk -F: '/^Nodes searched/ {gsub(/ /, "", $2); print $2}' <<<"$out")
    nps=$(awk -F: '/^Nodes\/second/ {gsub(/ /, "", $2); print $2}' <<<"$out")
    if [[ -z $nodes || -z $nps ]]; then
        echo "$1 bench: no 'Nodes searched' / 'Nodes/second' in its output:" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "$nodes $nps"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

a_nps=() b_nps=() ratios=()
for ((i = 1; i <= rounds; i++)); do
    read -r a_nodes an < <(run "$a")
    read -r b_nodes bn < <(run "$b")
    if [[ $a_nodes != "$b_nodes" ]]; then
        echo "warning: round $i: A searched $a_nodes nodes, B $b_nodes" >&2
    fi
    ratio=$(awk -v a="$an" -v b="$bn" 'BEGIN {printf "%.4f", b / a}')
    printf 'round %d/%d: A %s nodes/s, B %s nodes/s, B/A %s (nodes %s)\n' \
        "$i" "$rounds" "$an" "$bn" "$ratio" "$a_nodes"
    a_nps+=("$an") b_nps+=("$bn") ratios+=("$ratio")
done

a_med=$(printf '%s\n' "${a_nps[@]}" | median)
b_med=$(printf '%s\n' "${b_nps[@]}" | median)
r_med=$(printf '%s\n' "${ratios[@]}" | median)
echo "A: $a"
echo "B: $b"
printf 'median nodes/s: A %.0f, B %.0f\n' "$a_med" "$b_med"
awk -v a="$a_med" -v b="$b_med" -v r="$r_med" \
    'BEGIN {printf "B/A: %.4f (ratio of the medians), %.4f (median of the %s per-round ratios)\n", b / a, r, "'"$rounds"'"}'
