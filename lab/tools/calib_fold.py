#!/usr/bin/env python3
"""Folds a held-out check's games (lab/tools/calibrate.py --mode elo) into a calibration fit:
each game at `UCI_Elo X` becomes a game at the strength that X meant in the build that played
it, so that `calibrate.py --mode skill --fit-only --knots ...` fits checks and calibration runs
together (docs/limited-strength.md). The build's anchors are given as ELO:LEVEL,... (its
SKILL_ELO_ANCHORS), or read from that build's src/params.rs with --params; the strength is
their linear interpolation, as src/search/skill.rs's `strength_for_elo`. Writes JSON lines (no
header) to stdout.

    python3 lab/tools/calib_fold.py --anchors 1447:0,1600:2,...,2463:20 heldout.jsonl >> fit.jsonl
    python3 lab/tools/calib_fold.py --params <(git show 62111e8:src/params.rs) heldout.jsonl >> fit.jsonl
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_fit as cfit  # noqa: E402
import calibrate as cal  # noqa: E402


def strength_for_elo(anchors, elo):
    """src/search/skill.rs's strength_for_elo: piecewise linear, clamped at the ends."""
    if elo <= anchors[0][0]:
        return anchors[0][1]
    if elo >= anchors[-1][0]:
        return anchors[-1][1]
    for (e0, l0), (e1, l1) in zip(anchors, anchors[1:]):
        if e0 <= elo <= e1:
            return l0 + (l1 - l0) * (elo - e0) / (e1 - e0)
    raise ValueError(elo)


def fold(anchors, records):
    for r in records:
        if r.get("mode") != "elo":
            continue
        level = round(strength_for_elo(anchors, r["level"]), 4)
        point = cal.point_key("skill", level, r["sf"])
        yield dict(r, mode="skill", level=level, point=point,
                   id=cal.game_id(point, r["pair"], r["lazuli_white"]), folded_from=r["point"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    given = ap.add_mutually_exclusive_group(required=True)
    given.add_argument("--anchors", help="ELO:LEVEL,... the build's SKILL_ELO_ANCHORS")
    given.add_argument("--params", help="the build's src/params.rs, whose SKILL_ELO_ANCHORS are read")
    ap.add_argument("results", nargs="+", help="results files of --mode elo runs")
    args = ap.parse_args(argv)
    if args.params:
        with open(args.params) as f:
            anchors = cfit.parse_anchors(f.read())
    else:
        anchors = [(int(e), float(lv)) for e, lv in (a.split(":") for a in args.anchors.split(","))]
    if any(b[0] <= a[0] or b[1] < a[1] for a, b in zip(anchors, anchors[1:])):
        sys.exit("--anchors: Elo must rise and levels must not fall")
    for path in args.results:
        with open(path) as f:
            records = [json.loads(line) for line in f if line.strip()]
        for r in fold(anchors, (r for r in records if "point" in r)):
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
