"""Type stubs of tabula's extension module (the Rust side of the package)."""

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

TERMINAL: int
SIMULTANEOUS: int

def games() -> List[Dict[str, Any]]:
    """Every game: name, about, params (name, default, help), engine and agents."""

def load_game(spec: str) -> Game:
    """The game a spec names (any spec the command line accepts); ValueError if bad."""

def deserialize_state(text: str) -> State:
    """A state written by `State.serialize()`."""

class Game:
    @property
    def spec(self) -> str: ...
    @property
    def name(self) -> str: ...
    def new_initial_state(self) -> State: ...
    def num_players(self) -> int: ...
    def num_distinct_actions(self) -> int: ...
    def observation_tensor_shape(self) -> Tuple[int, int, int]: ...
    def max_game_length(self) -> Optional[int]: ...
    def is_constant_sum(self) -> bool: ...
    def is_simultaneous(self) -> bool: ...
    def deserialize_state(self, text: str) -> State: ...

class State:
    def current_player(self) -> int:
        """The player to move; TERMINAL (-4) at the end, SIMULTANEOUS (-2) when all move."""
    def num_players(self) -> int: ...
    def legal_actions(self, player: Optional[int] = None) -> List[int]: ...
    def legal_actions_mask(self, player: Optional[int] = None) -> npt.NDArray[np.int8]: ...
    def legal_moves(self, player: Optional[int] = None) -> List[str]: ...
    def apply_action(self, action: int) -> None: ...
    def apply_move(self, text: str) -> None: ...
    def apply_actions(self, actions: Sequence[int]) -> None: ...
    def apply_moves(self, moves: Sequence[str]) -> None: ...
    def is_terminal(self) -> bool: ...
    def is_simultaneous_node(self) -> bool: ...
    def returns(self) -> List[float]: ...
    def player_return(self, player: int) -> float: ...
    def score_text(self) -> Optional[str]: ...
    def move_number(self) -> int: ...
    def history(self) -> List[Union[str, Tuple[str, ...]]]: ...
    def clone(self) -> State: ...
    def observation_tensor(self, player: Optional[int] = None) -> npt.NDArray[np.float32]: ...
    def action_to_string(self, player: int, action: int) -> str: ...
    def string_to_action(self, *args: Union[int, str]) -> int: ...
    def serialize(self) -> str: ...
    def game_spec(self) -> str: ...

class MoveStat:
    move: str
    visits: int
    win_rate: Optional[float]
    score: Optional[int]
    prior: Optional[float]
    pv: List[str]

class SearchInfo:
    depth: int
    seldepth: int
    nodes: int
    elapsed: float
    score: Optional[int]
    proven_in: Optional[int]
    win_rate: Optional[float]
    pv: List[str]
    root_moves: List[MoveStat]

class Agent:
    def __init__(self, spec: str, game: Game) -> None: ...
    @property
    def name(self) -> str: ...
    def choose(
        self,
        state: State,
        time_ms: Optional[int] = None,
        nodes: Optional[int] = None,
        player: Optional[int] = None,
        callback: Optional[Callable[[SearchInfo], Any]] = None,
        analyse: bool = False,
    ) -> Tuple[str, SearchInfo]: ...
    def stop(self) -> None: ...

