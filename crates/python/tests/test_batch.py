"""Self-play batches, matches and tournaments run by tabula's Rust code."""

import json
import signal

import numpy as np
import pytest

import tabula
from conftest import gdl_spec


@pytest.mark.parametrize(
    "spec", ["connect4", "othello(size=10,blocked=c3+h8)", "go(size=9)", "amazons(size=6)", "amazons-steps(size=6)"]
)
def test_self_play_steps_replay_one_call_at_a_time(spec):
    game = tabula.load_game(spec)
    batch = tabula.self_play(game, 5, threads=2, seed=3)
    steps = len(batch["actions"])
    assert batch["observations"].shape == (steps, *game.observation_tensor_shape())
    assert batch["observations"].dtype == np.uint8
    assert len(batch["game_offsets"]) == 6 and batch["game_offsets"][-1] == steps
    assert len(batch["legal_offsets"]) == steps + 1
    assert batch["returns"].shape == (5, 2) and not batch["truncated"].any()
    for g in range(5):
        state = game.new_initial_state()
        for s in range(batch["game_offsets"][g], batch["game_offsets"][g + 1]):
            player = int(batch["players"][s])
            assert player == state.current_player()
            legal = batch["legal_actions"][batch["legal_offsets"][s] : batch["legal_offsets"][s + 1]]
            assert list(legal) == state.legal_actions()
            np.testing.assert_array_equal(batch["observations"][s], state.observation_tensor(player))
            state.apply_action(int(batch["actions"][s]))
        assert state.is_terminal()
        assert list(batch["returns"][g]) == state.returns()


def test_self_play_is_the_same_whatever_the_threads_and_differs_by_seed():
    one = tabula.self_play("othello", 6, threads=1, seed=11)
    three = tabula.self_play("othello", 6, threads=3, seed=11)
    for key in one:
        np.testing.assert_array_equal(one[key], three[key])
    other = tabula.self_play("othello", 6, threads=3, seed=12)
    assert not np.array_equal(one["actions"], other["actions"])


def test_self_play_masks_agents_and_caps():
    batch = tabula.self_play("connect4", 2, agents="mcts(playouts=30,seed=1)", max_plies=6, action_masks=True)
    assert batch["action_masks"].shape == (12, 7)
    assert batch["truncated"].all() and (batch["returns"] == 0.5).all()
    for s in range(12):
        legal = batch["legal_actions"][batch["legal_offsets"][s] : batch["legal_offsets"][s + 1]]
        assert list(np.flatnonzero(batch["action_masks"][s])) == list(legal)
    seats = tabula.self_play("tictactoe", 2, agents=["alphabeta(depth=9)", "random(seed=2)"])
    assert (seats["returns"][:, 0] >= 0.5).all(), "perfect play never loses"
    with pytest.raises(ValueError, match="more than max_bytes"):
        tabula.self_play("amazons(size=10)", 1, max_plies=4, action_masks=True, max_bytes=10**6)
    with pytest.raises(ValueError, match="bytes"):
        tabula.self_play("go(size=9)", 100, max_bytes=50_000)
    blind = tabula.self_play("connect4", 3, observations=False)
    assert "observations" not in blind and len(blind["actions"]) == blind["game_offsets"][-1] > 0
    with pytest.raises(ValueError, match="3 agent specs"):
        tabula.self_play("connect4", 1, agents=["random"] * 3)
    with pytest.raises(ValueError):
        tabula.self_play("connect4", 1, agents="no_such_agent")
    with pytest.raises(ValueError):
        tabula.self_play("connect4", 1, threads=0)


def test_self_play_of_a_simultaneous_gdl_game_has_a_step_per_player():
    batch = tabula.self_play(gdl_spec("simultaneousRace.kif"), 3, seed=1)
    game_steps = np.diff(batch["game_offsets"])
    assert (game_steps % 2 == 0).all(), "both players decide at every turn"
    assert set(batch["players"]) == {0, 1}


