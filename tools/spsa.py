#!/usr/bin/env python3
"""SPSA tuning of lazuli's search constants, driving a match runner (match.py: --match).

Needs a tune build, whose search constants (src/params.rs, `tunables!`) are UCI options and
whose UCI command `tune` lists them in OpenBench's SPSA format:

    cargo build --release --features tune --target-dir target/tune
    python3 tools/spsa.py --engine target/tune/release/lazuli --iterations 2000 \\
        --pairs 4 --tc 5+0.05 --concurrency 2 --state spsa-state.json --seed 1

Simultaneous perturbation stochastic approximation (Spall 1992) as OpenBench runs it: at
iteration k every parameter is moved by +c_k or -c_k (a random sign each, the same draw for
both engines), the engine with the + values plays the engine with the - values `--pairs` game
pairs, and each parameter moves by r_k * c_k * (wins - losses) * sign, with
c_k = c / (k + 1)^0.101 and r_k = a_k / c_k^2, a_k = a / (A + k + 1)^0.602, where c and a are
derived from each parameter's c_end and r_end so that the last iteration perturbs by c_end and
learns at rate r_end (A = a tenth of the iterations).

Resumable: the state file holds the values and the next iteration, rewritten after each one;
the same --seed replays the same signs and openings. Prints one line per iteration and, at the
end (or on --show), the values as `setoption` lines and as a params.rs excerpt.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

ALPHA, GAMMA = 0.602, 0.101
HERE = os.path.dirname(os.path.abspath(__file__))
# The match runner is not in the repository (it has no licence to copy it under): pass --match,
# or set LAZULI_MATCH; this project's machines have it beside the clone (an extra).
MATCH = os.environ.get("LAZULI_MATCH", os.path.join(HERE, "..", "..", "shared", "tools", "match.py"))
BOOK = os.path.join(HERE, "books", "UHO_4060_v4_every24.epd")


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
    return params


def play(args, plus, minus, seed):
    """Plays the + engine against the - engine; returns (wins, draws, losses) for +."""
    cmd = [sys.executable, args.match, "--e1", args.engine, "--name1", "plus", "--e2", args.engine,
           "--name2", "minus", "--book", args.book, "--tc", args.tc, "--pairs", str(args.pairs),
           "--concurrency", str(args.concurrency), "--seed", str(seed)]
    for name, v in plus.items():
        cmd += ["--opt1", f"{name}={v}"]
    for name, v in minus.items():
        cmd += ["--opt2", f"{name}={v}"]
    cmd += ["--opt1", f"Hash={args.hash}", "--opt2", f"Hash={args.hash}"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"plus vs minus: \+(\d+) =(\d+) -(\d+)", out)
    if not m:
        sys.exit(f"match.py gave no result:\n{out[-2000:]}")
    return tuple(int(x) for x in m.groups())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="a tune build of lazuli")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=4, help="game pairs per iteration")
    ap.add_argument("--tc", default="5+0.05")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--book", default=BOOK)
    ap.add_argument("--match", default=MATCH,
                    help="the match runner (match.py: not in the repository; default $LAZULI_MATCH, "
                         "else ../shared/tools/match.py, this project's machines' extra)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", required=True, help="JSON file: values and next iteration (resume)")
    ap.add_argument("--only", nargs="*", help="tune only these parameters")
    ap.add_argument("--show", action="store_true", help="print the state's values and exit")
    args = ap.parse_args()

    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
    else:
        state = dict(k=0, params=read_params(args.engine, args.only), history=[])
    params = state["params"]
    n = args.iterations
    big_a = n / 10
    for p in params.values():
        p["c"] = p["c_end"] * n ** GAMMA
        p["a"] = p["r_end"] * p["c_end"] ** 2 * (big_a + n) ** ALPHA

    while not args.show and state["k"] < n:
        k = state["k"]
        rng = random.Random(args.seed * 1_000_003 + k)
        plus, minus, signs, ck = {}, {}, {}, {}
        for name, p in params.items():
            signs[name] = rng.choice((-1, 1))
            ck[name] = p["c"] / (k + 1) ** GAMMA
            plus[name] = min(p["max"], max(p["min"], round(p["value"] + ck[name] * signs[name])))
            minus[name] = min(p["max"], max(p["min"], round(p["value"] - ck[name] * signs[name])))
        w, d, l = play(args, plus, minus, seed=args.seed * 100_000 + k)
        for name, p in params.items():
            ak = p["a"] / (big_a + k + 1) ** ALPHA
            rk = ak / ck[name] ** 2
            p["value"] = min(p["max"], max(p["min"], p["value"] + rk * ck[name] * (w - l) * signs[name]))
        state["k"] = k + 1
        state["history"].append([w, d, l])
        tmp = args.state + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, args.state)
        shown = " ".join(f"{name}={p['value']:.1f}" for name, p in params.items())
        print(f"iteration {k + 1}/{n}: +{w} ={d} -{l}  {shown}", flush=True)

    for name, p in params.items():
        print(f"setoption name {name} value {round(p['value'])}")
    for name, p in params.items():
        print(f"    {name} = {round(p['value'])} in {p['min']}..={p['max']};")


if __name__ == "__main__":
    main()