def self_play(
    game: Union[Game, str],
    games: int,
    agents: Union[None, str, Sequence[str]] = None,
    threads: int = 1,
    seed: int = 0,
    max_plies: Optional[int] = None,
    time_ms: Optional[int] = None,
    nodes: Optional[int] = None,
    observations: bool = True,
    action_masks: bool = False,
    max_bytes: int = ...,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> Dict[str, np.ndarray]:
    """Games played in Rust threads, every step as arrays (see help(tabula.self_play))."""

def match(
    game: str,
    a: str,
    b: str,
    games: int = 10,
    jobs: int = 1,
    time_ms: Optional[int] = None,
    nodes: Optional[int] = None,
    depth: Optional[int] = None,
    openings: Optional[str] = None,
    seed: int = 1,
    max_plies: Optional[int] = None,
    sprt: Optional[Tuple[float, float]] = None,
    results: Optional[Union[str, os.PathLike]] = None,
    on_game: Optional[Callable[[Dict[str, Any]], Any]] = None,
    progress: bool = False,
) -> Dict[str, Any]:
    """A match through tabula's arena; the report as `tabula match --json` prints it."""

def tourney(
    game: str,
    agents: Sequence[str],
    games: int = 2,
    gauntlet: bool = False,
    jobs: int = 1,
    time_ms: Optional[int] = None,
    nodes: Optional[int] = None,
    depth: Optional[int] = None,
    openings: Optional[str] = None,
    seed: int = 1,
    max_plies: Optional[int] = None,
    results: Optional[Union[str, os.PathLike]] = None,
    on_game: Optional[Callable[[Dict[str, Any]], Any]] = None,
    progress: bool = False,
) -> Dict[str, Any]:
    """A tournament through tabula's arena; the report as `tabula tourney --json` prints it."""

class MatchWorker:
    def __init__(
        self,
        game: str,
        a: str,
        b: str,
        games: int,
        time_ms: Optional[int] = None,
        nodes: Optional[int] = None,
        depth: Optional[int] = None,
        openings: Optional[str] = None,
        seed: int = 1,
        max_plies: Optional[int] = None,
    ) -> None: ...
    @staticmethod
    def tournament(
        game: str,
        agents: Sequence[str],
        games: int = 2,
        gauntlet: bool = False,
        time_ms: Optional[int] = None,
        nodes: Optional[int] = None,
        depth: Optional[int] = None,
        openings: Optional[str] = None,
        seed: int = 1,
        max_plies: Optional[int] = None,
    ) -> "MatchWorker": ...
    @property
    def games(self) -> int: ...
    def play(self, id: int) -> Dict[str, Any]: ...
    def play_line(self, id: int) -> str: ...

class EpisodeGenerator:
    """Plays a training run's games from their numbers and given weights; episodes as bytes."""

    def __init__(
        self,
        game: str,
        eval: Optional[str] = None,
        preset: str = "document-td0",
        init: str = "zeros",
        opponent: str = "self",
        eval_opponent: str = "random",
        moves: Optional[int] = None,
        alpha: Optional[float] = None,
        halve_every: Optional[int] = None,
        lambda_: Optional[float] = None,
        epsilon: Optional[float] = None,
        eval_every: Optional[int] = None,
        eval_games: Optional[int] = None,
        seed: int = 1,
    ) -> None: ...
    @property
    def features(self) -> int: ...
    def play(self, weights: Sequence[float], game_number: int) -> bytes: ...

class Learner:
    """Applies episodes in game order; keeps `out/checkpoint.json` as `tabula train` does."""

    def __init__(
        self,
        out: Union[str, os.PathLike],
        game: str,
        eval: Optional[str] = None,
        preset: str = "document-td0",
        init: str = "zeros",
        opponent: str = "self",
        eval_opponent: str = "random",
        moves: Optional[int] = None,
        alpha: Optional[float] = None,
        halve_every: Optional[int] = None,
        lambda_: Optional[float] = None,
        epsilon: Optional[float] = None,
        eval_every: Optional[int] = None,
        eval_games: Optional[int] = None,
        seed: int = 1,
    ) -> None: ...
    def apply(self, episodes: Sequence[bytes]) -> bool: ...
    @property
    def weights(self) -> List[float]: ...
    @property
    def games(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def done(self) -> bool: ...
    def save(self) -> None: ...
    def write_results(self) -> None: ...

def load_checkpoint(path: Union[str, os.PathLike]) -> Dict[str, Any]:
    """A training checkpoint, checked as the trainer reads it."""
def tourney_report(records: Union[str, os.PathLike, Sequence[Dict[str, Any]]], players: int) -> Dict[str, Any]:
    """A tournament's report rebuilt from its records by the arena's statistics."""

class MatchTally:
    def __init__(self, games: int, sprt: Optional[Tuple[float, float]] = None) -> None: ...
    def add_line(self, line: str) -> bool: ...
    @property
    def played(self) -> int: ...
    @property
    def decided(self) -> bool: ...
    def has(self, id: int) -> bool: ...
    def progress_line(self) -> str: ...
    def report_text(self, format: str = "table") -> str: ...
    def report(self) -> Dict[str, Any]: ...

def match_report(
    records: Union[str, os.PathLike, Sequence[Dict[str, Any]]],
    sprt: Optional[Tuple[float, float]] = None,
    games: Optional[int] = None,
) -> Dict[str, Any]:
    """A match's report rebuilt from its records by the arena's statistics."""

_FlatNode = Tuple[int, List[Tuple[str, List[str]]]]

def sgf_parse(data: Union[str, bytes], strict: bool = False) -> Tuple[List[List[_FlatNode]], List[str]]: ...
def sgf_write(trees: Sequence[Sequence[_FlatNode]]) -> str: ...
def state_to_sgf(state: State, players: Optional[Sequence[str]] = None, resigned: Optional[int] = None) -> str: ...

class Database:
    def __init__(self, path: Union[str, os.PathLike]) -> None: ...
    def counts(self) -> Dict[str, int]: ...
    def games(
        self,
        player: Optional[str] = None,
        date_from: Optional[int] = None,
        date_to: Optional[int] = None,
        winner: Optional[str] = None,
        size: Optional[int] = None,
        limit: int = 1000,
    ) -> List[Dict[str, Any]]: ...
    def search_position(
        self,
        sgf: Optional[str] = None,
        move_number: int = 0,
        stones: Optional[Sequence[Tuple[str, Tuple[int, int]]]] = None,
        size: int = 19,
        player: Optional[str] = None,
        date_from: Optional[int] = None,
        date_to: Optional[int] = None,
        winner: Optional[str] = None,
        board_size: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def search_pattern(
        self,
        pattern: str,
        anchor: str = "anywhere",
        swap_colors: bool = False,
        size: int = 19,
        player: Optional[str] = None,
        date_from: Optional[int] = None,
        date_to: Optional[int] = None,
        winner: Optional[str] = None,
        progress: Optional[Callable[[int, int], Any]] = None,
    ) -> Dict[str, Any]: ...
    def search_sequence(
        self,
        moves: str,
        region: Optional[Tuple[int, int, int, int]] = None,
        swap_colors: bool = False,
        size: int = 19,
        player: Optional[str] = None,
        date_from: Optional[int] = None,
        date_to: Optional[int] = None,
        winner: Optional[str] = None,
        progress: Optional[Callable[[int, int], Any]] = None,
    ) -> Dict[str, Any]: ...
    def game_sgf(self, id: int) -> Optional[str]: ...
    def export_sgf(self, ids: Sequence[int]) -> str: ...

def import_games(
    paths: Sequence[Union[str, os.PathLike]],
    db: Union[str, os.PathLike],
    batch_size: int = 4000,
    progress: Optional[Callable[[int], Any]] = None,
) -> Dict[str, Any]: ...
