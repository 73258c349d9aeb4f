"""tabula: deterministic board games (Go, Othello, Amazons, Connect Four, Hex, tic-tac-toe
and any GDL game) with tabula's searches, from Python.

    >>> import tabula
    >>> game = tabula.load_game("connect4")
    >>> state = game.new_initial_state()
    >>> state.apply_move("4")
    >>> move, info = tabula.Agent("mcts(playouts=2000)", game).choose(state)

Games and agents are named by the spec strings the ``tabula`` command line accepts
(``tabula.games()`` lists them). States follow OpenSpiel's conventions
(``current_player()`` is -4 at the end and -2 when every player moves at once);
``returns()`` are tabula's rewards in 0..1 (win 1, draw 0.5, loss 0).
``tabula.self_play`` plays batches of games in Rust threads for learning, and
``tabula.match`` / ``tabula.tourney`` run the arena's matches with their statistics.
``tabula.sgf`` reads and writes SGF trees, and ``tabula.Database`` searches a Go game
database made by ``tabula.import_games``.
``tabula.pettingzoo`` and ``tabula.openspiel`` adapt games to those libraries.
"""

from . import db, sgf
from ._tabula import (
    SIMULTANEOUS,
    TERMINAL,
    Agent,
    Database,
    Game,
    MoveStat,
    SearchInfo,
    State,
    deserialize_state,
    games,
    import_games,
    load_game,
    match,
    self_play,
    tourney,
)

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Agent",
    "Database",
    "Game",
    "MoveStat",
    "SearchInfo",
    "State",
    "deserialize_state",
    "db",
    "games",
    "import_games",
    "load_game",
    "match",
    "self_play",
    "sgf",
    "tourney",
]
