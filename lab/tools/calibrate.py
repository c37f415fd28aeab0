#!/usr/bin/env python3
"""Calibrates lazuli's limited strength against Stockfish 15.1's `UCI_Elo` scale (issue 36).

Plays lazuli at several levels (`Skill Level`, or with --mode elo `UCI_LimitStrength` and
`UCI_Elo`) against Stockfish 15.1 with `UCI_LimitStrength` at a `UCI_Elo` per point, in game
pairs: each opening of the noob book once with each colour. Prints per point the pentanomial
counts and the Elo of the level, fits a level -> Elo curve to all games at once (tools/
calib_fit.py: maximum likelihood over the logistic model, 95% intervals from a bootstrap over
pairs), prints SKILL_ELO_ANCHORS for src/params.rs (--write-params edits it) and draws an SVG.

    cargo build --release
    python3 lab/tools/calibrate.py --concurrency 2 --results calibration.jsonl --svg docs/limited-strength.svg
    python3 lab/tools/calibrate.py --quick            # 2 points x 4 games at 1+0.01: a check
    python3 lab/tools/calibrate.py --results calibration.jsonl --fit-only --write-params
    python3 lab/tools/calibrate.py --mode elo --points 1700:1700,2000:2000,2200:2200 --pairs 50 \\
        --results heldout.jsonl                    # the held-out check: each score 40-60%?
    python3 lab/tools/calibrate.py --self-test        # the statistics, without engines

A point is LEVEL:SF (lazuli's level or UCI_Elo, Stockfish's UCI_Elo, 1350..2850). Resumable:
each finished game is appended to the --results file (JSON lines, keyed by point, pair and
colour); a rerun with the same arguments plays only the missing games, and more --pairs
extends a run with the next openings of the same --seed. Games need python-chess (`pip install
chess`); the fit, the chart and --self-test need only the standard library.

The time control: Stockfish's scale was fitted at 60 s + 0.6 s, one thread, 64 MB of hash
(its search.cpp, `Skill`: "a fit through Ordo derived Elo for match (TC 60+0.6) results",
anchored to CCRL 40/4; Stockfish pull request #2225). The default here is 5 s + 0.05 s, which
two cores play in about 95 minutes (900 games); below the top of the scale both engines' weak
levels choose at a fixed depth or node count that the clock seldom cuts short, so the time
control moves mostly the top. On a 16-core machine pass --tc 60+0.6 (docs/limited-strength.md,
"Calibrating", has the costs). Both engines get one thread.
"""

import argparse
import concurrent.futures as cf
import hashlib
import importlib.util
import json
import os
import random
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_fit as cfit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository: lab/tools/..
BOOK = os.path.join(HERE, "books", "noob_3moves_every15.epd")
PARAMS = os.path.join(ROOT, "src", "params.rs")
# The full run's points: each level against a Stockfish UCI_Elo near where the earlier
# calibration measured it, every one at a whole Stockfish level (1350 is its level 0.01), where
# its label and the steps reading agree (--sf-scale; docs/limited-strength.md, "Stockfish's
# staircase and its measured ladder"). Ten levels: Stockfish's scale is a staircase (it picks at depth 1 + int(level)),
# and five points placed too coarsely failed the first held-out check at 1900, nine the second
# at 1700 and 2200 (the weakening's own steps then). A point far from 50% says where to move
# its opponent.
FULL_POINTS = ",".join(f"{lv}:{cfit.sf_whole_level_elo(sf_lv)}" for lv, sf_lv in
                       ((0, 0), (2, 2), (5, 4), (7, 6), (10, 7), (12, 8), (15, 10), (17, 11),
                        (19, 12), (20, 12)))
QUICK_POINTS = "0:1350,20:2600"
SF_ELO_RANGE = (1350, 2850)


# ---------------------------------------------------------------------------------------------
# Points, openings, results (no engines).
# ---------------------------------------------------------------------------------------------

