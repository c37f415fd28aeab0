#!/usr/bin/env python3
"""Pools the games of several runs of ../shared/tools/match.py into one SPRT.

match.py does not resume: a run stopped by a session's end loses its place, and an SPRT near
its bounds' middle needs more games than one session on two cores plays. The SPRT's statistic
depends only on the game pairs played, not on when, so runs of the same test (same engines,
options, book, time control and bounds; a new --seed for each, so that no opening repeats)
are one sequential test: pool every run's finished pairs, in full, and stop when the pooled
LLR leaves its bounds. Never pick runs by their result.

    python3 lab/tools/sprt_pool.py --engine mates --sprt=-5,0 run1.log run2.log

reads the "game N/M  WHITE - BLACK  RESULT" lines of each log, pairs games 2k+1 and 2k+2 of a
run (one opening, both colours; an unfinished pair is left out, as match.py leaves it out) and
prints the pentanomial counts, the score with its 95% interval in Elo (lab/tools/calib_fit.py's
`pentanomial` and `pentanomial_elo`, as the calibration reports them), and the LLR with
match.py's formula (the normal approximation of fishtest and OpenBench) and verdict.

`--drop-terminated` leaves out the games that ended with "NAME terminated" (an engine killed)
and says how many per log. Use it only for a run whose stop signal reached the engines (a
`timeout` sends it to the whole process group): the games in flight then all end at once as
crashes, one per concurrent game, which is the stop's doing and not the engines'. Read the log
first: a lone crash in the middle of a run is a real result and must count.
Standard library only. `--self-test` checks it and ends with 'N passed, N failed'.
"""

import argparse
import math
import re
import sys

import calib_fit as cfit

GAME = re.compile(r"^game\s+(\d+)/\d+\s+(\S+) - (\S+)\s+(1-0|0-1|1/2-1/2)\s")
RESULT = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def pair_scores(lines, engine, drop_terminated=False):
    """(the engine's mean score over each finished pair of one run's log lines, how many games
    ended by a killed engine); with drop_terminated those games are left out of the pairs."""
    games = {}
    terminated = 0
    for line in lines:
        m = GAME.match(line)
        if not m:
            continue
        if " terminated " in line[m.end() - 1:]:
            terminated += 1
            if drop_terminated:
                continue
        number, white, black, result = int(m[1]), m[2], m[3], RESULT[m[4]]
        if engine not in (white, black) or white == black:
            raise ValueError(f"game {number}: {engine!r} is not exactly one of {white}, {black}")
        games[number] = result if white == engine else 1.0 - result
    last = max(games, default=0)
    pairs = [
        (games[k] + games[k + 1]) / 2
        for k in range(1, last + 1, 2)
        if k in games and k + 1 in games
    ]
    return pairs, terminated


def llr(pairs, elo0, elo1):
    """match.py's sprt_llr: the generalised SPRT on pentanomial pair scores."""
    n = len(pairs)
    if n < 2:
        return 0.0
    mu = sum(pairs) / n
    var = sum((x - mu) ** 2 for x in pairs) / n
    if var <= 0:
        return 0.0
    s0 = 1.0 / (1.0 + 10 ** (-elo0 / 400.0))
    s1 = 1.0 / (1.0 + 10 ** (-elo1 / 400.0))
    return n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)


def bounds(alpha, beta):
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def report(pairs, elo0, elo1, alpha, beta):
    counts = cfit.pentanomial([2 * p for p in pairs])  # calib_fit counts points per pair
    lines = [f"pairs {len(pairs)}, pentanomial "
             + " ".join(f"{name} {c}" for name, c in zip(cfit.PENTA_NAMES, counts))]
    if pairs:
        mu, e, lo, hi = cfit.pentanomial_elo(counts)
        lines.append(f"score {100 * mu:.1f}%, Elo {e:+.1f} [{lo:+.1f}, {hi:+.1f}] "
                     "(pentanomial, 95%)")
    lower, upper = bounds(alpha, beta)
    value = llr(pairs, elo0, elo1)
    verdict = "H1 accepted" if value >= upper else "H0 accepted" if value <= lower else "undecided"
    return "\n".join(lines + [
        f"SPRT [{elo0:g}, {elo1:g}] LLR {value:.2f} ({lower:.2f}, {upper:.2f}): {verdict}",
    ])


