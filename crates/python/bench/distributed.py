"""tabula.distributed on this machine: games per minute with one and with two worker
processes (Ray actors on a local one-node Ray), the same games by the arena's own threads
(`tabula.match(jobs=2)`, the code path of `tabula match --jobs 2`), and the scheduling cost
of one Ray call (an empty actor method's round trip, and an empty task's), with the
estimate of the speed-up on 100 nodes that follows from it.

    nice target/python-env/bin/python crates/python/bench/distributed.py [--games 60] [--rounds 2]

Wall-clock figures: run it on an otherwise idle machine, or say that it was shared.
"""

import argparse
import os
import statistics
import tempfile
import time

import ray

import tabula
from tabula import distributed

GAME = "connect4"
A = "mcts(playouts=20000,seed=1,early=false)"
B = "mcts(playouts=15000,seed=2,early=false)"
OPENINGS = "random:4"


def timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def ray_match(games, workers):
    """Wall seconds of the match, and the driver's CPU seconds per game."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "results.jsonl")
        cpu = time.process_time()
        wall = timed(
            lambda: distributed.match(
                GAME, A, B, games=games, openings=OPENINGS, workers=workers, results=path, progress=False
            )
        )
        return wall, (time.process_time() - cpu) / games


def local_match(games, jobs):
    return timed(lambda: tabula.match(GAME, A, B, games=games, jobs=jobs, openings=OPENINGS))


@ray.remote
def empty_task():
    return 0


@ray.remote(num_cpus=0)
class Empty:
    def call(self):
        return 0


def round_trips(n):
    actor = Empty.remote()
    ray.get(actor.call.remote())
    ray.get(empty_task.remote())
    actor_s = timed(lambda: [ray.get(actor.call.remote()) for _ in range(n)]) / n
    task_s = timed(lambda: [ray.get(empty_task.remote()) for _ in range(n)]) / n
    return actor_s, task_s


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    ray_match(4, 2)  # warm: actors' processes and imports
    one, two, local, driver = [], [], [], []
    for _ in range(args.rounds):
        one.append(ray_match(args.games, 1)[0])
        wall, cpu = ray_match(args.games, 2)
        two.append(wall)
        driver.append(cpu)
        local.append(local_match(args.games, 2))
    t1, t2, tl = statistics.median(one), statistics.median(two), statistics.median(local)
    driver_s = statistics.median(driver)
    per_min = lambda t: args.games / t * 60  # noqa: E731
    print(f"games: {args.games} of {GAME}, {A} vs {B}, openings {OPENINGS}; median of {args.rounds} rounds")
    print(f"ray, 1 worker:   {t1:7.2f} s  {per_min(t1):7.1f} games/min")
    print(f"ray, 2 workers:  {t2:7.2f} s  {per_min(t2):7.1f} games/min  speed-up {t1 / t2:.2f}x")
    print(f"tabula.match jobs=2: {tl:7.2f} s  {per_min(tl):7.1f} games/min")
    print(f"overhead of ray against jobs=2: {(t2 - tl) / tl * 100:+.1f}% per game")
    actor_s, task_s = round_trips(args.calls)
    print(f"empty actor call round trip: {actor_s * 1e3:.3f} ms; empty task round trip: {task_s * 1e3:.3f} ms")
    print(f"driver CPU per game (2 workers): {driver_s * 1e3:.3f} ms")
    game_s = t1 / args.games  # one worker's time per game
    cores = 100 * 2
    # Each game costs the driver one call (hand out, gather, write, count): with `driver_s`
    # of its CPU per game it keeps at most game_s / driver_s workers busy (two calls in
    # flight per actor hide the round trip while it is shorter than a game); 100 two-core
    # nodes offer `cores` workers.
    per_call = max(driver_s, actor_s)
    driver_bound = game_s / per_call
    speedup = min(cores, driver_bound)
    print(
        f"100 nodes x 2 cores: a game takes {game_s:.3f} s on one worker and max({driver_s * 1e3:.3f}, "
        f"{actor_s * 1e3:.3f}) ms of the driver -> it keeps up to {game_s:.3f} / {per_call:.6f} = "
        f"{driver_bound:.0f} workers busy; speed-up min({cores}, {driver_bound:.0f}) = {speedup:.0f}x over one worker"
    )


if __name__ == "__main__":
    main()
