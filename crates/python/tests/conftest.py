import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def gdl_spec(name: str) -> str:
    """The spec of a GDL game of the repository's test data or bundled collection."""
    for folder in ("testdata/gdl", "crates/gdl/games"):
        path = REPO / folder / name
        if path.exists():
            return f"gdl(file={path})"
    raise FileNotFoundError(name)


@pytest.fixture
def gdl():
    return gdl_spec
