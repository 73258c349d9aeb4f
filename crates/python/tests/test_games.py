import pickle
import random
import re
import threading

import numpy as np
import pytest

import tabula
from conftest import gdl_spec

SPECS = ["tictactoe", "connect4", "othello", "othello(size=10,blocked=c3+h8)", "go(size=9)", "amazons(size=6)", "hex(size=5)"]


def random_game(state, rng):
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_games_lists_every_game_with_its_parameters():
    names = [g["name"] for g in tabula.games()]
    assert {"tictactoe", "connect4", "othello", "go", "amazons", "hex", "gdl"} <= set(names)
    go = next(g for g in tabula.games() if g["name"] == "go")
    assert any(p["name"] == "komi" for p in go["params"])


@pytest.mark.parametrize("spec", SPECS + [gdl_spec("ticTacToe.kif"), gdl_spec("simultaneousRace.kif")])
def test_random_games_end_and_replay_through_serialize_and_pickle(spec):
    game = tabula.load_game(spec)
    state = random_game(game.new_initial_state(), random.Random(1))
    assert state.current_player() == tabula.TERMINAL
    assert state.legal_actions() == []
    returns = state.returns()
    assert len(returns) == game.num_players() and all(0 <= r <= 1 for r in returns)
    again = tabula.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.returns() == returns
    assert again.history() == state.history() and len(state.history()) == state.move_number()
    back = pickle.loads(pickle.dumps(state))
    assert str(back) == str(state)
    assert pickle.loads(pickle.dumps(game)).spec == game.spec


def test_actions_and_moves_agree():
    game = tabula.load_game("go(size=9)")
    state = game.new_initial_state()
    assert state.current_player() == 0
    assert len(state.legal_actions()) == 82  # every point and the pass
    assert all(a < game.num_distinct_actions() for a in state.legal_actions())
    for a in state.legal_actions():
        assert state.string_to_action(0, state.action_to_string(0, a)) == a
    assert sorted(state.string_to_action(m) for m in state.legal_moves()) == state.legal_actions()
    state.apply_move("e5")
    assert state.current_player() == 1 and [h.lower() for h in state.history()] == ["e5"]
    mask = state.legal_actions_mask()
    assert mask.dtype == np.int8 and mask.sum() == 81, "80 empty points and the pass"


def test_bad_specs_moves_and_actions_raise_value_error():
    with pytest.raises(ValueError, match="connect4"):
        tabula.load_game("chess")
    with pytest.raises(ValueError, match="width"):
        tabula.load_game("connect4(width=99)")
    state = tabula.load_game("connect4").new_initial_state()
    with pytest.raises(ValueError, match="column"):
        state.apply_move("9")
    with pytest.raises(ValueError, match="99"):
        state.apply_action(99)
    with pytest.raises(ValueError):
        state.apply_action(-1)
    with pytest.raises(ValueError, match="no player 7"):
        state.legal_actions(7)
    with pytest.raises(ValueError):
        tabula.deserialize_state("connect4(width=7,height=6)\n4\n9")
    assert state.move_number() == 0
    done = random_game(state.clone(), random.Random(2))
    with pytest.raises(ValueError, match="over"):
        done.apply_action(0)
    assert state.move_number() == 0, "a clone moves on alone"


def test_simultaneous_turns_take_one_action_per_player():
    state = tabula.load_game(gdl_spec("simultaneousRace.kif")).new_initial_state()
    assert state.current_player() == tabula.SIMULTANEOUS
    with pytest.raises(ValueError):
        state.apply_action(state.legal_actions(0)[0])
    with pytest.raises(ValueError):
        state.legal_actions()
    state.apply_moves([state.legal_moves(0)[0], state.legal_moves(1)[0]])
    assert isinstance(state.history()[0], tuple) and len(state.history()[0]) == 2


def test_observation_tensor_has_the_documented_planes():
    game = tabula.load_game("othello(size=10,blocked=c3+h8)")
    state = game.new_initial_state()
    obs = state.observation_tensor(0)
    assert obs.dtype == np.float32 and obs.shape == game.observation_tensor_shape() == (4, 10, 10)
    assert obs[0].sum() == 2 and obs[1].sum() == 2, "two discs each"
    assert obs[2].sum() == 2, "two blocked squares"
    assert obs[3].min() == 1, "player 0 to move"
    assert state.observation_tensor(1)[3].max() == 0
    amazons = tabula.load_game("amazons(size=6)").new_initial_state()
    amazons.apply_action(amazons.legal_actions()[0])
    assert amazons.observation_tensor(0)[2].sum() == 1, "one arrow"


