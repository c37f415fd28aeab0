#!/usr/bin/env python3
"""Tablebase figures of a match: from the `info`/`bestmove` output of one player (logged by a
wrapper that tees its standard output), the searches that probed the tables and the hits; from
the match's PGN, the games that reached the tables' piece count.

    python3 lab/tools/tbhits_stats.py --logs LOG... --pgn GAMES.pgn --pieces 4
"""

import argparse

import chess.pgn


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", nargs="+", required=True)
    parser.add_argument("--pgn", required=True)
    parser.add_argument("--pieces", type=int, default=4)
    args = parser.parse_args()

    searches = probing = hits = 0
    for path in args.logs:
        last = None
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("info depth") and " tbhits " in line:
                    last = int(line.split(" tbhits ")[1].split()[0])
                elif line.startswith("bestmove"):
                    searches += 1
                    if last:
                        probing += 1
                        hits += last
                    last = None
    games = reached = 0
    with open(args.pgn) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games += 1
            board = game.board()
            small = len(board.piece_map()) <= args.pieces
            for move in game.mainline_moves():
                board.push(move)
                small = small or len(board.piece_map()) <= args.pieces
            reached += small
    print(f"searches {searches}, with tablebase hits {probing}, hits in all {hits}")
    print(f"games {games}, reaching {args.pieces} pieces or fewer {reached}")


if __name__ == "__main__":
    main()
