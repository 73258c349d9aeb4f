"""Differential tests: tabula against OpenSpiel's independent implementations.

Each sweep plays random games of one game on both libraries in lockstep. At every
position the sets of legal moves must be equal once OpenSpiel's actions are written in
tabula's notation (the mapping goes through OpenSpiel's action strings, never through
action numbers); then one move, chosen by a seeded generator among them, is played on
both. At the end both must be over at the same ply with the same outcome, and the final
boards must be equal square by square. What each game's mapping and rules need is in its
sweep's docstring. A failure names the game's seed and tabula's move history, so it
replays exactly.

``TABULA_DIFF_GAMES`` overrides the number of games per sweep (1,000) for a quick look.
"""

import os
import random
import re

import numpy as np
import pyspiel
import pytest

import tabula

GAMES = int(os.environ.get("TABULA_DIFF_GAMES", "1000"))


def tabula_board(state, symbols):
    """The board as rows from the top, one character per square: `symbols[plane]` where
    plane `plane` of the observation seen by player 0 (player 0's pieces, player 1's,
    then blocked squares where the game has them) is set, else '.'."""
    obs = state.observation_tensor(0)
    grid = np.full(obs.shape[1:], ".", dtype="<U1")
    for plane, symbol in enumerate(symbols):
        grid[obs[plane] == 1] = symbol
    return ["".join(row) for row in grid]


def outcome(returns):
    """OpenSpiel's returns of a two-player zero-sum game: +1 win, -1 loss, 0 draw."""
    return [float(r) for r in returns]


def tabula_outcome(state):
    """tabula's rewards (1, ½, 0) as OpenSpiel's (+1, 0, -1)."""
    return [2.0 * r - 1.0 for r in state.returns()]


class Sweep:
    """One game on both sides; subclasses say how OpenSpiel's moves read in tabula's
    notation, how each side's board reads, and what may legitimately differ."""

    tabula_spec = ""
    symbols = ""

    def openspiel_game(self):
        raise NotImplementedError

    def openspiel_moves(self, state):
        """OpenSpiel's legal moves here: a dict from tabula notation to the OpenSpiel
        actions that play the move."""
        raise NotImplementedError

    def openspiel_board(self, state):
        raise NotImplementedError

    def compare_moves(self, ours, theirs, os_state):
        """Asserts the legal move sets agree and returns the moves both allow."""
        assert ours == theirs.keys(), (
            f"only tabula: {sorted(ours - set(theirs))}, only OpenSpiel: {sorted(set(theirs) - ours)}"
        )
        return ours

    def check_end(self, ours, theirs):
        """Extra checks once both games are over."""

    def play(self, seed, stats):
        rng = random.Random(seed)
        ours = self.ours = tabula.load_game(self.tabula_spec).new_initial_state()
        theirs = self.os_game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal(), (
                f"tabula over: {ours.is_terminal()}, OpenSpiel over: {theirs.is_terminal()}"
            )
            if ours.is_terminal():
                break
            assert ours.current_player() == theirs.current_player()
            tabula_moves = ours.legal_moves()
            tabula_set = set(tabula_moves)
            assert len(tabula_moves) == len(tabula_set), "tabula lists a move twice"
            theirs_moves = self.openspiel_moves(theirs)
            common = self.compare_moves(tabula_set, theirs_moves, theirs)
            if common is not tabula_set:
                tabula_moves = [m for m in tabula_moves if m in common]
            move = rng.choice(tabula_moves)
            ours.apply_move(move)
            for action in theirs_moves[move]:
                theirs.apply_action(action)
        assert tabula_outcome(ours) == outcome(theirs.returns())
        assert tabula_board(ours, self.symbols) == self.openspiel_board(theirs)
        self.check_end(ours, theirs)
        stats["plies"] += ours.move_number()
        end = tuple(tabula_outcome(ours))
        stats["outcomes"][end] = stats["outcomes"].get(end, 0) + 1

    def run(self, games=GAMES, base_seed=0):
        self.os_game = self.openspiel_game()
        stats = {"plies": 0, "outcomes": {}}
        for n in range(games):
            seed = base_seed + n
            try:
                self.play(seed, stats)
            except AssertionError as e:
                moves = " ".join(self.ours.history())
                raise AssertionError(f"{self.tabula_spec}, game seed {seed}, after {moves!r}: {e}") from e
        return stats


class ConnectFour(Sweep):
    """connect_four (7x6, four in a row) against tabula's `connect4(width=7,height=6)`.

    OpenSpiel writes a drop as the mover's mark and the 0-based column (`x0`, `o6`);
    tabula as the 1-based column (`1`..`7`). Player 0 ('x') moves first on both sides."""

    tabula_spec = "connect4(width=7,height=6)"
    symbols = "xo"

    def openspiel_game(self):
        return pyspiel.load_game("connect_four", {"columns": 7, "rows": 6, "x_in_row": 4})

    def openspiel_moves(self, state):
        player = state.current_player()
        out = {}
        for a in state.legal_actions():
            text = state.action_to_string(player, a)
            match = re.fullmatch(r"[xo](\d+)", text)
            assert match, f"unexpected OpenSpiel action string {text!r}"
            out[str(int(match.group(1)) + 1)] = [a]
        return out

    def openspiel_board(self, state):
        return str(state).split()


