#!/usr/bin/env python3
"""MultiPV time to depth: for the first N positions of an EPD file, the nodes (and time) each
engine needs to complete depth D at MultiPV 1, 3 and 5, one thread, `ucinewgame` and
`Clear Hash` before every search. With one thread the node counts do not depend on the
machine's load (a run on a busy machine gives the same nodes as on an idle one); the times do,
so report times only from a quiet machine.

    python3 lab/tools/multipv_ttd.py --engine /work/main/target/release/lazuli \\
        --engine target/release/lazuli --epd tests/data/bk.epd --count 24 --depth 12

Prints, per engine and MultiPV, the total nodes and time over the positions and each total's
ratio to the same engine's MultiPV 1, and, when two engines are given, the second's totals over
the first's (nodes and time, per MultiPV). --csv writes one row per position, engine and
MultiPV. The engines run one after the other (never at once), so times compare when the
machine is quiet. Standard library only.
"""

import argparse
import csv
import sys
import time

from uci_client import UciProcess


def fen_of(epd_line):
    """The FEN of an EPD record (its four fields, with move counters added)."""
    fields = epd_line.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return " ".join(fields[:6])
    return " ".join(fields[:4]) + " 0 1"


def field(tokens, name):
    if name in tokens:
        i = tokens.index(name)
        if i + 1 < len(tokens):
            return tokens[i + 1]
    return None


def to_depth(engine, fen, depth, multipv):
    """(nodes, engine time in ms, wall seconds, bestmove, line-1 move) to complete `depth`."""
    engine.send(f"setoption name MultiPV value {multipv}")
    engine.send("setoption name Clear Hash")
    engine.send("ucinewgame")
    engine.ready()
    engine.send(f"position fen {fen}")
    start = time.perf_counter()
    engine.send(f"go depth {depth}")
    lines = engine.until("bestmove")
    wall = time.perf_counter() - start
    nodes = ms = first = None
    for line in lines:
        tokens = line.split()
        if tokens[:1] != ["info"] or field(tokens, "depth") != str(depth):
            continue
        if "pv" not in tokens or "lowerbound" in tokens or "upperbound" in tokens:
            continue
        nodes = int(field(tokens, "nodes"))
        ms = int(field(tokens, "time"))
        if field(tokens, "multipv") in (None, "1"):
            first = field(tokens, "pv")
    best = lines[-1].split()[1]
    if nodes is None:
        raise RuntimeError(f"no info line at depth {depth} for {fen}")
    return nodes, ms, wall, best, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", action="append", required=True,
                    help="engine command line (repeat: the first is the baseline)")
    ap.add_argument("--epd", default="tests/data/bk.epd")
    ap.add_argument("--count", type=int, default=24, help="first N positions of --epd")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--multipv", default="1,3,5", help="comma-separated MultiPV values")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--csv", help="write one row per position, engine and MultiPV")
    args = ap.parse_args()

    with open(args.epd) as f:
        fens = [fen_of(l) for l in f if l.strip() and not l.startswith("#")][: args.count]
    multipvs = [int(m) for m in args.multipv.split(",")]
    rows = []
    totals = {}  # (engine index, multipv) -> [nodes, ms]
    mismatches = 0
    for e, command in enumerate(args.engine):
        engine = UciProcess(command, [("Threads", 1), ("Hash", args.hash)])
        for k in multipvs:
            tn = tms = 0
            for i, fen in enumerate(fens):
                nodes, ms, wall, best, first = to_depth(engine, fen, args.depth, k)
                tn += nodes
                tms += ms
                if first is not None and best != first:
                    mismatches += 1
                    print(f"engine {e + 1} multipv {k} position {i + 1}: bestmove {best}, "
                          f"line 1 {first}", file=sys.stderr)
                rows.append([e + 1, command, k, i + 1, nodes, ms, f"{wall:.3f}", best])
            totals[(e, k)] = (tn, tms)
            print(f"engine {e + 1} multipv {k}: nodes {tn:>12,} time {tms / 1000:8.2f} s",
                  flush=True)
        engine.quit()

    print(f"\n{len(fens)} positions of {args.epd}, depth {args.depth}, Threads 1, "
          f"Hash {args.hash}")
    for e, command in enumerate(args.engine):
        print(f"engine {e + 1}: {command}")
        base_n, base_ms = totals[(e, multipvs[0])]
        for k in multipvs:
            n, ms = totals[(e, k)]
            print(f"  MultiPV {k}: nodes {n:>12,} ({n / base_n:5.2f}x MultiPV {multipvs[0]})"
                  f"  time {ms / 1000:8.2f} s ({ms / max(base_ms, 1):5.2f}x)")
    if len(args.engine) >= 2:
        for e in range(1, len(args.engine)):
            print(f"engine {e + 1} over engine 1:")
            for k in multipvs:
                n0, ms0 = totals[(0, k)]
                n1, ms1 = totals[(e, k)]
                print(f"  MultiPV {k}: nodes {n1 / n0:5.3f}  time {ms1 / max(ms0, 1):5.3f}")
    print(f"bestmove differing from line 1's first move: {mismatches}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["engine", "command", "multipv", "position", "nodes", "ms", "wall_s",
                        "bestmove"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