def test_agents_choose_legal_moves_and_report():
    game = tabula.load_game("connect4")
    state = game.new_initial_state()
    agent = tabula.Agent("mcts(playouts=300,seed=3)", game)
    seen = []
    move, info = agent.choose(state, nodes=300, callback=seen.append)
    assert move in state.legal_moves()
    assert info.nodes > 0 and 0 <= info.win_rate <= 1 and info.pv[0] == move
    assert info.root_moves and {s.move for s in info.root_moves} <= set(state.legal_moves())
    assert seen and all(isinstance(i, tabula.SearchInfo) for i in seen)
    ab = tabula.Agent("alphabeta(depth=4)", game)
    move, info = ab.choose(state)
    assert move in state.legal_moves() and info.score is not None
    assert info.root_moves == [], "a plain search scores its best move only"
    move, info = ab.choose(state, analyse=True)
    assert sorted(s.move for s in info.root_moves) == sorted(state.legal_moves())
    assert info.root_moves[0].move == move and info.root_moves[0].score == info.score
    scores = [s.score for s in info.root_moves]
    assert scores == sorted(scores, reverse=True)
    with pytest.raises(ValueError, match="unknown agent"):
        tabula.Agent("deep_thought", game)
    with pytest.raises(ValueError):
        agent.choose(tabula.load_game("tictactoe").new_initial_state())


def test_a_callback_error_reaches_the_caller():
    game = tabula.load_game("connect4")

    def boom(info):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        tabula.Agent("mcts(playouts=200)", game).choose(game.new_initial_state(), nodes=200, callback=boom)


def test_a_search_is_stopped_from_another_thread():
    game = tabula.load_game("go(size=9)")
    agent = tabula.Agent("mcts", game)
    started = threading.Event()
    result = {}

    def search():
        # A day and 10^12 playouts, the most allowed: only stop() ends it.
        result["move"] = agent.choose(game.new_initial_state(), nodes=10**12, time_ms=86_400_000,
                                      callback=lambda info: started.set())

    t = threading.Thread(target=search)
    t.start()
    assert started.wait(60), "the search reports while it runs"
    agent.stop()
    t.join(60)
    assert not t.is_alive() and result["move"][0] in game.new_initial_state().legal_moves()


def test_the_type_stubs_name_everything_the_module_has():
    import ast
    import pathlib

    from tabula import _tabula

    stub = ast.parse((pathlib.Path(tabula.__file__).parent / "_tabula.pyi").read_text())
    top = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    top |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    public = {name for name in dir(_tabula) if not name.startswith("_")}
    assert public <= top, f"missing from the stubs: {public - top}"
    for cls in (n for n in stub.body if isinstance(n, ast.ClassDef)):
        names = {m.name for m in cls.body if isinstance(m, ast.FunctionDef)}
        names |= {m.target.id for m in cls.body if isinstance(m, ast.AnnAssign)}
        have = {a for a in dir(getattr(_tabula, cls.name)) if not a.startswith("_")}
        assert have <= names, f"{cls.name}: missing from the stubs: {have - names}"
    assert (pathlib.Path(tabula.__file__).parent / "py.typed").exists()


def test_a_gdl_game_from_kif_text_plays_and_round_trips():
    import pathlib

    rules = (pathlib.Path(__file__).resolve().parents[3] / "testdata" / "gdl" / "ticTacToe.kif").read_text()
    game = tabula.load_gdl(rules, max_plies=50)
    assert "max_plies=50" in game.spec and game.num_players() == 2
    state = random_game(game.new_initial_state(), random.Random(3))
    again = tabula.deserialize_state(state.serialize())
    assert again.returns() == state.returns() and again.history() == state.history()
    file_of = lambda g: re.search(r"file=([^,)]*)", g.spec).group(1)  # noqa: E731
    assert file_of(tabula.load_gdl(rules)) == file_of(game), "the same text, the same file"
    with pytest.raises(ValueError):
        tabula.load_gdl("(role x) (this is not (valid")
