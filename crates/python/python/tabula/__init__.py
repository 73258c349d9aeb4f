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
``tabula.EpisodeGenerator`` and ``tabula.Learner`` split ``tabula train`` into games and
updates, which ``tabula.distributed.train`` spreads over a Ray cluster.
``tabula.pettingzoo`` and ``tabula.openspiel`` adapt games to those libraries.
"""

import hashlib
import os
import pathlib
import tempfile
from typing import Optional

from . import db, sgf
from ._tabula import (
    SIMULTANEOUS,
    TERMINAL,
    Agent,
    Database,
    EpisodeGenerator,
    Game,
    Learner,
    MatchTally,
    MatchWorker,
    MoveStat,
    SearchInfo,
    State,
    deserialize_state,
    games,
    import_games,
    load_checkpoint,
    load_game,
    match,
    match_report,
    self_play,
    tourney,
    tourney_report,
)

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Agent",
    "Database",
    "EpisodeGenerator",
    "Game",
    "Learner",
    "MatchTally",
    "MatchWorker",
    "MoveStat",
    "SearchInfo",
    "State",
    "deserialize_state",
    "db",
    "games",
    "import_games",
    "load_checkpoint",
    "load_game",
    "load_gdl",
    "match",
    "match_report",
    "self_play",
    "sgf",
    "tourney",
    "tourney_report",
]


#: Most bytes of GDL rules ``load_gdl`` takes.
MAX_GDL_BYTES = 16 << 20


def load_gdl(rules: str, max_plies: Optional[int] = None, reasoner: Optional[str] = None) -> Game:
    """A GDL game from its rules as KIF text (``load_game("gdl(file=...)")`` reads a file).

    The text is kept in a file named by its hash under the temporary folder
    (``tabula-gdl/``), so that the game's spec — and every state's ``serialize()`` and
    pickle — names rules that can be read again on this machine.
    """
    data = rules.encode("utf-8")
    if len(data) > MAX_GDL_BYTES:
        raise ValueError(f"{len(data)} bytes of GDL is more than {MAX_GDL_BYTES}")
    folder = pathlib.Path(tempfile.gettempdir()) / "tabula-gdl"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()[:24]}.kif"
    if not path.exists() or path.read_bytes() != data:
        part = folder / f"{path.name}.{os.getpid()}.part"
        part.write_bytes(data)
        os.replace(part, path)
    params = [f"file={path}"]
    if max_plies is not None:
        params.append(f"max_plies={int(max_plies)}")
    if reasoner is not None:
        params.append(f"reasoner={reasoner}")
    return load_game(f"gdl({','.join(params)})")
