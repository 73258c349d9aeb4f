"""Games per minute of self-play training: in one process (EpisodeGenerator and Learner in a
loop, no Ray) and with tabula.distributed.train on a local Ray with 1 and 2 workers.

    target/python-env/bin/python crates/python/bench/distributed_train.py \\
        --game "amazons(size=8)" --games 400 --sync-every 16

Each run starts from an empty folder; the figures exclude Ray's start-up (Ray is started
once, before the timed runs) but include actor creation, the learner's first evaluation and
its checkpoints.
"""

import argparse
import tempfile
import time

import ray

import tabula
from tabula.distributed import train as dtrain


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--game", default="amazons(size=8)")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--sync-every", type=int, default=16)
    p.add_argument("--preset", default="document-td0")
    p.add_argument("--no-ray", action="store_true", help="only the one-process run")
    a = p.parse_args()
    settings = dict(preset=a.preset, seed=1)

    with tempfile.TemporaryDirectory() as out:
        generator = tabula.EpisodeGenerator(a.game, **settings)
        learner = tabula.Learner(out, a.game, **settings)
        start = time.perf_counter()
        play = apply = 0.0
        size = 0
        while learner.games < a.games:
            first, weights = learner.games, learner.weights
            last = min(first + a.sync_every, a.games)
            t0 = time.process_time()
            episodes = [generator.play(weights, g) for g in range(first, last)]
            t1 = time.process_time()
            learner.apply(episodes)
            apply += time.process_time() - t1
            play += t1 - t0
            size += sum(map(len, episodes))
        seconds = time.perf_counter() - start
        print(f"one process: {a.games} games in {seconds:.1f} s = {a.games / seconds * 60:.0f} games/min")
        print(
            f"  CPU per game: playing {play / a.games * 1e3:.2f} ms, applying {apply / a.games * 1e3:.2f} ms; "
            f"episodes {size / a.games:.0f} bytes"
        )
        base = learner.weights
    if a.no_ray:
        return

    ray.init(num_cpus=2, include_dashboard=False)
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            result = dtrain.train(
                a.game, out, a.games, workers=workers, sync_every=a.sync_every, progress=False, **settings
            )
            seconds = time.perf_counter() - start
            same = result["weights"] == base
            print(
                f"ray, {workers} worker(s): {a.games} games in {seconds:.1f} s = "
                f"{a.games / seconds * 60:.0f} games/min (weights equal to one process: {same})"
            )
    ray.shutdown()


if __name__ == "__main__":
    main()
