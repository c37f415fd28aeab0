#!/usr/bin/env python3
"""Nodes per second of N threads against one, over UCI, as a GUI sees them.

For each engine given, for each of the first --positions positions of benches/positions.epd,
plays `go movetime T` with Threads=1 and with Threads=N in turn (alternating which goes first,
--rounds times, a fresh `ucinewgame` before each search), and takes the nodes per second of
each search from its last `info ... nodes ... time ...` line. Prints, per engine, the median
over positions and rounds of the per-search ratio (N-thread nps / the 1-thread nps of the same
position and round) and the ratio of the summed nodes per summed time.

With --independent, each search of N threads is followed by N separate one-thread processes
of the same engine searching the same position at the same time (each with its own table):
their summed nodes per second over the one-thread figure is what the machine itself allows
(shared caches, memory bandwidth, clock speed with every core busy), with no contention inside
the engine at all. An engine whose N-thread ratio is close to its independent ratio loses
nothing to its own threads.

    python3 lab/tools/nps_probe.py --engine target/release/lazuli --engine /usr/games/stockfish \\
        --threads 2 --movetime 2000 --positions 12 --rounds 2

Needs an otherwise idle machine: anything else running shows up as lost scaling.
"""

import argparse
import os
import statistics
import time

from uci_client import UciProcess

HERE = os.path.dirname(os.path.abspath(__file__))


class Uci(UciProcess):
    def __init__(self, cmd, hash_mb):
        super().__init__(cmd, [("Hash", hash_mb)])
        self.threads = None

    def search(self, fen, threads, movetime):
        self.start(fen, threads, movetime)
        return self.finish(fen)

    def start(self, fen, threads, movetime):
        if threads != self.threads:
            self.send(f"setoption name Threads value {threads}")
            self.threads = threads
        self.send("ucinewgame")
        self.ready()
        self.send(f"position fen {fen}")
        self.send(f"go movetime {movetime}")

    def finish(self, fen):
        nodes = ms = None
        for line in self.until("bestmove"):
            words = line.split()
            if words and words[0] == "info" and "nodes" in words and "time" in words:
                nodes = int(words[words.index("nodes") + 1])
                ms = int(words[words.index("time") + 1])
        if not nodes or not ms:
            raise RuntimeError(f"no nodes/time info for {fen}")
        return nodes, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True, help="engine command (repeatable)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--movetime", type=int, default=2000, help="ms per search")
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--independent", action="store_true",
                    help="also run --threads separate one-thread processes at once (the machine's ceiling)")
    ap.add_argument("--epd", default=os.path.join(HERE, "..", "..", "benches", "positions.epd"))
    args = ap.parse_args()

    with open(args.epd) as f:
        fens = [" ".join(l.split()[:6]) for l in f if l.strip()][: args.positions]
    engines = [Uci(cmd, args.hash) for cmd in args.engine]
    # The extra processes of --independent (the first one is the engine's own).
    others = {cmd: [Uci(cmd, args.hash) for _ in range(args.threads - 1)] if args.independent else []
              for cmd in args.engine}
    ratios = {cmd: [] for cmd in args.engine}
    indep = {cmd: [] for cmd in args.engine}
    sums = {cmd: {1: [0, 0], args.threads: [0, 0]} for cmd in args.engine}
    for rnd in range(args.rounds):
        for i, fen in enumerate(fens):
            # Alternate the engines and the thread counts so that drift hits all alike.
            order = [1, args.threads] if (rnd + i) % 2 == 0 else [args.threads, 1]
            for cmd, e in (zip(args.engine, engines) if i % 2 == 0 else reversed(list(zip(args.engine, engines)))):
                nps = {}
                for t in order:
                    nodes, ms = e.search(fen, t, args.movetime)
                    nps[t] = nodes / ms
                    sums[cmd][t][0] += nodes
                    sums[cmd][t][1] += ms
                ratios[cmd].append(nps[args.threads] / nps[1])
                extra = ""
                if args.independent:
                    group = [e] + others[cmd]
                    for g in group:
                        g.start(fen, 1, args.movetime)
                    together = sum(n / ms for n, ms in (g.finish(fen) for g in group))
                    indep[cmd].append(together / nps[1])
                    extra = f"  {args.threads} processes ratio {indep[cmd][-1]:.3f}"
                print(f"round {rnd + 1} position {i + 1:2d} {os.path.basename(cmd.split()[0]):12s} "
                      f"1 thread {nps[1] * 1000:12,.0f} nps  {args.threads} threads "
                      f"{nps[args.threads] * 1000:12,.0f} nps  ratio {ratios[cmd][-1]:.3f}{extra}", flush=True)
    for cmd, e in zip(args.engine, engines):
        e.quit()
        for o in others[cmd]:
            o.quit()
        s = sums[cmd]
        total = (s[args.threads][0] / s[args.threads][1]) / (s[1][0] / s[1][1])
        print(f"{cmd}: {args.threads}-thread / 1-thread nps: median {statistics.median(ratios[cmd]):.3f} "
              f"(min {min(ratios[cmd]):.3f}, max {max(ratios[cmd]):.3f}, {len(ratios[cmd])} pairs), "
              f"summed {total:.3f}")
        if args.independent:
            print(f"{cmd}: {args.threads} one-thread processes / 1 process nps: median "
                  f"{statistics.median(indep[cmd]):.3f} (min {min(indep[cmd]):.3f}, "
                  f"max {max(indep[cmd]):.3f}, {len(indep[cmd])} searches)")


if __name__ == "__main__":
    main()