def parse_points(text, mode):
    """'L:S,L:S' -> [(level, sf_elo)]; a level of mode skill is 0..20."""
    points = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        level, sep, sf = item.partition(":")
        if not sep:
            raise ValueError(f"point {item!r}: LEVEL:SF_ELO")
        level, sf = int(level), int(sf)
        if mode == "skill" and not 0 <= level <= 20:
            raise ValueError(f"point {item!r}: a Skill Level is 0..20")
        if not SF_ELO_RANGE[0] <= sf <= SF_ELO_RANGE[1]:
            raise ValueError(f"point {item!r}: Stockfish 15.1's UCI_Elo is 1350..2850")
        points.append((level, sf))
    if len(set(points)) != len(points) or not points:
        raise ValueError("points: at least one, none twice")
    return points


def point_key(mode, level, sf):
    return f"{mode}={level}:sf={sf}"


def opening_order(book_len, seed):
    """The book's line indices in the order pairs use them: a shuffle fixed by the seed, so pair
    i of every point plays the same opening and more pairs extend the same sequence."""
    order = list(range(book_len))
    random.Random(seed).shuffle(order)
    return order


def jobs(mode, points, pairs, order):
    """Every game of the run, pair by pair across the points (a run cut off early has every
    point about equally far): (key, level, sf, pair, opening index, lazuli is white)."""
    out = []
    for pair in range(pairs):
        for level, sf in points:
            for white in (True, False):
                out.append((point_key(mode, level, sf), level, sf, pair, order[pair % len(order)], white))
    return out


def load_book(path):
    """The book's positions as FENs (an EPD line without move counters gets '0 1')."""
    fens = []
    with open(path) as f:
        for line in f:
            fields = line.split(";")[0].split()
            if len(fields) >= 4 and not line.startswith("#"):
                counters = fields[4:6] if len(fields) >= 6 and all(x.isdigit() for x in fields[4:6]) else ["0", "1"]
                fens.append(" ".join(fields[:4] + counters))
    return fens


def missing(all_jobs, done):
    """The jobs whose game is not among the finished ones (`done`: {game id: record})."""
    return [j for j in all_jobs if game_id(j[0], j[3], j[5]) not in done]


def game_id(key, pair, white):
    return f"{key}:{pair}:{'w' if white else 'b'}"


def read_results(path):
    """(header or None, {game id: record}) of a results file; a line cut off by a killed run
    (not valid JSON) is skipped."""
    header, games = None, {}
    if not os.path.exists(path):
        return header, games
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "header" in rec:
                header = header or rec["header"]
            elif "id" in rec:
                games[rec["id"]] = rec
    return header, games


def check_header(header, wanted):
    """The settings a results file was played under must be those of the rerun."""
    for k in ("tc", "book", "seed", "maxplies"):
        if header.get(k) != wanted.get(k):
            return f"{k} was {header.get(k)!r} in the results file, now {wanted.get(k)!r}"
    return None


def pairs_by_point(records):
    """{point key: (level, sf, [(y1, y2) or (y,)])} of lazuli's scores, pairs in pair order."""
    by = {}
    for r in records:
        p = by.setdefault(r["point"], (r["level"], r["sf"], {}))
        p[2].setdefault(r["pair"], []).append(r["score"])
    return {k: (lv, sf, [tuple(v[i]) for i in sorted(v)]) for k, (lv, sf, v) in by.items()}


def summary_rows(records):
    """Per point: (key, level, sf, games, W, D, L, pentanomial counts, (score, elo, lo, hi))."""
    rows = []
    for key, (level, sf, pairs) in sorted(pairs_by_point(records).items(), key=lambda kv: kv[1][:2]):
        games = [y for p in pairs for y in p]
        full = [sum(p) for p in pairs if len(p) == 2]
        penta = cfit.pentanomial(full)
        stats = cfit.pentanomial_elo(penta)
        w, d = games.count(1.0), games.count(0.5)
        rows.append((key, level, sf, len(games), w, d, len(games) - w - d, penta, stats))
    return rows


def fmt_elo(v):
    return "-inf" if v == -float("inf") else "+inf" if v == float("inf") else f"{v:+.0f}"


