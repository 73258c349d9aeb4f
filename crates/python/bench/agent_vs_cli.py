"""One MCTS move through `tabula.Agent` against the same search from the `tabula` binary.

The same agent spec (fixed playouts, one thread, a seed, no early stop, no tree reuse)
chooses a move in the start position, in interleaved rounds (A B B A ...): `Agent.choose(state)`
in this process and `reg_genmove b` sent to a `tabula gtp GAME --agent SPEC` process started once
(the round trip over its pipes is timed: command written to answer read). With the same
seed both sides run the same search, which the script checks: each round's moves must be
equal. The Python overhead is the difference of the medians over the CLI's median, of wall
time (and of the minimums) and of CPU time (this process's for `Agent.choose`, the sum
over the `tabula gtp` process's threads for `reg_genmove`), which other load on the
machine disturbs less. The last column is the part of `Agent.choose`'s wall time outside
the search's own clock (`SearchInfo.elapsed`): the Python call, the copy of the state, the
release of the GIL and the conversion of the report, the whole of what the Python layer
adds, which the load on the machine hardly disturbs.

Run from the repository after `bash scripts/python-env` and
`cargo build --release -p tabula`:

    target/python-env/bin/python crates/python/bench/agent_vs_cli.py [--rounds 10] [--playouts 20000]
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import tabula

REPO = Path(__file__).resolve().parents[3]
GAMES = ["go(size=9,komi=7.5)", "othello(size=8)"]


class Gtp:
    """A `tabula gtp` process answering one command at a time."""

    def __init__(self, binary, game, agent):
        self.proc = subprocess.Popen(
            [str(binary), "gtp", game, "--agent", agent],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def cpu_seconds(self):
        """CPU time of every thread of the process so far (Linux: /proc/PID/task/*/schedstat)."""
        total = 0
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"tabula gtp ended while answering {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        answer = " ".join(lines)
        if not answer.startswith("="):
            raise RuntimeError(f"{command!r}: {answer}")
        return answer[1:].strip()

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--playouts", type=int, default=20000)
    parser.add_argument("--binary", default=str(REPO / "target/release/tabula"))
    parser.add_argument("--game", action="append", help=f"game spec, repeatable (default: {', '.join(GAMES)})")
    args = parser.parse_args()
    spec = f"mcts(playouts={args.playouts},threads=1,seed=1,early=false,reuse=false)"

    print("| game | agent | `Agent.choose` wall, median (min) s | `tabula gtp` wall, median (min) s "
          "| overhead, wall medians (mins) | `Agent.choose` CPU s | `tabula gtp` CPU s | overhead, CPU medians "
          "| `Agent.choose` outside the search |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for game_spec in args.game or GAMES:
        game = tabula.load_game(game_spec)
        state = game.new_initial_state()
        agent = tabula.Agent(spec, game)
        gtp = Gtp(args.binary, game_spec, spec)
        py, cli, py_cpu, cli_cpu, outside = [], [], [], [], []
        for r in range(args.rounds):
            # A B, then B A: neither side always runs first.
            for side in ("py", "cli") if r % 2 == 0 else ("cli", "py"):
                if side == "py":
                    cpu, start = time.process_time(), time.perf_counter()
                    move, info = agent.choose(state)
                    py.append(time.perf_counter() - start)
                    py_cpu.append(time.process_time() - cpu)
                    outside.append(py[-1] - info.elapsed)
                else:
                    cpu, start = gtp.cpu_seconds(), time.perf_counter()
                    answer = gtp.send("reg_genmove b")
                    cli.append(time.perf_counter() - start)
                    cli_cpu.append(gtp.cpu_seconds() - cpu)
            if answer.lower() != move.lower():
                raise SystemExit(f"{game_spec} round {r}: Agent chose {move}, tabula gtp {answer}: not the same search")
            if info.nodes < args.playouts:
                raise SystemExit(f"{game_spec}: {info.nodes} playouts, fewer than asked")
        gtp.close()
        p, c = statistics.median(py), statistics.median(cli)
        pm, cm = min(py), min(cli)
        pc, cc = statistics.median(py_cpu), statistics.median(cli_cpu)
        print(f"{game_spec}: Agent wall {py} CPU {py_cpu}, gtp wall {cli} CPU {cli_cpu}, nodes {info.nodes}",
              file=sys.stderr)
        print(
            f"| {game_spec} | `{spec}` | {p:.4f} ({pm:.4f}) | {c:.4f} ({cm:.4f}) "
            f"| {100 * (p - c) / c:+.1f}% ({100 * (pm - cm) / cm:+.1f}%) "
            f"| {pc:.4f} | {cc:.4f} | {100 * (pc - cc) / cc:+.1f}% "
            f"| {1000 * statistics.median(outside):.2f} ms ({100 * statistics.median(outside) / p:.2f}%) |"
        )


if __name__ == "__main__":
    main()
