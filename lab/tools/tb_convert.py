#!/usr/bin/env python3
"""How surely and how fast an engine converts table-won endings: random won starts of one
material (seeded), the engine playing both sides at a fixed node count a move with Syzygy
tables, until mate, the 50-move rule or a ply cap. Node-limited, so the result does not depend
on the machine's load. Needs python-chess (`pip install chess`).

    python3 lab/tools/tb_convert.py --engine target/release/lazuli --material KQvKR --games 30 \
        --seed 2 --nodes 4000 [--option EvalFile=/abs/net.lznn] [--newgame]

One line a game (start, its DTZ, mated or not, plies), then the totals. Without --newgame the
games follow each other in one engine process without `ucinewgame`, as tests/tablebase.rs
plays them (tables and histories carried over).
"""

import argparse
import os
import random
import sys

import chess
import chess.syzygy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from syzygy_oracle import random_position  # noqa: E402
from uci_client import UciProcess  # noqa: E402

TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "syzygy")


def won_start(material, tb, rng):
    """A random position of `material` (white's pieces first; syzygy_oracle.py draws it), white
    to move and winning by the tables, with no capture at once (so the start is not won by a
    single tactic)."""
    while True:
        board = random_position(material, rng)
        if board is None or board.turn != chess.WHITE or board.is_insufficient_material():
            continue
        if tb.probe_wdl(board) == 2 and not any(board.is_capture(m) for m in board.legal_moves):
            return board


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--tables", default=TABLES)
    ap.add_argument("--material", default="KQvKR")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=4000)
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--newgame", action="store_true", help="send ucinewgame before each game")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    options = [("SyzygyPath", os.path.abspath(args.tables))]
    options += [tuple(o.split("=", 1)) for o in args.option]
    mated, plies = 0, []
    with chess.syzygy.open_tablebase(args.tables) as tb:
        engine = UciProcess(args.engine, options)
        engine.ready()
        for game in range(args.games):
            start = won_start(args.material, tb, rng)
            board, moves = start.copy(), []
            if args.newgame:
                engine.send("ucinewgame")
            engine.ready()
            while (len(moves) < args.max_plies and not board.is_game_over()
                   and board.halfmove_clock < 100):
                engine.send(f"position fen {start.fen()} moves {' '.join(moves)}")
                engine.send(f"go nodes {args.nodes}")
                best = engine.until("bestmove")[-1].split()[1]
                board.push_uci(best)
                moves.append(best)
            won = board.is_checkmate()
            mated += won
            if won:
                plies.append(len(moves))
            print(f"{game} {start.fen()} dtz {tb.probe_dtz(start)} "
                  f"{'mated' if won else 'NOT MATED'} {len(moves)}", flush=True)
        engine.quit()
    mean = sum(plies) / len(plies) if plies else float("nan")
    print(f"{args.material}: {mated}/{args.games} mated within {args.max_plies} plies, "
          f"mean {mean:.1f} plies to mate")
    return 0 if mated == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