# ---------------------------------------------------------------------------------------------
# Playing (python-chess).
# ---------------------------------------------------------------------------------------------

def points_out_of_range(points, mode, lz_range, sf_range):
    """What the engines would refuse among the points, one message a value: lazuli's Skill
    Level or UCI_Elo within lz_range, Stockfish's UCI_Elo within sf_range ((min, max) as the
    engines advertise them). Checked before the first game, so that a bad point stops the run
    at once rather than when its first game comes up."""
    name = "Skill Level" if mode == "skill" else "UCI_Elo"
    bad = []
    for level, sf in points:
        if not lz_range[0] <= level <= lz_range[1]:
            bad.append(f"point {level}:{sf}: lazuli's {name} is {lz_range[0]}..{lz_range[1]}")
        if not sf_range[0] <= sf <= sf_range[1]:
            bad.append(f"point {level}:{sf}: Stockfish's UCI_Elo is {sf_range[0]}..{sf_range[1]}")
    return bad


def engine_ranges(args):
    """lazuli's and Stockfish's option ranges for the points, read from one start of each."""
    p = Player(args)
    try:
        p.start()
        lz = p.lz.options["Skill Level" if args.mode == "skill" else "UCI_Elo"]
        sf = p.sf.options["UCI_Elo"]
        return (lz.min, lz.max), (sf.min, sf.max)
    finally:
        p.close()


class Player:
    """One worker's two engines, kept between games (restarted after a crash)."""

    def __init__(self, args):
        self.args = args
        self.lz = self.sf = None

    def start(self):
        import chess.engine
        if self.lz is None:
            # Their own process group: a Ctrl-C stops the run, not the engines under it.
            self.lz = chess.engine.SimpleEngine.popen_uci(self.args.lazuli, setpgrp=True,
                                                          stderr=subprocess_devnull())
        if self.sf is None:
            self.sf = chess.engine.SimpleEngine.popen_uci(self.args.stockfish, setpgrp=True,
                                                          stderr=subprocess_devnull())

    def close(self):
        for e in (self.lz, self.sf):
            if e is not None:
                try:
                    e.quit()
                except Exception:  # noqa: BLE001 - a dead engine is closed anyway
                    e.close()
        self.lz = self.sf = None

    def configure(self, mode, level, sf):
        common = {"Threads": 1, "Hash": self.args.hash}
        if mode == "skill":
            lz = {"UCI_LimitStrength": False, "Skill Level": level}
        else:
            lz = {"UCI_LimitStrength": True, "UCI_Elo": level}
        self.lz.configure({**common, **lz})
        self.sf.configure({**common, "UCI_LimitStrength": True, "UCI_Elo": sf})


def subprocess_devnull():
    import subprocess
    return subprocess.DEVNULL


