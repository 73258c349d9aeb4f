"""Type stubs of tabula's extension module."""

from typing import Any, Callable, Optional, Union

import numpy as np
import numpy.typing as npt

TERMINAL: int
"""``State.current_player()`` once the game is over (-4, as OpenSpiel)."""
SIMULTANEOUS: int
"""``State.current_player()`` when every player moves at once (-2, as OpenSpiel)."""

def games() -> list[dict[str, Any]]:
    """Every game: dicts of name, about, params (name, default, help), engine, agents."""

def load_game(spec: str) -> Game:
    """The game a spec names (``"go(size=9,komi=7)"``); ValueError for a bad spec."""

def deserialize_state(text: str) -> State:
    """Replays a state written by ``State.serialize()``."""

class Game:
    """A game's rules and start position."""

    @property
    def spec(self) -> str: ...
    @property
    def name(self) -> str: ...
    def new_initial_state(self) -> State: ...
    def num_players(self) -> int: ...
    def num_distinct_actions(self) -> int:
        """Every action index is below this."""
    def observation_tensor_shape(self) -> tuple[int, int, int]: ...
    def max_game_length(self) -> Optional[int]: ...
    def is_constant_sum(self) -> bool: ...
    def is_simultaneous(self) -> bool: ...
    def deserialize_state(self, text: str) -> State: ...

class State:
    """A position with the moves that led to it."""

    def current_player(self) -> int:
        """The player to move, -2 (simultaneous turn) or -4 (game over)."""
    def num_players(self) -> int: ...
    def legal_actions(self, player: Optional[int] = None) -> list[int]: ...
    def legal_actions_mask(self, player: Optional[int] = None) -> npt.NDArray[np.int8]: ...
    def legal_moves(self, player: Optional[int] = None) -> list[str]: ...
    def apply_action(self, action: int) -> None: ...
    def apply_move(self, move: str) -> None: ...
    def apply_actions(self, actions: list[int]) -> None:
        """One action per player at once (simultaneous turns)."""
    def apply_moves(self, moves: list[str]) -> None: ...
    def is_terminal(self) -> bool: ...
    def is_simultaneous_node(self) -> bool: ...
    def returns(self) -> list[float]:
        """Rewards in 0..1 per player at the end (win 1, draw 0.5, loss 0), 0 before."""
    def player_return(self, player: int) -> float: ...
    def score_text(self) -> Optional[str]: ...
    def move_number(self) -> int: ...
    def history(self) -> list[Union[str, tuple[str, ...]]]: ...
    def clone(self) -> State: ...
    def observation_tensor(self, player: Optional[int] = None) -> npt.NDArray[np.float32]:
        """Planes (pieces per player, blocked cells, to move) x height x width."""
    def action_to_string(self, player: int, action: int) -> str: ...
    def string_to_action(self, *args: Union[int, str]) -> int:
        """``string_to_action(player, text)`` or ``string_to_action(text)``."""
    def serialize(self) -> str: ...
    def game_spec(self) -> str: ...

class MoveStat:
    """One root move's statistics."""

    move: str
    visits: int
    win_rate: Optional[float]
    score: Optional[int]
    prior: Optional[float]
    pv: list[str]

class SearchInfo:
    """A search report."""

    depth: int
    seldepth: int
    nodes: int
    elapsed: float
    score: Optional[int]
    proven_in: Optional[int]
    win_rate: Optional[float]
    pv: list[str]
    root_moves: list[MoveStat]

class Agent:
    """An agent from an agent spec, for one game."""

    def __init__(self, spec: str, game: Game) -> None: ...
    @property
    def name(self) -> str: ...
    def choose(
        self,
        state: State,
        time_ms: Optional[int] = None,
        nodes: Optional[int] = None,
        player: Optional[int] = None,
        callback: Optional[Callable[[SearchInfo], None]] = None,
    ) -> tuple[str, SearchInfo]:
        """Chooses a move (GIL released while searching); returns (move, info)."""
    def stop(self) -> None:
        """Stops the running search (call from another thread)."""
