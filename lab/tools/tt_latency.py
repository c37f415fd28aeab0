#!/usr/bin/env python3
"""The hash table's memory, measured: how long a GUI waits for `readyok`, and what huge pages
are worth to the bench.

`latency`: for each --threads count, one engine process: `setoption name Hash value N` (from
the default 16 MB), then a search of --fill-ms fills the table (its resident memory and huge
pages from /proc/PID/status and smaps_rollup are printed), then `ucinewgame`, a search of
--search-ms (with LAZULI_TT_CLEAR=discard it pays for the pages the clear gave back: compare
its nodes per second with the one before the clear), a refill, `setoption name Clear Hash`, a refill, and
`setoption name Hash value 16` (freeing the full table). Each time is from the command to its
`readyok` (the command and `isready` sent together, as GUIs do).

`bench`: `lazuli bench SIZE THREADS DEPTH` at each --sizes with huge pages on and off
(LAZULI_HUGE_PAGES=1 and 0) in turn, --rounds times, alternating which goes first; prints the
mean nodes per second of each, the ratio on/off (geometric mean of the per-round ratios) and
how much of the table the kernel gave in huge pages (the bench's own report). The bench starts
from a fresh table, so at large sizes it also measures the first touch of its pages.

    python3 lab/tools/tt_latency.py latency --engine target/release/lazuli --hash 16384 \\
        --threads 1,$(nproc) --fill-ms 20000
    python3 lab/tools/tt_latency.py bench --engine target/release/lazuli --sizes 64,1024,8192 \\
        --rounds 5

Any engine works for `latency` (the build before the change, Stockfish); `bench` needs
lazuli's. The environment passes on: LAZULI_TT_CLEAR=discard makes lazuli give the pages back
on `ucinewgame` and `Clear Hash` instead of writing zeroes, the default (--clear sets it). Needs an
otherwise idle machine with memory for the table.
"""

import argparse
import math
import os
import re
import subprocess
import time

from uci_client import UciProcess

FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


class Engine(UciProcess):
    def timed(self, *commands):
        """Seconds from sending `commands` (then `isready`) to `readyok`."""
        start = time.perf_counter()
        for c in commands:
            self.send(c)
        self.ready()
        return time.perf_counter() - start

    def search(self, ms, fen=None):
        """Nodes per second of a `go movetime ms` (from its last info line with both)."""
        self.send(f"position fen {fen}" if fen else "position startpos")
        self.send(f"go movetime {ms}")
        nps = 0
        for line in self.until("bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "nodes" in words and "time" in words:
                nodes = int(words[words.index("nodes") + 1])
                t = int(words[words.index("time") + 1])
                nps = nodes * 1000 // max(t, 1)
        return nps

    def memory(self):
        """Resident MB and MB in huge pages of the process."""
        def kb(path, field):
            try:
                with open(f"/proc/{self.p.pid}/{path}") as f:
                    m = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.M)
                return int(m.group(1)) // 1024 if m else None
            except OSError:
                return None
        return kb("status", "VmRSS"), kb("smaps_rollup", "AnonHugePages")


def latency(args):
    print(f"engine {args.engine}, Hash {args.hash} MB, fill {args.fill_ms} ms, "
          f"LAZULI_HUGE_PAGES={os.environ.get('LAZULI_HUGE_PAGES', '')} "
          f"LAZULI_TT_CLEAR={os.environ.get('LAZULI_TT_CLEAR', '')}")
    print("threads | Hash N s | RSS MB full (huge) | ucinewgame s | nps before/after clear"
          " | Clear Hash s | Hash 16 (free full) s")
    for threads in args.threads:
        e = Engine(args.engine, [("Threads", threads)])
        e.ready()
        t_hash = e.timed(f"setoption name Hash value {args.hash}")
        e.search(args.fill_ms)
        rss, huge = e.memory()
        before = e.search(args.search_ms, FEN)
        t_new = e.timed("ucinewgame")
        after = e.search(args.search_ms, FEN)
        e.search(args.fill_ms)
        t_clear = e.timed("setoption name Clear Hash")
        e.search(args.fill_ms)
        t_free = e.timed("setoption name Hash value 16")
        e.quit()
        print(f"{threads:7} | {t_hash:8.3f} | {rss} ({huge}) | {t_new:12.3f} | "
              f"{before} / {after} | {t_clear:12.3f} | {t_free:.3f}", flush=True)


def bench_once(args, size, huge):
    env = dict(os.environ, LAZULI_HUGE_PAGES=huge)
    out = subprocess.run([args.engine, "bench", str(size), str(args.bench_threads),
                          str(args.depth)], env=env, capture_output=True, text=True, check=True)
    nps = int(re.search(r"Nodes/second\s*:\s*(\d+)", out.stdout).group(1))
    m = re.search(r"Hash in huge pages: (\d+) of", out.stderr)
    return nps, int(m.group(1)) if m else None


def bench(args):
    print(f"engine {args.engine}, bench depth {args.depth}, {args.bench_threads} thread(s), "
          f"{args.rounds} rounds alternating")
    print("Hash MB | nps huge on | nps huge off | on/off | MB in huge pages on/off")
    for size in args.sizes:
        runs = {"1": [], "0": []}
        pages = {"1": None, "0": None}
        for r in range(args.rounds):
            for huge in ("1", "0") if r % 2 == 0 else ("0", "1"):
                nps, pages[huge] = bench_once(args, size, huge)
                runs[huge].append(nps)
        ratio = math.exp(sum(math.log(a / b) for a, b in zip(runs["1"], runs["0"])) / args.rounds)
        mean = {k: sum(v) // len(v) for k, v in runs.items()}
        print(f"{size:7} | {mean['1']:11} | {mean['0']:12} | {ratio:6.3f} | "
              f"{pages['1']}/{pages['0']}", flush=True)


def numbers(text):
    return [int(x) for x in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    lat = sub.add_parser("latency", help="readyok after Hash, ucinewgame, Clear Hash")
    lat.add_argument("--engine", default="target/release/lazuli")
    lat.add_argument("--hash", type=int, default=16384, help="MB")
    lat.add_argument("--threads", type=numbers, default=[1, os.cpu_count() or 1])
    lat.add_argument("--fill-ms", type=int, default=20000, help="each filling search")
    lat.add_argument("--search-ms", type=int, default=2000, help="searches around the clear")
    lat.add_argument("--clear", choices=["discard", "write"], help="sets LAZULI_TT_CLEAR")
    lat.add_argument("--huge-pages", choices=["0", "1"], help="sets LAZULI_HUGE_PAGES")
    b = sub.add_parser("bench", help="bench speed with huge pages on and off")
    b.add_argument("--engine", default="target/release/lazuli")
    b.add_argument("--sizes", type=numbers, default=[64, 1024, 8192], help="MB")
    b.add_argument("--rounds", type=int, default=5)
    b.add_argument("--depth", type=int, default=11)
    b.add_argument("--bench-threads", type=int, default=1)
    args = ap.parse_args()
    if args.what == "latency":
        if args.clear:
            os.environ["LAZULI_TT_CLEAR"] = args.clear
        if args.huge_pages:
            os.environ["LAZULI_HUGE_PAGES"] = args.huge_pages
        latency(args)
    else:
        bench(args)


if __name__ == "__main__":
    main()
