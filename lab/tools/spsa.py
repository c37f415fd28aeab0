#!/usr/bin/env python3
"""SPSA tuning of lazuli's search constants, by games at a fixed node count or on the clock.

Needs a tune build, whose search constants (src/params.rs, `tunables!`) are UCI options and
whose UCI command `tune` lists them in OpenBench's SPSA format:

    cargo build --release --features tune --target-dir target/tune
    python3 lab/tools/spsa.py --engine target/tune/release/lazuli --iterations 2000 \\
        --pairs 4 --nodes 20000 --concurrency 2 --state spsa-state.json --seed 1

Simultaneous perturbation stochastic approximation (Spall 1992) as OpenBench runs it: at
iteration k every parameter is moved by +c_k or -c_k (a random sign each, the same draw for
both engines), the engine with the + values plays the engine with the - values `--pairs` game
pairs, and each parameter moves by r_k * c_k * (wins - losses) * sign, with
c_k = c / (k + 1)^0.101 and r_k = a_k / c_k^2, a_k = a / (A + k + 1)^0.602, where c and a are
derived from each parameter's c_end and r_end so that the last iteration perturbs by c_end and
learns at rate r_end (A = a tenth of the iterations).

Two ways to play an iteration's games:

- `--nodes N`: this script plays them itself through python-chess (`pip install chess`), each
  move a `go nodes N` of one thread, engines kept running between iterations (`ucinewgame`
  before each game). The games do not depend on the machine's load, so tuning can share the
  cores with other work, and an iteration's result depends only on the seed and the values.
  Adjudication saves the long tails: a win once the last RESIGN_PLIES scores (each engine's,
  turned to White's view) all give the same side at least RESIGN_CP; a draw from ply
  DRAW_FROM_PLY once the last DRAW_PLIES scores are all within DRAW_CP; MAX_PLIES a draw.
- `--tc BASE+INC` (without --nodes): each iteration is a run of the match runner (`--match`,
  match.py, which needs python-chess too), on the clock, on a quiet machine.

Resumable: the state file holds the values and the next iteration, rewritten after each one;
the same --seed replays the same signs and openings, and a resume with other settings
(iterations, pairs, seed, nodes or clock, hash, book, --option) is refused. Prints one line per
iteration and, at the end (or on --show), the values as `setoption` lines and as a params.rs
excerpt. `--self-test` checks the update rule, the resume, the clamping and the adjudication
without an engine.
"""

import argparse
import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading

ALPHA, GAMMA = 0.602, 0.101
HERE = os.path.dirname(os.path.abspath(__file__))
# The match runner is not in the repository (it has no licence to copy it under): pass --match,
# or set LAZULI_MATCH; this project's machines have it beside the clone (an extra).
MATCH = os.environ.get("LAZULI_MATCH", os.path.join(HERE, "..", "..", "..", "shared", "tools", "match.py"))
BOOK = os.path.join(HERE, "books", "UHO_4060_v4_every24.epd")

# Adjudication of fixed-node games (scores in centipawns, White's view; a mate counts as 10^5).
RESIGN_CP, RESIGN_PLIES = 1000, 6
DRAW_FROM_PLY, DRAW_CP, DRAW_PLIES = 80, 10, 10
MAX_PLIES = 400


def read_params(engine, only):
    """The engine's tunables: name -> dict(value, min, max, c_end, r_end)."""
    out = subprocess.run([engine], input="tune\nquit\n", capture_output=True, text=True, check=True).stdout
    params = {}
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 7 or parts[1] != "int":
            continue
        name, _, value, lo, hi, c_end, r_end = parts
        if only and name not in only:
            continue
        params[name] = dict(value=float(value), min=int(lo), max=int(hi), c_end=float(c_end), r_end=float(r_end))
    if not params:
        sys.exit("no tunables: is this a tune build (cargo build --release --features tune)?")
    if only and set(only) - set(params):
        sys.exit(f"not tunables of this build: {' '.join(sorted(set(only) - set(params)))}")
    return params


def adjudicate(scores, ply):
    """The result ("1-0", "0-1", "1/2-1/2") by adjudication after `ply` plies, or None.

    `scores` holds one score a searched ply, White's view, the latest last."""
    last = scores[-RESIGN_PLIES:]
    if len(last) == RESIGN_PLIES:
        if all(s >= RESIGN_CP for s in last):
            return "1-0"
        if all(s <= -RESIGN_CP for s in last):
            return "0-1"
    last = scores[-DRAW_PLIES:]
    if ply >= DRAW_FROM_PLY and len(last) == DRAW_PLIES and all(abs(s) <= DRAW_CP for s in last):
        return "1/2-1/2"
    if ply >= MAX_PLIES:
        return "1/2-1/2"
    return None


