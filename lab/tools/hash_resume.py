#!/usr/bin/env python3
"""An analysis resumed from a saved table against one started afresh (issue 37's before/after).

For each position: one engine analyses it to --depth D from an empty table and saves the table
(`Save Hash to File`); then, for --rounds rounds, two fresh engine processes search the same
position to depth D again, (a) from an empty table and (b) after `Load Hash from File`,
alternating which goes first. Prints, per position, the nodes and milliseconds each took to
reach depth D (from the last `info depth D` line, time as the engine reports it: the load
itself is not counted, it is timed apart and shown as load_ms), and the medians of the
ratios resumed/empty.

    python3 lab/tools/hash_resume.py --engine target/release/lazuli --depth 20 --hash 256 \\
        --threads 1 --rounds 3

Nodes at Threads 1 do not depend on the machine's load (the same table and history give the
same search); times do: run them on an otherwise idle machine. The saved tables go to a
temporary folder, removed at the end.
"""

import argparse
import os
import statistics
import tempfile
import time

from uci_client import UciProcess

# The Two Knights Defence, kiwipete, a rook endgame, the Dragon's Yugoslav Attack.
POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9",
]


def engine(args):
    return UciProcess(args.engine, [("Hash", args.hash), ("Threads", args.threads)])


def to_depth(e, fen, depth):
    """Searches `fen` to `depth`; returns (nodes, ms) of the last info line at that depth."""
    e.send(f"position fen {fen}")
    e.send(f"go depth {depth}")
    nodes = ms = None
    for line in e.until("bestmove"):
        words = line.split()
        if words[:1] == ["info"] and "depth" in words and "nodes" in words:
            if int(words[words.index("depth") + 1]) == depth:
                nodes = int(words[words.index("nodes") + 1])
                ms = int(words[words.index("time") + 1])
    return nodes, ms


def button(e, name, path):
    """Presses a hash file button; returns its answer and the milliseconds it took."""
    e.send(f"setoption name Hash File value {path}")
    start = time.monotonic()
    e.send(f"setoption name {name}")
    e.send("isready")
    lines = e.until("readyok")
    answer = [l for l in lines if l.startswith("info string")]
    if not answer or "error" in answer[0]:
        raise RuntimeError(f"{name}: {answer}")
    return answer[0], (time.monotonic() - start) * 1000


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--engine", default="target/release/lazuli")
    p.add_argument("--depth", type=int, default=16)
    p.add_argument("--hash", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--positions", type=int, default=len(POSITIONS))
    args = p.parse_args()

    node_ratios, time_ratios = [], []
    print("position depth run nodes ms load_ms")
    with tempfile.TemporaryDirectory(prefix="lazuli-hash-resume-") as folder:
        for index, fen in enumerate(POSITIONS[: args.positions]):
            path = os.path.join(folder, f"{index}.lzh")
            first = engine(args)
            nodes, ms = to_depth(first, fen, args.depth)
            button(first, "Save Hash to File", path)
            first.quit()
            print(f"{index} {args.depth} first {nodes} {ms} -")
            for r in range(args.rounds):
                result = {}
                for run in (["empty", "resumed"] if r % 2 == 0 else ["resumed", "empty"]):
                    e = engine(args)
                    load_ms = "-"
                    if run == "resumed":
                        _, load = button(e, "Load Hash from File", path)
                        load_ms = f"{load:.0f}"
                    result[run] = to_depth(e, fen, args.depth)
                    e.quit()
                    print(f"{index} {args.depth} {run} {result[run][0]} {result[run][1]} {load_ms}")
                (en, et), (rn, rt) = result["empty"], result["resumed"]
                node_ratios.append(rn / en)
                if et:
                    time_ratios.append(rt / et)
    print(f"median nodes resumed/empty: {statistics.median(node_ratios):.4f}")
    if time_ratios:
        print(f"median time resumed/empty: {statistics.median(time_ratios):.4f}")


if __name__ == "__main__":
    main()
