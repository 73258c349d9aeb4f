"""tabula games as OpenSpiel (``pyspiel``) Python games.

``register()`` registers each spec as a pyspiel game named ``tabula_<name>`` (the spec's
game name, ``-`` written as ``_``, with any parameters as given), so that ``pyspiel.load_game("tabula_connect4")``
and OpenSpiel's algorithms (MCTSBot, evaluate_bots, ...) run on tabula's rules. A game in
which several players can move at once (GDL) is registered with simultaneous dynamics: its
states are simultaneous nodes (``current_player()`` is ``SIMULTANEOUS``, moves go to
``apply_actions``) where several roles choose, and ordinary nodes where one does, as
OpenSpiel's own simultaneous games have; a role with no choice at a simultaneous node has
no legal action there (``evaluate_bots`` then passes ``INVALID_ACTION`` for it).

Returns are ``2 * r - 1`` of tabula's reward ``r`` in 0..1 (win +1, draw 0, loss -1), so
that two-player win/loss/draw games are zero-sum as OpenSpiel expects.
"""

from __future__ import annotations

import pathlib
import re
import zlib
from typing import Iterable, Optional

import numpy as np
import pyspiel

from ._tabula import SIMULTANEOUS, Game, State, load_game

DEFAULT_SPECS = (
    "tictactoe", "connect4", "othello", "go(size=9)", "amazons(size=6)", "amazons-steps(size=6)", "hex(size=11)",
)

_registered: dict[str, str] = {}


def _short_name(game: Game) -> str:
    """``tabula_<name>`` with any character other than a letter, digit or ``_`` written as
    ``_`` (``tabula_amazons_steps``); a GDL game adds its file's stem (``tabula_gdl_tictactoe``)."""
    if game.name == "gdl":
        found = re.search(r"file=([^,)]*)", game.spec)
        if found:
            stem = re.sub(r"[^a-z0-9]+", "_", pathlib.Path(found.group(1)).stem.lower()).strip("_")
            return f"tabula_gdl_{stem}"
        return f"tabula_gdl_{zlib.crc32(game.spec.encode()):08x}"
    return "tabula_" + re.sub(r"[^A-Za-z0-9_]", "_", game.name)


def _types(game: Game, short_name: str):
    constant = game.is_constant_sum()
    game_type = pyspiel.GameType(
        short_name=short_name,
        long_name=f"tabula {game.spec}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if game.is_simultaneous()
        else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if constant and game.num_players() == 2
        else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.num_players(),
        min_num_players=game.num_players(),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    length = game.max_game_length()
    game_info = pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions(),
        max_chance_outcomes=0,
        num_players=game.num_players(),
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0 if constant and game.num_players() == 2 else None,
        max_game_length=length if length is not None else 10_000,
    )
    return game_type, game_info


class _Observer:
    """The observation tensor of ``State.observation_tensor`` and the board as a string."""

    def __init__(self, shape):
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: "TabulaState", player: int) -> None:
        self.tensor[:] = state.tabula.observation_tensor(player).ravel()

    def string_from(self, state: "TabulaState", player: int) -> str:
        return str(state.tabula)


def _make_classes(spec: str, game_type, game_info):
    class TabulaGame(pyspiel.Game):
        def __init__(self, params=None):
            super().__init__(game_type, game_info, params or {})
            self.tabula = load_game(spec)

        def new_initial_state(self):
            return TabulaState(self, self.tabula.new_initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            return _Observer(self.tabula.observation_tensor_shape())

    class TabulaState(pyspiel.State):
        def __init__(self, game, state: State):
            super().__init__(game)
            self.tabula = state

        def current_player(self):
            p = self.tabula.current_player()
            if p == SIMULTANEOUS:
                return pyspiel.PlayerId.SIMULTANEOUS
            return pyspiel.PlayerId.TERMINAL if p < 0 else p

        def _legal_actions(self, player):
            return self.tabula.legal_actions(player)

        def _apply_action(self, action):
            self.tabula.apply_action(int(action))

        def _apply_actions(self, actions):
            # A role with no choice gets INVALID_ACTION from OpenSpiel; its only move is
            # the one tabula would play for it.
            joint = []
            for player, action in enumerate(actions):
                legal = self.tabula.legal_actions(player)
                joint.append(int(action) if action >= 0 or not legal else legal[0])
            self.tabula.apply_actions(joint)

        def _action_to_string(self, player, action):
            return self.tabula.action_to_string(player, action)

        def is_terminal(self):
            return self.tabula.is_terminal()

        def returns(self):
            if not self.tabula.is_terminal():
                return [0.0] * self.tabula.num_players()
            return [2.0 * r - 1.0 for r in self.tabula.returns()]

        def __str__(self):
            return str(self.tabula)

    return TabulaGame


def register(specs: Iterable[str] = DEFAULT_SPECS) -> list[str]:
    """Registers each spec as the pyspiel game ``tabula_<name>`` and returns those names.
    A name registered before keeps its first spec; GDL games are named after their file
    (``tabula_gdl_<stem>``)."""
    names = []
    for spec in specs:
        game = load_game(spec)
        name = _short_name(game)
        if name not in _registered:
            game_type, game_info = _types(game, name)
            pyspiel.register_game(game_type, _make_classes(game.spec, game_type, game_info))
            _registered[name] = game.spec
        names.append(name)
    return names


def load(spec: str) -> "pyspiel.Game":
    """Registers ``spec`` if needed and loads it as a pyspiel game."""
    (name,) = register([spec])
    return pyspiel.load_game(name)