def openings(book, count, seed):
    """`count` FENs drawn from the book (one position a line), the same for the same seed."""
    with open(book, encoding="utf-8") as f:
        lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    return random.Random(seed).sample(lines, count)


class NodePlayer:
    """Plays an iteration's games at a fixed node count: `concurrency` workers, each with a +
    and a - engine kept running between iterations."""

    def __init__(self, args):
        import chess
        import chess.engine
        self.chess, self.args = chess, args
        self.workers = [[self.start(), self.start()] for _ in range(args.concurrency)]

    def start(self):
        engine = self.chess.engine.SimpleEngine.popen_uci(self.args.engine)
        engine.configure({"Hash": self.args.hash, **engine_options(self.args)})
        return engine

    def game(self, pair, fen, plus_white):
        """One game from `fen`; returns +'s score (1, 0.5 or 0)."""
        chess = self.chess
        plus, minus = pair
        board = chess.Board(fen)
        # A new `game` object makes python-chess send `ucinewgame` before each engine's first
        # move of the game: the table and histories cleared, so a game depends on nothing before.
        scores, tag = [], object()
        limit = chess.engine.Limit(nodes=self.args.nodes)
        while True:
            if board.is_game_over(claim_draw=True):
                result = board.result(claim_draw=True)
                break
            result = adjudicate(scores, board.ply())
            if result:
                break
            white_to_move = board.turn == chess.WHITE
            engine = plus if white_to_move == plus_white else minus
            played = engine.play(board, limit, info=chess.engine.INFO_SCORE, game=tag)
            if played.move is None or played.move not in board.legal_moves:
                result = "0-1" if white_to_move else "1-0"
                break
            score = played.info.get("score")
            scores.append(score.white().score(mate_score=100_000) if score else 0)
            board.push(played.move)
        white = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        return white if plus_white else 1.0 - white

    def play(self, plus, minus, seed):
        """Plays the + values against the - values; returns (wins, draws, losses) for +."""
        for pair in self.workers:
            pair[0].configure(plus)
            pair[1].configure(minus)
        jobs = queue.Queue()
        for fen in openings(self.args.book, self.args.pairs, seed):
            jobs.put((fen, True))
            jobs.put((fen, False))
        scores, errors = [], []

        def work(pair):
            while True:
                try:
                    fen, plus_white = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    scores.append(self.game(pair, fen, plus_white))
                except Exception as e:  # an engine that died: the run stops, its state kept
                    errors.append(f"{type(e).__name__}: {e}")
                    return

        threads = [threading.Thread(target=work, args=(pair,), daemon=True) for pair in self.workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            sys.exit(f"an engine failed, the iteration is not counted: {errors[0]}")
        return scores.count(1.0), scores.count(0.5), scores.count(0.0)

    def close(self):
        for pair in self.workers:
            for engine in pair:
                try:
                    engine.quit()
                except Exception:  # already gone (the failure that stopped the run)
                    engine.close()


def play_match(args, plus, minus, seed):
    """Plays the + engine against the - engine with match.py; returns (wins, draws, losses)."""
    cmd = [sys.executable, args.match, "--e1", args.engine, "--name1", "plus", "--e2", args.engine,
           "--name2", "minus", "--book", args.book, "--tc", args.tc, "--pairs", str(args.pairs),
           "--concurrency", str(args.concurrency), "--seed", str(seed)]
    for name, v in plus.items():
        cmd += ["--opt1", f"{name}={v}"]
    for name, v in minus.items():
        cmd += ["--opt2", f"{name}={v}"]
    for name, v in {"Hash": args.hash, **engine_options(args)}.items():
        cmd += ["--opt1", f"{name}={v}", "--opt2", f"{name}={v}"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"plus vs minus: \+(\d+) =(\d+) -(\d+)", out)
    if not m:
        sys.exit(f"match.py gave no result:\n{out[-2000:]}")
    return tuple(int(x) for x in m.groups())


def gains(params, n):
    """Each parameter's c and a (OpenBench's derivation from c_end and r_end over n iterations)."""
    for p in params.values():
        p["c"] = p["c_end"] * n ** GAMMA
        p["a"] = p["r_end"] * p["c_end"] ** 2 * (n / 10 + n) ** ALPHA


def step(state, n, seed, play):
    """One SPSA iteration on `state` (values, next iteration k, history); `play(plus, minus,
    seed)` gives (wins, draws, losses) for the + values."""
    params, k = state["params"], state["k"]
    rng = random.Random(seed * 1_000_003 + k)
    plus, minus, signs, ck = {}, {}, {}, {}
    for name, p in params.items():
        signs[name] = rng.choice((-1, 1))
        ck[name] = p["c"] / (k + 1) ** GAMMA
        plus[name] = min(p["max"], max(p["min"], round(p["value"] + ck[name] * signs[name])))
        minus[name] = min(p["max"], max(p["min"], round(p["value"] - ck[name] * signs[name])))
    w, d, l = play(plus, minus, seed * 100_000 + k)
    for name, p in params.items():
        ak = p["a"] / (n / 10 + k + 1) ** ALPHA
        rk = ak / ck[name] ** 2
        p["value"] = min(p["max"], max(p["min"], p["value"] + rk * ck[name] * (w - l) * signs[name]))
    state["k"] = k + 1
    state["history"].append([w, d, l])
    return w, d, l


def engine_options(args):
    """The --option NAME=VALUE settings, the same for both engines."""
    options = {}
    for text in args.option:
        name, sep, value = text.partition("=")
        if not sep or not name:
            sys.exit(f"--option wants NAME=VALUE, not {text!r}")
        options[name] = value
    return options


def run_config(args):
    """The settings a run's results depend on, kept in its state file."""
    return dict(iterations=args.iterations, pairs=args.pairs, seed=args.seed, hash=args.hash,
                nodes=args.nodes, tc=None if args.nodes else args.tc,
                book=os.path.basename(args.book), options=sorted(args.option))


def config_mismatch(saved, given):
    """The settings that differ between a state file's run and this command, as text."""
    return ", ".join(f"{k} {saved.get(k)} there, {v} here" for k, v in given.items() if saved.get(k) != v)


def save(state, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
    os.replace(tmp, path)


def run(state, path, n, seed, play, log=print, until=None):
    """Iterations from state["k"] to n (or to `until`, a stop), the state saved after each."""
    while state["k"] < min(n, until or n):
        w, d, l = step(state, n, seed, play)
        save(state, path)
        shown = " ".join(f"{name}={p['value']:.1f}" for name, p in state["params"].items())
        log(f"iteration {state['k']}/{n}: +{w} ={d} -{l}  {shown}")


def self_test():
    checks = []

    def check(name, ok):
        checks.append((name, ok))
        print(("ok    " if ok else "FAILED ") + name)

    def fresh():
        params = {"X": dict(value=50.0, min=0, max=100, c_end=4.0, r_end=0.002),
                  "Y": dict(value=10.0, min=0, max=20, c_end=1.0, r_end=0.002)}
        return dict(k=0, params=params, history=[])

    # A synthetic match: + scores better the nearer its X is to 80 (Y does not matter), with
    # noise from the iteration's own seed, so a run is a function of the seed alone.
    def synthetic(plus, minus, seed):
        rng = random.Random(seed)
        edge = (abs(minus["X"] - 80) - abs(plus["X"] - 80)) * 0.02
        w = d = l = 0
        for _ in range(16):
            r = rng.random()
            if r < 0.35 + edge:
                w += 1
            elif r < 0.70:
                d += 1
            else:
                l += 1
        return w, d, l

    n = 400
    with tempfile.TemporaryDirectory() as tmp:
        a, b = fresh(), fresh()
        gains(a["params"], n)
        gains(b["params"], n)
        run(a, os.path.join(tmp, "a.json"), n, 7, synthetic, log=lambda _: None)
        path = os.path.join(tmp, "b.json")
        run(b, path, n, 7, synthetic, log=lambda _: None, until=n // 2)
        with open(path) as f:
            b = json.load(f)
        check("the state file holds the next iteration", b["k"] == n // 2)
        run(b, path, n, 7, synthetic, log=lambda _: None)
        check("a run resumed from its state file ends where an unbroken run ends",
              a["params"]["X"]["value"] == b["params"]["X"]["value"] and a["history"] == b["history"])
        check("the value that matters moves towards its optimum, the other stays",
              a["params"]["X"]["value"] > 58 and abs(a["params"]["Y"]["value"] - 10) < 1)
        check("every iteration's result is kept", len(a["history"]) == n)
        c = fresh()
        gains(c["params"], n)
        run(c, os.path.join(tmp, "c.json"), n, 8, synthetic, log=lambda _: None)
        check("another seed plays other games", c["history"] != a["history"])

    # Perturbations: both sides within range, symmetric about the value, the same draw per seed.
    seen = []
    st = fresh()
    st["params"]["Y"]["value"] = 20.0
    gains(st["params"], n)
    step(st, n, 3, lambda plus, minus, seed: seen.append((plus, minus)) or (0, 16, 0))
    plus, minus = seen[0]
    check("+ and - lie c_k either side of the value (X: c_end 4 n^0.101 at k 0)",
          abs(plus["X"] - minus["X"]) == 2 * round(4 * n ** GAMMA) or
          abs(abs(plus["X"] - minus["X"]) - 2 * 4 * n ** GAMMA) <= 1)
    check("perturbations are clamped to the range", max(plus["Y"], minus["Y"]) == 20)
    check("a drawn iteration moves nothing", st["params"]["X"]["value"] == 50.0)
    won = fresh()
    won["params"]["Y"]["value"] = 20.0
    gains(won["params"], n)
    step(won, n, 3, lambda plus, minus, seed: (16, 0, 0))
    check("a won iteration moves X towards the + side",
          (won["params"]["X"]["value"] - 50) * (plus["X"] - minus["X"]) > 0)
    check("values stay within the range", won["params"]["Y"]["value"] <= 20)

    # Adjudication.
    check("no adjudication in the opening", adjudicate([0] * 20, 20) is None)
    check("a draw from ply 80 after 10 quiet scores", adjudicate([5, -3] * 5, 80) == "1/2-1/2")
    check("no draw while one score is outside", adjudicate([5] * 9 + [11], 90) is None)
    check("White wins after 6 scores of 1000 or more", adjudicate([0] + [1000] * 6, 30) == "1-0")
    check("Black wins after 6 scores of -1000 or less", adjudicate([-100_000] * 6, 30) == "0-1")
    check("5 winning scores are not enough", adjudicate([0] + [2000] * 5, 30) is None)
    check("the ply cap is a draw", adjudicate([500] * 10, MAX_PLIES) == "1/2-1/2")

    args = argparse.Namespace(iterations=500, pairs=4, seed=1, hash=16, nodes=20000, tc="5+0.05",
                              book="/x/UHO.epd", option=["EvalFile=a.lznn"])
    saved = run_config(args)
    check("a resume with the same settings is accepted", config_mismatch(saved, run_config(args)) == "")
    args.nodes = 25000
    check("a resume with another node count is refused, naming it",
          config_mismatch(saved, run_config(args)) == "nodes 20000 there, 25000 here")
    args.nodes, args.option = 20000, ["EvalFile=b.lznn"]
    check("a resume with another engine option is refused", "options" in config_mismatch(saved, run_config(args)))
    check("engine options are NAME=VALUE", engine_options(args) == {"EvalFile": "b.lznn"})

    with tempfile.TemporaryDirectory() as tmp:
        book = os.path.join(tmp, "book.epd")
        with open(book, "w") as f:
            f.write("\n".join(f"8/8/8/8/8/8/8/K6k w - - 0 {i}" for i in range(1, 50)) + "\n")
        check("openings: the same seed draws the same, another seed others",
              openings(book, 4, 1) == openings(book, 4, 1) != openings(book, 4, 2))

    failed = sum(1 for _, ok in checks if not ok)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", help="a tune build of lazuli")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=4, help="game pairs per iteration")
    ap.add_argument("--nodes", type=int, help="play each move with `go nodes N` (this script plays)")
    ap.add_argument("--tc", default="5+0.05", help="without --nodes: match.py's clock")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--option", action="append", default=[],
                    help="NAME=VALUE set on both engines, e.g. EvalFile=net.lznn (repeatable)")
    ap.add_argument("--book", default=BOOK)
    ap.add_argument("--match", default=MATCH,
                    help="the match runner (match.py: not in the repository; default $LAZULI_MATCH, "
                         "else ../shared/tools/match.py, this project's machines' extra)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", help="JSON file: values and next iteration (resume)")
    ap.add_argument("--only", nargs="*", help="tune only these parameters")
    ap.add_argument("--show", action="store_true", help="print the state's values and exit")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return 0 if self_test() else 1
    if not args.state or not (args.engine or args.show):
        ap.error("give --state and --engine")

    config = run_config(args)
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
        differ = config_mismatch(state.get("config", config), config)
        if differ and not args.show:
            sys.exit(f"{args.state} was started with other settings: {differ}")
        state.setdefault("config", config)
    else:
        state = dict(k=0, params=read_params(args.engine, args.only), history=[], config=config)
    n = state["config"]["iterations"] if args.show else args.iterations
    gains(state["params"], n)
    if not args.show:
        if args.nodes:
            player = NodePlayer(args)
            try:
                run(state, args.state, n, args.seed, player.play, log=lambda s: print(s, flush=True))
            finally:
                player.close()
        else:
            run(state, args.state, n, args.seed, lambda p, m, s: play_match(args, p, m, s),
                log=lambda s: print(s, flush=True))

    params = state["params"]
    for name, p in params.items():
        print(f"setoption name {name} value {round(p['value'])}")
    for name, p in params.items():
        print(f"    {name} = {round(p['value'])} in {p['min']}..={p['max']};")
    return 0


if __name__ == "__main__":
    sys.exit(main())
