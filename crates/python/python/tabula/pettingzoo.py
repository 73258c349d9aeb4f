"""tabula games as PettingZoo environments.

``env(spec)`` is an AEC environment for any tabula game; ``parallel_env(spec)`` is the
parallel API, meant for games where every player moves at once (GDL games with
simultaneous turns). Agents are named ``player_0``, ``player_1``, ... in turn order.

Spaces: the action space is ``Discrete(game.num_distinct_actions())``; the observation is
a ``Dict`` of ``observation`` (a float32 ``Box`` of ``game.observation_tensor_shape()``,
see ``State.observation_tensor``) and ``action_mask`` (an int8 ``Box`` with 1 on the
agent's legal actions). Rewards come at the end only: tabula's reward ``r`` in 0..1 is
given as ``2 * r - 1`` (win +1, draw 0, loss -1; a GDL goal of 50 is 0), as PettingZoo's
classic environments do.

In the AEC environment a simultaneous turn is taken by every player in turn order, each
seeing the position before the turn; the joint move is played after the last one.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ._tabula import Game, State, load_game


def _agents(game: Game) -> list[str]:
    return [f"player_{i}" for i in range(game.num_players())]


def _spaces(game: Game, agents: list[str]):
    bound = game.num_distinct_actions()
    shape = game.observation_tensor_shape()
    obs = {
        a: spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape, np.float32),
                "action_mask": spaces.Box(0, 1, (bound,), np.int8),
            }
        )
        for a in agents
    }
    act = {a: spaces.Discrete(bound) for a in agents}
    return obs, act


def _observe(state: State, player: int, bound: int) -> dict[str, np.ndarray]:
    mask = np.zeros(bound, dtype=np.int8)
    if not state.is_terminal() and (state.is_simultaneous_node() or state.current_player() == player):
        legal = [a for a in state.legal_actions(player) if a < bound]
        mask[legal] = 1
    return {"observation": state.observation_tensor(player), "action_mask": mask}


class TabulaAECEnv(AECEnv):
    """An AEC environment over one tabula game (see the module doc)."""

    metadata = {"render_modes": ["ansi"], "name": "tabula_v0", "is_parallelizable": False}

    def __init__(self, spec: str, render_mode: Optional[str] = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.game = load_game(spec)
        self.possible_agents = _agents(self.game)
        self._bound = self.game.num_distinct_actions()
        self.observation_spaces, self.action_spaces = _spaces(self.game, self.possible_agents)
        self.state = self.game.new_initial_state()
        self._joint: list[int] = []

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def _select(self) -> None:
        player = self.state.current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self.agent_selection = self.possible_agents[len(self._joint) % len(self.possible_agents)]

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        self.state = self.game.new_initial_state()
        self._joint = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return _observe(self.state, self.possible_agents.index(agent), self._bound)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.state.is_simultaneous_node():
            self._joint.append(int(action))
            if len(self._joint) == len(self.possible_agents):
                joint, self._joint = self._joint, []
                self.state.apply_actions(joint)
        else:
            self.state.apply_action(int(action))
        if self.state.is_terminal():
            for a, r in zip(self.possible_agents, self.state.returns()):
                self.rewards[a] = 2.0 * r - 1.0
                self.terminations[a] = True
        self._select()
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        return str(self.state)

    def close(self) -> None:
        pass


class TabulaParallelEnv(ParallelEnv):
    """The parallel API over one tabula game: every live agent acts at each step; in an
    alternating turn only the player to move's action is played (the others' masks are
    all zeros)."""

    metadata = {"render_modes": ["ansi"], "name": "tabula_parallel_v0"}

    def __init__(self, spec: str, render_mode: Optional[str] = None):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.game = load_game(spec)
        self.possible_agents = _agents(self.game)
        self._bound = self.game.num_distinct_actions()
        self.observation_spaces, self.action_spaces = _spaces(self.game, self.possible_agents)
        self.state = self.game.new_initial_state()
        self.agents = []

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def _observations(self):
        return {a: _observe(self.state, i, self._bound) for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        self.state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        if self.state.is_simultaneous_node():
            self.state.apply_actions([int(actions[a]) for a in self.possible_agents])
        else:
            self.state.apply_action(int(actions[self.possible_agents[self.state.current_player()]]))
        over = self.state.is_terminal()
        returns = self.state.returns()
        rewards = {a: (2.0 * r - 1.0 if over else 0.0) for a, r in zip(self.possible_agents, returns)}
        terminations = {a: over for a in self.agents}
        truncations = {a: False for a in self.agents}
        observations = self._observations()
        infos = {a: {} for a in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        return str(self.state)

    def close(self) -> None:
        pass


def env(spec: str, render_mode: Optional[str] = None) -> TabulaAECEnv:
    """An AEC environment for the game ``spec`` names (``"othello"``, ``"go(size=9)"``)."""
    return TabulaAECEnv(spec, render_mode=render_mode)


def parallel_env(spec: str, render_mode: Optional[str] = None) -> TabulaParallelEnv:
    """A parallel-API environment for the game ``spec`` names."""
    return TabulaParallelEnv(spec, render_mode=render_mode)
