#!/usr/bin/env python3
"""Stockfish 15.1 against itself, as games for the ladder reading of lab/tools/calibrate.py
(`--sf-scale ladder --sf-games FILE`): reads a PGN of ../shared/tools/match.py (engine 1 at
`UCI_Elo` --elo1, engine 2 at --elo2; rounds 2i-1 and 2i are one opening's pair) and writes one
JSON line a game to stdout: {"probe", "sf1", "sf2", "pair", "score"} with engine 1's score.
Standard library only.

    python3 lab/tools/calib_ladder.py --elo1 1872 --elo2 1785 lab/records/matches/sf-levels-a.pgn >> sf-ladder.jsonl
"""

import argparse
import json
import re
import sys

SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def games_of_pgn(text):
    """[(round, white, result)] of a PGN's games, in file order, from their tags."""
    out = []
    for block in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        if tags:
            out.append((int(tags["Round"]), tags["White"], tags["Result"]))
    return out


def records(games, elo1, elo2, name1):
    """One record a finished game: engine 1's score, pair (round - 1) // 2. A game without a
    result (`*`) is left out; a pair keeps what it has."""
    probe = f"sf={elo1}:sf={elo2}"
    for rnd, white, result in games:
        if result not in SCORES:
            continue
        y = SCORES[result] if white == name1 else 1.0 - SCORES[result]
        yield {"probe": probe, "sf1": elo1, "sf2": elo2, "pair": (rnd - 1) // 2, "score": y}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elo1", type=int, required=True, help="engine 1's UCI_Elo")
    ap.add_argument("--elo2", type=int, required=True, help="engine 2's UCI_Elo")
    ap.add_argument("--name1", default="Stockfish 15.1", help="engine 1's name in the PGN")
    ap.add_argument("pgn")
    args = ap.parse_args(argv)
    with open(args.pgn) as f:
        games = games_of_pgn(f.read())
    if not any(w == args.name1 for _, w, _ in games):
        sys.exit(f"{args.pgn}: no game with White {args.name1!r}")
    for r in records(games, args.elo1, args.elo2, args.name1):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