class Othello(Sweep):
    """othello (8x8) against tabula's `othello(size=8)`.

    Both write a square as file letter and rank, rank 1 on top (`d3`), Black ('x', player
    0) first. A side with no square to play has exactly one legal move, the pass: OpenSpiel's
    action 64 `pass`, tabula's `pass`; the game ends when neither side can play. Outcome is
    by disc count; the final boards, compared square by square, give the same count."""

    tabula_spec = "othello(size=8)"
    symbols = "xo"

    def openspiel_game(self):
        return pyspiel.load_game("othello")

    def openspiel_moves(self, state):
        player = state.current_player()
        out = {}
        for a in state.legal_actions():
            text = state.action_to_string(player, a)
            assert re.fullmatch(r"[a-h][1-8]|pass", text), f"unexpected OpenSpiel action string {text!r}"
            out[text] = [a]
        return out

    def openspiel_board(self, state):
        rows = [line.split() for line in str(state).splitlines() if re.match(r"\d ", line)]
        return ["".join("." if c == "-" else c for c in row[1:-1]) for row in rows]

    def check_end(self, ours, theirs):
        board = "".join(self.openspiel_board(theirs))
        assert ours.score_text() == f"discs: black {board.count('x')}, white {board.count('o')}"


class Amazons(Sweep):
    """amazons (10x10, standard set-up) against tabula's `amazons(size=10)`.

    OpenSpiel splits a move into three decisions by the same player: the amazon
    (`X From (r, c)`), its destination (`X To (r, c)`) and the arrow (`X Shoot: (r, c)`),
    with rows counted from 1 at the top and columns from 1 at the left. They are composed
    here into tabula's `from-to/arrow` (`d1-d7/g7`, ranks from 1 at the bottom): every
    amazon OpenSpiel offers is picked, every destination it then offers is played and
    every arrow it then offers is listed (each step undone after). The square names are
    read once from OpenSpiel's strings of all three decisions of both players (they do not
    depend on the position, which is checked). Player 0 (OpenSpiel's 'X', tabula's White,
    on a4 d1 g1 j4) moves first; a side with no move loses; there are no draws. OpenSpiel
    counts three plies per move, tabula one."""

    tabula_spec = "amazons(size=10)"
    symbols = "XO#"

    def openspiel_game(self):
        game = pyspiel.load_game("amazons")
        # A state in each of the three phases: pick a4, move it to a5, then shoot.
        start = game.new_initial_state()
        assert start.action_to_string(0, 60) == "X From (7, 1)"
        phases = [(start, "From"), (start.child(60), "To"), (start.child(60).child(50), "Shoot:")]
        self.names = []
        for cell in range(game.num_distinct_actions()):
            names = {
                self.square(state.action_to_string(player, cell), "XO"[player], kind)
                for state, kind in phases
                for player in (0, 1)
            }
            assert len(names) == 1, f"cell {cell} reads as {names}"
            self.names.append(names.pop())
        return game

    @staticmethod
    def square(text, mark, kind):
        match = re.fullmatch(mark + " " + kind + r" \((\d+), (\d+)\)", text)
        assert match, f"unexpected OpenSpiel action string {text!r}"
        row, col = int(match.group(1)), int(match.group(2))
        return "abcdefghij"[col - 1] + str(11 - row)

    def openspiel_moves(self, state):
        player = state.current_player()
        names = self.names
        out = {}
        for a in state.legal_actions():
            state.apply_action(a)
            for b in state.legal_actions():
                state.apply_action(b)
                assert state.current_player() == player
                prefix = f"{names[a]}-{names[b]}/"
                for c in state.legal_actions():
                    out[prefix + names[c]] = (a, b, c)
                state.undo_action(player, b)
            state.undo_action(player, a)
        return out

    def openspiel_board(self, state):
        return str(state).split()


class AmazonsSteps(Amazons):
    """amazons (10x10) against tabula's `amazons-steps(size=10)`, step by step.

    Here both sides take a move as three actions by the same player: the amazon, its
    destination, the arrow, each named by its square (tabula `d1`, OpenSpiel `X From (10,
    4)`). Every step's legal squares must agree, which also checks that tabula offers only
    amazons that can move and only destinations and arrows the rules allow; the game ends
    between whole moves on both sides."""

    tabula_spec = "amazons-steps(size=10)"
    # The observation's planes: amazons of each player, the picked and the landed amazon of
    # each (none once a game is over), arrows.
    symbols = "XO....#"

    def openspiel_moves(self, state):
        names = self.names
        return {names[a]: [a] for a in state.legal_actions()}


