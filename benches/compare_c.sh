#!/usr/bin/env bash
# Speed of a search through the C library against the UCI binary: the same positions
# (benches/positions.epd), depth and one thread, alternating the two ROUNDS times so that a
# busy machine slows both alike. Prints both node counts (they must agree) and the NPS ratio.
#   benches/compare_c.sh [DEPTH] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
depth=${1:-11}
rounds=${2:-5}
cargo build --release --quiet
mkdir -p target/c
cc -std=c11 -O2 -Iinclude benches/c_api_bench.c target/release/liblazuli.a \
   -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o target/c/c_api_bench
field() { awk -v k="$1" -F' *: *' '$1 == k {print $2}'; }
ratios=()
for i in $(seq "$rounds"); do
  uci=$(target/release/lazuli bench 16 1 "$depth" 2>/dev/null)
  c=$(target/c/c_api_bench benches/positions.epd "$depth")
  un=$(echo "$uci" | field "Nodes searched"); cn=$(echo "$c" | field "Nodes searched")
  us=$(echo "$uci" | field "Nodes/second");   cs=$(echo "$c" | field "Nodes/second")
  [ "$un" = "$cn" ] || { echo "node counts differ: UCI $un, C $cn"; exit 1; }
  r=$(python3 -c "print(f'{$cs/$us:.4f}')")
  ratios+=("$r")
  echo "round $i: nodes $un  UCI $us nps  C library $cs nps  ratio $r"
done
python3 -c "
import statistics as s; r=[${ratios[*]/%/,}]
print(f'C library / UCI binary NPS: median {s.median(r):.4f}, min {min(r):.4f}, max {max(r):.4f} over {len(r)} rounds')"
