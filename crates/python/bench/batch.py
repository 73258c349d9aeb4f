"""Self-play in one call (tabula.self_play) against the same games driven from Python one
call at a time, with the same work per step: the observation of the player to move, its
legal actions, one uniformly random action played. Rounds alternate A B A B; the figures
are games per CPU-second of the process (the machine is shared, so wall time drifts; CPU
time counts every thread), median over rounds, and the ratio batch / per-call of the same
round; the two-thread run is also given in games per wall-second.

    target/python-env/bin/python crates/python/bench/batch.py [--games 200] [--rounds 3]
"""

import os

# NumPy's BLAS threads spin after use and would count against both sides' CPU time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import tabula  # noqa: E402

GAMES = ["connect4", "othello", "go(size=9)", "amazons(size=6)", "amazons-steps(size=6)"]


def per_call(game, games, seed, observe=True):
    rng = random.Random(seed)
    steps = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            if observe:
                state.observation_tensor(player)
            legal = state.legal_actions()
            state.apply_action(rng.choice(legal))
            steps += 1
        state.returns()
    return steps


def batch(game, games, seed, threads, observe=True):
    out = tabula.self_play(game, games, threads=threads, seed=seed, observations=observe)
    return len(out["actions"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.games} random games per run, {args.rounds} rounds A B A B; median games per second")
    for observe in (True, False):
        print("\nwith the observation of every step" if observe else "\nmoves only (legal actions and the action)")
        print("| game | per-call loop (CPU) | self_play, 1 thread (CPU) | ratio | self_play, 2 threads (wall) | ratio |")
        print("|---|---|---|---|---|---|")
        table(args, observe)


def table(args, observe):
    for spec in GAMES:
        game = tabula.load_game(spec)
        rates = {"loop": [], "one": [], "two": []}
        ratios_one, ratios_two = [], []
        per_call(game, 10, 99, observe)  # warm up: first calls load numpy's array machinery
        batch(game, 10, 99, 1, observe)
        for r in range(args.rounds):
            t = time.process_time()
            per_call(game, args.games, r, observe)
            loop = args.games / (time.process_time() - t)
            t = time.process_time()
            batch(game, args.games, r, 1, observe)
            one = args.games / (time.process_time() - t)
            t = time.perf_counter()
            batch(game, args.games, r, 2, observe)
            two = args.games / (time.perf_counter() - t)
            rates["loop"].append(loop)
            rates["one"].append(one)
            rates["two"].append(two)
            ratios_one.append(one / loop)
            ratios_two.append(two / loop)
        med = {k: statistics.median(v) for k, v in rates.items()}
        print(
            f"| {spec} | {med['loop']:,.0f} | {med['one']:,.0f} | {statistics.median(ratios_one):.1f}x "
            f"| {med['two']:,.0f} | {statistics.median(ratios_two):.1f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
