"""A UCI engine as a child process, for the tools that talk to engines line by line
(lab/tools/mates.py, lab/tools/nps_probe.py). Standard library only."""

import shlex
import subprocess


class UciProcess:
    """One engine process: `uci` answered, then `setoption` for each (name, value) given."""

    def __init__(self, command, options=()):
        self.p = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        """Every line up to and including the first that starts with `prefix`."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine exited")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def ready(self):
        """`isready` until `readyok`; an `info string error` before it (an option the engine
        refused, such as an `EvalFile` it cannot read: engines keep their previous value and go
        on, so a run would measure the wrong thing without a word) raises ValueError."""
        self.send("isready")
        for line in self.until("readyok"):
            if line.lower().startswith("info string error"):
                raise ValueError(line)

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
