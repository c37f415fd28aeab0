#!/usr/bin/env python3
"""Soak: many short games of lazuli under mixed settings, counting every failure a tournament
would punish: time losses, illegal moves, crashes and hangs.

Games are played with python-chess (`pip install chess`), which, unlike
the match runner match.py (this project's machines' extra), also drives pondering (`go ponder`, then `ponderhit` when the
expected move comes or `stop` when it does not). Each game draws its settings from the
schedule below, in turn: the time control (1 s + 0.01 s or 3 s + 0.03 s), lazuli's `Threads`
(1, 2 or 4) and `Ponder` (on or off) for each side, and the opponent (lazuli itself, or a
Debian engine given with --opponent). Openings: the book's positions in order.

With --trace every move is written down (kind: plain, ponder hit or ponder miss; the clock
before it; the time spent), which is how the time losses of the first soak were explained.

The clock is kept here: the time from sending `go` to reading `bestmove` is charged to the
side to move (pondering is free until `ponderhit`, as in a GUI); a side whose clock falls
below -MARGIN ms (default 100, as match.py and cutechess) loses on time, and every move that
overstepped by less is counted as late, for lazuli or for the opponent, and written on the game's
line. A move is illegal if python-chess says so; an engine that
exits is a crash; one that sends no `bestmove` within its clock plus GRACE seconds hangs.
No adjudication but --maxplies (a draw, counted apart).

    python3 lab/tools/soak.py --engine target/release/lazuli --games 2000 --seed 1 \
        --opponent /usr/games/stockfish --log soak.log

Prints one line per game and a summary; the exit status is 1 if anything failed.
"""

import argparse
import os
import itertools
import random
import sys
import time

import chess
import chess.engine

TCS = [(1.0, 0.01), (3.0, 0.03)]
THREADS = [1, 2, 4]
PONDER = [False, True]


def settings(index, opponent):
    """The settings of game `index`: every combination in turn, TC changing slowest."""
    combos = list(itertools.product(TCS, THREADS, PONDER, THREADS, PONDER, [False, True]))
    tc, t1, p1, t2, p2, vs_other = combos[index % len(combos)]
    if opponent is None:
        vs_other = False
    return tc, (t1, p1), (t2, p2), vs_other


def open_engine(cmd, threads, hash_mb):
    engine = chess.engine.SimpleEngine.popen_uci(cmd, timeout=30)
    options = {}
    names = {k.lower(): k for k in engine.options}
    if "threads" in names:
        options[names["threads"]] = threads
    if "hash" in names:
        options[names["hash"]] = hash_mb
    # `Ponder` is set by python-chess itself when a move is played with ponder=True.
    for name in ("OwnBook",):
        if name.lower() in names:
            options[names[name.lower()]] = False
    engine.configure(options)
    return engine


def play_game(fen, white, black, ponders, tc, margin_ms, grace_s, maxplies, trace=None):
    """Returns (result, reason, plies, side at fault or None, late moves). result: '1-0', '0-1',
    '1/2-1/2'; late moves: (side, ms over the clock) of each move that overstepped by less than
    the margin.

    `trace`, if given, is called for every move with (ply, side, kind, clock before, spent),
    kind being `plain`, `hit` (the move pondered on came: `ponderhit`) or `miss` (`stop`, the
    discarded `bestmove`, then `go`)."""
    board = chess.Board(fen)
    expected = {chess.WHITE: None, chess.BLACK: None}  # each side's ponder move
    clocks = {chess.WHITE: tc[0], chess.BLACK: tc[0]}
    engines = {chess.WHITE: white, chess.BLACK: black}
    plies = 0
    late = []
    while not board.is_game_over(claim_draw=True):
        if plies >= maxplies:
            return "1/2-1/2", "maxplies", plies, None, late
        side = board.turn
        limit = chess.engine.Limit(
            white_clock=max(clocks[chess.WHITE], 0.001),
            black_clock=max(clocks[chess.BLACK], 0.001),
            white_inc=tc[1],
            black_inc=tc[1],
        )
        engine = engines[side]
        if not ponders[side] or expected[side] is None:
            kind = "plain"
        else:
            kind = "hit" if board.move_stack and board.peek() == expected[side] else "miss"
        before = clocks[side]
        start = time.monotonic()
        try:
            # python-chess waits for `bestmove` only as long as its own timeout; a hang is a
            # move that takes longer than the clock plus the grace period.
            play = engine.play(board, limit, ponder=ponders[side])
        except chess.engine.EngineTerminatedError:
            return loss(side), "crash", plies, side, late
        except chess.engine.EngineError as e:
            return loss(side), f"engine error: {e}", plies, side, late
        except TimeoutError:
            return loss(side), "hang", plies, side, late
        spent = time.monotonic() - start
        expected[side] = play.ponder
        if trace:
            trace(plies, side, kind, before, spent)
        if spent > clocks[side] + grace_s:
            return loss(side), "hang", plies, side, late
        clocks[side] -= spent
        if clocks[side] < -margin_ms / 1000:
            return loss(side), f"time ({clocks[side] * 1000:.0f} ms)", plies, side, late
        if clocks[side] < 0:
            late.append((side, -clocks[side] * 1000))
        clocks[side] += tc[1]
        move = play.move
        if move is None or move not in board.legal_moves:
            return loss(side), f"illegal move {move}", plies, side, late
        board.push(move)
        plies += 1
    return board.result(claim_draw=True), "rules", plies, None, late




