#!/usr/bin/env python3
"""An EPD suite of positions from a match's games, one position a game pair, all phases.

Reads a PGN written by `../shared/tools/match.py` (needs python-chess), takes every second
game (one of each pair of colours, so that a book position is not sampled twice) with at least
24 plies, and plays it to ply `16 + (game_number * 37) mod (plies - 16)`: a spread of phases
that follows how long the games lasted. Positions in check or at the end of a game are left
out. Each is written as EPD with an `id` of its game number. Used by the null-move screen to
measure trees on the positions lazuli meets in its games (docs/null-move-study.md).

    python3 lab/tools/pgn_suite.py lab/records/matches/nullmove-pmd9-sprt-part1.pgn games.epd
"""

import argparse

import chess
import chess.pgn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn")
    parser.add_argument("out")
    args = parser.parse_args()
    written = 0
    with open(args.pgn) as f, open(args.out, "w") as out:
        number = 0
        while (game := chess.pgn.read_game(f)) is not None:
            number += 1
            if number % 2:
                continue
            moves = list(game.mainline_moves())
            if len(moves) < 24:
                continue
            target = 16 + (number * 37) % (len(moves) - 16)
            board = game.board()
            for m in moves[:target]:
                board.push(m)
            if board.is_check() or board.is_game_over():
                continue
            out.write(f'{board.epd()} id "g{number}";\n')
            written += 1
    print(f"{written} positions written to {args.out}")


if __name__ == "__main__":
    main()
