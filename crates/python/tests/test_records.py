"""SGF trees and the Go game database from Python."""

import pathlib
import signal
import threading

import pytest

import tabula
from tabula import sgf

REPO = pathlib.Path(__file__).resolve().parents[3]
KGS_SAMPLE = REPO / "testdata" / "sgf" / "kgs-sample.tar.gz"


def test_sgf_trees_read_write_and_read_back_with_variations():
    text = "(;GM[1]FF[4]SZ[9]C[a \\] bracket];B[ee];W[gc](;B[cg]LB[aa:one])(;B[gg]))(;GM[1]SZ[19];B[pd])"
    trees = sgf.parse(text)
    assert len(trees) == 2
    root = trees[0]
    assert root["SZ"] == ["9"] and root.get("C") == "a ] bracket"
    line = [n.get("B") or n.get("W") for n in root.main_line()][1:]
    assert line == ["ee", "gc", "cg"]
    after_gc = root.children[0].children[0]
    assert [c.get("B") for c in after_gc.children] == ["cg", "gg"]
    assert after_gc.children[0]["LB"] == ["aa:one"]
    again = sgf.parse(sgf.write(trees))
    assert again == trees
    after_gc.add_child({"W": ["hh"]})
    assert sgf.parse(sgf.write(root))[0].children[0].children[0].children[2].get("W") == "hh"


def test_the_sgf_module_examples_hold():
    import doctest

    result = doctest.testmod(sgf)
    assert result.attempted >= 4 and result.failed == 0


def test_a_record_thousands_of_moves_deep_needs_no_recursion():
    root = sgf.Node({"GM": ["1"], "SZ": ["19"]})
    node = root
    for i in range(20_000):
        node = node.add_child({"B" if i % 2 == 0 else "W": ["tt"]})
    [back] = sgf.parse(sgf.write(root))
    assert sum(1 for _ in back.main_line()) == 20_001


def test_bytes_are_decoded_by_the_files_charset(tmp_path):
    latin = b"(;GM[1]SZ[9]CA[ISO-8859-1]PB[Jos\xe9];B[ee])"
    assert sgf.parse(latin)[0].get("PB") == "Jos\u00e9"
    path = tmp_path / "latin.sgf"
    path.write_bytes(latin)
    [tree] = sgf.read(path)
    assert tree.get("PB") == "Jos\u00e9"
    sgf.write_file(tmp_path / "out.sgf", tree)
    assert sgf.read(tmp_path / "out.sgf")[0].get("PB") == "Jos\u00e9"


def test_bad_sgf_is_a_value_error_and_lenient_reading_lists_repairs():
    with pytest.raises(ValueError):
        sgf.parse("no game here", strict=True)
    trees, warnings = sgf.parse_with_warnings("(;GM[1]SZ[9];B[ee]garbage;W[gc])")
    assert trees and warnings
    with pytest.raises(ValueError, match="not a property identifier"):
        sgf.write(sgf.Node({"b": ["ee"]}))
    with pytest.raises(OSError):
        sgf.read("/no/such/file.sgf")


@pytest.mark.parametrize("spec", ["go(size=9)", "othello", "amazons(size=6)"])
def test_a_game_played_in_python_is_written_as_sgf(spec):
    state = tabula.load_game(spec).new_initial_state()
    for _ in range(6):
        state.apply_move(state.legal_moves()[0])
    text = sgf.record(state, players=["Ann", "Bob"])
    [tree] = sgf.parse(text, strict=False)
    assert tree.get("PB") == "Ann" or tree.get("PW") == "Ann" or "Ann" in text
    assert sum(1 for _ in tree.main_line()) >= 7, "a node per move after the root"
    with pytest.raises(ValueError, match="no SGF record"):
        sgf.record(tabula.load_game("connect4").new_initial_state())
    with pytest.raises(ValueError, match="names for"):
        sgf.record(state, players=["one"])