def loss(side):
    return "0-1" if side == chess.WHITE else "1-0"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="lazuli's command line")
    ap.add_argument("--opponent", help="a Debian engine (e.g. /usr/games/stockfish), half the games")
    ap.add_argument("--book", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "books", "noob_3moves_every15.epd"))
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--first", type=int, default=0, help="index of the first game (resume)")
    ap.add_argument("--seed", type=int, default=1, help="opening order")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--margin-ms", type=int, default=100,
                    help="overstep tolerated before a time loss (match.py's and cutechess's default: 100)")
    ap.add_argument("--grace-s", type=float, default=5.0)
    ap.add_argument("--maxplies", type=int, default=400)
    ap.add_argument("--log", help="append one line per game here too")
    ap.add_argument("--trace", help="append one line per move here: game, ply, side, kind "
                    "(plain, ponder hit or miss), clock before the move and time spent, in ms")
    args = ap.parse_args()

    with open(args.book) as f:
        openings = [" ".join(l.split()[:4]) + " 0 1" for l in f if l.strip()]
    random.Random(args.seed).shuffle(openings)
    log = open(args.log, "a") if args.log else None
    trace_file = open(args.trace, "a") if args.trace else None
    counts = {"games": 0, "time": 0, "illegal": 0, "crash": 0, "hang": 0, "error": 0, "maxplies": 0, "opponent": 0,
              "late lazuli": 0, "late opponent": 0}
    for i in range(args.first, args.first + args.games):
        tc, (t1, p1), (t2, p2), vs_other = settings(i, args.opponent)
        fen = openings[(i // 2) % len(openings)]
        lazuli_white = i % 2 == 0
        a = open_engine(args.engine, t1, args.hash)
        if vs_other:
            b = open_engine(args.opponent, 1, args.hash)
            p2 = False
        else:
            b = open_engine(args.engine, t2, args.hash)
        white, black = (a, b) if lazuli_white else (b, a)
        ponders = {chess.WHITE: p1 if lazuli_white else p2, chess.BLACK: p2 if lazuli_white else p1}
        def trace(ply, side, kind, before, spent, game=i):
            trace_file.write(f"{game} {ply} {'white' if side == chess.WHITE else 'black'} {kind} "
                             f"{before * 1000:.1f} {spent * 1000:.1f}\n")
        result, reason, plies, fault, late = play_game(fen, white, black, ponders, tc, args.margin_ms, args.grace_s,
                                                 args.maxplies, trace if trace_file else None)
        # A failure of the opponent is reported but not counted against lazuli.
        opponent_fault = fault is not None and vs_other and (fault == chess.WHITE) != lazuli_white
        if opponent_fault:
            reason = f"opponent's {reason}"
        for e in (a, b):
            try:
                e.quit()
            except Exception:
                counts["crash"] += 1
                reason += " (quit failed)"
        counts["games"] += 1
        kind = "opponent" if opponent_fault else reason.split()[0]
        key = {"time": "time", "illegal": "illegal", "crash": "crash", "hang": "hang", "engine": "error", "maxplies": "maxplies", "opponent": "opponent"}.get(kind)
        if key:
            counts[key] += 1
        line = (f"game {i} tc {tc[0]}+{tc[1]} lazuli threads {t1} ponder {p1} as {'white' if lazuli_white else 'black'} "
                f"vs {'opponent' if vs_other else f'lazuli threads {t2} ponder {p2}'}: {result} by {reason} after {plies} plies")
        # Moves over the clock by less than the margin: not losses, but counted, per engine.
        for side, ms in late:
            who = "opponent" if vs_other and (side == chess.WHITE) != lazuli_white else "lazuli"
            counts[f"late {who}"] += 1
            line += f"; late: {who} ({'white' if side == chess.WHITE else 'black'}) {ms:.0f} ms"
        print(line, flush=True)
        if log:
            log.write(line + "\n")
            log.flush()
    summary = " ".join(f"{k} {v}" for k, v in counts.items())
    print(f"summary: {summary}", flush=True)
    if log:
        log.write(f"summary: {summary}\n")
    failed = counts["time"] + counts["illegal"] + counts["crash"] + counts["hang"] + counts["error"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
