import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import tabula.openspiel


def test_mcts_bot_plays_a_tabula_game_to_the_end():
    names = tabula.openspiel.register(["connect4", "tictactoe"])
    assert names == ["tabula_connect4", "tabula_tictactoe"]
    game = pyspiel.load_game("tabula_connect4")
    assert game.num_distinct_actions() == 7 and game.num_players() == 2
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(game, 1.4, 50, mcts.RandomRolloutEvaluator(1, rng), random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        plies += 1
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    assert plies == state.tabula.move_number() >= 7


def test_observation_tensor_through_the_python_observer():
    game = tabula.openspiel.load("tictactoe")
    state = game.new_initial_state()
    state.apply_action(4)
    obs = game.make_py_observer()
    obs.set_from(state, 1)
    assert obs.dict["observation"].shape == (3, 3, 3)
    assert obs.dict["observation"][1].sum() == 1, "the opponent's mark, seen by player 1"
    assert state.action_to_string(1, 0) == state.tabula.action_to_string(1, 0)