def test_import_then_search_by_metadata_position_pattern_and_sequence(tmp_path):
    db_path = tmp_path / "games.db"
    seen = []
    summary = tabula.import_games([str(KGS_SAMPLE)], str(db_path), batch_size=100, progress=seen.append)
    assert summary["sources"] == 500 and summary["imported"] + summary["duplicates"] + summary["rejected"] >= 500
    assert seen and seen[-1] == 500
    again = tabula.import_games([str(KGS_SAMPLE)], str(db_path))
    assert again["skipped_sources"] == 500 and again["imported"] == 0, "a second run imports nothing twice"

    db = tabula.Database(str(db_path))
    counts = db.counts()
    assert counts["ok"] == summary["imported"] and counts["positions"] > 0
    games = db.games(limit=5)
    assert len(games) == 5 and {"id", "black", "white", "result", "move_count"} <= set(games[0])
    player = games[0]["black"]
    mine = db.games(player=player, limit=10_000)
    assert mine and all(player.lower() in ((g["black"] or "").lower(), (g["white"] or "").lower()) for g in mine)

    # The position after a stored game's fifth move is found in that game, at that move.
    game_id = next(g["id"] for g in db.games(limit=100, size=19) if g["move_count"] > 10)
    record = db.game_sgf(game_id)
    found = db.search_position(sgf=record, move_number=5)
    assert {"game": game_id, "move_number": 5} in found["hits"]
    assert found["continuations"] and found["continuations"][0]["count"] >= 1

    # A 4-4 point stone alone in a corner is one of the commonest patterns: it has hits,
    # and each hit opens as a game.
    hits = db.search_pattern("......\n......\n......\n...X..\n......\n......", anchor="corner", swap_colors=True)
    assert hits["hits"] and hits["continuations"]
    first = hits["hits"][0]
    assert sgf.parse(db.game_sgf(first["game"]))[0].get("SZ") == "19"
    first_moves = [n for n in sgf.parse(record)[0].main_line() if "B" in n or "W" in n][:2]
    text = "".join(f"{'B' if 'B' in n else 'W'}[{n.get('B') or n.get('W')}]" for n in first_moves)
    found = db.search_sequence(text)
    assert any(h["game"] == game_id for h in found["hits"])
    # Every hit has a next move in the region (the stored game has more than ten) or is
    # counted as having none.
    counted = sum(c["count"] for c in found["continuations"]) + found["no_continuation"]
    assert counted == len(found["hits"]) and found["continuations"]
    exported = sgf.parse(db.export_sgf([h["game"] for h in hits["hits"][:3]]))
    assert 1 <= len(exported) <= 3

    table = tabula.db.to_arrow(hits["hits"])
    assert table.num_rows == len(hits["hits"]) and table.column_names == ["game", "move_number"]


def test_database_errors_are_python_exceptions(tmp_path):
    with pytest.raises(OSError):
        tabula.Database(str(tmp_path / "missing.db"))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(OSError):
        tabula.Database(str(junk))
    db_path = tmp_path / "g.db"
    tabula.import_games([str(KGS_SAMPLE)], str(db_path), batch_size=500)
    db = tabula.Database(str(db_path))
    with pytest.raises(ValueError):
        db.search_pattern("XZ")
    with pytest.raises(ValueError):
        db.search_position(stones=[("B", (30, 3))])
    with pytest.raises(ValueError):
        db.games(winner="nobody")


def test_a_database_search_reports_progress_and_stops_on_ctrl_c(tmp_path):
    db_path = tmp_path / "g.db"
    tabula.import_games([str(KGS_SAMPLE)], str(db_path), batch_size=500)
    db = tabula.Database(str(db_path))
    nineteen = len(db.games(size=19, limit=100_000))
    corner = "......\n......\n......\n...X..\n......\n......"
    seen = []
    full = db.search_pattern(corner, anchor="corner", progress=lambda done, total: seen.append((done, total)))
    assert full["hits"]
    # Every 19x19 game is read (the pattern is looked for in those that could hold it).
    assert seen and seen[-1] == (nineteen, nineteen) and all(t == nineteen for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)

    def interrupt(done, total):
        signal.raise_signal(signal.SIGINT)

    # As in the self-play test: give the test the SIGINT handler an interactive session has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            db.search_sequence("B[pd]", progress=interrupt)
        with pytest.raises(KeyboardInterrupt):
            db.search_pattern(corner, anchor="corner", progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    # The interrupted searches leave no stop behind: the next one finds everything again.
    assert db.search_pattern(corner, anchor="corner") == full


def test_searches_from_two_threads_each_stop_and_report_their_own(tmp_path):
    db_path = tmp_path / "g.db"
    tabula.import_games([str(KGS_SAMPLE)], str(db_path), batch_size=500)
    db = tabula.Database(str(db_path))
    nineteen = len(db.games(size=19, limit=100_000))
    black_won = len(db.games(size=19, winner="black", limit=100_000))
    assert 0 < black_won < nineteen
    corner = "......\n......\n......\n...X..\n......\n......"
    full = db.search_pattern(corner, anchor="corner")
    second = {"seen": []}

    def search_too():
        second["found"] = db.search_pattern(
            corner, anchor="corner", progress=lambda done, total: second["seen"].append((done, total))
        )

    thread = threading.Thread(target=search_too)

    def stop_here(done, total):
        # The second search starts while this one holds the database; this one then stops.
        if not thread.is_alive() and "found" not in second:
            thread.start()
        raise RuntimeError("stopped by its progress function")

    with pytest.raises(RuntimeError, match="stopped by its progress"):
        db.search_sequence("B[pd]", winner="black", progress=stop_here)
    thread.join()
    # The second search was neither stopped by the first's stop nor shown its figures (the
    # first read only the games Black won).
    assert second["found"] == full
    seen = second["seen"]
    assert seen and seen[-1] == (nineteen, nineteen) and all(t == nineteen for _, t in seen), seen
