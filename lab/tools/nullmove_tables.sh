#!/bin/sh
# The null-move study's tables on one build: ECM 9-11 and WCS 8-10 (tree size and
# positions solved), and the mates in 4 and 5 at depths 8 and 10 with and without LMR and
# pruning, each mode at the paper's fixed R, one thread a position, two positions at once.
#
#   lab/tools/nullmove_tables.sh <lazuli binary> <label>
#
# writes lab/records/study/{ecm-nnue,wcs-nnue,mate4,mate5,mate4-plain,mate5-plain}-<label>.{csv,md}.
# Node counts at a fixed depth with one thread are the same on any machine, so the run can
# share the cores with other fixed-depth work (not with a timed match).
set -eu
bin=$1
label=$2
out=lab/records/study
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep "dm 4;" tests/data/mates_2to5_dev.epd > "$tmp/mates4.epd"
grep "dm 5;" tests/data/mates_2to5_dev.epd > "$tmp/mates5.epd"

study() {
    name=$1
    shift
    echo "$(date -u +%H:%M:%S) $name" >&2
    "$bin" study nullmove --skip-kp --jobs 2 "$@" \
        --csv "$out/$name-$label.csv" --markdown "$out/$name-$label.md"
}

wide="std2,std3,paper3,verified3"
mates="std1,std2,std3,paper3,verified3"
study ecm-nnue --suite tests/data/ecm.epd --depths 9,10,11 --modes "$wide"
study wcs-nnue --suite tests/data/wcsac.epd --depths 8,9,10 --modes "$wide"
study mate4 --suite "$tmp/mates4.epd" --depths 8 --modes "$mates"
study mate5 --suite "$tmp/mates5.epd" --depths 10 --modes "$mates"
study mate4-plain --suite "$tmp/mates4.epd" --depths 8 --modes "$mates" --lmr off --pruning off
study mate5-plain --suite "$tmp/mates5.epd" --depths 10 --modes "$mates" --lmr off --pruning off \
    --limit 30
