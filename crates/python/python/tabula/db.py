"""The Go game database: import SGF records, search them by position, pattern, move
sequence and metadata.

    >>> import tabula
    >>> tabula.import_games(["games/"], "games.db")          # doctest: +SKIP
    >>> db = tabula.Database("games.db")                      # doctest: +SKIP
    >>> found = db.search_pattern("..X\\n.O.\\n...", anchor="corner")   # doctest: +SKIP
    >>> tabula.db.to_arrow(found["hits"])                     # doctest: +SKIP

Searches return rows as lists of dicts; ``to_arrow`` and ``to_dataframe`` turn them into
a pyarrow Table or a pandas DataFrame when those libraries are installed.
"""

from typing import Any, Dict, List

from ._tabula import Database, import_games

__all__ = ["Database", "import_games", "to_arrow", "to_dataframe"]


def to_arrow(rows: List[Dict[str, Any]]):
    """The rows as a ``pyarrow.Table`` (needs pyarrow)."""
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on what is installed
        raise ImportError("to_arrow needs pyarrow: pip install pyarrow") from e
    return pyarrow.Table.from_pylist(rows)


def to_dataframe(rows: List[Dict[str, Any]]):
    """The rows as a ``pandas.DataFrame`` (needs pandas)."""
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on what is installed
        raise ImportError("to_dataframe needs pandas: pip install pandas") from e
    return pandas.DataFrame.from_records(rows)
