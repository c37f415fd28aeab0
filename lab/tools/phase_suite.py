#!/usr/bin/env python3
"""An EPD suite of lazuli's own game positions, by the side to move's material.

Reads the EPD of `lazuli-lab unpack --epd --data lab/data/s14/CHUNK --out FILE` (the positions
the trainer learns from, each with an `id` of its chunk and index), reports how the positions
spread over the side to move's pieces besides king and pawns, and writes every `--every`-th
position whose side to move has `--min-pieces` to `--max-pieces` such pieces, and whose
opponent has at least one, with its `id`. Used by the null-move screen
(docs/null-move-study.md) to measure the endgame positions that verification by material
touches, which the ECM suite hardly has.

    python3 lab/tools/phase_suite.py --max-pieces 2 --every 40 --out eg.epd c*.epd
"""

import argparse
import collections
import re
import sys

ID = re.compile(r'\bid "([^"]*)";')


def pieces(board, black):
    """The pieces besides king and pawns of one side, from a FEN's board field."""
    return sum(1 for p in board if p.lower() in "nbrq" and p.islower() == black)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--min-pieces", type=int, default=1)
    ap.add_argument("--max-pieces", type=int, default=2)
    ap.add_argument("--every", type=int, default=1, help="keep every N-th matching position")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    spread = collections.Counter()
    kept, matched, total = [], 0, 0
    for path in args.files:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                found = ID.search(line)
                if len(fields) < 4 or fields[1] not in ("w", "b") or not found:
                    sys.exit(f"{path}:{number}: not an EPD line with an id: {line.strip()!r}")
                board, black = fields[0], fields[1] == "b"
                own, their = pieces(board, black), pieces(board, not black)
                total += 1
                spread[min(own, 8)] += 1
                if args.min_pieces <= own <= args.max_pieces and their >= 1:
                    if matched % args.every == 0:
                        kept.append(f'{" ".join(fields[:4])} id "{found[1]}";')
                    matched += 1
    if not total:
        sys.exit("no positions")
    with open(args.out, "w") as f:
        f.write("\n".join(kept) + "\n")
    print(f"{total} positions; side to move's pieces besides king and pawns:")
    for n in sorted(spread):
        print(f"  {n}{'+' if n == 8 else ''}: {spread[n]} ({100 * spread[n] / total:.1f}%)")
    print(f"{matched} match, {len(kept)} written to {args.out}")


if __name__ == "__main__":
    main()