def test_self_play_reports_progress_and_stops_on_ctrl_c():
    seen = []
    tabula.self_play("connect4", 20, threads=2, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (20, 20) and all(t == 20 for _, t in seen)

    def interrupt(done, total):
        signal.raise_signal(signal.SIGINT)

    # A process started in the background by a non-interactive shell (as CI runners may
    # start the suite) inherits SIGINT ignored, and then Python installs no handler and
    # Ctrl-C does nothing: give the test the handler an interactive session has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            tabula.self_play("go(size=19)", 100_000, threads=2, progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_match_reports_the_arenas_statistics_and_writes_resumable_results(tmp_path):
    results = tmp_path / "results.jsonl"
    records = []
    report = tabula.match(
        "tictactoe", "alphabeta(depth=9)", "random(seed=5)", games=6, jobs=2, results=str(results),
        on_game=records.append,
    )
    assert report["played"] == 6 and report["complete"]
    assert report["wld"]["losses"] == 0
    assert len(records) == 6 and {r["id"] for r in records} == set(range(6))
    assert len(results.read_text().splitlines()) == 6
    # A rerun with more games resumes from the file: only the new games are played.
    more = []
    again = tabula.match(
        "tictactoe", "alphabeta(depth=9)", "random(seed=5)", games=8, results=str(results), on_game=more.append
    )
    assert again["played"] == 8 and {r["id"] for r in more} == {6, 7}
    assert json.loads(json.dumps(again)) == again


def test_match_with_sprt_and_openings_and_tourney():
    report = tabula.match("connect4", "mcts(playouts=300)", "random", games=200, sprt=(0, 200), openings="random:2")
    assert report["sprt"] is not None and report["played"] < 200
    table = tabula.tourney("tictactoe", ["random(seed=1)", "random(seed=2)", "alphabeta(depth=9)"], games=2)
    assert len(table["standings"]) == 3 and sum(s["games"] for s in table["standings"]) == 12


def test_match_errors_are_python_exceptions():
    with pytest.raises(ValueError, match="agent 2"):
        tabula.match("tictactoe", "random", "nonsense")
    with pytest.raises(ValueError):
        tabula.match("chess", "random", "random")
    with pytest.raises(ValueError, match="jobs"):
        tabula.match("tictactoe", "random", "random", jobs=0)
    with pytest.raises(OSError):
        tabula.match("tictactoe", "random", "random", openings="/no/such/openings.txt")
    with pytest.raises(ValueError, match="depth 100000 is out of range"):
        tabula.match("tictactoe", "alphabeta", "random", depth=100_000)
    with pytest.raises(ValueError, match="nodes 0 is out of range"):
        tabula.self_play("connect4", 1, agents="mcts", nodes=0)
    game = tabula.load_game("connect4")
    with pytest.raises(ValueError, match="time_ms"):
        tabula.Agent("mcts", game).choose(game.new_initial_state(), time_ms=10**12)
    with pytest.raises(ZeroDivisionError):
        tabula.match("tictactoe", "random", "random", games=2, on_game=lambda r: 1 / 0)


def test_a_match_played_game_by_game_in_any_order_has_the_matchs_report(tmp_path):
    settings = dict(games=6, openings="random:2", seed=3)
    a, b = "alphabeta(depth=1)", "alphabeta(depth=3)"
    whole = tabula.match("connect4", a, b, results=str(tmp_path / "whole.jsonl"), **settings)
    worker = tabula.MatchWorker("connect4", a, b, **settings)
    assert worker.games == 6
    lines = [worker.play_line(i) for i in (5, 3, 1, 0, 2, 4)]
    parts = tmp_path / "parts.jsonl"
    parts.write_text("".join(line + "\n" for line in lines))
    assert tabula.match_report(str(parts)) == whole
    assert tabula.match_report([json.loads(line) for line in lines]) == whole
    again = tabula.match_report(str(tmp_path / "whole.jsonl"))
    assert again == whole
    with pytest.raises(ValueError, match="no game 6"):
        worker.play(6)
    with pytest.raises(ValueError):
        tabula.MatchWorker("connect4", a, "nonsense", games=2)
    with pytest.raises(ValueError):
        tabula.match_report([{"id": "not a record"}])
