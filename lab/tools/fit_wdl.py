#!/usr/bin/env python3
"""Fits lazuli's win/draw/loss model to lazuli's own self-play games.

The model is Stockfish's (`src/uci.cpp`, `win_rate_model`, fitted there to fishtest games):
with the search score v in centipawns from the side to move and the material m on the board
(pawns 1, knights and bishops 3, rooks 5, queens 9, both sides, clamped to MATERIAL_MIN..
MATERIAL_MAX, divided by 58), a(m) and b(m) are cubic polynomials and

    win  = 1 / (1 + exp((a(m) - v) / b(m)))
    loss = 1 / (1 + exp((a(m) + v) / b(m)))
    draw = 1 - win - loss

The eight coefficients are fitted by maximum likelihood over every position of the data, each
labelled with its game's result. The data is the positions the trainer learns from, in
marlinformat (32 bytes a position, the search score from White's side and the game result,
documented in `lab/src/format.rs`), which `lazuli-lab unpack` writes from the data store's
binpack chunks. Writes the coefficients as Rust constants for `src/wdl.rs` and a table of
predicted against observed results by score.

    lazuli-lab unpack --data lab/data/s13 --out DIR/s13.bin
    python3 lab/tools/fit_wdl.py DIR [DIR ...]        # needs numpy and scipy (pip install)
    python3 lab/tools/fit_wdl.py DIR --against AS0,AS1,AS2,AS3,BS0,BS1,BS2,BS3
        # also scores other coefficients (an earlier fit) on the same data: their mean
        # negative log-likelihood and a column of their predictions in the table
"""

import argparse
import glob
import os
import sys

import numpy as np
from scipy.optimize import minimize

RECORD = np.dtype([("occ", "<u8"), ("pieces", "u1", 16), ("stm_ep", "u1"), ("half", "u1"),
                   ("full", "<u2"), ("score", "<i2"), ("result", "u1"), ("extra", "u1")])
# Material value of a nibble's role (0 pawn .. 5 king, 6 rook with castling right).
ROLE_VALUE = np.array([1, 3, 3, 5, 9, 0, 5, 0])
# The material is clamped to this range (Stockfish: 17..78); must match src/params.rs.
MATERIAL_MIN, MATERIAL_MAX = 4, 78


def load(dirs):
    files = sorted(f for d in dirs for f in glob.glob(os.path.join(d, "*.bin")))
    if not files:
        sys.exit("no *.bin files in " + " ".join(dirs))
    data = np.concatenate([np.fromfile(f, dtype=RECORD) for f in files])
    return files, data


def material(data):
    occupied = np.array([bin(int(o)).count("1") for o in data["occ"]])
    nibbles = np.concatenate([data["pieces"] & 0xF, data["pieces"] >> 4], axis=1)
    # Nibble k is byte k/2, low half first: reorder the two halves into that order.
    order = np.arange(32).reshape(2, 16).T.reshape(-1)
    nibbles = nibbles[:, order]
    present = np.arange(32)[None, :] < occupied[:, None]
    return (ROLE_VALUE[nibbles & 7] * present).sum(axis=1)


def model(params, v, m):
    a = np.polyval(params[:4], m)
    b = np.maximum(np.polyval(params[4:], m), 1.0)
    win = 1 / (1 + np.exp(np.clip((a - v) / b, -50, 50)))
    loss = 1 / (1 + np.exp(np.clip((a + v) / b, -50, 50)))
    return win, loss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+", help="folders of marlinformat files (lazuli-lab unpack)")
    parser.add_argument("--against", help="eight comma-separated coefficients to compare with")
    args = parser.parse_args()
    against = None
    if args.against:
        against = np.array([float(c) for c in args.against.split(",")])
        if len(against) != 8:
            sys.exit("--against needs eight coefficients: WDL_AS then WDL_BS")
    files, data = load(args.dirs)
    v = data["score"].astype(float)
    result = data["result"].astype(int)  # from White's side: 2 win, 1 draw, 0 loss
    m = np.clip(material(data), MATERIAL_MIN, MATERIAL_MAX) / 58.0
    won, drawn, lost = result == 2, result == 1, result == 0

    def nll(params):
        win, loss = model(params, v, m)
        draw = np.clip(1 - win - loss, 1e-9, 1)
        p = np.where(won, win, np.where(lost, loss, draw))
        return -np.log(np.clip(p, 1e-9, 1)).mean()

    # Start from a model that ignores material: a = 150 cp, b = 70 cp.
    start = np.array([0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 0.0, 70.0])
    fit = minimize(nll, start, method="Nelder-Mead",
                   options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-4, "fatol": 1e-9})
    fit = minimize(nll, fit.x, method="BFGS")
    p = fit.x
    print(f"# {len(data)} positions from {len(files)} chunk files; "
          f"results W/D/L (White) {won.sum()}/{drawn.sum()}/{lost.sum()}")
    print(f"# mean negative log-likelihood {fit.fun:.5f} (the starting model without material: "
          f"{nll(start):.5f})")
    if against is not None:
        print(f"# the --against coefficients on the same data: {nll(against):.5f}")
    names = ["AS", "BS"]
    for i, name in enumerate(names):
        coeffs = ", ".join(f"{c:.6f}" for c in p[4 * i:4 * i + 4])
        print(f"pub(crate) const WDL_{name}: [f64; 4] = [{coeffs}];")
    extra = (" --against W / D / L (%) |", "---|") if against is not None else ("", "")
    print(f"\n| score (cp) | positions | observed W / D / L (%) | model W / D / L (%) |{extra[0]}")
    print(f"|---:|---:|---|---|{extra[1]}")

    def predicted(params, sel):
        win, loss = model(params, v[sel], m[sel])
        w, l = 100 * win.mean(), 100 * loss.mean()
        return f"{w:.1f} / {100 - w - l:.1f} / {l:.1f} |"

    for lo in range(-400, 400, 100):
        sel = (v >= lo) & (v < lo + 100)
        if sel.sum() == 0:
            continue
        ow, od, ol = (100 * won[sel].mean(), 100 * drawn[sel].mean(), 100 * lost[sel].mean())
        other = " " + predicted(against, sel) if against is not None else ""
        print(f"| {lo} to {lo + 99} | {sel.sum()} | {ow:.1f} / {od:.1f} / {ol:.1f} | "
              f"{predicted(p, sel)}{other}")


if __name__ == "__main__":
    main()