def play_game(player, args, fen, lazuli_white, gid):
    """Plays one game from `fen`: (lazuli's score, result, reason, plies, pgn text). No
    adjudication: the rules (python-chess's outcome, with threefold and fifty-move claims), a
    loss on time (beyond --margin), an illegal move or a crash; --maxplies scores a draw."""
    import chess
    import chess.engine
    import chess.pgn

    board = chess.Board(fen)
    base, inc = args.base, args.inc
    clock = {chess.WHITE: base, chess.BLACK: base}
    lz_colour = chess.WHITE if lazuli_white else chess.BLACK
    reason = None
    loser = None
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            reason = outcome.termination.name.lower()
            break
        if len(board.move_stack) >= args.maxplies:
            reason = "maxplies"
            break
        side = board.turn
        engine = player.lz if side == lz_colour else player.sf
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        t0 = time.monotonic()
        try:
            move = engine.play(board, limit, game=gid).move
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as e:
            reason, loser = f"error: {e}"[:200], side
            player.close()  # restarted before the next game
            break
        clock[side] -= time.monotonic() - t0
        if clock[side] < -args.margin:
            reason, loser = "time", side
            break
        clock[side] += inc
        if move is None or not board.is_legal(move):
            reason, loser = f"illegal move {move}", side
            break
        board.push(move)
    if loser is not None:
        result = "0-1" if loser == chess.WHITE else "1-0"
    elif reason in ("maxplies",) or (outcome is not None and outcome.winner is None):
        result = "1/2-1/2"
    else:
        result = "1-0" if outcome.winner == chess.WHITE else "0-1"
    score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
    if not lazuli_white:
        score = 1.0 - score
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = result
    game.headers["Termination"] = reason
    return score, result, reason, len(board.move_stack), str(game)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def play(args, points, book):
    """Plays every game the results file lacks, appending each as it ends."""
    order = opening_order(len(book), args.seed)
    all_jobs = jobs(args.mode, points, args.pairs, order)
    wanted = dict(tc=args.tc, book=os.path.basename(args.book), seed=args.seed, maxplies=args.maxplies)
    header, done = read_results(args.results)
    if header is not None:
        why = check_header(header, wanted)
        if why:
            sys.exit(f"{args.results}: {why}; use another --results file")
        if header.get("lazuli_sha256") != sha256(args.lazuli):
            print(f"warning: {args.lazuli} differs from the build that played the games in "
                  f"{args.results} (its sha256); their games are kept", file=sys.stderr)
    todo = missing(all_jobs, done)
    print(f"{len(all_jobs) - len(todo)} of {len(all_jobs)} games in {args.results}; "
          f"{len(todo)} to play at {args.tc}, concurrency {args.concurrency}", flush=True)
    if not todo:
        return
    if importlib.util.find_spec("chess") is None:
        sys.exit("the games need python-chess: pip install chess")
    bad = points_out_of_range(points, args.mode, *engine_ranges(args))
    if bad:
        sys.exit("\n".join(bad))
    lock = threading.Lock()
    if header is None:
        header = dict(wanted, lazuli=args.lazuli, lazuli_sha256=sha256(args.lazuli),
                      stockfish=args.stockfish, started=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
        with open(args.results, "a") as f:
            f.write(json.dumps({"header": header}) + "\n")
    local = threading.local()
    players = []
    records = list(done.values())
    start, played, stopping = time.monotonic(), [0], threading.Event()
    before = len(all_jobs) - len(todo)

    def run(job):
        key, level, sf, pair, opening, white = job
        if getattr(local, "player", None) is None:
            local.player = Player(args)
            with lock:
                players.append(local.player)
        p = local.player
        p.start()
        p.configure(args.mode, level, sf)
        gid = game_id(key, pair, white)
        t0 = time.monotonic()
        score, result, reason, plies, pgn = play_game(p, args, book[opening], white, gid)
        if stopping.is_set():
            return  # cut off by the interruption (its engines were closed): not a result
        rec = dict(id=gid, point=key, mode=args.mode, level=level, sf=sf, pair=pair, opening=opening,
                   lazuli_white=white, score=score, result=result, reason=reason, plies=plies,
                   seconds=round(time.monotonic() - t0, 2))
        with lock:
            with open(args.results, "a") as f:
                f.write(json.dumps(rec) + "\n")
                f.flush()
                os.fsync(f.fileno())
            if args.pgn:
                with open(args.pgn, "a") as f:
                    f.write(pgn.replace("[Event \"?\"]", f"[Event \"calibrate {gid}\"]") + "\n\n")
            records.append(rec)
            played[0] += 1
            mine = [r["score"] for r in records if r["point"] == key]
            w, d = mine.count(1.0), mine.count(0.5)
            total = before + played[0]
            eta = (time.monotonic() - start) / played[0] * (len(all_jobs) - total)
            print(f"[{total}/{len(all_jobs)}] {key}: +{w} ={d} -{len(mine) - w - d} "
                  f"{sum(mine) / len(mine):.1%} ({reason}, {plies} plies) | "
                  f"ETA {eta // 3600:.0f}:{eta % 3600 // 60:02.0f}",
                  flush=True)

    pool = cf.ThreadPoolExecutor(args.concurrency)
    try:
        for fut in cf.as_completed([pool.submit(run, j) for j in todo]):
            fut.result()
    except BaseException:
        # Ctrl-C or a failure: the games under way are dropped, the finished ones are kept.
        stopping.set()
        pool.shutdown(wait=False, cancel_futures=True)
        print(f"\nstopped: {before + played[0]} of {len(all_jobs)} games in {args.results}; "
              "the same command resumes", file=sys.stderr)
        raise
    finally:
        with lock:
            for p in players:
                p.close()
        pool.shutdown(wait=True)


# ---------------------------------------------------------------------------------------------
# Report.
# ---------------------------------------------------------------------------------------------

def read_sf_games(paths):
    """{probe: (sf1, sf2, [(y1, y2) or (y,)])} of Stockfish-against-Stockfish games
    (lab/tools/calib_ladder.py's records: sf1's score), pairs in pair order."""
    by = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                p = by.setdefault(r["probe"], (r["sf1"], r["sf2"], {}))
                p[2].setdefault(r["pair"], []).append(r["score"])
    return {k: (a, b, [tuple(v[i]) for i in sorted(v)]) for k, (a, b, v) in by.items()}


def ladder_report(args, records, knots):
    """The ladder reading (cfit.ladder_fit): lazuli's curve and Stockfish's whole levels fitted
    together on lazuli's games and --sf-games. Prints the ladder; returns (curve, theta on the
    ladder's scale, each knot's Elo read as a label, their 95% intervals)."""
    lz_pairs = {k: (lv, cfit.sf_whole_level(sf), pairs)
                for k, (lv, sf, pairs) in pairs_by_point(records).items()}
    sf_pairs = {k: (cfit.sf_whole_level(a), cfit.sf_whole_level(b), pairs)
                for k, (a, b, pairs) in read_sf_games(args.sf_games or []).items()}
    top = max([k for _, k, _ in lz_pairs.values()] + [max(a, b) for a, b, _ in sf_pairs.values()])

    curve, theta, places = cfit.ladder_fit(knots, cfit.ladder_groups(lz_pairs), cfit.ladder_groups(sf_pairs), top,
                                           args.ladder_sigma, args.prior_draws)
    elos = [cfit.ladder_to_label(e, places) for e in curve.knot_values(theta)]
    ci, place_ci = cfit.ladder_bootstrap(knots, lz_pairs, sf_pairs, top, args.bootstrap, args.seed,
                                         args.ladder_sigma, args.prior_draws)
    sf_games = cfit.ladder_groups(sf_pairs)
    print(f"\nStockfish's ladder (its whole levels fitted beside lazuli's curve; level 0 pinned at its "
          f"label; each step's prior: its labels' step ± {args.ladder_sigma:g}; "
          f"{sum(n for n, _ in sf_games.values())} games of Stockfish against itself):")
    print(f"  {'level':>5} {'label':>7} {'place':>7} {'- label [95%]':<18} {'step':>5} {'labels':>6}  measured by")
    for k, m in enumerate(places):
        lab = cfit.sf_label_of_level(k)
        step = f"{m - places[k - 1]:5.0f} {lab - cfit.sf_label_of_level(k - 1):6.0f}" if k else f"{'':5} {'':6}"
        lo, hi = place_ci[k]
        by = []
        if k and ((k, k - 1) in sf_games or (k - 1, k) in sf_games):
            g = sf_games.get((k, k - 1)) or sf_games[(k - 1, k)]
            by.append(f"{g[0]} games against level {k - 1}")
        n_lz = sum(sum(len(p) for p in ps) for _, kk, ps in lz_pairs.values() if kk == k)
        if n_lz:
            by.append(f"{n_lz} of lazuli's")
        print(f"  {k:>5} {lab:7.0f} {m:7.0f} {m - lab:+5.0f} [{lo:+.0f}, {hi:+.0f}]".ljust(42)
              + f" {step}  {', '.join(by) or 'the prior alone'}")
    return curve, theta, elos, ci, places


def report(args, records):
    rows = summary_rows(records)
    if not rows:
        print("no games yet")
        return
    mode = records[0]["mode"]
    # The Elo each opponent is taken to play (--sf-scale): its label, or its integer level's.
    opp = {sf: cfit.sf_elo(sf, args.sf_scale) for sf in {r["sf"] for r in records}}
    if args.sf_scale != "label":
        print(f"\nStockfish's scale: {args.sf_scale} (" + ", ".join(
            f"{sf} plays {opp[sf]:.0f}" for sf in sorted(opp)) + ")")
    levels = sorted({r["level"] for r in records})
    # The knots of pwl (and the levels a polynomial is reported at): at or between levels played.
    knots = sorted({float(k) for k in args.knots.split(",")} if args.knots else set(levels))
    if args.sf_scale == "ladder":
        # Fitted first: each point's own estimate is read on the fitted ladder.
        curve, theta, elos, ci, places = ladder_report(args, records, knots)

        def at(sf, diff):  # the label-scale Elo of a player `diff` above Stockfish at sf
            return cfit.ladder_to_label(places[cfit.sf_whole_level(sf)] + diff, places)
    else:
        def at(sf, diff):
            return opp[sf] + diff
    if args.quick:
        print("\n--quick: a check that the tool works, not a calibration")
    print(f"\n{'point':<22} {'games':>5}  {'+W =D -L':<14} {' '.join(cfit.PENTA_NAMES)} (pairs)  "
          f"{'score':>6}  {'Elo diff [95%]':<21} Elo on Stockfish's scale")
    per_point = []
    for key, level, sf, n, w, d, l, penta, stats in rows:
        if stats is None:
            line = "(no full pair yet)"
        else:
            score, elo, lo, hi = stats
            line = (f"{score:6.1%}  {fmt_elo(elo):>5} [{fmt_elo(lo)}, {fmt_elo(hi)}]".ljust(31)
                    + f" {at(sf, elo):.0f}" if abs(elo) < 1e9 else f"{score:6.1%}  beyond the logistic")
            if abs(elo) < 1e9:
                per_point.append((level, at(sf, elo), at(sf, lo), at(sf, hi)))
            if not 0.15 <= score <= 0.85 and abs(elo) < 1e9:
                hint = min(max(round(at(sf, elo) / 50) * 50, SF_ELO_RANGE[0]), SF_ELO_RANGE[1])
                line += (f"  (far from 50%: an opponent near {hint} measures it better)" if hint != sf else
                         "  (far from 50%, beyond Stockfish's range: the logistic extrapolates)")
            if mode == "elo" and level == sf:
                line += "  within 40-60%" if 0.4 <= score <= 0.6 else "  OUTSIDE 40-60%"
                if round(at(sf, 0.0)) != sf and abs(elo) < 1e9:
                    # The same band on the scale read as --sf-scale says: the label measured.
                    off = at(sf, elo) - level
                    band = cfit.elo_of_score(0.6)
                    line += f"; {args.sf_scale}: {off:+.0f} from its label, " + (
                        f"within ±{band:.0f}" if abs(off) <= band else f"OUTSIDE ±{band:.0f}")
        counts = " ".join(f"{c:>{len(name)}}" for c, name in zip(penta, cfit.PENTA_NAMES))
        print(f"{key:<22} {n:>5}  {f'+{w} ={d} -{l}':<14} {counts}          {line}")
    reasons = {}
    for r in records:
        reasons[r["reason"].split(":")[0]] = reasons.get(r["reason"].split(":")[0], 0) + 1
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    secs = [r["seconds"] for r in records if "seconds" in r]
    plies = [r["plies"] for r in records]
    print(f"mean game: {sum(plies) / len(plies):.0f} plies, {sum(secs) / max(len(secs), 1):.1f} s")

    games = [(r["level"], opp[r["sf"]], r["score"]) for r in records]
    if args.model != "pwl" and len(levels) <= int(args.model[4:]):
        print(f"\n{args.model} needs more levels than {len(levels)}: fitting pwl")
        args.model = "pwl"
    if args.sf_scale == "ladder":
        how = f"bootstrap over pairs, {args.bootstrap} resamples; each knot read as a label on the ladder"
    else:
        curve, theta, cov = cfit.fit_model(args.model, knots, cfit.groups_of(games), args.prior_draws)
        elos = curve.knot_values(theta)
        by_point = {k: (lv, opp[sf], pairs) for k, (lv, sf, pairs) in pairs_by_point(records).items()}
        ci = (cfit.bootstrap(args.model, knots, by_point, args.bootstrap, args.seed, args.prior_draws)
              if args.bootstrap > 0 else
              [(e - 1.96 * cfit.fisher_se(curve, cov, k), e + 1.96 * cfit.fisher_se(curve, cov, k))
               for k, e in zip(knots, elos)])
        how = (f"bootstrap over pairs, {args.bootstrap} resamples" if args.bootstrap > 0
               else "observed information: it ignores draws and pairs, so it is usually too wide")
    print(f"\nfit of all {len(games)} games ({args.model}, {args.prior_draws:g} virtual draws per point; "
          f"Stockfish's scale: {args.sf_scale}; "
          f"95% intervals: {how}):")
    label = "level" if mode == "skill" else "UCI_Elo"
    for k, e, (lo, hi) in zip(knots, elos, ci):
        print(f"  {label} {k:>6g}: {e:6.0f}  [{lo:.0f}, {hi:.0f}]  (±{(hi - lo) / 2:.0f})")
    if mode == "skill":
        anchor_list = cfit.anchors(knots, elos)
        print("\nsrc/params.rs:\n" + cfit.rust_anchors(anchor_list))
        low, top = anchor_list[0], anchor_list[-1]
        if low[1] == 0.0 and low[0] > 1320:
            print(f"note: level 0 plays at {low[0]}: UCI_Elo below it all play level 0 (issue 36 wants 1320)")
        if top[1] == 20.0 and top[0] > 2850:
            print(f"note: full strength at {top[0]} lies beyond Stockfish 15.1's 2850: placed by the "
                  f"logistic extrapolation of its score against the strongest opponent played")
        if args.write_params:
            with open(args.params) as f:
                text = f.read()
            with open(args.params, "w") as f:
                f.write(cfit.replace_anchors(text, anchor_list))
            print(f"wrote SKILL_ELO_ANCHORS into {args.params} (UCI_Elo's top, SKILL_ELO_MAX, is its last "
                  "anchor; tests/limited_strength.rs reads them); yours to update: README's table and "
                  "docs/limited-strength.md's")
    if args.svg:
        to_label = (lambda e: cfit.ladder_to_label(e, places)) if args.sf_scale == "ladder" else (lambda e: e)
        lo_x, hi_x = min(knots), max(knots)
        samples = [lo_x + (hi_x - lo_x) * i / 100 for i in range(101)]
        xlabel = "Skill Level" if mode == "skill" else "UCI_Elo"
        svg = cfit.svg_chart(f"lazuli's {label} on Stockfish 15.1's scale ({len(games)} games, {args.tc})",
                             xlabel, [(x, to_label(cfit.value(curve, theta, x))) for x in samples],
                             [(k, e, lo, hi) for k, e, (lo, hi) in zip(knots, elos, ci)],
                             per_point, sorted({(r["level"], opp[r["sf"]]) for r in records}),
                             [(1320, "1320: UCI_Elo's lowest")] if mode == "skill" else [])
        with open(args.svg, "w") as f:
            f.write(svg)
        print(f"wrote {args.svg}")


# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lazuli", default=os.path.join(ROOT, "target", "release", "lazuli"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish",
                    help="Stockfish 15.1 (Debian: apt-get install stockfish)")
    ap.add_argument("--mode", choices=("skill", "elo"), default="skill",
                    help="skill: points are Skill Levels (the calibration); elo: UCI_Elo labels (the check)")
    ap.add_argument("--points", help=f"LEVEL:SF_ELO,... (default {FULL_POINTS}; --quick {QUICK_POINTS})")
    ap.add_argument("--pairs", type=int, help="game pairs per point (default 50; --quick 2)")
    ap.add_argument("--tc", help="BASE+INC seconds (default 5+0.05; --quick 1+0.01)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once: at most the cores")
    ap.add_argument("--hash", type=int, default=64, help="MB, each engine (Stockfish's calibration: 64)")
    ap.add_argument("--book", default=BOOK)
    ap.add_argument("--seed", type=int, default=1, help="fixes the openings and the bootstrap")
    ap.add_argument("--results",
                    help="JSON lines, one a game (default calibration.jsonl; --quick calibration-quick.jsonl)")
    ap.add_argument("--pgn", help="also append each game to this PGN file")
    ap.add_argument("--maxplies", type=int, default=600, help="a game this long is scored a draw")
    ap.add_argument("--margin", type=float, default=0.1, help="seconds past zero before a loss on time")
    ap.add_argument("--model", default="pwl", help="pwl (monotone, a knot per level) or polyN")
    ap.add_argument("--knots", help="levels of the pwl knots (default: the levels played)")
    ap.add_argument("--prior-draws", type=float, default=1.0)
    ap.add_argument("--sf-scale", choices=cfit.SF_SCALES, default="steps",
                    help="what Stockfish at UCI_Elo S plays: its integer level's label (steps, the "
                         "default since calibration-34f), S itself (label, the fits before), or its "
                         "integer level's place fitted with --sf-games (ladder, the anchors since 49b5e75)")
    ap.add_argument("--sf-games", action="append",
                    help="with --sf-scale ladder: Stockfish-against-Stockfish games (lab/tools/calib_ladder.py's "
                         "JSON lines); repeatable")
    ap.add_argument("--ladder-sigma", type=float, default=cfit.LADDER_SIGMA,
                    help="with --sf-scale ladder: the prior's standard deviation of a step about its labels' step")
    ap.add_argument("--bootstrap", type=int, help="resamples (default 1000; --quick 100; 0: Hessian)")
    ap.add_argument("--svg", help="write the chart here (docs/limited-strength.svg for the record)")
    ap.add_argument("--fit-only", action="store_true", help="play nothing: fit the results file")
    ap.add_argument("--write-params", action="store_true", help="write the anchors into --params")
    ap.add_argument("--params", default=PARAMS)
    ap.add_argument("--quick", action="store_true", help="a check, not a calibration")
    ap.add_argument("--self-test", action="store_true", help="test the statistics and resume logic")
    args = ap.parse_args(argv)
    if args.self_test:
        import calib_selftest
        return calib_selftest.main()
    if not re.fullmatch(r"pwl|poly[1-9]", args.model):
        sys.exit(f"--model {args.model}: pwl or poly1..poly9")
    q = args.quick
    args.points = args.points or (QUICK_POINTS if q else FULL_POINTS)
    args.pairs = args.pairs if args.pairs is not None else (2 if q else 50)
    args.tc = args.tc or ("1+0.01" if q else "5+0.05")
    args.results = args.results or ("calibration-quick.jsonl" if q else "calibration.jsonl")
    args.bootstrap = args.bootstrap if args.bootstrap is not None else (100 if q else 1000)
    base, _, inc = args.tc.partition("+")
    args.base, args.inc = float(base), float(inc or 0)
    try:
        points = parse_points(args.points, args.mode)
    except ValueError as e:
        sys.exit(str(e))
    if not args.fit_only:
        try:
            play(args, points, load_book(args.book))
        except KeyboardInterrupt:
            return 130
    header, done = read_results(args.results)
    args.tc = (header or {}).get("tc", args.tc)  # the chart's title: the games' time control
    # Every game of the mode is fitted, also those of points no longer in --points (a first
    # stage whose opponents were then moved nearer): the same build, clock and book.
    records = [r for r in done.values() if r["mode"] == args.mode]
    keys = {point_key(args.mode, lv, sf) for lv, sf in points}
    others = sum(r["point"] not in keys for r in records)
    if others and not args.fit_only:
        print(f"(the fit includes {others} games of points not in --points)")
    report(args, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
