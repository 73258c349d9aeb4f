#!/usr/bin/env python3
"""GTP front end for OpenSpiel's MCTS on its `amazons` game, so `tabula match` can play it.

OpenSpiel (`pip install open_spiel`) splits an Amazons move into three decisions (the amazon,
its target, the arrow), each a ply of its game tree; its `MCTSBot` searches each decision
with random-rollout evaluation. This adapter keeps an OpenSpiel state in step with the game,
answers `genmove` by letting the bot take the three decisions, and `play` by applying the
three parts of a move such as `D1-D7-G7`. Time per move is split evenly between the three
decisions; the number of simulations per decision is calibrated from the measured speed so
that the bot uses its time (OpenSpiel's MCTS has no time control of its own): before each
decision a short probe search on the current position measures the speed there, since
rollouts get much faster as the board fills up.

The start positions of OpenSpiel's 6x6, 8x8 and 10x10 boards are the standard ones that
tabula uses, and its first player (`X`, at the bottom) is White, who moves first.

Usage: openspiel_amazons_gtp.py [SECONDS_PER_MOVE] [UCT_C] [SEED]
"""

import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

FILES = "abcdefghijkl"


class Player:
    def __init__(self, seconds, uct_c, seed):
        self.seconds = seconds
        self.uct_c = uct_c
        self.rng = np.random.RandomState(seed)
        self.size = 10
        self.new_game()

    def new_game(self):
        self.game = pyspiel.load_game("amazons", {"board_size": self.size})
        self.state = self.game.new_initial_state()

    def search(self, state, sims):
        bot = mcts.MCTSBot(
            self.game,
            self.uct_c,
            sims,
            mcts.RandomRolloutEvaluator(1, self.rng),
            random_state=self.rng,
            solve=True,
        )
        return bot.step(state)

    def square(self, text):
        text = text.strip().lower()
        if len(text) < 2 or text[0] not in FILES or not text[1:].isdigit():
            raise ValueError(f"{text} is not a square")
        col = FILES.index(text[0])
        rank = int(text[1:])
        if not (0 <= col < self.size and 1 <= rank <= self.size):
            raise ValueError(f"square {text} is off the board")
        return (self.size - rank) * self.size + col

    def name(self, action):
        row, col = divmod(action, self.size)
        return f"{FILES[col]}{self.size - row}".upper()

    def colour_to_move(self):
        return "white" if self.state.current_player() == 0 else "black"

    def play(self, colour, move):
        if self.state.is_terminal():
            raise ValueError("the game is over")
        if colour != self.colour_to_move():
            raise ValueError(f"{colour} is not to move")
        parts = move.replace("/", "-").replace("x", "-").replace("X", "-").split("-")
        if len(parts) != 3:
            raise ValueError("a move is FROM-TO-ARROW")
        actions = [self.square(p) for p in parts]
        trial = self.state.clone()
        for a in actions:
            if a not in trial.legal_actions():
                raise ValueError("illegal move")
            trial.apply_action(a)
        self.state = trial

    def genmove(self, colour):
        if self.state.is_terminal() or not self.state.legal_actions():
            return "resign"
        if colour != self.colour_to_move():
            raise ValueError(f"{colour} is not to move")
        chosen = []
        for _ in range(3):
            # A third of the move's time per decision: a probe measures the speed here, the
            # search gets what is left, with a margin for the bookkeeping.
            budget = self.seconds / 3.0
            start = time.perf_counter()
            probe = 8
            self.search(self.state, probe)
            spent = max(time.perf_counter() - start, 1e-4)
            sims = max(probe, int(probe / spent * (budget - spent) * 0.85))
            action = self.search(self.state, sims)
            self.state.apply_action(action)
            chosen.append(self.name(action))
        return "-".join(chosen)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    uct_c = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    player = Player(seconds, uct_c, seed)
    commands = [
        "protocol_version", "name", "version", "known_command", "list_commands", "list_games",
        "set_game", "boardsize", "clear_board", "play", "genmove", "time_settings", "quit",
    ]

    def reply(ok, text, cid):
        sys.stdout.write(f"{'=' if ok else '?'}{cid} {text}".rstrip() + "\n\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        cid = ""
        if words[0].isdigit():
            cid, words = words[0], words[1:]
        if not words:
            continue
        cmd, args = words[0].lower(), words[1:]
        try:
            if cmd == "protocol_version":
                reply(True, "2", cid)
            elif cmd == "name":
                reply(True, "OpenSpiel MCTS", cid)
            elif cmd == "version":
                reply(True, "open_spiel " + getattr(pyspiel, "__version__", ""), cid)
            elif cmd == "known_command":
                reply(True, "true" if args and args[0] in commands else "false", cid)
            elif cmd == "list_commands":
                reply(True, "\n".join(commands), cid)
            elif cmd == "list_games":
                reply(True, "Amazons", cid)
            elif cmd == "set_game":
                ok = bool(args) and args[0].lower() == "amazons"
                reply(ok, "" if ok else "unsupported game", cid)
            elif cmd == "boardsize":
                n = int(args[0])
                if n not in (6, 8, 10):
                    raise ValueError("unacceptable size")
                player.size = n
                player.new_game()
                reply(True, "", cid)
            elif cmd == "clear_board":
                player.new_game()
                reply(True, "", cid)
            elif cmd == "time_settings":
                reply(True, "", cid)
            elif cmd == "play":
                colour = "white" if args[0].lower().startswith("w") else "black"
                player.play(colour, args[1])
                reply(True, "", cid)
            elif cmd == "genmove":
                colour = "white" if args[0].lower().startswith("w") else "black"
                reply(True, player.genmove(colour), cid)
            elif cmd == "quit":
                reply(True, "", cid)
                break
            else:
                reply(False, "unknown command", cid)
        except (ValueError, IndexError) as e:
            reply(False, str(e) or "syntax error", cid)


if __name__ == "__main__":
    main()
