#!/usr/bin/env python3
"""Independent oracle for lazuli's tablebase root probing: python-chess reads the same Syzygy
files and ranks every root move as Stockfish's `root_probe` does, with wins ranked by their distance
(Stockfish's `rankDTZ`).

For every WDL table in the folder (all 35 3- and 4-piece tables are in tests/data/syzygy), it draws
random legal positions with that material (seeded, so the file is reproducible), each with the
halfmove clock at 0, and writes one CSV row per position:

    fen,wdl,dtz,kept

`wdl` and `dtz` are python-chess's probes of the position; `kept` lists (space-separated, in
UCI notation) the root moves of the best rank, which are the moves lazuli must keep.

    python3 lab/tools/syzygy_oracle.py --tables tests/data/syzygy --per-table 4 --seed 1 \
        > tests/data/syzygy-oracle.csv
"""

import argparse
import os
import random
import sys

import chess
import chess.syzygy

MAX_DTZ = 1 << 18
PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(material, rng):
    """A random legal position with `material` (e.g. 'KRPvK'), or None."""
    white, black = material.split("v")
    board = chess.Board(None)
    squares = list(chess.SQUARES)
    rng.shuffle(squares)
    for color, side in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in side:
            piece = PIECES[letter]
            while True:
                sq = squares.pop()
                if piece != chess.PAWN or chess.square_rank(sq) not in (0, 7):
                    break
                squares.insert(0, sq)
            board.set_piece_at(sq, chess.Piece(piece, color))
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    # Not is_game_over(): it counts KBvK and the like as over (insufficient material).
    if not board.is_valid() or board.is_checkmate() or board.is_stalemate():
        return None
    return board


def dtz_from_root(tb, board, move):
    """The DTZ of `move` counted from the root, from the root's side (Stockfish)."""
    board.push(move)
    try:
        if board.is_checkmate():
            return 1
        if board.is_stalemate():
            return 0
        if board.halfmove_clock == 0:
            wdl = -tb.probe_wdl(board)
            return {-2: -1, -1: -101, 0: 0, 1: 101, 2: 1}[wdl]
        dtz = -tb.probe_dtz(board)
        return dtz + (dtz > 0) - (dtz < 0)
    finally:
        board.pop()


def rank(dtz, halfmoves):
    if dtz > 0:
        # Wins by their distance, the shortest first (lazuli's rule: src/tablebase.rs).
        return MAX_DTZ - dtz if dtz + halfmoves <= 99 else MAX_DTZ - (dtz + halfmoves)
    if dtz < 0:
        return -MAX_DTZ if -dtz * 2 + halfmoves < 100 else -MAX_DTZ + (-dtz + halfmoves)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", required=True)
    parser.add_argument("--per-table", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    materials = sorted(f[:-5] for f in os.listdir(args.tables) if f.endswith(".rtbw"))
    out = sys.stdout
    out.write("fen,wdl,dtz,kept\n")
    with chess.syzygy.open_tablebase(args.tables) as tb:
        for material in materials:
            made = 0
            while made < args.per_table:
                board = random_position(material, rng)
                if board is None:
                    continue
                ranks = {m: rank(dtz_from_root(tb, board, m), 0) for m in board.legal_moves}
                best = max(ranks.values())
                kept = sorted(m.uci() for m, r in ranks.items() if r == best)
                out.write(f"{board.fen()},{tb.probe_wdl(board)},{tb.probe_dtz(board)},"
                          f"{' '.join(kept)}\n")
                made += 1


if __name__ == "__main__":
    main()
