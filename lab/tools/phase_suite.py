#!/usr/bin/env python3
"""An EPD suite of lazuli's own game positions, by the side to move's material.

Reads marlinformat files (`lazuli-lab unpack --data lab/data/s14/CHUNK --out FILE`; the layout
is documented in `lab/src/format.rs`), reports how the positions spread over the side to move's
pieces besides king and pawns, and writes every `--every`-th position whose side to move has
`--min-pieces` to `--max-pieces` such pieces, and whose opponent has at least one, as EPD with
an `id` (file and record index). Used by the null-move screen (docs/null-move-study.md) to
measure the endgame positions that verification by material touches, which the ECM suite
hardly has.

    python3 lab/tools/phase_suite.py --max-pieces 2 --every 40 --out eg.epd /tmp/c*.bin
"""

import argparse
import collections
import os
import struct
import sys

ROLES = "pnbrqkr"


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % 32:
        sys.exit(f"{path}: {len(data)} bytes is not a whole number of 32-byte records")
    for i in range(0, len(data), 32):
        yield i // 32, data[i : i + 32]


def decode(rec):
    occ, = struct.unpack_from("<Q", rec, 0)
    board = {}
    castling_rooks = []
    k = 0
    for sq in range(64):
        if occ >> sq & 1:
            nib = rec[8 + k // 2] >> (4 * (k % 2)) & 0xF
            role = nib & 7
            if role == 7:
                raise ValueError(f"piece code 7 on square {sq}")
            ch = ROLES[role]
            board[sq] = ch.upper() if nib & 8 == 0 else ch
            if role == 6:
                castling_rooks.append(sq)
            k += 1
    stm_ep = rec[24]
    black = bool(stm_ep & 0x80)
    ep = stm_ep & 0x7F
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            p = board.get(rank * 8 + file)
            if p is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + p
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    ep_str = "-" if ep == 64 else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    castling = "".join(sorted(castling_right(board, sq) for sq in castling_rooks)) or "-"
    fen = "/".join(rows) + (" b " if black else " w ") + castling + " " + ep_str
    return fen, board, black


def castling_right(board, rook):
    """The FEN letter of a rook that keeps its castling right: K or Q by its side of its king."""
    white = board[rook] == "R"
    king = next(sq for sq, p in board.items() if p == ("K" if white else "k"))
    side = "K" if rook % 8 > king % 8 else "Q"
    return side if white else side.lower()


def pieces(board, black):
    return sum(1 for p in board.values() if p.lower() in "nbrq" and p.islower() == black)


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
        for index, rec in records(path):
            try:
                fen, board, black = decode(rec)
            except (ValueError, StopIteration) as e:
                sys.exit(f"{path}: record {index}: not a position ({e or 'no king'})")
            own, their = pieces(board, black), pieces(board, not black)
            total += 1
            spread[min(own, 8)] += 1
            if args.min_pieces <= own <= args.max_pieces and their >= 1:
                if matched % args.every == 0:
                    kept.append(f'{fen} id "{os.path.basename(path)}:{index}";')
                matched += 1
    with open(args.out, "w") as f:
        f.write("\n".join(kept) + "\n")
    print(f"{total} positions; side to move's pieces besides king and pawns:")
    for n in sorted(spread):
        print(f"  {n}{'+' if n == 8 else ''}: {spread[n]} ({100 * spread[n] / total:.1f}%)")
    print(f"{matched} match, {len(kept)} written to {args.out}")


if __name__ == "__main__":
    main()
