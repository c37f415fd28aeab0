#!/usr/bin/env python3
"""Positions of EPD suites solved at a fixed node budget or a fixed time, by one engine under
several option sets: the zugzwang screen of verified null move (docs/null-move-study.md).

    python3 lab/tools/epd_solve.py --engine target/release/lazuli \\
        --epd tests/data/zugzwang_cpw.epd --epd tests/data/zugzwang_zpts.epd --nodes 1000000 \\
        --mode standard:NullMove=standard --mode paper:NullMove=paper --mode verified: \\
        --jobs 2 --csv out.csv

A mode is NAME:OPTION=VALUE,OPTION=VALUE (empty after the colon: the defaults). Every search
is `ucinewgame`, `position fen`, `go nodes N` (or `go movetime MS`) with `Threads 1`, Hash
--hash, so a node budget gives the same answer on any machine and under any load, a time
does not. Solved: the `bm` move played (SAN, compared with python-chess) and no `am` move.
Prints solved counts per mode, then each position some mode solves and another does not.
"""

import argparse
import concurrent.futures as cf
import csv
import sys

import chess

from uci_client import UciProcess


def read_epd(paths):
    """(id, fen, best moves, avoid moves) per record, the moves in UCI."""
    records = []
    for path in paths:
        for line in open(path, encoding="utf-8"):
            if not line.strip():
                continue
            fields = line.split(None, 4)
            board = chess.Board(" ".join(fields[:4]) + " 0 1")
            ops = {}
            for op in fields[4].split(";"):
                key, _, value = op.strip().partition(" ")
                if key:
                    ops[key] = value.strip().strip('"')
            uci = lambda key: {board.parse_san(m).uci() for m in ops.get(key, "").split()}
            records.append((ops.get("id", "?"), board.fen(), uci("bm"), uci("am")))
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--epd", action="append", required=True)
    ap.add_argument("--mode", action="append", required=True, metavar="NAME:OPT=V,...")
    limit = ap.add_mutually_exclusive_group(required=True)
    limit.add_argument("--nodes", type=int)
    limit.add_argument("--movetime", type=int, help="milliseconds")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv")
    args = ap.parse_args()

    records = read_epd(args.epd)
    modes = []
    for m in args.mode:
        name, _, opts = m.partition(":")
        modes.append((name, [tuple(o.split("=", 1)) for o in opts.split(",") if o]))
    go = f"go nodes {args.nodes}" if args.nodes else f"go movetime {args.movetime}"

    def run(mode, chunk):
        name, opts = mode
        engine = UciProcess(args.engine, [("Threads", "1"), ("Hash", str(args.hash))] + opts)
        engine.ready()
        out = []
        for rid, fen, bm, am in chunk:
            engine.send("ucinewgame")
            engine.send(f"position fen {fen}")
            engine.ready()
            engine.send(go)
            best = engine.until("bestmove")[-1].split()[1]
            out.append((rid, name, best, best in bm and best not in am))
        engine.quit()
        return out

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(run, mode, records[j::args.jobs])
                for mode in modes for j in range(args.jobs)]
        rows = [row for job in jobs for row in job.result()]
    solved = {(rid, name): ok for rid, name, _, ok in rows}

    limit_text = f"{args.nodes:,} nodes" if args.nodes else f"{args.movetime} ms"
    print(f"{len(records)} positions, {limit_text} each, 1 thread, Hash {args.hash}")
    for name, _ in modes:
        n = sum(solved[(r[0], name)] for r in records)
        print(f"{name:>12}: {n} / {len(records)}")
    print("\nsolved by some modes only:")
    for rid, *_ in records:
        marks = [name for name, _ in modes if solved[(rid, name)]]
        if 0 < len(marks) < len(modes):
            print(f"{rid:>14}: {' '.join(marks)}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "mode", "best", "solved"])
            w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