class Go(Sweep):
    """go (9x9, komi 7.5) against tabula's `go(size=9,komi=7.5,rules=chinese,superko=positional)`.

    OpenSpiel writes `B d4` / `W PASS` (columns skip 'i'); tabula `D4` / `pass`. Both forbid
    suicide and simple ko, allow a pass at any time, end after two passes in a row and
    score by area with every stone alive (Tromp-Taylor). The conventions that differ, and
    how they are handled:

    - Length: OpenSpiel ends a game after `max_game_length` actions (default 2 x 81 = 162)
      and scores it; tabula after 3 x 81 = 243 plies. OpenSpiel is given
      `max_game_length=243`, so both stop at the same ply.
    - Superko: tabula forbids any move that recreates an earlier position (positional
      superko). OpenSpiel lists such a move and ends the game as a draw when it is played.
      So OpenSpiel may list moves tabula does not; each such move is played on a clone of
      OpenSpiel's state, which must then be over with a draw (a real draw is impossible with
      komi 7.5), and the move is not chosen. Every other move must be in both sets.
    """

    tabula_spec = "go(size=9,komi=7.5,rules=chinese,superko=positional,suicide=false)"
    symbols = "XO"
    CAP = 243

    def __init__(self):
        # Moves OpenSpiel listed and tabula did not, each checked to repeat a position.
        self.superko_moves = 0

    def openspiel_game(self):
        game = pyspiel.load_game("go", {"board_size": 9, "komi": 7.5, "max_game_length": self.CAP})
        assert tabula.load_game(self.tabula_spec).max_game_length() == self.CAP
        # OpenSpiel's action strings do not depend on the position, only on the colour:
        # read them once.
        state = game.new_initial_state()
        self.names = {}
        for a in range(game.num_distinct_actions()):
            text = state.action_to_string(0, a)
            match = re.fullmatch(r"B ([a-hj-t]\d+|PASS)", text)
            assert match, f"unexpected OpenSpiel action string {text!r}"
            self.names[a] = "pass" if match.group(1) == "PASS" else match.group(1).upper()
        return game

    def openspiel_moves(self, state):
        names = self.names
        return {names[a]: [a] for a in state.legal_actions()}

    def compare_moves(self, ours, theirs, os_state):
        only_tabula = ours - set(theirs)
        assert not only_tabula, f"only tabula: {sorted(only_tabula)}"
        for move in set(theirs) - ours:
            after = os_state.child(theirs[move][0])
            assert move != "pass" and after.is_terminal() and after.returns() == [0.0, 0.0], (
                f"only OpenSpiel: {move}, which does not repeat a position there"
            )
            self.superko_moves += 1
        return ours

    def openspiel_board(self, state):
        rows = [line.split()[1] for line in str(state).splitlines() if re.match(r"\s*\d+ [+XO]+$", line)]
        return ["".join("." if c == "+" else c for c in row) for row in rows]

    def check_end(self, ours, theirs):
        # tabula's area count (White's with komi) must give OpenSpiel's winner.
        match = re.match(r"score: black ([\d.]+), white ([\d.]+) with komi", ours.score_text())
        assert match, ours.score_text()
        black, white = float(match.group(1)), float(match.group(2))
        assert black + white - 7.5 <= 81
        assert (black > white) == (outcome(theirs.returns())[0] > 0)


def report(name, stats):
    print(f"{name}: {GAMES} games, {stats['plies']} plies, outcomes {stats['outcomes']}")


def test_connect_four_agrees_with_openspiel():
    report("connect_four", ConnectFour().run())


def test_othello_agrees_with_openspiel():
    report("othello", Othello().run())


def test_amazons_agrees_with_openspiel():
    report("amazons", Amazons().run())


def test_amazons_steps_agree_with_openspiel():
    report("amazons-steps", AmazonsSteps().run())


def test_go_9x9_agrees_with_openspiel():
    sweep = Go()
    stats = sweep.run()
    report("go", stats)
    print(f"go: {sweep.superko_moves} moves listed by OpenSpiel only, each a repetition")


@pytest.mark.parametrize("sweep", [ConnectFour, Othello, Amazons, AmazonsSteps, Go])
def test_a_wrong_move_set_is_caught(sweep):
    """The comparison is not vacuous: a tabula state a few moves ahead of OpenSpiel's, where
    the move sets differ, fails it (for Go, the allowance for superko does not hide it)."""
    s = sweep()
    s.os_game = s.openspiel_game()
    ours = tabula.load_game(s.tabula_spec).new_initial_state()
    theirs = s.os_game.new_initial_state()
    while set(ours.legal_moves()) == set(s.openspiel_moves(theirs)):
        ours.apply_move(ours.legal_moves()[0])
    with pytest.raises(AssertionError):
        s.compare_moves(set(ours.legal_moves()), s.openspiel_moves(theirs), theirs)
