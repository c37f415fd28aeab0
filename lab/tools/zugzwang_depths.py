#!/usr/bin/env python3
"""Which move an engine picks at each fixed depth with standard null-move pruning, the
paper's verified rule and lazuli's verified null move: the probe behind the ZUGZWANG table of
tests/search.rs, rerun when the search or the built-in net changes (the depths at which each
mode finds a zugzwang move move with both).

    python3 lab/tools/zugzwang_depths.py --engine target/release/lazuli \\
        --epd tests/data/zugzwang_cpw.epd --id zugzwang.002 --depths 6-14
    python3 lab/tools/zugzwang_depths.py --engine target/release/lazuli \\
        --fen "1q1k4/2Rr4/8/2Q3K1/8/8/8/8 w - - 0 1" --depths 6-14 --opt EvalFile=net.lznn

Every search is a fresh engine process (so no table or history carries over, as in the test)
with `NullMove standard|paper|verified`, `NullMoveR 3`, `NullMoveAdaptive false`, one thread
and any --opt NAME=VALUE, then `go depth D`. Prints one line a depth: the depth, each mode's
move, and `*` after a move that is the EPD record's best move (`bm`, in SAN as the suites
write it, compared after conversion with python-chess when it is installed, else as given).
Deterministic: fixed depth, one thread. Standard library only, python-chess optional.
"""

import argparse
import subprocess
import sys

MODES = ("standard", "paper", "verified")


def best_move(engine, fen, depth, mode, options):
    """The `bestmove` of a fresh engine searching `fen` to `depth` with NullMove `mode`."""
    commands = ["uci"]
    settings = [("Threads", "1"), ("NullMove", mode), ("NullMoveR", "3"),
                ("NullMoveAdaptive", "false")] + options
    commands += [f"setoption name {name} value {value}" for name, value in settings]
    commands += ["isready", f"position fen {fen}", f"go depth {depth}"]
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write("\n".join(commands) + "\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith("info string error"):
            proc.kill()
            sys.exit(f"{engine}: {line.strip()}")
        if line.startswith("bestmove"):
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            proc.wait()
            return line.split()[1]
    sys.exit(f"{engine} ended without a bestmove")


def record(epd, wanted):
    """(fen, best moves in UCI or SAN) of the EPD record whose `id` is `wanted`."""
    with open(epd, encoding="utf-8") as f:
        for line in f:
            fields = line.strip().split(None, 4)
            if len(fields) < 5 or f'id "{wanted}"' not in fields[4]:
                continue
            fen = " ".join(fields[:4]) + " 0 1"
            pairs = (op.strip().split(None, 1) for op in fields[4].split(";"))
            ops = dict(pair for pair in pairs if len(pair) == 2)
            return fen, ops.get("bm", "").split()
    sys.exit(f"{epd}: no record with id {wanted}")


def as_uci(fen, moves):
    """The best moves in UCI notation (python-chess converts SAN; without it they stay)."""
    try:
        import chess
    except ImportError:
        return set(moves)
    board = chess.Board(fen)
    return {board.parse_san(m).uci() for m in moves}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--fen")
    where.add_argument("--id", help="the record of --epd with this id")
    parser.add_argument("--epd", help="an EPD file (with --id)")
    parser.add_argument("--depths", required=True, help="FIRST-LAST, e.g. 6-14")
    parser.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    first, last = (int(d) for d in args.depths.split("-"))
    options = [tuple(o.split("=", 1)) for o in args.opt]
    if args.id:
        if not args.epd:
            parser.error("--id needs --epd")
        fen, best = record(args.epd, args.id)
        best = as_uci(fen, best)
    else:
        fen, best = args.fen, set()
    print(f"# {fen}; best {' '.join(sorted(best)) or '-'}; depth, {', '.join(MODES)}")
    for depth in range(first, last + 1):
        moves = [best_move(args.engine, fen, depth, mode, options) for mode in MODES]
        marked = [m + ("*" if m in best else "") for m in moves]
        print(depth, *marked, flush=True)


if __name__ == "__main__":
    main()
