#!/usr/bin/env python3
"""How soon an engine shows a mate: for each `dm N` record of an EPD file, the first depth and
node count at which the engine reports the exact mate (`score mate N`, not a bound), searching
with one thread up to a node cap. Node counts do not depend on the machine's load, so runs on
a busy machine agree with runs on an idle one, and engines can be compared in one run.

    python3 lab/tools/mates.py --epd tests/data/mates_2to5_dev.epd --nodes 2000000 \\
        --engine target/release/lazuli --engine /usr/games/stockfish --jobs 2 --csv out.csv

Each engine gets `Threads 1`, `Hash` (--hash, default 16) and any --opt NAME=VALUE, and
`ucinewgame` before every position, so a lazuli run is reproducible. Prints, per engine, how
many exact mates appear within 10 k, 100 k, 1 M and the cap, by mate length, and the positions
each engine found that the others did not; --csv writes one row per position and engine.
Standard library only.
"""

import argparse
import concurrent.futures as cf
import csv
import sys
import threading

from uci_client import UciProcess

THRESHOLDS = (10_000, 100_000, 1_000_000)


def parse_info(line):
    """(depth, nodes, kind, value, bound) of an `info` line with a score, else None."""
    tokens = line.split()
    fields = {}
    i = 1
    while i < len(tokens):
        t = tokens[i]
        if t == "pv":
            break
        if t == "score" and i + 2 < len(tokens):
            fields["kind"], fields["value"] = tokens[i + 1], int(tokens[i + 2])
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                fields["bound"] = tokens[i]
                i += 1
            continue
        if t in ("depth", "nodes") and i + 1 < len(tokens):
            fields[t] = int(tokens[i + 1])
            i += 2
            continue
        i += 1
    if "kind" not in fields or "depth" not in fields or "nodes" not in fields:
        return None
    return fields["depth"], fields["nodes"], fields["kind"], fields["value"], fields.get("bound")


def first_exact_mate(engine, fen, dm, cap):
    """(depth, nodes) of the first exact `score mate dm`, or None within `cap` nodes."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.ready()
    engine.send(f"go nodes {cap}")
    found = None
    for line in engine.until("bestmove"):
        if found or not line.startswith("info "):
            continue
        info = parse_info(line)
        if info and info[2] == "mate" and info[3] == dm and info[4] is None:
            found = (info[0], info[1])
    return found


def read_epd(path):
    """(id, fen, dm) of every record with a `dm` opcode."""
    records = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            fields = line.split()
            fen = " ".join(fields[:4]) + " 0 1"
            ops = {}
            for op in line.split(" ", 4)[4].split(";") if len(fields) > 4 else []:
                op = op.strip()
                if " " in op:
                    key, value = op.split(" ", 1)
                    ops[key] = value.strip().strip('"')
            if "dm" in ops:
                records.append((ops.get("id", f"line{n}"), fen, int(ops["dm"])))
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epd", required=True, help="EPD file with `dm N` records")
    ap.add_argument("--engine", action="append", required=True, help="engine command (repeatable)")
    ap.add_argument("--name", action="append", help="a name per --engine (default: the command)")
    ap.add_argument("--opt", action="append", default=[],
                    help="ENGINE_INDEX:NAME=VALUE (0-based) or NAME=VALUE for every engine")
    ap.add_argument("--nodes", type=int, default=2_000_000, help="node cap per position")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=1, help="positions searched at once per engine")
    ap.add_argument("--csv", help="write one row per position and engine")
    ap.add_argument("--only", help="comma-separated ids to run")
    args = ap.parse_args()

    names = args.name or []
    names += args.engine[len(names):]
    records = read_epd(args.epd)
    if args.only:
        wanted = set(args.only.split(","))
        records = [r for r in records if r[0] in wanted]
    if not records:
        sys.exit("no dm records")

    def options(index):
        opts = [("Threads", "1"), ("Hash", str(args.hash))]
        for o in args.opt:
            target, _, nv = o.rpartition(":")
            if target == "" or int(target) == index:
                name, value = nv.split("=", 1)
                opts.append((name, value))
        return opts

    # Every engine is started and asked `isready` once before any search, so that a wrong path,
    # a program that does not speak UCI or an option it refuses (a relative `EvalFile` from
    # another folder) stops the run at once with one line, not with a traceback after the
    # other engines have searched every position, or with counts of the wrong net.
    for i, command in enumerate(args.engine):
        try:
            probe = UciProcess(command, options(i))
            probe.ready()
            probe.quit()
        except (OSError, RuntimeError, ValueError) as e:
            sys.exit(f"engine {i} ({command}) cannot be started as a UCI engine, or refused "
                     f"an option: {e}")

    results = {}  # (engine index, id) -> (depth, nodes) or None
    lock = threading.Lock()
    done = [0]
    total = len(records) * len(args.engine)

    def worker(index, chunk):
        engine = UciProcess(args.engine[index], options(index))
        engine.ready()
        try:
            for rid, fen, dm in chunk:
                found = first_exact_mate(engine, fen, dm, args.nodes)
                with lock:
                    results[(index, rid)] = found
                    done[0] += 1
                    print(f"\r{done[0]}/{total}", end="", file=sys.stderr, flush=True)
        finally:
            engine.quit()

    with cf.ThreadPoolExecutor(max_workers=args.jobs * len(args.engine)) as pool:
        futures = [pool.submit(worker, i, records[j::args.jobs])
                   for i in range(len(args.engine)) for j in range(args.jobs)]
        for f in futures:
            f.result()
    print(file=sys.stderr)

    caps = tuple(t for t in THRESHOLDS if t < args.nodes) + (args.nodes,)
    print(f"{len(records)} mates from {args.epd}, 1 thread, Hash {args.hash}, cap {args.nodes} nodes")
    header = "engine".ljust(28) + "".join(f"{'<=' + format(c, ','):>14}" for c in caps)
    print(header)
    for i, name in enumerate(names):
        counts = [sum(1 for r in records
                      if results[(i, r[0])] and results[(i, r[0])][1] <= c) for c in caps]
        print(name[:27].ljust(28) + "".join(f"{n:>14}" for n in counts))
    lengths = sorted({r[2] for r in records})
    print("\nby mate length (found within the cap / records):")
    for i, name in enumerate(names):
        parts = []
        for dm in lengths:
            rs = [r for r in records if r[2] == dm]
            parts.append(f"dm{dm} {sum(1 for r in rs if results[(i, r[0])])}/{len(rs)}")
        print(name[:27].ljust(28) + "  ".join(parts))
    if len(names) > 1:
        print("\nfound by one engine within 100 k nodes and not by another:")
        for i, name in enumerate(names):
            for k, other in enumerate(names):
                if i == k:
                    continue
                only = [r[0] for r in records
                        if results[(i, r[0])] and results[(i, r[0])][1] <= 100_000
                        and not (results[(k, r[0])] and results[(k, r[0])][1] <= 100_000)]
                print(f"{name} not {other}: {len(only)} {' '.join(only)}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "dm", "engine", "depth", "nodes"])
            for rid, _, dm in records:
                for i, name in enumerate(names):
                    found = results[(i, rid)]
                    w.writerow([rid, dm, name, found[0] if found else "", found[1] if found else ""])


if __name__ == "__main__":
    main()
