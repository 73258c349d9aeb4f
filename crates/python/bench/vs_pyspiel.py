"""Random playouts driven from Python, one `apply_action` at a time: tabula against OpenSpiel.

Both sides run the same loop in the same process, in interleaved rounds (tabula, OpenSpiel,
tabula, OpenSpiel, ...) so that load on the machine hits both alike:

    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))

Games: Connect Four 7x6, Othello 8x8, Go 9x9 (komi 7.5; OpenSpiel's `max_game_length` set to
tabula's cap of 243 plies so games are as long on both sides) and Amazons 10x10. OpenSpiel's
Amazons takes three actions per move (amazon, destination, arrow), each with its own
`legal_actions()` call; tabula's takes one action per move from the list of whole moves
(about 2,000 at the start). Both are reported per game and per move (an Amazons move being
three OpenSpiel actions). `amazons-steps(size=10)` is tabula's Amazons in OpenSpiel's form:
three actions per move, each one square, so the two loops do the same work per step.

Run from the repository after `bash scripts/python-env`:

    target/python-env/bin/python crates/python/bench/vs_pyspiel.py [--rounds 5] [--seconds 1]
"""

import argparse
import platform
import random
import statistics
import sys
import time

import pyspiel

import tabula

# (label, tabula spec, OpenSpiel game, OpenSpiel parameters, OpenSpiel actions per move)
GAMES = [
    ("connect_four", "connect4(width=7,height=6)", "connect_four", {}, 1),
    ("othello", "othello(size=8)", "othello", {}, 1),
    ("go 9x9", "go(size=9,komi=7.5)", "go", {"board_size": 9, "komi": 7.5, "max_game_length": 243}, 1),
    ("go 9x9 superko=none", "go(size=9,komi=7.5,superko=none)", "go", {"board_size": 9, "komi": 7.5, "max_game_length": 243}, 1),
    ("amazons 10x10", "amazons(size=10)", "amazons", {}, 3),
    ("amazons 10x10 in steps", "amazons-steps(size=10)", "amazons", {}, 3),
]


def playouts(game, games, seed):
    """Plays `games` random games from the start; returns the actions applied."""
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            actions += 1
    return actions


def calibrate(game, seconds):
    """Games per round so that a round lasts about `seconds`."""
    n = 1
    while True:
        start = time.perf_counter()
        playouts(game, n, 12345)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds / 4:
            return max(1, round(n * seconds / elapsed))
        n *= 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per side (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per round and side (default 1)")
    parser.add_argument("--only", help="only the games whose label contains this text")
    args = parser.parse_args()

    print(f"# {platform.python_implementation()} {platform.python_version()}, pyspiel from open_spiel, "
          f"{args.rounds} interleaved rounds of ~{args.seconds:g} s per side", file=sys.stderr)
    rows = []
    for label, spec, os_name, os_params, per_move in GAMES:
        ours_per_move = per_move if spec.startswith("amazons-steps") else 1
        if args.only and args.only not in label:
            continue
        sides = {
            "tabula": (tabula.load_game(spec), ours_per_move),
            "pyspiel": (pyspiel.load_game(os_name, os_params), per_move),
        }
        counts = {name: calibrate(game, args.seconds) for name, (game, _) in sides.items()}
        rates = {name: [] for name in sides}
        moves = {name: [] for name in sides}
        for r in range(args.rounds):
            for name, (game, actions_per_move) in sides.items():
                n = counts[name]
                start = time.perf_counter()
                actions = playouts(game, n, 1000 * r)
                elapsed = time.perf_counter() - start
                rates[name].append(n / elapsed)
                moves[name].append(actions / actions_per_move / elapsed)
        t, o = statistics.median(rates["tabula"]), statistics.median(rates["pyspiel"])
        tm, om = statistics.median(moves["tabula"]), statistics.median(moves["pyspiel"])
        rows.append((label, t, o, tm, om))
        print(f"{label}: tabula {t:,.0f} games/s ({tm:,.0f} moves/s), pyspiel {o:,.0f} games/s "
              f"({om:,.0f} moves/s), ratio {t / o:.2f}", file=sys.stderr)

    print("| game | tabula games/s | pyspiel games/s | ratio | tabula moves/s | pyspiel moves/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, t, o, tm, om in rows:
        print(f"| {label} | {t:,.0f} | {o:,.0f} | {t / o:.2f} | {tm:,.0f} | {om:,.0f} |")


if __name__ == "__main__":
    main()