def self_test():
    checks = []

    def check(name, ok):
        checks.append((name, ok))
        print(("ok    " if ok else "FAILED ") + name)

    log = [
        "a vs b, tc 5+0.05, 8 games",
        "game   2/8  b - a  0-1     checkmate   plies 40",
        "game   1/8  a - b  1-0     checkmate   plies 50",
        "  SPRT [-5, 0] LLR 0.01 (-2.94, 2.94) after 1 pairs",
        "game   3/8  a - b  1/2-1/2 threefold_repetition  plies 60",
        "game   4/8  b - a  1-0     checkmate   plies 70",
        "game   6/8  b - a  1/2-1/2 fifty_moves plies 90",
    ]
    check("pairs are games 2k+1 and 2k+2 in any order; engine as Black scored reversed",
          pair_scores(log, "a")[0] == [1.0, 0.25])
    check("the other engine's view is the complement",
          pair_scores(log, "b")[0] == [0.0, 0.75])
    check("an unfinished pair (game 6 without 5) is left out", len(pair_scores(log, "a")[0]) == 2)
    killed = log + ["game   5/8  a - b  0-1     a terminated   plies 12",
                    "game   8/8  b - a  1-0     a terminated   plies 30",
                    "game   7/8  a - b  1-0     checkmate   plies 80"]
    check("--drop-terminated leaves out killed engines' games and their pairs, counted",
          len(pair_scores(killed, "a")[0]) == 4
          and pair_scores(killed, "a", drop_terminated=True) == ([1.0, 0.25], 2))
    try:
        pair_scores(log, "c")
        check("an engine in no game is refused", False)
    except ValueError:
        check("an engine in no game is refused", True)

    # The LLR by hand for pairs [1, 0.25, 0.5, 0.75] and bounds [0, 10].
    pairs = [1.0, 0.25, 0.5, 0.75]
    mu, var = 0.625, (0.375 ** 2 + 0.375 ** 2 + 0.125 ** 2 + 0.125 ** 2) / 4
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    check("the LLR is match.py's formula",
          abs(llr(pairs, 0, 10) - 4 * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)) < 1e-12)
    check("no variance, no evidence", llr([0.5] * 10, -5, 0) == 0.0)
    lower, upper = bounds(0.05, 0.05)
    check("alpha = beta = 0.05 gives the bounds +-2.94",
          abs(upper - 2.944) < 1e-3 and abs(lower + 2.944) < 1e-3)

    # Pooling: two runs are one list of pairs, so the pooled LLR grows with the evidence.
    good = [1.0, 0.75, 0.5, 0.75, 0.25] * 40
    half = llr(good[:100], -5, 0)
    check("pooled runs count every pair", llr(good, -5, 0) > half > 0)
    text = report(good, -5, 0, 0.05, 0.05)
    check("the report gives the pentanomial counts and a verdict",
          "LL 0 LD 40 DD/WL 40 WD 80 WW 40" in text and "H1 accepted" in text)
    check("an even match is undecided or rejected, never accepted",
          "H1 accepted" not in report([0.5, 0.25, 0.75] * 100, 0, 10, 0.05, 0.05))

    failed = sum(1 for _, ok in checks if not ok)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="*", help="match.py logs (stdout) of runs of one test")
    ap.add_argument("--engine", help="engine 1's display name in the logs (--name1)")
    ap.add_argument("--sprt", default="0,5", help="ELO0,ELO1 (write --sprt=-5,0)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--drop-terminated", action="store_true",
                    help="leave out games ended by a killed engine (a stop that reached them)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return 0 if self_test() else 1
    if not args.logs or not args.engine:
        ap.error("give the logs and --engine")
    elo0, elo1 = (float(x) for x in args.sprt.split(","))
    pooled = []
    for path in args.logs:
        with open(path, encoding="utf-8") as f:
            pairs, terminated = pair_scores(f, args.engine, args.drop_terminated)
        note = ""
        if terminated:
            note = (f", {terminated} games ended by a killed engine "
                    + ("left out" if args.drop_terminated else "counted"))
        print(f"{path}: {len(pairs)} pairs, LLR {llr(pairs, elo0, elo1):.2f} alone{note}")
        pooled += pairs
    print(report(pooled, elo0, elo1, args.alpha, args.beta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
